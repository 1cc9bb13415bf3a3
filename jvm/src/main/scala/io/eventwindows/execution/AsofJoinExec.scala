package io.eventwindows.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeReference, BindReferences, Expression
}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.plans.physical.{
  AllTuples, BroadcastDistribution, ClusteredDistribution, Distribution, Partitioning,
  SinglePartition, UnknownPartitioning, UnspecifiedDistribution
}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.execution.sweep.{
  AsofJoinProbe, AsofJoinSweep, AsofRightIndex, AsofRule, KeyOrdinals, KeyTimeSorter,
  SortedBroadcastMode, TimeLineRanges
}
import io.eventwindows.plans.{AsofDirection, AsofJoin, JoinLifetime}

/**
 * An [[AsofJoin]] as a probe of each task's right rows, sorted and held in memory, by its left
 * rows ([[AsofJoinProbe]] over an [[AsofRightIndex]]): O(m log m) for the right side's sort and
 * O(n log m) for the left side's searches, where the usual way (a union, then
 * `last(..., ignorenulls)` over a window by key and time) sorts the union and buffers each key's
 * rows in Spark's window operator.
 *
 * With keys, each side is clustered by its keys (Spark's exchanges co-partition them, as for
 * Spark's `SortMergeJoinExec`). Without keys (`byTime`), the time line is cut into ranges from a
 * sample of both sides' times, as for the range join ([[TimeLineRanges]]): each left row goes to
 * the range of its time, each right row to the range of its time and to the ranges whose left
 * rows it may be the match of across a boundary (the last right rows before a range, the first
 * after it: [[TimeLineRanges.asofNeighbours]], from a pass over the right side), so that no side
 * has to fit in one task. (Sides that may give other rows when read again go to one task.) In
 * each task the right side is sorted by a [[KeyTimeSorter]] (Spark's external sorter, with key
 * and time in its prefix; ties on (keys, time) ordered by the right side's other orderable
 * columns) and copied into the index, reserved through Spark's task memory manager; the left
 * rows then come straight from the shuffle. A task whose index is refused memory sorts the
 * right rows it gives back and the left side (the two sorters sharing one [[KeyOrdinals]], so
 * that their keys come in one order) and merges them instead ([[AsofJoinSweep]], O(1) rows held),
 * counted in the metric `numTasksFallBacked`, as Spark's hash aggregate counts the tasks that
 * fall back to sorting.
 *
 * With `broadcastRight` (the right side much smaller than the left, see [[SweepBroadcast]]), the
 * right side is broadcast, sorted once ([[SortedBroadcastMode]]), with or without keys, and the
 * left side is not moved: each task indexes the broadcast rows and probes them with its own.
 */
