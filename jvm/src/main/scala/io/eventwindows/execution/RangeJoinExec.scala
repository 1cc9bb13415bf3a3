package io.eventwindows.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight, BuildSide}
import org.apache.spark.sql.catalyst.plans.{
  FullOuter, InnerLike, JoinType, LeftExistence, LeftOuter, RightOuter
}
import org.apache.spark.sql.catalyst.plans.physical.{
  BroadcastDistribution, ClusteredDistribution, Distribution, Partitioning, PartitioningCollection,
  UnknownPartitioning, UnspecifiedDistribution
}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.execution.sweep.{
  KeyOrdinals, KeyTimeSorter, RangeJoinSweep, SortedBroadcastMode, TimeLineRanges
}
import io.eventwindows.plans.JoinLifetime

/**
 * A join whose condition holds a range ([[io.eventwindows.plans.RangeJoinShape]]), swept by a
 * [[RangeJoinSweep]] in each task: O((n + m) log + output), where Spark's own plan pairs every
 * row of a key (or, without keys, of the other side) with every other.
 *
 * With equality keys, as Spark's `SortMergeJoinExec`: each side clustered by its keys (Spark's
 * exchanges co-partition them). Without keys, the time line is cut into ranges from a sample of
 * both sides' `lo` ([[TimeLineRanges]], a small job before the join's), and each side's rows are
 * shuffled to the ranges they may meet pairs in. Either way each task sorts the right side, then
 * the left, as the windows and the ASOF join sort theirs: a [[KeyTimeSorter]] each (Spark's
 * external sorter, which spills, with key and `lo` in its prefix), sharing one [[KeyOrdinals]], so
 * that both sides' keys come in one order. `condition` is the join's condition without the keys:
 * evaluated on each candidate pair, so that the answer is Spark's.
 *
 * With `broadcast` set (a side small enough by Spark's own rule, see [[RangeJoinStrategy]]), that
 * side is broadcast, sorted once where Spark builds the broadcast ([[SortedBroadcastMode]]), and
 * the other is not shuffled: each task sorts its part of the other side, in the broadcast side's
 * order of keys, and sweeps the two. Only a side whose unmatched rows the join does not keep is
 * broadcast (each task sees all of it, so none of its rows is unmatched in every task at once).
 */
