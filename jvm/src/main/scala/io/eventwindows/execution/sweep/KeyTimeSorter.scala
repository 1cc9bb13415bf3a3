package io.eventwindows.execution.sweep

import java.util.concurrent.TimeUnit.NANOSECONDS

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Attribute, AttributeSet, BoundReference, Expression, RowOrdering, SortOrder,
  UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.UnsafeExternalRowSorter
import org.apache.spark.sql.execution.UnsafeExternalRowSorter.PrefixComputer
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators

import io.eventwindows.plans.WindowDefinition
import io.eventwindows.time.TimeArithmetic

/**
 * Sorts one partition for the sweep: the rows of each key together, each key's rows by start, and
 * rows with equal starts by `tieBreak` (ascending, NULLs first), so that the sweep sees a
 * deterministic order.
 *
 * Spark's sort by (keys, start) takes its 64-bit sort prefix from the first key alone, so two rows
 * of one key always tie on it and are compared by reading both records from memory: with few keys
 * per partition, nearly every comparison. This sort puts both parts in the prefix: the key's
 * ordinal (the order in which this partition first saw the key, from a hash map) in the high bits
 * and the start, relative to the first start seen, in the low bits. The order is
 * (ordinal, keys, start): each key's rows together and by start, though the keys are not in key
 * order, which the sweep does not need. Records are read only on ties: equal starts, starts beyond
 * the prefix's range (clamped, so still in order), and keys past the first [[SharedOrdinal]],
 * which share that ordinal and no time part, so their records decide (this bounds the map).
 *
 * Memory, spilling and clean-up are Spark's `UnsafeExternalRowSorter`'s, as in `SortExec`.
 */
private[execution] final class KeyTimeSorter(
    keys: Seq[Expression],
    start: Expression,
    tieBreak: Seq[Expression],
    input: Seq[Attribute],
    sharedOrdinals: Option[KeyOrdinals] = None) {
  import KeyTimeSorter._

  private val keyProjection = UnsafeProjection.create(keys, input)
  private val startProjection = UnsafeProjection.create(Seq(start), input)
  private val ordinals = sharedOrdinals.getOrElse(new KeyOrdinals)
  private var origin = 0L
  private var originSet = false

  private val prefixComputer = new PrefixComputer {
    private val prefix = new PrefixComputer.Prefix

    override def computePrefix(row: InternalRow): PrefixComputer.Prefix = {
      val ordinal = ordinalOf(row)
      // Keys that share the last ordinal must not be ordered by time first: their time part is
      // constant, and their records decide.
      val time = if (ordinal == SharedOrdinal) 0L else timePart(row)
      prefix.value = (ordinal.toLong << TimeBits) | time
      prefix
    }
  }

  /** The rows, sorted; `sortTime`, `peakMemory` and `spillSize` as in Spark's SortExec. */
  def sort(
      rows: Iterator[InternalRow],
      sortTime: SQLMetric,
      peakMemory: SQLMetric,
      spillSize: SQLMetric): Iterator[InternalRow] = {
    val ordering = RowOrdering.create(
      (keys ++ (start +: tieBreak)).map(SortOrder(_, Ascending)),
      input)
    val sorter = UnsafeExternalRowSorter.create(
      DataTypeUtils.fromAttributes(input),
      ordering,
      PrefixComparators.LONG,
      prefixComputer,
      SparkEnv.get.memoryManager.pageSizeBytes,
      false
    ) // The prefix does not decide every comparison, so no radix sort.
    val metrics = TaskContext.get().taskMetrics()
    val spilledBefore = metrics.memoryBytesSpilled
    val sorted = sorter.sort(rows.asInstanceOf[Iterator[UnsafeRow]])
    sortTime += NANOSECONDS.toMillis(sorter.getSortTimeNanos)
    peakMemory += sorter.getPeakMemoryUsage
    spillSize += metrics.memoryBytesSpilled - spilledBefore
    SparkInternals.incPeakExecutionMemory(metrics, sorter.getPeakMemoryUsage)
    if (sharedOrdinals.isEmpty) ordinals.clear()
    sorted
  }

  private def ordinalOf(row: InternalRow): Int = ordinals.assign(keyProjection(row))

  /**
   * The start, relative to an origin half the range before the first start seen, clamped to the
   * range: non-decreasing in the start, so consistent with the order. NULL (first in the order)
   * is 0.
   */
  private def timePart(row: InternalRow): Long = {
    val t = startProjection(row)
    if (t.isNullAt(0)) return 0L
    val s = t.getLong(0)
    if (!originSet) {
      origin = TimeArithmetic.subtract(s, TimeRange / 2)
      originSet = true
    }
    TimeArithmetic.clamp(TimeArithmetic.subtract(s, origin), 0L, TimeRange - 1)
  }
}

