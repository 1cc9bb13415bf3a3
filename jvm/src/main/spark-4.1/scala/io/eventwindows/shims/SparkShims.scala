package io.eventwindows.shims

import org.apache.spark.sql.catalyst.expressions.{Expression, TimestampAddInterval}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.streaming.operators.stateful.transformwithstate.TransformWithStateExec
import org.apache.spark.sql.streaming.StatefulProcessor

/**
 * What differs between the Spark lines eventwindows builds for, in the copy for Spark 4.1. Every
 * line has its own copy of this object in jvm/src/main/spark-<line>/scala, with the same members;
 * the shared sources call these and nothing line-specific.
 */
object SparkShims {

  /**
   * A timestamp plus a day-time interval, in the session's time zone.
   * `TimestampAddInterval` since Spark 4.1 (`TimeAdd` in 4.0).
   */
  def timestampAddInterval(
      timestamp: Expression,
      interval: Expression,
      timeZoneId: Option[String]): Expression =
    TimestampAddInterval(timestamp, interval, timeZoneId)

  /**
   * `plan` with the stateful processor of each `TransformWithStateExec` that has a late-row
   * watermark replaced by what `update` gives for that processor and watermark (in ms), if it
   * gives one. The operator class is in
   * `execution.streaming.operators.stateful.transformwithstate` since Spark 4.1
   * (`execution.streaming` in 4.0).
   */
  def updateTransformWithStateProcessors(plan: SparkPlan)(
      update: (AnyRef, Long) => Option[AnyRef]): SparkPlan = plan.transformUp {
    case t: TransformWithStateExec if t.eventTimeWatermarkForLateEvents.isDefined =>
      update(t.statefulProcessor, t.eventTimeWatermarkForLateEvents.get)
        .map(p => t.copy(statefulProcessor = p.asInstanceOf[StatefulProcessor[Any, Any, Any]]))
        .getOrElse(t)
  }
}
