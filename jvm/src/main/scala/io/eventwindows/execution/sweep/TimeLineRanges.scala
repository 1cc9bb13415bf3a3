package io.eventwindows.execution.sweep

import scala.util.Random

import org.apache.spark.{Partitioner, TaskContext}
import org.apache.spark.rdd.{RDD, ShuffledRDD}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection}
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
 *
 * An ASOF join without keys is spread the same way, its left rows the home side, its right rows
 * sent by another [[Route]]: to their own range and to the ranges they are the nearest right rows
 * before or after of ([[asofNeighbours]]).
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
   * Where [[spread]] sends a side's rows with both bounds known: the ranges of `[lo, hi]`'s row.
   * Rows with a NULL bound meet nothing: a home side's go to their task's range (they may still be
   * output), another side's nowhere.
   */
  abstract class Route extends Serializable {
    def home: Boolean
    def apply(lo: Long, hi: Long): Iterator[Int]
  }

  /** The home side's route: the one range holding `lo` (see the class's comment). */
  final case class Home(ranges: TimeLineRanges) extends Route {
    override def home: Boolean = true
    override def apply(lo: Long, hi: Long): Iterator[Int] = Iterator.single(ranges.of(lo))
  }

  /**
   * The other side's route in a range join: every range `[lo - reach, hi]` meets, `reach` being
   * the home side's longest `hi - lo` (see the class's comment).
   */
  final case class Reach(ranges: TimeLineRanges, reach: Long) extends Route {
    override def home: Boolean = false
    override def apply(lo: Long, hi: Long): Iterator[Int] = {
      // A reach of Long.MaxValue is saturated (a home lifetime longer than Long, across the whole
      // BIGINT line): `lo - reach` could be any time, so from the line's start.
      val from = if (reach == Long.MaxValue) Long.MinValue else TimeArithmetic.subtract(lo, reach)
      if (hi < from) Iterator.empty else (ranges.of(from) to ranges.of(hi)).iterator
    }
  }

  /**
   * The right side's route in an ASOF join without keys ([[asofNeighbours]]): the range holding
   * its time, and the ranges it is the nearest right row before or after of (`across`, by time).
   */
  final case class Neighbours(ranges: TimeLineRanges, across: Map[Long, Array[Int]])
      extends Route {
    override def home: Boolean = false
    override def apply(lo: Long, hi: Long): Iterator[Int] =
      Iterator.single(ranges.of(lo)) ++ across.getOrElse(lo, Array.emptyIntArray).iterator
  }

  /** The least and greatest time of a side's rows in one range. */
  final case class Extent(least: Long, greatest: Long) {
    def union(other: Extent): Extent =
      Extent(Math.min(least, other.least), Math.max(greatest, other.greatest))
  }

  /** A side's [[Extent]] in each range (None where it has no row), from one pass over it. */
  def extents(
      rows: RDD[InternalRow],
      time: Expression,
      attributes: Seq[Attribute],
      ranges: TimeLineRanges): Array[Option[Extent]] = {
    val perTask = SparkInternals.mapPartitions(rows) { it =>
      val project = UnsafeProjection.create(Seq(time), attributes)
      val found = Array.fill[Option[Extent]](ranges.count)(None)
      it.foreach { row =>
        val t = project(row)
        if (!t.isNullAt(0)) {
          val (at, r) = (t.getLong(0), ranges.of(t.getLong(0)))
          found(r) = Some(found(r).fold(Extent(at, at))(_.union(Extent(at, at))))
        }
      }
      Iterator.single(found)
    }.collect()
    Array.tabulate(ranges.count) { r =>
      perTask.flatMap(_(r)).reduceOption(_.union(_))
    }
  }

  /**
   * The route of an ASOF join's right side without keys, the left side's rows going to the range
   * of their time ([[Home]]). A left row's match may lie in its own range or, across a boundary,
   * be the last right row before its range (backward; the right rows at the greatest right time
   * before it, ties included) or the first after it (forward; at the least right time after it);
   * nearest needs both. Those rows go to the range too, from the right side's `extents`. For
   * example, bounds (10, 20), right rows at 3, 12, 12 and 25, backward: range 1 gets the row at 3
   * besides its own two at 12, range 2 the two at 12, range 0 nothing more. Each range gets at
   * most the ties at two times more than its own rows.
   */
  def asofNeighbours(
      ranges: TimeLineRanges,
      extents: Array[Option[Extent]],
      backward: Boolean,
      forward: Boolean): Neighbours = {
    val across = scala.collection.mutable.Map.empty[Long, List[Int]]
    def reach(time: Long, range: Int): Unit =
      across(time) = range :: across.getOrElse(time, Nil)
    var last = Option.empty[Long]
    for (r <- 0 until ranges.count) {
      if (backward) last.foreach(reach(_, r))
      extents(r).foreach(e => last = Some(e.greatest))
    }
    var next = Option.empty[Long]
    for (r <- ranges.count - 1 to 0 by -1) {
      if (forward) next.foreach(reach(_, r))
      extents(r).foreach(e => next = Some(e.least))
    }
    Neighbours(ranges, across.map { case (t, rs) => t -> rs.toArray }.toMap)
  }

  /**
   * A side's rows moved to their ranges' tasks through Spark's shuffle: task r of the result
   * holds the rows `route` sends to range r.
   */
  def spread(
      rows: RDD[InternalRow],
      lifetime: JoinLifetime,
      attributes: Seq[Attribute],
      count: Int,
      route: Route): RDD[InternalRow] = {
    val routed = SparkInternals.mapPartitions(rows) { it =>
      val bounds = UnsafeProjection.create(Seq(lifetime.lo, lifetime.hi), attributes)
      val ownRange = TaskContext.getPartitionId() % count
      it.flatMap { row =>
        val b = bounds(row)
        val routes =
          if (!b.isNullAt(0) && !b.isNullAt(1)) route(b.getLong(0), b.getLong(1))
          else if (route.home) Iterator.single(ownRange)
          else Iterator.empty
        // Each pair is serialized by the shuffle as it is written, so the row is not copied.
        routes.map(r => (r, row))
      }
    }
    val shuffled = new ShuffledRDD[Int, InternalRow, InternalRow](routed, new ByRange(count))
      .setSerializer(SparkInternals.rowSerializer(attributes.size))
    SparkInternals.mapPartitions(shuffled)(_.map(_._2))
  }

  /** Range r's rows go to partition r. */
  private final class ByRange(ranges: Int) extends Partitioner {
    override def numPartitions: Int = ranges
    override def getPartition(key: Any): Int = key.asInstanceOf[Int]
  }
}
