package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, AttributeSet}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.types.{BooleanType, IntegerType, LongType}

/**
 * Each row of an [[EventWindowAggregate]] (one window) as the rows of its events: the window's
 * `contents` (an array of structs, one per event the window holds, in the order its aggregates read
 * them) spread into one row per event, its fields as `elements`, beside the window's other
 * columns. `ordinal` numbers the windows of a partition, so that two windows with equal columns
 * stay apart; `present` is false on the one row of a window without events (its elements NULL);
 * `position` numbers a window's rows from 0, in the order they were collected.
 *
 * Output: `ordinal`, the child's columns but `contents`, `present` (the window's columns),
 * `position`, `elements`. The rows of a window come together, ordered as they were collected,
 * and windows come by `ordinal`: Spark's Python aggregate, grouped by the window's columns, then
 * needs no sort, which would not keep the order within a window (a sort by other columns keeps
 * it by `ordinal` and `position`).
 */
case class WindowContents(
    ordinal: Attribute,
    present: Attribute,
    position: Attribute,
    contents: Attribute,
    elements: Seq[Attribute],
    child: LogicalPlan) extends UnaryNode {

  /** The columns constant over a window's rows, in output order: what they are grouped by. */
  def windowColumns: Seq[Attribute] =
    WindowContents.windowColumns(ordinal, present, contents, child.output)

  override def output: Seq[Attribute] = (windowColumns :+ position) ++ elements

  override def producedAttributes: AttributeSet =
    AttributeSet(Seq(ordinal, present, position) ++ elements)

  override protected def withNewChildInternal(newChild: LogicalPlan): WindowContents =
    copy(child = newChild)
}

object WindowContents {

  /** The window's columns over the child's `input`: `ordinal`, all but `contents`, `present`. */
  def windowColumns(
      ordinal: Attribute,
      present: Attribute,
      contents: Attribute,
      input: Seq[Attribute]): Seq[Attribute] =
    ordinal +: input.filterNot(_.exprId == contents.exprId) :+ present

  /** The rows of `child`'s windows' `contents`, with columns of their own for the rest. */
  def apply(contents: Attribute, elements: Seq[Attribute], child: LogicalPlan): WindowContents =
    WindowContents(
      AttributeReference("window_ordinal", LongType, nullable = false)(),
      AttributeReference("window_has_events", BooleanType, nullable = false)(),
      AttributeReference("window_position", IntegerType, nullable = false)(),
      contents,
      elements,
      child)
}
