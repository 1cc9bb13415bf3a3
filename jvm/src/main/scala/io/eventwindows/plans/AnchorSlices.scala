package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.catalyst.plans.logical.{BinaryNode, LogicalPlan}

/**
 * The messages of dynamic windows folded into slices before the shuffle: per key, the anchors'
 * interval ends cut the time line into slices, no anchor's interval starts or ends inside a slice,
 * so each interval is a run of whole slices and the messages of a slice count for the same
 * anchors. Output: one row per key and slice holding messages, the slice's first instant as
 * `slice`, and Spark's partial aggregation buffers of the `aggregates` over its messages (in the
 * functions' buffer layout, as `bufferAttributes`). [[EventWindowAggregate]] then merges these
 * rows where it would add messages.
 *
 * `messages`: the messages, with the `keys`, their `time` and what the aggregates and their
 * `filters` read. `anchors`: one row per anchor with the keys and interval of `anchor` (no row,
 * see [[AnchorDefinition]]), whose ends per its bounds are the slice boundaries of their key.
 */
case class AnchorSlices(
    keys: Seq[Attribute],
    time: Expression,
    slice: Attribute,
    aggregates: Seq[AggregateFunction],
    filters: Seq[Expression],
    bufferAttributes: Seq[Attribute],
    anchor: AnchorDefinition,
    messages: LogicalPlan,
    anchors: LogicalPlan) extends BinaryNode {

  override def left: LogicalPlan = messages
  override def right: LogicalPlan = anchors

  override def output: Seq[Attribute] = keys ++ (slice +: bufferAttributes)

  override def producedAttributes: AttributeSet = AttributeSet(slice +: bufferAttributes)

  override def simpleString(maxFields: Int): String =
    s"AnchorSlices keys=${keys.mkString("[", ", ", "]")} time=$time bounds=${anchor.bounds} " +
      s"aggregates=${aggregates.mkString("[", ", ", "]")}"

  override protected def withNewChildrenInternal(
      newLeft: LogicalPlan,
      newRight: LogicalPlan): AnchorSlices =
    copy(messages = newLeft, anchors = newRight)
}