case class RangeJoinExec(
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    joinType: JoinType,
    leftLifetime: JoinLifetime,
    rightLifetime: JoinLifetime,
    condition: Option[Expression],
    left: SparkPlan,
    right: SparkPlan,
    broadcast: Option[BuildSide] = None) extends BinaryExecNode {

  private def keyed: Boolean = leftKeys.nonEmpty

  override def output: Seq[Attribute] = joinType match {
    case _: InnerLike => left.output ++ right.output
    case LeftOuter => left.output ++ right.output.map(_.withNullability(true))
    case RightOuter => left.output.map(_.withNullability(true)) ++ right.output
    case FullOuter => (left.output ++ right.output).map(_.withNullability(true))
    case LeftExistence(_) => left.output
    case other => throw new IllegalArgumentException(s"RangeJoin does not plan $other joins")
  }

  /** How the broadcast side is built: sorted by its keys and `lo`, bound to its columns. */
  private def sortedBroadcast(keys: Seq[Expression], lifetime: JoinLifetime, side: SparkPlan) =
    SortedBroadcastMode(
      BindReferences.bindReferences(keys, side.output),
      BindReferences.bindReference(lifetime.lo, side.output))

  override def requiredChildDistribution: Seq[Distribution] = {
    broadcast match {
      case Some(BuildLeft) =>
        BroadcastDistribution(sortedBroadcast(leftKeys, leftLifetime, left)) ::
          UnspecifiedDistribution :: Nil
      case Some(BuildRight) =>
        UnspecifiedDistribution ::
          BroadcastDistribution(sortedBroadcast(rightKeys, rightLifetime, right)) :: Nil
      case None if keyed =>
        ClusteredDistribution(leftKeys) :: ClusteredDistribution(rightKeys) :: Nil
      case None => UnspecifiedDistribution :: UnspecifiedDistribution :: Nil
    }
  }

  /**
   * As Spark's shuffled joins: rows stay in the partition of their side's key; as its broadcast
   * joins, in the partition of the side not broadcast.
   */
  override def outputPartitioning: Partitioning =
    if (broadcast.contains(BuildLeft)) right.outputPartitioning
    else if (broadcast.contains(BuildRight)) left.outputPartitioning
    else if (!keyed) UnknownPartitioning(conf.numShufflePartitions)
    else joinType match {
      case _: InnerLike =>
        PartitioningCollection(Seq(left.outputPartitioning, right.outputPartitioning))
      case LeftOuter | LeftExistence(_) => left.outputPartitioning
      case RightOuter => right.outputPartitioning
      case _ => UnknownPartitioning(left.outputPartitioning.numPartitions)
    }

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "sortTime" -> SQLMetrics.createTimingMetric(sparkContext, "sort time"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"))

  override def simpleString(maxFields: Int): String = {
    val keys = if (keyed) {
      s"keys ${leftKeys.map(_.sql).mkString("(", ", ", ")")} = " +
        s"${rightKeys.map(_.sql).mkString("(", ", ", ")")}, "
    } else if (broadcast.isEmpty) "no keys, ranges of time, "
    else "no keys, "
    val broadcastSide =
      broadcast.map(b => s", broadcast ${if (b == BuildLeft) "left" else "right"}").getOrElse("")
    s"RangeJoin $joinType, ${keys}lifetimes ${leftLifetime.sql} and ${rightLifetime.sql}, " +
      s"condition ${condition.map(_.sql).getOrElse("none")}$broadcastSide"
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    val (leftAttributes, rightAttributes, outputAttributes) = (left.output, right.output, output)
    val (lKeys, rKeys, lLifetime, rLifetime) = (leftKeys, rightKeys, leftLifetime, rightLifetime)
    val (joinCondition, kind) = (condition, joinType)
    val (sortTime, peakMemory, spillSize) =
      (longMetric("sortTime"), longMetric("peakMemory"), longMetric("spillSize"))
    def sorted(
        rows: Iterator[InternalRow],
        keys: Seq[Expression],
        lifetime: JoinLifetime,
        attributes: Seq[Attribute],
        ordinals: KeyOrdinals) =
      new KeyTimeSorter(keys, lifetime.lo, Nil, attributes, Some(ordinals))
        .sort(rows, sortTime, peakMemory, spillSize)
    def sweep(
        sortedLeft: Iterator[InternalRow],
        sortedRight: Iterator[InternalRow],
        ordinals: KeyOrdinals) =
      new RangeJoinSweep(
        sortedLeft,
        sortedRight,
        lKeys,
        rKeys,
        lLifetime,
        rLifetime,
        joinCondition,
        kind,
        leftAttributes,
        rightAttributes,
        outputAttributes,
        ordinals,
        WindowMemory.forTask(s"RangeJoin $kind"),
        numOutputRows)
    broadcast match {
      case Some(BuildLeft) =>
        val mode = sortedBroadcast(lKeys, lLifetime, left)
        val built = left.executeBroadcast[Array[InternalRow]]()
        right.execute().mapPartitions { rightPart =>
          val ordinals = mode.ordinals(built.value)
          val sortedRight = sorted(rightPart, rKeys, rLifetime, rightAttributes, ordinals)
          sweep(built.value.iterator, sortedRight, ordinals)
        }
      case Some(BuildRight) =>
        val mode = sortedBroadcast(rKeys, rLifetime, right)
        val built = right.executeBroadcast[Array[InternalRow]]()
        left.execute().mapPartitions { leftPart =>
          val ordinals = mode.ordinals(built.value)
          val sortedLeft = sorted(leftPart, lKeys, lLifetime, leftAttributes, ordinals)
          sweep(sortedLeft, built.value.iterator, ordinals)
        }
      case None =>
        val (leftRows, rightRows) = if (keyed) (left.execute(), right.execute()) else spreadByTime()
        leftRows.zipPartitions(rightRows) { (leftPart, rightPart) =>
          val ordinals = new KeyOrdinals
          val sortedRight = sorted(rightPart, rKeys, rLifetime, rightAttributes, ordinals)
          sweep(sorted(leftPart, lKeys, lLifetime, leftAttributes, ordinals), sortedRight, ordinals)
        }
    }
  }

  /**
   * Without keys: both sides moved to the ranges of time they meet pairs in (see
   * [[TimeLineRanges]]). The home side is the one whose unmatched rows the join keeps; for an
   * inner join, the one whose longest lifetime is shorter, so that the other side spans fewer
   * ranges. (A full outer join keeps both sides' unmatched rows: [[RangeJoinStrategy]] plans it
   * without keys as a left outer join and the right side's anti join.)
   */
  private def spreadByTime(): (RDD[InternalRow], RDD[InternalRow]) = {
    val (leftRows, rightRows) = (left.execute(), right.execute())
    val ranges = conf.numShufflePartitions
    val leftSample = TimeLineRanges.sample(leftRows, leftLifetime, left.output, ranges)
    val rightSample = TimeLineRanges.sample(rightRows, rightLifetime, right.output, ranges)
    val timeLine = TimeLineRanges.cut((leftSample ++ rightSample).toIndexedSeq, ranges)
    val (leftReach, rightReach) =
      (
        leftSample.map(_.longest).foldLeft(0L)(Math.max),
        rightSample.map(_.longest).foldLeft(0L)(Math.max))
    val leftHome = joinType match {
      case _: InnerLike => leftReach <= rightReach
      case RightOuter => false
      case _ => true
    }
    val (home, other) = (
      TimeLineRanges.Home(timeLine),
      TimeLineRanges.Reach(timeLine, if (leftHome) leftReach else rightReach))
    val (leftRoute, rightRoute) = if (leftHome) (home, other) else (other, home)
    (
      TimeLineRanges.spread(leftRows, leftLifetime, left.output, timeLine.count, leftRoute),
      TimeLineRanges.spread(rightRows, rightLifetime, right.output, timeLine.count, rightRoute))
  }

  override protected def withNewChildrenInternal(
      newLeft: SparkPlan,
      newRight: SparkPlan): RangeJoinExec =
    copy(left = newLeft, right = newRight)
}
