package io.eventwindows.execution

import io.eventwindows.analysis.CheckStreaming
import io.eventwindows.plans.{AnchorSlices, EventWindowAggregate}

import org.apache.spark.sql.catalyst.expressions.{Alias, IsNotNull, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, DeclarativeAggregate}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan, SparkStrategy, UnsafeFixedWidthAggregationMap}
import org.apache.spark.sql.execution.aggregate.AggUtils
import org.apache.spark.sql.internal.SQLConf

/**
 * Plans an [[EventWindowAggregate]] as an [[EventWindowAggregateExec]]; never a streaming one,
 * which the operator would window per micro-batch ([[CheckStreaming]] rejects those first).
 *
 * Plans [[AnchorSlices]] with the anchors' side broadcast when it is small enough to be the
 * build side of a broadcast join (`spark.sql.autoBroadcastJoinThreshold`): as an
 * [[AnchorSliceAggregateExec]] when the buffers can be updated in place, else as Spark's partial
 * aggregate, grouped by the keys and the slice, over an [[AnchorSliceExec]]. A larger anchors'
 * side is not broadcast: each distinct message time is then its own slice of Spark's partial
 * aggregate, which needs no boundaries and still folds equal times.
 */
object EventWindowStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case a: EventWindowAggregate if a.isStreaming => CheckStreaming.reject(a)
    case a: EventWindowAggregate =>
      EventWindowAggregateExec(a.keys, a.family, a.start, a.end, a.order, a.values,
        a.windowAttribute, a.aggregates, a.filters, a.aggregateAttributes, a.partialBuffers,
        planLater(a.child)) :: Nil
    case s: AnchorSlices if broadcast(s) && inPlace(s) =>
      AnchorSliceAggregateExec(s.keys, s.time, s.slice,
        s.aggregates.map(_.asInstanceOf[DeclarativeAggregate]), s.filters, s.bufferAttributes,
        s.anchorKeys, s.anchorStart, s.anchorEnd, s.bounds, planLater(s.messages),
        planLater(s.anchors)) :: Nil
    case s: AnchorSlices => partialAggregate(s, sliced(s)) :: Nil
    case _ => Nil
  }

  /** True if the anchors are small enough to broadcast, as the build side of a join would be. */
  private def broadcast(s: AnchorSlices): Boolean = {
    val threshold = SQLConf.get.autoBroadcastJoinThreshold
    threshold >= 0 && s.anchors.stats.sizeInBytes <= threshold
  }

  /**
   * True if the aggregates' buffers can be updated in place in an UnsafeRow, as Spark's hash
   * aggregate requires of its own.
   */
  private def inPlace(s: AnchorSlices): Boolean =
    s.aggregates.forall(_.isInstanceOf[DeclarativeAggregate]) &&
      UnsafeFixedWidthAggregationMap.supportsAggregationBufferSchema(
        DataTypeUtils.fromAttributes(s.bufferAttributes))

  /** The messages with their slice. */
  private def sliced(s: AnchorSlices): SparkPlan = {
    val messages = planLater(s.messages)
    if (broadcast(s)) {
      AnchorSliceExec(s.keys, s.time, s.slice, s.anchorKeys, s.anchorStart, s.anchorEnd, s.bounds,
        messages, planLater(s.anchors))
    } else {
      FilterExec(IsNotNull(s.slice), ProjectExec(
        messages.output :+ Alias(s.time, s.slice.name)(exprId = s.slice.exprId), messages))
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
      AggregateExpression(f, Complete, isDistinct = false,
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
