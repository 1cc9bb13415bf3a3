package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Expression, Literal, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeRowJoiner
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.metric.SQLMetric

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.plans.{AsofDirection, JoinLifetime}

/**
 * The sweep of an ASOF join, a third consumer of the sorted sweep: the two sides sorted by
 * [[KeyTimeSorter]]s sharing their [[KeyOrdinals]] (so by (ordinal, key, time), the right one also
 * by its other columns), are merged in that order as [[RangeJoinSweep]] merges its sides (each
 * side's head read by a [[JoinSide]], an event lasting one tick), and each left row is output
 * once, with the right row it chooses or NULLs.
 *
 * For a left row at time t the merge has read the right side up to t: it holds `before`, the last
 * right row of the key before t, and `exact`, the first and last right rows at t (read through
 * when the right head reaches t), and the right head is the first row after t. Then
 * {{{
 *   backward: exact.last if exact matches are allowed and there is one, else before
 *   forward:  exact.first if allowed and there is one, else the head (if of the key)
 *   nearest:  the nearer of those two, backward at equal distance
 * }}}
 * each only within `tolerance`. For example, right rows at 1, 3, 3, 6 and a left row at 3:
 * before is the row at 1, exact the two at 3, the head the row at 6; without exact matches,
 * backward gives the row at 1 and forward the row at 6. The next left row, at 3 or later, starts
 * from there: the right side is read once. Distances are compared as unsigned, so times at both
 * ends of the BIGINT line do not overflow.
 *
 * Rows with a NULL key or time: a left one is output with NULLs, a right one is skipped (both
 * sort first). Memory: the three rows held (copies), reserved through [[WindowMemory]].
 */
private[execution] final class AsofJoinSweep(
    leftInput: Iterator[InternalRow],
    rightInput: Iterator[InternalRow],
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    leftTime: Expression,
    rightTime: Expression,
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean,
    leftAttributes: Seq[Attribute],
    rightAttributes: Seq[Attribute],
    ordinals: KeyOrdinals,
    memory: WindowMemory,
    numOutputRows: SQLMetric) extends Iterator[InternalRow] {

  private val keyOrder = new KeyOrder(leftKeys, ordinals)
  private val left = new JoinSide(
    leftInput,
    leftKeys,
    JoinLifetime(leftTime, leftTime),
    leftAttributes,
    preserved = true,
    keyOrder,
    memory)
  private val right = new JoinSide(
    rightInput,
    rightKeys,
    JoinLifetime(rightTime, rightTime),
    rightAttributes,
    preserved = false,
    keyOrder,
    memory)

  /** An output row: the left row's bytes, then the right row's (no per-column projection). */
  private val joiner = GenerateUnsafeRowJoiner.create(
    DataTypeUtils.fromAttributes(leftAttributes),
    DataTypeUtils.fromAttributes(rightAttributes))
  private val nullRight =
    UnsafeProjection.create(rightAttributes.map(a => Literal(null, a.dataType)))(null).copy()

  /** The key of the left rows being swept, and its ordinal; null before the first. */
  private var key: UnsafeRow = _
  private var keyOrdinal = 0
  private val before = new HeldRow(rightAttributes.size, memory)
  private val exactFirst = new HeldRow(rightAttributes.size, memory)
  private val exactLast = new HeldRow(rightAttributes.size, memory)

  memory.holder = () =>
    if (leftKeys.isEmpty || key == null) "the right rows it holds"
    else "the right rows it holds for the key " + leftKeys.zipWithIndex.map { case (k, i) =>
      s"${k.sql}=${Literal(key.get(i, k.dataType), k.dataType)}"
    }.mkString("(", ", ", ")")

  private var started = false

  override def hasNext: Boolean = {
    if (!started) {
      left.advance()
      right.advance()
      started = true
    }
    !left.exhausted
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val chosen = if (left.live) choose() else null
    val row = joiner.join(left.row, if (chosen == null) nullRight else chosen)
    left.advance()
    numOutputRows += 1
    row
  }

  /** The right row for the left head (live), after reading the right side up to its time. */
  private def choose(): UnsafeRow = {
    val t = left.lo
    if (key == null || compareToKey(left) != 0) {
      key = left.key.copy()
      keyOrdinal = left.ordinal
      Seq(before, exactFirst, exactLast).foreach(_.clear())
    }
    if (exactLast.held && exactLast.time < t) {
      before.hold(exactLast.row, exactLast.time)
      exactFirst.clear()
      exactLast.clear()
    }
    var reading = true
    while (reading && !right.exhausted) {
      val place = if (right.live) compareToKey(right) else -1
      reading = place < 0 || (place == 0 && right.lo < t)
      if (reading) {
        if (place == 0) before.hold(right.row, right.lo)
        right.advance()
      }
    }
    if (!exactLast.held && headOfKey && right.lo == t) {
      exactFirst.hold(right.row, t)
      while (headOfKey && right.lo == t) {
        exactLast.hold(right.row, t)
        right.advance()
      }
    }
    val exact = allowExactMatches && exactLast.held
    lazy val backward: HeldRow =
      if (exact) exactLast else if (before.held && within(t - before.time)) before else null
    lazy val forward: UnsafeRow =
      if (exact) exactFirst.row else if (headOfKey && within(right.lo - t)) right.row else null
    direction match {
      case AsofDirection.Backward => rowOf(backward)
      case AsofDirection.Forward => forward
      case AsofDirection.Nearest =>
        if (backward == null) forward
        else if (forward == null) rowOf(backward)
        else if (java.lang.Long.compareUnsigned(right.lo - t, t - backward.time) < 0 && !exact) {
          forward
        } else {
          rowOf(backward)
        }
    }
  }

  private def rowOf(held: HeldRow): UnsafeRow = if (held == null) null else held.row

  /** A distance (unsigned: the two times may be at the two ends of the line) within tolerance. */
  private def within(distance: Long): Boolean =
    tolerance.forall(java.lang.Long.compareUnsigned(distance, _) <= 0)

  /** Whether the right head is live and of the current key. */
  private def headOfKey: Boolean = !right.exhausted && right.live && compareToKey(right) == 0

  /** A side's head key's place against the current key in the sides' order. */
  private def compareToKey(side: JoinSide): Int =
    keyOrder.compare(side.ordinal, side.key, keyOrdinal, key)
}

/**
 * A right row an [[AsofJoinSweep]] keeps past its side's head, with its time: one buffer, copied
 * into ([[UnsafeRow.copyFrom]]), its largest size reserved through [[WindowMemory]].
 */
private[sweep] final class HeldRow(numFields: Int, memory: WindowMemory) {
  val row = new UnsafeRow(numFields)
  row.pointTo(new Array[Byte](0), 0)
  var time = 0L
  var held = false
  private var reserved = 0L

  def hold(from: UnsafeRow, at: Long): Unit = {
    if (from.getSizeInBytes > reserved) {
      memory.reserve(from.getSizeInBytes - reserved)
      reserved = from.getSizeInBytes
    }
    row.copyFrom(from)
    time = at
    held = true
  }

  def clear(): Unit = held = false
}
