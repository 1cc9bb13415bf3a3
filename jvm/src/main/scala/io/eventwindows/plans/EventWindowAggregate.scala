package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

/**
 * Aggregates events by `keys` and by the windows of one window definition (`window`: the family,
 * the function called, the lifetime `[start, end)`, the tie order and the values the family
 * reads, see [[WindowDefinition]]).
 *
 * Per row of `child`: the grouping keys are attributes, and aggregate i sees the row if
 * `filters(i)` holds. Output: the keys, the `window` struct (the output lifetime) and one column
 * per aggregate function.
 *
 * The aggregate functions are kept bare (not as `AggregateExpression`s, which only Spark's own
 * Aggregate may hold); DISTINCT is rejected while this node is built and FILTER is `filters`.
 *
 * `partialBuffers`, when not empty, are the columns of rows that hold Spark's partial aggregation
 * buffers (in the aggregates' buffer layout) instead of events: those rows are merged into the
 * windows, not added ([[AnchorSlices]] folds the messages of dynamic windows so), the aggregates'
 * own inputs and filters are no longer read, and the node references the buffers instead.
 *
 * `clippedLifetime`, when given, are two columns the node produces for its aggregates (and
 * FILTERs) alone: the start and end of the lifetime of the event read, clipped to the window it is
 * read for (`clipped_start()`, `clipped_end()`).
 */
case class EventWindowAggregate(
    keys: Seq[Attribute],
    window: WindowDefinition,
    windowAttribute: Attribute,
    aggregates: Seq[AggregateFunction],
    filters: Seq[Expression],
    aggregateAttributes: Seq[Attribute],
    partialBuffers: Seq[Attribute],
    clippedLifetime: Option[ClippedLifetimeColumns],
    child: LogicalPlan) extends UnaryNode {

  override def output: Seq[Attribute] = keys ++ (windowAttribute +: aggregateAttributes)

  override def producedAttributes: AttributeSet =
    AttributeSet((windowAttribute +: aggregateAttributes) ++
      clippedLifetime.toSeq.flatMap(_.attributes))

  override def references: AttributeSet =
    if (partialBuffers.isEmpty) super.references
    else AttributeSet((keys :+ window) ++ partialBuffers)

  override def simpleString(maxFields: Int): String =
    s"EventWindowAggregate ${window.describe(keys, aggregates, partialBuffers.nonEmpty)}"

  override protected def withNewChildInternal(newChild: LogicalPlan): EventWindowAggregate =
    copy(child = newChild)
}
