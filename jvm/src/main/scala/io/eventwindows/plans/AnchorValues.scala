package io.eventwindows.plans

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression}
import org.apache.spark.sql.types.DataType

/**
 * The per-row values of a dynamic window ([[AnchorWindow]]), the one place that knows their
 * layout in [[WindowDefinition.values]]: the `start` and `end` of an anchor's interval, then the
 * `anchor` row itself (a struct of the anchor's columns), NULL for the messages, which travel in
 * the same stream. The function's builder writes them through [[values]]; the rules read them
 * with [[AnchorValues.of]], the sweep reads a row they were projected to with [[start]], [[end]]
 * and [[anchor]], as [[WindowFields]] does for the `window` struct.
 *
 * For example `anchor_window(ts, s, e, struct(*))` over an anchor with `s = 2`, `e = 5` gives
 * the values `[2, 5, {s: 2, e: 5, ...}]`, and a message the values `[NULL, NULL, NULL]`.
 */
final case class AnchorValues(start: Expression, end: Expression, anchor: Expression) {

  /** The values in their layout, as [[WindowDefinition.values]] holds them. */
  def values: Seq[Expression] = Seq(start, end, anchor)
}

object AnchorValues {
  private val StartOrdinal = 0
  private val EndOrdinal = 1
  private val AnchorOrdinal = 2

  /** The values of a dynamic window in their layout `values`. */
  def of(values: Seq[Expression]): AnchorValues =
    AnchorValues(values(StartOrdinal), values(EndOrdinal), values(AnchorOrdinal))

  /** True if a row of the values is a message's (it has no anchor). */
  def isMessage(row: InternalRow): Boolean = row.isNullAt(AnchorOrdinal)

  /** True if a row of the values has a NULL start or end. */
  def hasNullEnd(row: InternalRow): Boolean = row.isNullAt(StartOrdinal) || row.isNullAt(EndOrdinal)

  /** The start of the interval of a row of the values. */
  def start(row: InternalRow): Long = row.getLong(StartOrdinal)

  /** The end of the interval of a row of the values. */
  def end(row: InternalRow): Long = row.getLong(EndOrdinal)

  /** The start of the interval of a row of the values, of type `timeType`, or NULL. */
  def startOrNull(row: InternalRow, timeType: DataType): Any = row.get(StartOrdinal, timeType)

  /** The end of the interval of a row of the values, of type `timeType`, or NULL. */
  def endOrNull(row: InternalRow, timeType: DataType): Any = row.get(EndOrdinal, timeType)

  /** The anchor of a row of the values, of type `anchorType` (or NULL). */
  def anchor(row: InternalRow, anchorType: DataType): Any = row.get(AnchorOrdinal, anchorType)

  /** The anchor of a row of the values as an expression over it. */
  def anchorReference(anchorType: DataType): BoundReference =
    BoundReference(AnchorOrdinal, anchorType, nullable = true)
}
