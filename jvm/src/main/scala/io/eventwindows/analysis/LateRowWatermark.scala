package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}

import io.eventwindows.execution.streaming.StreamingWindowProcessor
import io.eventwindows.shims.SparkShims

/**
 * Gives each [[StreamingWindowProcessor]] the watermark by which Spark drops its micro-batch's
 * late rows: the previous micro-batch's watermark, which Spark sets on the `TransformWithStateExec`
 * when it prepares the micro-batch's plan (its `state` rule) and hands its processor no part of
 * (`TimerValues` carry the current one). Windows whose late rows still count in their open rows
 * need it: a late row must not make a row that closed by then
 * ([[io.eventwindows.plans.StreamingRules.lateByLastRow]]).
 *
 * Spark runs the session's columnar rules among the preparations of every plan, after a streaming
 * micro-batch's `state` rule, so this is where the operator's watermarks are known; it changes
 * nothing columnar.
 */
object LateRowWatermark extends ColumnarRule {
  override def preColumnarTransitions: Rule[SparkPlan] = new Rule[SparkPlan] {
    override def apply(plan: SparkPlan): SparkPlan =
      SparkShims.updateTransformWithStateProcessors(plan) {
        case (processor: StreamingWindowProcessor, watermarkMs) =>
          Some(processor.withLateEventsWatermark(watermarkMs))
        case _ => None
      }
  }
}
