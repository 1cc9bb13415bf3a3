package io.eventwindows.analysis

import io.eventwindows.expressions.AnchorSortKey
import io.eventwindows.plans.{AnchorSlices, AnchorWindow, EventWindowAggregate}

import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Expression, IsNotNull, IsNull, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project, Union}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf

/**
 * Folds the messages of dynamic windows before the shuffle: an optimizer rule that turns
 * {{{
 *   EventWindowAggregate anchor_window keys, aggregates
 *   +- messages and anchors
 * }}}
 * into
 * {{{
 *   EventWindowAggregate anchor_window keys, merging partial buffers
 *   +- Union
 *      :- Project [keys, slice AS time, buffers, NULL anchor columns]
 *      :  +- AnchorSlices keys, time, aggregates
 *      :     :- Filter isnull(anchor)      (the messages)
 *      :     +- Project [keys, start, end]
 *      :        +- Filter isnotnull(anchor)
 *      +- Project [keys, NULL time, NULL buffers, start, end, anchor]
 *         +- Filter isnotnull(anchor)  (the anchors)
 * }}}
 * Spark's predicate pushdown then sends each filter into its side of the union that
 * `dynamic_window` builds, where it folds to true or false, so the messages are read once and the
 * anchors twice (their interval ends are broadcast, see [[AnchorSlices]]). The window operator
 * then sorts and sweeps one row per key and slice instead of every message.
 *
 * Applies when every aggregate is insensitive to input order ([[OrderInsensitive]]: Spark's
 * partial aggregation folds a slice's messages in any order), the input is deterministic (it is
 * read three times and each read must see the same rows), on batch plans, and unless
 * `spark.eventwindows.sliceDynamicWindows` is false.
 */
object SliceAnchorWindows extends Rule[LogicalPlan] {

  final val EnabledConf = "spark.eventwindows.sliceDynamicWindows"

  override def apply(plan: LogicalPlan): LogicalPlan = plan transformUp {
    case a @ EventWindowAggregate(_, family: AnchorWindow, _, start, None, _, Seq(_, _, anchor), _,
        aggregates, _, _, Nil, child) if !a.isStreaming && child.deterministic &&
        aggregates.forall(OrderInsensitive) && enabled &&
        AnchorSortKey.messageTime(start, anchor).isDefined =>
      slice(a, family)
  }

  private def enabled: Boolean = SQLConf.get.getConfString(EnabledConf, "true").toBoolean

  private def slice(a: EventWindowAggregate, family: AnchorWindow): LogicalPlan = {
    val Seq(anchorStart, anchorEnd, anchor) = a.values
    val time = AnchorSortKey.messageTime(a.start, anchor).get
    val messages = Filter(IsNull(anchor), a.child)
    val anchors = Filter(IsNotNull(anchor), a.child)
    // The anchors' side of AnchorSlices has attributes of its own, never the messages' ones.
    val ends = Project(a.keys.map(k => Alias(k, k.name)()) ++
      Seq(Alias(anchorStart, "start")(), Alias(anchorEnd, "end")()), anchors)
    val endAttributes = ends.output
    val slice = AttributeReference("slice", time.dataType, nullable = false)()
    val buffers = a.aggregates.flatMap(_.aggBufferAttributes).map(_.newInstance())
    val slices = AnchorSlices(a.keys, time, slice, a.aggregates, a.filters, buffers,
      endAttributes.dropRight(2), endAttributes(a.keys.size), endAttributes.last, family.bounds,
      messages, ends)

    def nullOf(e: Expression, name: String): Alias = Alias(Literal(null, e.dataType), name)()
    // Union columns: keys, message time, buffers, anchor start, end and row.
    val union = Union(
      Project(a.keys ++ (Alias(slice, "time")() +: buffers) ++ Seq(nullOf(anchorStart, "start"),
        nullOf(anchorEnd, "end"), nullOf(anchor, "anchor")), slices),
      Project(a.keys ++ (nullOf(time, "time") +: buffers.map(b => nullOf(b, b.name))) ++
        Seq(Alias(anchorStart, "start")(), Alias(anchorEnd, "end")(), Alias(anchor, "anchor")()),
        anchors))
    val columns = union.output
    val (keys, rest) = columns.splitAt(a.keys.size)
    val Seq(unionTime, unionStart, unionEnd, unionAnchor) = rest.head +: rest.takeRight(3)
    val (sortTime, side) = AnchorSortKey(unionTime, unionStart, unionAnchor, family.bounds)
    a.copy(keys = keys, start = sortTime, order = Seq(side),
      values = Seq(unionStart, unionEnd, unionAnchor),
      filters = a.filters.map(_ => Literal.TrueLiteral),
      partialBuffers = rest.slice(1, 1 + buffers.size), child = union)
  }
}