private[execution] object KeyTimeSorter {

  /**
   * How rows with equal keys and start are ordered, so that every result is deterministic: by the
   * window's `order` columns, then by the input columns the aggregates, their filters and the
   * family's values (e.g. SPL delta attributes) read, in input order. Rows equal in all of these
   * are interchangeable for this query. The batch operator and the streaming replay both sort by
   * it, so a stream sees ties in the batch order.
   */
  def tieBreak(
      window: WindowDefinition,
      aggregates: Seq[AggregateFunction],
      filters: Seq[Expression],
      input: Seq[Attribute]): Seq[Expression] = {
    val read = AttributeSet((aggregates ++ filters ++ window.values).flatMap(_.references))
    window.order ++ input.filter(a => read.contains(a) && RowOrdering.isOrderable(a.dataType))
  }

  /** Bits of the prefix for the start: 2^47 ticks, 4.4 years of microseconds. */
  final val TimeBits = 47

  /** Values of the time part of the prefix. */
  final val TimeRange: Long = 1L << TimeBits

  /** Ordinals fit the 16 bits above the time part (the sign bit stays 0); the last is shared. */
  final val SharedOrdinal: Int = (1 << (63 - TimeBits)) - 1
}

/**
 * The ordinals of the keys one task has seen, in the order it first saw them, as
 * [[KeyTimeSorter]] puts them in its prefix; the keys past the first [[KeyTimeSorter.SharedOrdinal]]
 * share that one. Two sorters of one task given the same `KeyOrdinals` (the two sides of a join,
 * one sorted after the other) put their keys in one order, (ordinal, keys), so that a merge of the
 * two can walk them together ([[ordinal]] gives a key's place, [[KeyOrder]] compares two).
 */
private[execution] final class KeyOrdinals {
  import KeyTimeSorter.SharedOrdinal

  private val map = new java.util.HashMap[UnsafeRow, Integer]

  /** The key's ordinal, a new one if it is new (the key is copied). */
  def assign(key: UnsafeRow): Int = {
    val known = map.get(key)
    if (known != null) {
      known
    } else if (map.size < SharedOrdinal) {
      map.put(key.copy(), map.size)
      map.size - 1
    } else {
      SharedOrdinal
    }
  }

  /** The ordinal of a key seen before, else (a key past the map's size) the shared one. */
  def ordinal(key: UnsafeRow): Int = {
    val known = map.get(key)
    if (known != null) known else SharedOrdinal
  }

  def clear(): Unit = map.clear()
}

/**
 * The order in which [[KeyTimeSorter]]s sharing one [[KeyOrdinals]] put the keys of their rows
 * (projections of `keys`, each with its ordinal): by ordinal, and only among the keys sharing the
 * last ordinal by the keys themselves (ascending, NULLs first, as the sorters compare records). A
 * key has one ordinal and an ordinal below the shared one one key, so most comparisons are of two
 * integers. For example, with keys 'b' (ordinal 0) and 'a' (ordinal 1), 'b' comes first.
 */
private[execution] final class KeyOrder(keys: Seq[Expression], ordinals: KeyOrdinals) {
  import KeyTimeSorter.SharedOrdinal

  private val byValue = GenerateOrdering.generate(
    keys.zipWithIndex.map { case (k, i) =>
      SortOrder(BoundReference(i, k.dataType, nullable = true), Ascending)
    },
    Nil)

  /** The ordinal of a key read from the sorted rows (every key of them has been assigned one). */
  def ordinal(key: UnsafeRow): Int = ordinals.ordinal(key)

  def compare(ordinalA: Int, a: InternalRow, ordinalB: Int, b: InternalRow): Int = {
    val byOrdinal = Integer.compare(ordinalA, ordinalB)
    if (byOrdinal != 0 || ordinalA != SharedOrdinal) byOrdinal else byValue.compare(a, b)
  }
}
