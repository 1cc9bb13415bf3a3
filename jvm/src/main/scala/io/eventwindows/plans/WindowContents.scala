package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

/**
 * Each row of an [[EventWindowAggregate]] (one window) as the rows of its events: the window's
 * `contents` (an array of structs, one per event the window holds, in the order its aggregates read
 * them) spread into one row per event, its fields as `elements`, beside the window's other
 * columns. `ordinal` numbers the windows of a partition, so that two windows with equal columns
 * stay apart; `present` is false on the one row of a window without events (its elements NULL).
 *
 * Output: `ordinal`, the child's columns but `contents`, `present`, `elements`. The rows of a
 * window come together, ordered as they were collected, and windows come by `ordinal`: Spark's
 * grouped Python operators, grouped by the columns before the elements, then need no sort, which
 * would not keep the order within a window.
 */
case class WindowContents(
    ordinal: Attribute,
    present: Attribute,
    contents: Attribute,
    elements: Seq[Attribute],
    child: LogicalPlan) extends UnaryNode {

  /** The columns constant over a window's rows, in output order: what they are grouped by. */
  def windowColumns: Seq[Attribute] =
    ordinal +: child.output.filterNot(_.exprId == contents.exprId) :+ present

  override def output: Seq[Attribute] = windowColumns ++ elements

  override def producedAttributes: AttributeSet = AttributeSet(Seq(ordinal, present) ++ elements)

  override protected def withNewChildInternal(newChild: LogicalPlan): WindowContents =
    copy(child = newChild)
}
