package io.eventwindows.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeSet, Expression, MutableProjection, SpecificInternalRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.catalyst.plans.physical.{
  AllTuples, ClusteredDistribution, Distribution, Partitioning
}
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.execution.sweep.{
  KeyTimeSorter, SweepPolicy, WindowAggregates, WindowSweepIterator
}
import io.eventwindows.expressions.EventTime
import io.eventwindows.plans.{ClippedLifetimeColumns, WindowDefinition}

/**
 * The physical operator of [[io.eventwindows.plans.EventWindowAggregate]]: Spark clusters its input
 * by the grouping keys; each partition is sorted by a [[KeyTimeSorter]] (each key's rows together,
 * by event start, ties by [[tieBreak]]), then streams once through a [[WindowSweepIterator]]
 * driven by the family's [[SweepPolicy]]. The fields are the logical node's.
 */
case class EventWindowAggregateExec(
    keys: Seq[Attribute],
    window: WindowDefinition,
    windowAttribute: Attribute,
    aggregates: Seq[AggregateFunction],
    filters: Seq[Expression],
    aggregateAttributes: Seq[Attribute],
    partialBuffers: Seq[Attribute],
    clippedLifetime: Option[ClippedLifetimeColumns],
    child: SparkPlan) extends UnaryExecNode {

  override def output: Seq[Attribute] = keys ++ (windowAttribute +: aggregateAttributes)

  override def producedAttributes: AttributeSet =
    AttributeSet((windowAttribute +: aggregateAttributes) ++
      clippedLifetime.toSeq.flatMap(_.attributes))

  override def requiredChildDistribution: Seq[Distribution] =
    if (keys.isEmpty) AllTuples :: Nil else ClusteredDistribution(keys) :: Nil

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "sortTime" -> SQLMetrics.createTimingMetric(sparkContext, "sort time"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"))

  private def timeType = window.timeType

  /** How rows with equal keys and start are ordered: see [[KeyTimeSorter.tieBreak]]. */
  private def tieBreak: Seq[Expression] =
    KeyTimeSorter.tieBreak(window, aggregates, filters, child.output)

  override def simpleString(maxFields: Int): String =
    s"EventWindowAggregate ${window.describe(keys, aggregates, partialBuffers.nonEmpty)}"

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    val (sortTime, peakMemory, spillSize) =
      (longMetric("sortTime"), longMetric("peakMemory"), longMetric("spillSize"))
    val (lineMin, lineMax) = (EventTime.lineMin(timeType), EventTime.lineMax(timeType))
    // Only open-ended events use the horizon: without a nullable end no job computes it.
    lazy val horizon = if (window.end.exists(_.nullable)) latestFiniteTime() else lineMax
    // Policies are built on the driver so that the horizon job runs once, before the tasks.
    val newPolicy = SweepPolicy.factory(
      window,
      child.output,
      lineMin,
      lineMax,
      horizon,
      EventWindowsConf.maxWindowsPerEvent)
    val inputAttributes = child.output
    val sortTieBreak = tieBreak
    val partials = partialBuffers
    val clipped = clippedLifetime
    SparkInternals.mapPartitions(child.execute()) { rows =>
      val sorted = new KeyTimeSorter(keys, window.start, sortTieBreak, inputAttributes)
        .sort(rows, sortTime, peakMemory, spillSize)
      val memory = WindowMemory.forTask(s"EventWindowAggregate ${window.family.functionName}")
      val windowAggregates =
        new WindowAggregates(aggregates, filters, inputAttributes, partials, clipped, memory)
      new WindowSweepIterator(
        sorted,
        inputAttributes,
        keys,
        window,
        newPolicy(windowAggregates.buffers, memory),
        memory,
        windowAggregates,
        numOutputRows)
    }
  }

  /**
   * The default horizon of per-window output over open-ended events: the latest finite time of
   * the input (the greatest start, or end minus one tick). Computed by a job of its own, only when
   * events may be open-ended and the family asks for it (a by-name argument of
   * [[SweepPolicy.factory]]).
   */
  private def latestFiniteTime(): Long = {
    val inputAttributes = child.output
    val lifetime = window.start +: window.end.toSeq
    SparkInternals.mapPartitions(child.execute()) { rows =>
      val times = new SpecificInternalRow(Seq(timeType, timeType))
      val project = MutableProjection.create(lifetime, inputAttributes).target(times)
      var latest = Long.MinValue
      rows.foreach { row =>
        project(row)
        // Rows with a NULL start are skipped by the operator, so they do not count here either.
        if (!times.isNullAt(0)) {
          latest = Math.max(latest, times.getLong(0))
          if (lifetime.size > 1 && !times.isNullAt(1))
            latest = Math.max(latest, times.getLong(1) - 1)
        }
      }
      Iterator.single(latest)
    }.fold(Long.MinValue)(Math.max(_, _))
  }

  override protected def withNewChildInternal(newChild: SparkPlan): EventWindowAggregateExec =
    copy(child = newChild)
}
