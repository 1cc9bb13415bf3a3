package io.eventwindows.analysis

import io.eventwindows.expressions.AnchorSortKey
import io.eventwindows.plans.{AnchorSlices, AnchorWindow, AnchorWindowAggregate, EventWindowAggregate, WindowDefinition}

import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateFunction, DeclarativeAggregate}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, Union}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.UnsafeFixedWidthAggregationMap
import org.apache.spark.sql.internal.SQLConf

/**
 * Picks the plan of [[AnchorWindowAggregate]] once Spark's operator optimizations have put its
 * messages and anchors apart (a rule of the batch before cost-based optimization, when the
 * anchors' statistics are their own). It stays as it is, to be planned with the anchors broadcast,
 * when the anchors are small enough to be the build side of a broadcast join
 * (`spark.sql.autoBroadcastJoinThreshold`) and every aggregation buffer can be updated in place
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
 */
object SweepAnchorSlices extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan transformUp {
    case a: AnchorWindowAggregate if !(fitsBroadcast(a.anchors) && inPlace(a.aggregates)) =>
      sweep(a)
  }

  /** True if the plan is small enough to broadcast, as the build side of a join would be. */
  def fitsBroadcast(plan: LogicalPlan): Boolean = {
    val threshold = SQLConf.get.autoBroadcastJoinThreshold
    threshold >= 0 && plan.stats.sizeInBytes <= threshold
  }

  /** True if the aggregates' buffers can be updated in place in an UnsafeRow. */
  def inPlace(aggregates: Seq[AggregateFunction]): Boolean =
    aggregates.forall(_.isInstanceOf[DeclarativeAggregate]) &&
      UnsafeFixedWidthAggregationMap.supportsAggregationBufferSchema(
        DataTypeUtils.fromAttributes(aggregates.flatMap(_.aggBufferAttributes)))

  private def sweep(a: AnchorWindowAggregate): LogicalPlan = {
    // AnchorSlices reads the anchors' keys and interval alone (and broadcasts them).
    val ends = Project(a.anchorKeys ++ Seq(a.anchorStart, a.anchorEnd), a.anchors)
    val slice = AttributeReference("slice", a.time.dataType, nullable = false)()
    val buffers = a.aggregates.flatMap(_.aggBufferAttributes).map(_.newInstance())
    val slices = AnchorSlices(a.keys, a.time, slice, a.aggregates, a.filters, buffers,
      a.anchorKeys, a.anchorStart, a.anchorEnd, a.bounds, a.messages, ends)

    def nullOf(e: Expression, name: String): Alias = Alias(Literal(null, e.dataType), name)()
    // Union columns: keys, message time, buffers, anchor start, end and row.
    val union = Union(
      Project(a.keys ++ (Alias(slice, "time")() +: buffers) ++ Seq(
        nullOf(a.anchorStart, "start"), nullOf(a.anchorEnd, "end"), nullOf(a.anchorRow, "anchor")),
        slices),
      Project(a.anchorKeys ++ (nullOf(a.time, "time") +: buffers.map(b => nullOf(b, b.name))) ++
        Seq(a.anchorStart, a.anchorEnd, a.anchorRow), a.anchors))
    val columns = union.output
    val (keys, rest) = columns.splitAt(a.keys.size)
    val Seq(unionTime, unionStart, unionEnd, unionAnchor) = rest.head +: rest.takeRight(3)
    val (sortTime, side) = AnchorSortKey(unionTime, unionStart, unionAnchor, a.bounds)
    val window = WindowDefinition(a.function, AnchorWindow(a.bounds), sortTime, None, Seq(side),
      Seq(unionStart, unionEnd, unionAnchor))
    EventWindowAggregate(keys, window, a.windowAttribute, a.aggregates,
      a.filters.map(_ => Literal.TrueLiteral), a.aggregateAttributes,
      rest.slice(1, 1 + buffers.size), clippedLifetime = Nil, union)
  }
}
