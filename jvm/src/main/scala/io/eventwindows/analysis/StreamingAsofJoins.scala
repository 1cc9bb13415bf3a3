package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.streaming.{StreamingAsofJoinProcessor, StreamingAsofJoinSpec}
import io.eventwindows.plans.AsofJoin

/**
 * Runs an [[AsofJoin]] of two streams (`asof_join` with a `spark.readStream` DataFrame on each
 * side) as Spark's `TransformWithState` over the union of both sides, as
 * [[StreamingRangeJoins.joinOfStreams]] builds it for the range joins, with a
 * [[StreamingAsofJoinProcessor]] per key: each time column must carry its side's watermark
 * (Spark drops late rows by it, and it tells when a left row's match is final); without one, an
 * analysis error (`EVENTWINDOWS_STREAM_JOIN_WITHOUT_WATERMARK`) names `asof_join` and the column. A post-hoc resolution rule, as
 * [[StreamingRangeJoins]].
 */
object StreamingAsofJoins extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case j: AsofJoin if j.left.isStreaming && j.right.isStreaming => rewrite(j)
  }

  private def rewrite(j: AsofJoin): LogicalPlan = {
    val Seq(leftTime, rightTime) = Seq("left" -> j.leftTime, "right" -> j.rightTime).map {
      case (_, t: Attribute) if StreamingRangeJoins.watermarked(t) => t
      case (side, t) => throw EventWindowsErrors.streamJoinWithoutWatermark(
          AsofJoinTableFunction.Name,
          side,
          s"time column `${name(t)}`",
          "a left row is emitted once the watermark shows that no nearer right row can still " +
            "arrive")
    }
    StreamingWindows.checkStateStore(AsofJoinTableFunction.Name)
    StreamingRangeJoins.joinOfStreams(
      j.left,
      j.right,
      j.leftKeys,
      j.rightKeys,
      leftTime,
      rightTime,
      j.output) { (input, output) =>
      new StreamingAsofJoinProcessor(StreamingAsofJoinSpec(
        j.left.output,
        j.right.output,
        leftTime,
        rightTime,
        AsofJoin.rightTieBreak(j.right.output, j.rightKeys, j.rightTime),
        j.direction,
        j.tolerance,
        j.allowExactMatches,
        input,
        output,
        StateDefinition.ofAsofJoin(j.direction, j.tolerance, j.allowExactMatches, input)))
    }
  }

  private def name(t: Expression): String = t.references.headOption.map(_.name).getOrElse(t.sql)
}
