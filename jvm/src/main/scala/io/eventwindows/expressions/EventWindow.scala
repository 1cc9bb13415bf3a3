package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, Unevaluable}
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import io.eventwindows.plans.{WindowDefinition, WindowFamily}

/**
 * The marker a window function leaves in `GROUP BY`, like Spark's `TimeWindow`: the lifetime of
 * each event (`start`, and `end` unless events are points), the columns that order events with
 * equal starts (`order`, given by the user for index windows), the per-row values the family
 * reads (`values`, e.g. the attributes of SPL delta policies) and the window family's parameters. It is never evaluated: the analyzer rules replace the grouping by an
 * [[io.eventwindows.plans.EventWindowAggregate]].
 *
 * It stays unresolved until [[io.eventwindows.analysis.EventWindowing]] has placed it below the
 * aggregate as the `window` column (`placed = true`), so that the aggregate's output is named
 * `window` as with Spark's own window functions.
 */
case class EventWindow(
    start: Expression,
    end: Option[Expression],
    family: WindowFamily,
    order: Seq[Expression] = Nil,
    values: Seq[Expression] = Nil,
    placed: Boolean = false) extends Expression with Unevaluable {

  override def children: Seq[Expression] = (start +: end.toSeq) ++ order ++ values
  override def nullable: Boolean = false
  override def prettyName: String = family.functionName
  override lazy val resolved: Boolean = placed && childrenResolved

  /** The time type of the event lifetimes and of the output window. */
  def timeType: DataType = start.dataType

  /**
   * `window`: the lifetime of the output event, so the result is again an event table, with the
   * family's further time fields; for anchor windows also the anchor's columns (the last value).
   */
  override def dataType: DataType = {
    val times = EventWindow.windowType(timeType, family.windowFields.extra)
    anchorType.map(t => times.add(EventWindow.AnchorField, t, nullable = false)).getOrElse(times)
  }

  /** The window this marker defines, as the plans carry it, for the function it was called as. */
  def definition: WindowDefinition =
    WindowDefinition(prettyName, family, start, end, order, values)

  /** The type of the anchor row an anchor window's `window` carries. */
  def anchorType: Option[DataType] = definition.anchorType

  override def toString: String = s"$prettyName(${children.mkString(", ")}, $family)"

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression])
      : EventWindow = {
    val lifetime = 1 + end.size
    copy(
      start = newChildren.head,
      end = if (end.isDefined) Some(newChildren(1)) else None,
      order = newChildren.slice(lifetime, lifetime + order.size),
      values = newChildren.drop(lifetime + order.size))
  }
}

object EventWindow {

  /** The name of the grouping column a window function yields. */
  final val ColumnName = "window"

  /** The field of `window` holding an anchor window's anchor row. */
  final val AnchorField = "anchor"

  /** The `window` struct: `start`, `end` and a family's further fields, all times, non-null. */
  def windowType(timeType: DataType, extraFields: Seq[String] = Nil): StructType =
    StructType(("start" +: "end" +: extraFields).map(StructField(_, timeType, nullable = false)))
}