case class AsofJoinExec(
    leftKeys: Seq[Attribute],
    rightKeys: Seq[Attribute],
    leftTime: Expression,
    rightTime: Expression,
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean,
    byTime: Boolean,
    left: SparkPlan,
    right: SparkPlan,
    broadcastRight: Boolean = false) extends BinaryExecNode {

  private def keyed: Boolean = leftKeys.nonEmpty

  override def output: Seq[Attribute] = AsofJoin.output(left.output, right.output)

  override def requiredChildDistribution: Seq[Distribution] =
    if (broadcastRight) UnspecifiedDistribution :: BroadcastDistribution(sortedBroadcast) :: Nil
    else if (keyed) ClusteredDistribution(leftKeys) :: ClusteredDistribution(rightKeys) :: Nil
    else if (byTime) UnspecifiedDistribution :: UnspecifiedDistribution :: Nil
    else AllTuples :: AllTuples :: Nil

  /** The right side's ties on (keys, time) ordered by its other columns, where they have an order. */
  private def rightTieBreak: Seq[Attribute] =
    AsofJoin.rightTieBreak(right.output, rightKeys, rightTime)

  /** The broadcast right side's order: its keys, time and ties, as a task's sorter's. */
  private def sortedBroadcast: SortedBroadcastMode =
    SortedBroadcastMode(
      BindReferences.bindReferences(rightKeys, right.output),
      BindReferences.bindReference(rightTime, right.output),
      BindReferences.bindReferences(rightTieBreak, right.output))

  /** Every left row stays where it is, in its key's partition. */
  override def outputPartitioning: Partitioning =
    if (keyed || broadcastRight) left.outputPartitioning
    else if (byTime) UnknownPartitioning(conf.numShufflePartitions)
    else SinglePartition

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "sortTime" -> SQLMetrics.createTimingMetric(sparkContext, "sort time"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"),
    "numTasksFallBacked" ->
      SQLMetrics.createMetric(sparkContext, "number of tasks merging (index refused memory)"))

  override def simpleString(maxFields: Int): String = {
    // Columns by their names: the table function's tables have generated qualifiers.
    def sql(e: Expression): String =
      e.transform { case a: AttributeReference => a.withQualifier(Nil) }.sql
    val keys = if (keyed) {
      s"keys ${leftKeys.map(sql).mkString("(", ", ", ")")} = " +
        s"${rightKeys.map(sql).mkString("(", ", ", ")")}, "
    } else if (byTime) "no keys, ranges of time, "
    else "no keys, "
    val broadcast = if (broadcastRight) ", broadcast right" else ""
    s"AsofJoin $direction, ${keys}times ${sql(leftTime)} and ${sql(rightTime)}, tolerance " +
      s"${tolerance.getOrElse("none")}, exact matches ${if (allowExactMatches) "allowed"
        else "not allowed"}$broadcast"
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    val (leftAttributes, rightAttributes) = (left.output, right.output)
    val (lKeys, rKeys, lTime, rTime) = (leftKeys, rightKeys, leftTime, rightTime)
    val (towards, within, exact, tieBreak) =
      (direction, tolerance, allowExactMatches, rightTieBreak)
    val (sortTime, peakMemory, spillSize, merged) = (
      longMetric("sortTime"),
      longMetric("peakMemory"),
      longMetric("spillSize"),
      longMetric("numTasksFallBacked"))
    val indexLimit = EventWindowsConf.asofIndexMaxBytes
    def sortRight(rows: Iterator[InternalRow], ordinals: KeyOrdinals): Iterator[InternalRow] =
      new KeyTimeSorter(rKeys, rTime, tieBreak, rightAttributes, Some(ordinals))
        .sort(rows, sortTime, peakMemory, spillSize)

    /** One task's join: its left rows and its right rows, sorted with `ordinals`. */
    def join(
        leftPart: Iterator[InternalRow],
        sortedRight: Iterator[InternalRow],
        ordinals: KeyOrdinals): Iterator[InternalRow] = {
      val memory = WindowMemory.forTask(s"AsofJoin $towards")
      AsofRightIndex.build(
        sortedRight,
        rKeys,
        rTime,
        rightAttributes,
        ordinals,
        memory,
        indexLimit) match {
        case Right(index) =>
          peakMemory += index.bytes
          new AsofJoinProbe(
            leftPart,
            index,
            lKeys,
            lTime,
            new AsofRule(towards, within, exact),
            leftAttributes,
            rightAttributes,
            memory,
            numOutputRows)
        case Left(rightAgain) =>
          // The index was refused memory: sort the rows it gives back again, where they can
          // spill, then the left side, and merge the two.
          merged += 1
          val sortedRightAgain = sortRight(rightAgain, ordinals)
          val sortedLeft = new KeyTimeSorter(lKeys, lTime, Nil, leftAttributes, Some(ordinals))
            .sort(leftPart, sortTime, peakMemory, spillSize)
          new AsofJoinSweep(
            sortedLeft,
            sortedRightAgain,
            lKeys,
            rKeys,
            lTime,
            rTime,
            towards,
            within,
            exact,
            leftAttributes,
            rightAttributes,
            ordinals,
            memory,
            numOutputRows)
      }
    }
    if (broadcastRight) {
      val mode = sortedBroadcast
      val built = right.executeBroadcast[Array[InternalRow]]()
      left.execute().mapPartitions { leftPart =>
        val ordinals = mode.ordinals(built.value)
        join(leftPart, built.value.iterator, ordinals)
      }
    } else {
      val (leftRows, rightRows) =
        if (byTime) spreadByTime() else (left.execute(), right.execute())
      leftRows.zipPartitions(rightRows) { (leftPart, rightPart) =>
        val ordinals = new KeyOrdinals
        join(leftPart, sortRight(rightPart, ordinals), ordinals)
      }
    }
  }

  /** Without keys: both sides moved to the ranges of time (see the class's comment). */
  private def spreadByTime(): (RDD[InternalRow], RDD[InternalRow]) = {
    val (leftRows, rightRows) = (left.execute(), right.execute())
    val (leftTimes, rightTimes) =
      (JoinLifetime(leftTime, leftTime), JoinLifetime(rightTime, rightTime))
    val ranges = conf.numShufflePartitions
    val timeLine = TimeLineRanges.cut(
      (TimeLineRanges.sample(leftRows, leftTimes, left.output, ranges) ++
        TimeLineRanges.sample(rightRows, rightTimes, right.output, ranges)).toIndexedSeq,
      ranges)
    val neighbours = TimeLineRanges.asofNeighbours(
      timeLine,
      TimeLineRanges.extents(rightRows, rightTime, right.output, timeLine),
      backward = direction != AsofDirection.Forward,
      forward = direction != AsofDirection.Backward)
    (
      TimeLineRanges
        .spread(leftRows, leftTimes, left.output, timeLine.count, TimeLineRanges.Home(timeLine)),
      TimeLineRanges.spread(rightRows, rightTimes, right.output, timeLine.count, neighbours))
  }

  override protected def withNewChildrenInternal(
      newLeft: SparkPlan,
      newRight: SparkPlan): AsofJoinExec =
    copy(left = newLeft, right = newRight)
}

/**
 * Plans every [[AsofJoin]] as an [[AsofJoinExec]] (it has no other plan), its right side
 * broadcast where [[SweepBroadcast]] says so (an ASOF join keeps every left row, so only the
 * right side can be).
 */
object AsofJoinStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case j: AsofJoin =>
      val broadcastRight = SweepBroadcast.worthIt(j.right, j.left)
      AsofJoinExec(
        j.leftKeys,
        j.rightKeys,
        j.leftTime,
        j.rightTime,
        j.direction,
        j.tolerance,
        j.allowExactMatches,
        byTime = !broadcastRight && j.leftKeys.isEmpty && j.left.deterministic &&
          j.right.deterministic,
        planLater(j.left),
        planLater(j.right),
        broadcastRight) :: Nil
    case _ => Nil
  }
}
