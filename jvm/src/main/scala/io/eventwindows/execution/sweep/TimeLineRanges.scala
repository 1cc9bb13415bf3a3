package io.eventwindows.execution.sweep

import scala.util.Random

import org.apache.spark.{Partitioner, TaskContext}
import org.apache.spark.rdd.{RDD, ShuffledRDD}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.eventwindows.SparkInternals

import io.eventwindows.plans.JoinLifetime
import io.eventwindows.time.TimeArithmetic

/**
 * The time line cut into ranges at `bounds` (ascending, distinct): range r holds the times with
 * r bounds at or before them. A range join without equality keys is swept range by range, each
 * range a task, so that no side has to fit in one task.
 *
 * Every pair must be met in exactly one range, where the outer, semi and anti decisions of its
 * rows are made. The rows of one side, the home side (the side whose unmatched rows the join keeps;
 * for an inner join the side with the shorter longest lifetime), go to the one range holding their
 * `lo`. The other side's rows go to every range that `[lo - reach, hi]` meets, `reach` being the
 * home side's longest `hi - lo`: a home row h meets a row o only if `h.lo <= o.hi` and
 * `o.lo <= h.hi <= h.lo + reach`, so h's range is among o's. For example, bounds (10, 20), reach 3:
 * {{{
 *   home  h [12, 14]   -> range 1
 *   other o [ 8, 11]   -> ranges of [5, 11]: 0 and 1
 *   other p [21, 30]   -> ranges of [18, 30]: 1 and 2
 * }}}
 * The other side's rows that meet no home row (NULL bounds) go nowhere; the home side's rows with
 * NULL bounds, which meet nothing but may be output, go to their task's range modulo the count.
 * Cost: each other-side row once per range it spans, so O((n + m) x ranges) at worst, never
 * O(n x m); ranges are as many as Spark's shuffle partitions.
 *
 * The limit: one home event as long as the line makes `reach` the whole line, and every row of the
 * other side then goes to every range.
 */
private[execution] final class TimeLineRanges(bounds: Array[Long]) extends Serializable {
  def count: Int = bounds.length + 1

  /** The range holding `t`. */
  def of(t: Long): Int = {
    var (low, high) = (0, bounds.length)
    while (low < high) {
      val mid = (low + high) >>> 1
      if (bounds(mid) <= t) low = mid + 1 else high = mid
    }
    low
  }

  override def toString: String = s"TimeLineRanges(${bounds.mkString(", ")})"
}

private[execution] object TimeLineRanges {

  /** How many `lo` values each task samples, as Spark's `RangePartitioner` (20 per range). */
  private def samplesPerTask(ranges: Int, tasks: Int): Int =
    Math.max(20, Math.ceil(20.0 * ranges / Math.max(1, tasks)).toInt)

  /**
   * What one task's pass over a side gives: its row count, a uniform sample of its `lo` values
   * (reservoir sampling, seeded by the task for a deterministic answer), its longest `hi - lo`.
   */
  final case class SideSample(rows: Long, sample: Array[Long], longest: Long)

  /** Samples a side: one [[SideSample]] per task. */
  def sample(
      rows: RDD[InternalRow],
      lifetime: JoinLifetime,
      attributes: Seq[Attribute],
      ranges: Int): Array[SideSample] = {
    val perTask = samplesPerTask(ranges, rows.getNumPartitions)
    SparkInternals.mapPartitions(rows) { it =>
      val bounds = UnsafeProjection.create(Seq(lifetime.lo, lifetime.hi), attributes)
      val random = new Random(TaskContext.getPartitionId())
      val sample = new Array[Long](perTask)
      var (seen, longest) = (0L, 0L)
      it.foreach { row =>
        val b = bounds(row)
        if (!b.isNullAt(0) && !b.isNullAt(1)) {
          val (lo, hi) = (b.getLong(0), b.getLong(1))
          longest = Math.max(longest, TimeArithmetic.subtract(hi, lo))
          if (seen < perTask) sample(seen.toInt) = lo
          else {
            val slot = (random.nextDouble() * (seen + 1)).toLong
            if (slot < perTask) sample(slot.toInt) = lo
          }
          seen += 1
        }
      }
      Iterator.single(SideSample(seen, sample.take(Math.min(seen, perTask).toInt), longest))
    }.collect()
  }

  /**
   * Bounds that cut the sampled `lo` values of both sides into `ranges` ranges of about equal
   * weight (each sampled value weighs its task's rows per sample).
   */
  def cut(samples: Seq[SideSample], ranges: Int): TimeLineRanges = {
    val weighted = samples.filter(_.sample.nonEmpty).flatMap { s =>
      val weight = s.rows.toDouble / s.sample.length
      s.sample.map(lo => (lo, weight))
    }.sortBy(_._1)
    val step = weighted.map(_._2).sum / ranges
    val bounds = Array.newBuilder[Long]
    var (cumulative, next, last) = (0.0, step, Long.MinValue)
    var boundCount = 0
    for ((lo, weight) <- weighted if boundCount < ranges - 1) {
      cumulative += weight
      if (cumulative >= next && lo > last) {
        bounds += lo
        boundCount += 1
        last = lo
        next += step
      }
    }
    new TimeLineRanges(bounds.result())
  }

  /**
   * A side's rows moved to their ranges' tasks through Spark's shuffle: task r of the result
   * holds the rows of range r (see the class's comment for which).
   */
  def spread(
      rows: RDD[InternalRow],
      lifetime: JoinLifetime,
      attributes: Seq[Attribute],
      ranges: TimeLineRanges,
      home: Boolean,
      reach: Long): RDD[InternalRow] = {
    val routed = SparkInternals.mapPartitions(rows) { it =>
      val bounds = UnsafeProjection.create(Seq(lifetime.lo, lifetime.hi), attributes)
      val ownRange = TaskContext.getPartitionId() % ranges.count
      it.flatMap { row =>
        val b = bounds(row)
        val known = !b.isNullAt(0) && !b.isNullAt(1)
        if (home) {
          Iterator.single((if (known) ranges.of(b.getLong(0)) else ownRange, row))
        } else if (!known) {
          Iterator.empty
        } else {
          // A reach of Long.MaxValue is saturated (a home lifetime longer than Long, across
          // the whole BIGINT line): `lo - reach` could be any time, so from the line's start.
          val from =
            if (reach == Long.MaxValue) Long.MinValue
            else TimeArithmetic.subtract(b.getLong(0), reach)
          val to = b.getLong(1)
          // Each pair is serialized by the shuffle as it is written, so the row is not copied.
          if (to < from) Iterator.empty
          else (ranges.of(from) to ranges.of(to)).iterator.map(r => (r, row))
        }
      }
    }
    val shuffled = new ShuffledRDD[Int, InternalRow, InternalRow](routed, new ByRange(ranges.count))
      .setSerializer(SparkInternals.rowSerializer(attributes.size))
    SparkInternals.mapPartitions(shuffled)(_.map(_._2))
  }

  /** Range r's rows go to partition r. */
  private final class ByRange(ranges: Int) extends Partitioner {
    override def numPartitions: Int = ranges
    override def getPartition(key: Any): Int = key.asInstanceOf[Int]
  }
}
