package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Expression, SortOrder, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode

/**
 * A join side broadcast sorted as a task's [[KeyTimeSorter]] sorts rows, so that it is sorted once,
 * where Spark builds the broadcast relation (the driver: `BroadcastExchangeExec` collects the
 * side's rows, calls [[transform]] on them and broadcasts the array it returns), instead of once
 * in every task that reads it. The order is the sorter's: (ordinal, keys, start, `tieBreak`),
 * ordinals in the order the keys are first seen ([[KeyOrdinals]]), only the keys sharing the last
 * ordinal ordered by their values, NULLs first. Each task gives its own [[KeyOrdinals]] the broadcast keys
 * in that order ([[ordinals]], one pass, no sort), and sorts the other side with them, so that
 * both sides' keys come in one order for the sweep.
 * {{{
 *   collected:   (b, 5) (a, 1) (b, 2)      b is seen first: ordinal 0; a: ordinal 1
 *   broadcast:   (b, 2) (b, 5) (a, 1)
 *   in a task:   ordinals b -> 0, a -> 1 again, from one pass over the broadcast rows
 * }}}
 * `keys`, `start` and `tieBreak` are bound to the side's columns, so the mode is canonical as it
 * is (Spark reuses an exchange whose canonical plan is another's).
 */
private[execution] case class SortedBroadcastMode(
    keys: Seq[Expression],
    start: Expression,
    tieBreak: Seq[Expression] = Nil)
    extends BroadcastMode {

  override def transform(rows: Array[InternalRow]): Array[InternalRow] = {
    val keyOf = UnsafeProjection.create(keys)
    val ordinals = new KeyOrdinals
    val ordinal = rows.map(row => ordinals.assign(keyOf(row)))
    val startOf = UnsafeProjection.create(start :: Nil)
    val known = new Array[Boolean](rows.length)
    val starts = new Array[Long](rows.length)
    rows.indices.foreach { i =>
      val s = startOf(rows(i))
      known(i) = !s.isNullAt(0)
      if (known(i)) starts(i) = s.getLong(0)
    }
    val keyOrder = new KeyOrder(keys, ordinals)
    val otherKeyOf = UnsafeProjection.create(keys)
    val ties = GenerateOrdering.generate(tieBreak.map(SortOrder(_, Ascending)), Nil)
    val order: Array[Integer] = Array.tabulate(rows.length)(Int.box)
    java.util.Arrays.sort(
      order,
      (i: Integer, j: Integer) => {
        val byOrdinal = Integer.compare(ordinal(i), ordinal(j))
        val byKey = if (byOrdinal != 0 || ordinal(i) != KeyTimeSorter.SharedOrdinal) byOrdinal
        else keyOrder.compare(ordinal(i), keyOf(rows(i)), ordinal(j), otherKeyOf(rows(j)))
        val byStart = if (byKey != 0) byKey
        else if (known(i) && known(j)) java.lang.Long.compare(starts(i), starts(j))
        else java.lang.Boolean.compare(known(i), known(j)) // NULL first
        if (byStart != 0 || tieBreak.isEmpty) byStart else ties.compare(rows(i), rows(j))
      })
    order.map(i => rows(i))
  }

  override def transform(rows: Iterator[InternalRow], sizeHint: Option[Long]): Array[InternalRow] =
    transform(rows.toArray)

  override def canonicalized: BroadcastMode = this

  /** A task's ordinals of the broadcast keys (`rows`, as [[transform]] sorted them). */
  def ordinals(rows: Array[InternalRow]): KeyOrdinals = {
    val keyOf = UnsafeProjection.create(keys)
    val ordinals = new KeyOrdinals
    var last: UnsafeRow = null
    rows.foreach { row =>
      val key = keyOf(row)
      if (last == null || !key.equals(last)) {
        ordinals.assign(key)
        last = key.copy()
      }
    }
    ordinals
  }
}
