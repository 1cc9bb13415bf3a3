package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, IsNotNull, IsNull}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.expressions.AnchorSortKey
import io.eventwindows.plans.{
  AnchorDefinition, AnchorValues, AnchorWindow, AnchorWindowAggregate, EventWindowAggregate,
  WindowDefinition
}

/**
 * Takes the messages and the anchors of dynamic windows apart, so that the messages need not
 * cross the shuffle one by one: an optimizer rule that turns
 * {{{
 *   EventWindowAggregate anchor_window keys, aggregates
 *   +- messages and anchors
 * }}}
 * into
 * {{{
 *   AnchorWindowAggregate keys, time, aggregates
 *   :- Filter isnull(anchor)                       (the messages)
 *   +- Project [keys, start, end, anchor]
 *      +- Filter isnotnull(anchor)                 (the anchors)
 * }}}
 * Spark's predicate pushdown then sends each filter into its side of the union that
 * `dynamic_window` builds, where it folds to true or false, so each table is read on its own side
 * and Spark's statistics of the anchors are the anchors' alone. [[SweepAnchorSlices]] then picks
 * the plan by them.
 *
 * Applies when every aggregate is insensitive to input order ([[OrderInsensitive]]: Spark's
 * partial aggregation folds messages in any order), the input is deterministic (it is read on both
 * sides and each read must see the same rows), on batch plans, and unless
 * `spark.eventwindows.sliceDynamicWindows` is false.
 *
 * Order-sensitive aggregates (first, collect_list, ...) keep the sweep over every message, whose
 * time order they see: slicing them would need the slices merged in time order and each slice's
 * messages ordered within it.
 */
object SliceAnchorWindows extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan transformUp {
    case a @ EventWindowAggregate(
          _,
          WindowDefinition(
            _,
            family: AnchorWindow,
            start,
            None,
            _,
            Seq(_, _, anchor)),
          _,
          aggregates,
          _,
          _,
          Nil,
          None,
          child)
        if !a.isStreaming && child.deterministic &&
          aggregates.forall(OrderInsensitive) && EventWindowsConf.sliceDynamicWindows &&
          AnchorSortKey.messageTime(start, anchor).isDefined =>
      separate(a, family)
  }

  private def separate(a: EventWindowAggregate, family: AnchorWindow): AnchorWindowAggregate = {
    val AnchorValues(anchorStart, anchorEnd, anchor) = AnchorValues.of(a.window.values)
    val time = AnchorSortKey.messageTime(a.window.start, anchor).get
    // The anchors' side has attributes of its own, never the messages' ones. Their names differ
    // too: Spark's RemoveRedundantAliases drops an alias of an attribute to its own name (and
    // maps the parent's references to the attribute), which would give both sides of this node
    // the same attributes.
    val anchors = Project(
      a.keys.map(k => Alias(k, s"anchor_${k.name}")()) ++ Seq(
        Alias(anchorStart, "start")(),
        Alias(anchorEnd, "end")(),
        Alias(anchor, "anchor")()),
      Filter(IsNotNull(anchor), a.child))
    val (anchorKeys, Seq(start, end, row)) = anchors.output.splitAt(a.keys.size)
    AnchorWindowAggregate(
      a.keys,
      time,
      a.window.function,
      a.windowAttribute,
      a.aggregates,
      a.filters,
      a.aggregateAttributes,
      AnchorDefinition(anchorKeys, start, end, Some(row), family.bounds),
      Filter(IsNull(anchor), a.child),
      anchors)
  }
}
