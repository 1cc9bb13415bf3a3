package io.eventwindows.shims

import org.apache.spark.sql.catalyst.expressions.{Expression, TimestampAddInterval}

/**
 * What differs between the Spark lines eventwindows builds for, in the copy for Spark 4.2. Every
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
}
