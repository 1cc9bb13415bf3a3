package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.catalyst.plans.logical.{BinaryNode, LogicalPlan}

/**
 * Dynamic windows with order-insensitive aggregates, their messages and anchors apart: one output
 * row per anchor (the [[EventWindowAggregate]] it replaces: `keys`, `window`, the aggregates),
 * aggregating the messages of its key whose time lies in its interval.
 *
 * `messages`: the messages, with the `keys`, their `time` and what the `aggregates` and their
 * `filters` read. `anchors`: one row per anchor, with the columns of `anchor` (its keys,
 * interval and own columns, see [[AnchorDefinition]]).
 *
 * Planned with the anchors broadcast: each task folds its messages into one partial aggregate per
 * anchor (per slice first, see [[AnchorSlices]]), Spark's final aggregate merges them by anchor
 * after the shuffle, and each result gets its anchor's row. Anchors too large to broadcast, or
 * buffers that cannot be updated in place, take the sweep over the slices instead
 * ([[io.eventwindows.analysis.SweepAnchorSlices]]).
 */
case class AnchorWindowAggregate(
    keys: Seq[Attribute],
    time: Expression,
    function: String,
    windowAttribute: Attribute,
    aggregates: Seq[AggregateFunction],
    filters: Seq[Expression],
    aggregateAttributes: Seq[Attribute],
    anchor: AnchorDefinition,
    messages: LogicalPlan,
    anchors: LogicalPlan) extends BinaryNode {

  override def left: LogicalPlan = messages
  override def right: LogicalPlan = anchors

  override def output: Seq[Attribute] = keys ++ (windowAttribute +: aggregateAttributes)

  override def producedAttributes: AttributeSet =
    AttributeSet(windowAttribute +: aggregateAttributes)

  override def simpleString(maxFields: Int): String =
    s"AnchorWindowAggregate $function bounds=${anchor.bounds} " +
      s"keys=${keys.mkString("[", ", ", "]")}" +
      s" time=$time aggregates=${aggregates.mkString("[", ", ", "]")}"

  override protected def withNewChildrenInternal(
      newLeft: LogicalPlan,
      newRight: LogicalPlan): AnchorWindowAggregate =
    copy(messages = newLeft, anchors = newRight)
}
