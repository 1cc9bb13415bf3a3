package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateFunction, DeclarativeAggregate}
import org.apache.spark.sql.catalyst.optimizer.JoinSelectionHelper
import org.apache.spark.sql.catalyst.plans.logical.{
  LogicalPlan, Project, RepartitionByExpression, Union
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.UnsafeFixedWidthAggregationMap
import org.apache.spark.sql.execution.adaptive.{LogicalQueryStage, ShuffleQueryStageExec}
import org.apache.spark.sql.internal.SQLConf

import io.eventwindows.expressions.AnchorSortKey
import io.eventwindows.plans.{
  AnchorSlices, AnchorValues, AnchorWindow, AnchorWindowAggregate, EventWindowAggregate,
  WindowDefinition
}

/**
 * Picks the plan of [[AnchorWindowAggregate]] once Spark's operator optimizations have put its
 * messages and anchors apart (a rule of the batch before cost-based optimization, when the
 * anchors' statistics are their own). It stays as it is, to be planned with the anchors broadcast,
 * when the anchors are small enough to be the build side of a broadcast join (Spark's own test,
 * `spark.sql.autoBroadcastJoinThreshold`) and every aggregation buffer can be updated in place
 * in an UnsafeRow (as Spark's hash aggregate needs). Otherwise it becomes the sweep over slices:
 * {{{
 *   EventWindowAggregate anchor_window keys, merging partial buffers
 *   +- Union
 *      :- Project [keys, slice AS time, buffers, NULL anchor columns]
 *      :  +- AnchorSlices keys, time, aggregates
 *      :     :- messages
 *      :     +- Project [keys, start, end]
 *      :        +- anchors
 *      +- Project [keys, NULL time, NULL buffers, start, end, anchor]
 *         +- anchors
 * }}}
 * which sorts and sweeps one row per key and slice instead of every message.
 *
 * Anchors Spark cannot size (a leaf without statistics, as an RDD's or a Python list's) are
 * measured first when adaptive execution is on, as Spark measures a join's sides: the node stays
 * undecided, over the anchors behind an exchange of their own, and
 * [[io.eventwindows.execution.EventWindowStrategy]] plans it as the sweep until it is decided, so
 * that the anchors' stage is the first to run. Once it has run, [[SweepAnchorSlices.AtRuntime]]
 * (a rule of adaptive execution's re-optimization) decides by its size, with
 * `spark.sql.adaptive.autoBroadcastJoinThreshold`, as Spark decides a join.
 */
object SweepAnchorSlices extends Rule[LogicalPlan] with JoinSelectionHelper {

  override def apply(plan: LogicalPlan): LogicalPlan = plan transformUp {
    case a: AnchorWindowAggregate if !inPlace(a.aggregates) => sweep(a)
    case a: AnchorWindowAggregate if sizeKnown(a.anchors) => decide(a)
    // Already behind an exchange: it waits for that stage.
    case a: AnchorWindowAggregate if a.anchors.isInstanceOf[RepartitionByExpression] => a
    case a: AnchorWindowAggregate if measurable =>
      a.copy(anchors = RepartitionByExpression(a.anchor.interval.columns, a.anchors, None))
    case a: AnchorWindowAggregate => sweep(a)
  }

  /**
   * Decides, in adaptive execution's re-optimization, each node whose anchors are a shuffle stage
   * that has run: the stage of the anchors' exchange (or one of the user's, which is as good).
   *
   * Only these nodes are decided at run time: a plan picked from estimates stays (a broadcast
   * already built is never swept over). Without adaptive execution, or with broadcasts turned off,
   * anchors of unknown size take the sweep.
   */
  object AtRuntime extends Rule[LogicalPlan] {
    override def apply(plan: LogicalPlan): LogicalPlan = plan transformUp {
      case a: AnchorWindowAggregate if shuffleStageRan(a.anchors) && inPlace(a.aggregates) =>
        decide(a)
    }

    private def shuffleStageRan(plan: LogicalPlan): Boolean = plan match {
      case LogicalQueryStage(_, _: ShuffleQueryStageExec) => plan.stats.isRuntime
      case _ => false
    }
  }

  /** Broadcast if the anchors fit, else the sweep. */
  private def decide(a: AnchorWindowAggregate): LogicalPlan =
    if (fitsBroadcast(a.anchors)) a else sweep(a)

  /** True if the plan is small enough to broadcast, as the build side of a join would be. */
  def fitsBroadcast(plan: LogicalPlan): Boolean = canBroadcastBySize(plan, SQLConf.get)

  /** True if Spark knows the plan's size: from a stage that has run, or from every leaf. */
  def sizeKnown(plan: LogicalPlan): Boolean = plan.stats.isRuntime ||
    !plan.collectLeaves().exists(_.stats.sizeInBytes >= SQLConf.get.defaultSizeInBytes)

  /** True if adaptive execution may yet broadcast anchors once it knows their size. */
  private def measurable: Boolean = {
    val conf = SQLConf.get
    conf.adaptiveExecutionEnabled &&
    conf.getConf(SQLConf.ADAPTIVE_AUTO_BROADCASTJOIN_THRESHOLD)
      .getOrElse(conf.autoBroadcastJoinThreshold) >= 0
  }

  /** True if the aggregates' buffers can be updated in place in an UnsafeRow. */
  def inPlace(aggregates: Seq[AggregateFunction]): Boolean =
    aggregates.forall(_.isInstanceOf[DeclarativeAggregate]) &&
      UnsafeFixedWidthAggregationMap.supportsAggregationBufferSchema(
        DataTypeUtils.fromAttributes(aggregates.flatMap(_.aggBufferAttributes)))

  /** The sweep over slices (see above). */
  def sweep(a: AnchorWindowAggregate): LogicalPlan = {
    // AnchorSlices reads the anchors' keys and interval alone (and broadcasts them).
    val anchor = a.anchor
    val ends = Project(anchor.interval.columns, a.anchors)
    val slice = AttributeReference("slice", a.time.dataType, nullable = false)()
    val buffers = a.aggregates.flatMap(_.aggBufferAttributes).map(_.newInstance())
    val slices = AnchorSlices(
      a.keys,
      a.time,
      slice,
      a.aggregates,
      a.filters,
      buffers,
      anchor.interval,
      a.messages,
      ends)

    def nullOf(e: Expression, name: String): Alias = Alias(Literal(null, e.dataType), name)()
    // Union columns: keys, message time, buffers, anchor start, end and row.
    val row = anchor.row.get // An AnchorWindowAggregate's anchors have their row.
    val union = Union(
      Project(
        a.keys ++ (Alias(slice, "time")() +: buffers) ++ Seq(
          nullOf(anchor.start, "start"),
          nullOf(anchor.end, "end"),
          nullOf(row, "anchor")),
        slices),
      Project(
        anchor.keys ++ (nullOf(a.time, "time") +: buffers.map(b => nullOf(b, b.name))) ++
          Seq(anchor.start, anchor.end, row),
        a.anchors))
    val columns = union.output
    val (keys, rest) = columns.splitAt(a.keys.size)
    val Seq(unionTime, unionStart, unionEnd, unionAnchor) = rest.head +: rest.takeRight(3)
    val (sortTime, side) = AnchorSortKey(unionTime, unionStart, unionAnchor, anchor.bounds)
    val window = WindowDefinition(
      a.function,
      AnchorWindow(anchor.bounds),
      sortTime,
      None,
      Seq(side),
      AnchorValues(unionStart, unionEnd, unionAnchor).values)
    EventWindowAggregate(
      keys,
      window,
      a.windowAttribute,
      a.aggregates,
      a.filters.map(_ => Literal.TrueLiteral),
      a.aggregateAttributes,
      rest.slice(1, 1 + buffers.size),
      clippedLifetime = None,
      union)
  }
}
