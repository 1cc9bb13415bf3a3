package io.eventwindows.execution

import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, IsNotNull, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateExpression, Complete, DeclarativeAggregate
}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.aggregate.AggUtils
import org.apache.spark.sql.types.IntegerType

import io.eventwindows.analysis.{CheckStreaming, EventWindowing, PandasGroups, SweepAnchorSlices}
import io.eventwindows.plans.{
  AnchorSlices, AnchorWindowAggregate, EventWindowAggregate, WindowContents
}

/**
 * Plans an [[EventWindowAggregate]] as an [[EventWindowAggregateExec]]; never a streaming one,
 * which the operator would window per micro-batch ([[CheckStreaming]] rejects those first).
 *
 * Plans an [[AnchorWindowAggregate]] with the anchors broadcast, as Spark plans an aggregate:
 * {{{
 *   AnchorWindowResults                   each anchor's row, window and results
 *   :- HashAggregate(keys=[anchor])       Spark's final aggregate (Exchange below it, by anchor)
 *   :  +- AnchorSliceAggregate            per task, one partial aggregate per anchor
 *   :     :- messages
 *   :     +- BroadcastExchange anchors
 *   +- BroadcastExchange anchors          (the same broadcast, reused)
 * }}}
 * and as the sweep over slices while its anchors' size is not known (it waits for the stage of
 * their exchange, see [[SweepAnchorSlices]]).
 *
 * Plans [[AnchorSlices]] with the anchors' interval ends broadcast when they are small enough
 * to be the build side of a broadcast join (`spark.sql.autoBroadcastJoinThreshold`): Spark's
 * partial aggregate, grouped by the keys and the slice, over an [[AnchorSliceExec]]. Larger ones
 * are not broadcast: each distinct message time is then its own slice of Spark's partial
 * aggregate, which needs no boundaries and still folds equal times.
 */
object EventWindowStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case a: EventWindowAggregate if a.isStreaming => CheckStreaming.reject(a)
    case a: EventWindowAggregate =>
      EventWindowAggregateExec(
        a.keys,
        a.window,
        a.windowAttribute,
        a.aggregates,
        a.filters,
        a.aggregateAttributes,
        a.partialBuffers,
        a.clippedLifetime,
        planLater(a.child)) :: Nil
    case c: WindowContents =>
      WindowContentsExec(
        c.ordinal,
        c.present,
        c.position,
        c.contents,
        c.elements,
        planLater(c.child)) :: Nil
    case p: Project if PandasGroups.placedIn(p).isDefined =>
      EventWindowing.misplaced(PandasGroups.placedIn(p).get)
    case a: AnchorWindowAggregate if SweepAnchorSlices.sizeKnown(a.anchors) =>
      broadcastAnchors(a) :: Nil
    // Undecided: the sweep, whose first stage is the anchors' (see SweepAnchorSlices).
    case a: AnchorWindowAggregate => planLater(SweepAnchorSlices.sweep(a)) :: Nil
    case s: AnchorSlices => partialAggregate(s, sliced(s)) :: Nil
    case _ => Nil
  }

  /**
   * Spark's final aggregate by anchor number over [[AnchorSliceAggregateExec]], whose output is
   * the columns Spark's own partial aggregate would give it, then the anchors' rows.
   */
  private def broadcastAnchors(a: AnchorWindowAggregate): SparkPlan = {
    val anchorNumber = AttributeReference("anchor", IntegerType, nullable = false)()
    // The final aggregate's results are the node's aggregate attributes.
    val aggregateExpressions = a.aggregates.zip(a.aggregateAttributes).map { case (f, result) =>
      AggregateExpression(f, Complete, isDistinct = false, filter = None, resultId = result.exprId)
    }
    val messages = planLater(a.messages)
    val Seq(finalAggregate) = AggUtils.planAggregateWithoutDistinct(
      Seq(anchorNumber),
      aggregateExpressions,
      anchorNumber +: a.aggregateAttributes,
      messages)
    val partials = AnchorSliceAggregateExec(
      a.keys,
      a.time,
      a.aggregates.map(_.asInstanceOf[DeclarativeAggregate]),
      a.filters,
      finalAggregate.children.head.output,
      a.anchor,
      messages,
      planLater(a.anchors))
    AnchorWindowResultsExec(
      a.keys,
      a.windowAttribute,
      a.aggregateAttributes,
      a.anchor,
      anchorNumber,
      finalAggregate.withNewChildren(Seq(partials)),
      planLater(a.anchors))
  }

  /** The messages with their slice. */
  private def sliced(s: AnchorSlices): SparkPlan = {
    val messages = planLater(s.messages)
    if (SweepAnchorSlices.fitsBroadcast(s.anchors)) {
      AnchorSliceExec(s.keys, s.time, s.slice, s.anchor, messages, planLater(s.anchors))
    } else {
      FilterExec(
        IsNotNull(s.slice),
        ProjectExec(
          messages.output :+ Alias(s.time, s.slice.name)(exprId = s.slice.exprId),
          messages))
    }
  }

  /**
   * Spark's partial aggregation of the sliced messages by keys and slice, as Spark plans the
   * partial half of an Aggregate (hash, object hash or sort aggregate as the buffers allow), its
   * buffer columns renamed to the node's `bufferAttributes`.
   */
  private def partialAggregate(s: AnchorSlices, sliced: SparkPlan): SparkPlan = {
    val grouping = s.keys :+ s.slice
    val aggregateExpressions = s.aggregates.zip(s.filters).map { case (f, filter) =>
      AggregateExpression(
        f,
        Complete,
        isDistinct = false,
        filter = Some(filter).filterNot(_ == Literal.TrueLiteral))
    }
    val Seq(finalAggregate) =
      AggUtils.planAggregateWithoutDistinct(grouping, aggregateExpressions, grouping, sliced)
    val partial = finalAggregate.children.head
    val buffers = partial.output.drop(grouping.size).zip(s.bufferAttributes).map {
      case (b, named) => Alias(b, named.name)(exprId = named.exprId)
    }
    ProjectExec(grouping ++ buffers, partial)
  }
}
