package io.eventwindows.shims

import org.apache.spark.sql.catalyst.expressions.{Expression, TimeAdd}

/**
 * What differs between the Spark lines eventwindows builds for, in the copy for Spark 4.0. Every
 * line has its own copy of this object in jvm/src/main/spark-<line>/scala, with the same members;
 * the shared sources call these and nothing line-specific.
 */
object SparkShims {

  /**
   * A timestamp plus a day-time interval, in the session's time zone.
   * Spark 4.0 calls it `TimeAdd`; 4.1 renamed it `TimestampAddInterval`.
   */
  def timestampAddInterval(
      timestamp: Expression,
      interval: Expression,
      timeZoneId: Option[String]): Expression =
    TimeAdd(timestamp, interval, timeZoneId)
}
