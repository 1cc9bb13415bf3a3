package io.eventwindows.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, Expression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.plans.physical.{
  AllTuples, ClusteredDistribution, Distribution, Partitioning, SinglePartition
}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.execution.sweep.{AsofJoinSweep, KeyOrdinals, KeyTimeSorter}
import io.eventwindows.plans.{AsofDirection, AsofJoin}

/**
 * An [[AsofJoin]] as one merge of the two sorted sides ([[AsofJoinSweep]]): O((n + m) log) for
 * the sort, then one pass, where the usual way (a union, then `last(..., ignorenulls)` over a
 * window by key and time) sorts the union and buffers each key's rows in Spark's window operator.
 *
 * With keys, each side is clustered by its keys (Spark's exchanges co-partition them, as for
 * Spark's `SortMergeJoinExec`); without keys, both sides go to one task: a left row's match may
 * be any distance away (no tolerance, or a long one), so ranges of the time line would each need
 * the last right row before them and the first after them, a pass of its own. In each task the
 * right side, then the left, is sorted by a [[KeyTimeSorter]] (Spark's external sorter, which
 * spills, with key and time in its prefix: Spark's sort by (keys, time) compares the records of
 * every two rows of a key), both sharing one [[KeyOrdinals]], so that their keys come in one
 * order; the right side's rows tying on (keys, time) are ordered by its other orderable columns.
 */
case class AsofJoinExec(
    leftKeys: Seq[Attribute],
    rightKeys: Seq[Attribute],
    leftTime: Expression,
    rightTime: Expression,
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean,
    left: SparkPlan,
    right: SparkPlan) extends BinaryExecNode {

  private def keyed: Boolean = leftKeys.nonEmpty

  override def output: Seq[Attribute] = AsofJoin.output(left.output, right.output)

  override def requiredChildDistribution: Seq[Distribution] =
    if (keyed) ClusteredDistribution(leftKeys) :: ClusteredDistribution(rightKeys) :: Nil
    else AllTuples :: AllTuples :: Nil

  /** The right side's ties on (keys, time) ordered by its other columns, where they have an order. */
  private def rightTieBreak: Seq[Attribute] =
    AsofJoin.rightTieBreak(right.output, rightKeys, rightTime)

  /** Every left row stays where it is, in its key's partition. */
  override def outputPartitioning: Partitioning =
    if (keyed) left.outputPartitioning else SinglePartition

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "sortTime" -> SQLMetrics.createTimingMetric(sparkContext, "sort time"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"))

  override def simpleString(maxFields: Int): String = {
    // Columns by their names: the table function's tables have generated qualifiers.
    def sql(e: Expression): String =
      e.transform { case a: AttributeReference => a.withQualifier(Nil) }.sql
    val keys = if (keyed) {
      s"keys ${leftKeys.map(sql).mkString("(", ", ", ")")} = " +
        s"${rightKeys.map(sql).mkString("(", ", ", ")")}, "
    } else "no keys, "
    s"AsofJoin $direction, ${keys}times ${sql(leftTime)} and ${sql(rightTime)}, tolerance " +
      s"${tolerance.getOrElse("none")}, exact matches ${if (allowExactMatches) "allowed"
        else "not allowed"}"
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    val (leftAttributes, rightAttributes, outputAttributes) = (left.output, right.output, output)
    val (lKeys, rKeys, lTime, rTime) = (leftKeys, rightKeys, leftTime, rightTime)
    val (towards, within, exact, tieBreak) =
      (direction, tolerance, allowExactMatches, rightTieBreak)
    val (sortTime, peakMemory, spillSize) =
      (longMetric("sortTime"), longMetric("peakMemory"), longMetric("spillSize"))
    left.execute().zipPartitions(right.execute()) { (leftRows, rightRows) =>
      val ordinals = new KeyOrdinals
      val sortedRight = new KeyTimeSorter(rKeys, rTime, tieBreak, rightAttributes, Some(ordinals))
        .sort(rightRows, sortTime, peakMemory, spillSize)
      val sortedLeft = new KeyTimeSorter(lKeys, lTime, Nil, leftAttributes, Some(ordinals))
        .sort(leftRows, sortTime, peakMemory, spillSize)
      val memory = WindowMemory.forTask(s"AsofJoin $towards")
      new AsofJoinSweep(
        sortedLeft,
        sortedRight,
        lKeys,
        rKeys,
        lTime,
        rTime,
        towards,
        within,
        exact,
        leftAttributes,
        rightAttributes,
        outputAttributes,
        ordinals,
        memory,
        numOutputRows)
    }
  }

  override protected def withNewChildrenInternal(
      newLeft: SparkPlan,
      newRight: SparkPlan): AsofJoinExec =
    copy(left = newLeft, right = newRight)
}

/** Plans every [[AsofJoin]] as an [[AsofJoinExec]] (it has no other plan). */
object AsofJoinStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case j: AsofJoin =>
      AsofJoinExec(
        j.leftKeys,
        j.rightKeys,
        j.leftTime,
        j.rightTime,
        j.direction,
        j.tolerance,
        j.allowExactMatches,
        planLater(j.left),
        planLater(j.right)) :: Nil
    case _ => Nil
  }
}
