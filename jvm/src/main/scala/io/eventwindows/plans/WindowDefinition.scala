package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Expression, Unevaluable}
import org.apache.spark.sql.types.{DataType, NullType}

/**
 * One window definition, as the logical node, the physical operator, the streaming replay and the
 * sweep carry it: the window `family`, the SQL `function` the query called (for messages: it
 * differs from `family.functionName` where the call was rewritten, as hopping_window with output
 * 'changes' runs as a snapshot window), each event's lifetime `[start, end)` (no `end`: point
 * events lasting one tick; a NULL end: open-ended), the columns that order events with equal starts
 * first (`order`; then as the operator's tie rule says) and the per-row values the family reads
 * (`values`: SPL policy columns; the anchor interval and row of dynamic windows).
 *
 * An unevaluable expression over those columns, as Spark's `WindowSpecDefinition` is, so that the
 * rules that rewrite a plan's expressions (attribute ids, aliases, pruning) see the ones inside.
 */
case class WindowDefinition(
    function: String,
    family: WindowFamily,
    start: Expression,
    end: Option[Expression],
    order: Seq[Expression],
    values: Seq[Expression]) extends Expression with Unevaluable {

  override def children: Seq[Expression] = (start +: end.toSeq) ++ order ++ values
  override def nullable: Boolean = false
  override def dataType: DataType = NullType

  /** The time type of the event lifetimes and of the output window. */
  def timeType: DataType = start.dataType

  /** The type of the anchor row the `window` struct carries, if the family carries one. */
  def anchorType: Option[DataType] =
    if (family.carriesAnchor) Some(AnchorValues.of(values).anchor.dataType) else None

  /** How the nodes that aggregate over this window show it in `explain()`. */
  def describe(keys: Seq[Expression], aggregates: Seq[Expression], mergesPartials: Boolean)
      : String =
    s"${family.functionName} $family keys=${keys.mkString("[", ", ", "]")}" +
      s" lifetime=[$start, ${end.getOrElse("point")})" +
      s" aggregates=${aggregates.mkString("[", ", ", "]")}" +
      (if (mergesPartials) " merging partial buffers" else "")

  override def toString: String =
    s"$function(${children.mkString(", ")}, $family)"

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression])
      : WindowDefinition = {
    val lifetime = 1 + end.size
    copy(
      start = newChildren.head,
      end = if (end.isDefined) Some(newChildren(1)) else None,
      order = newChildren.slice(lifetime, lifetime + order.size),
      values = newChildren.drop(lifetime + order.size))
  }
}
