package io.eventwindows.expressions

import org.apache.spark.sql.types.{DataType, LongType, TimestampNTZType, TimestampType}

/**
 * The time types events may carry, and the time line of each: TIMESTAMP and TIMESTAMP_NTZ count
 * microseconds (one tick = 1 microsecond) from 0001-01-01 to 9999-12-31 23:59:59.999999, the range of
 * .NET's DateTime and Python's datetime, so "the end of time" is a printable instant as in
 * StreamInsight; BIGINT counts abstract application ticks over the whole range of Long.
 */
object EventTime {

  /** Microseconds of 0001-01-01 00:00:00 UTC. */
  final val TimestampMin: Long = -62135596800000000L

  /** Microseconds of 9999-12-31 23:59:59.999999 UTC. */
  final val TimestampMax: Long = 253402300799999999L

  def isTimeType(dataType: DataType): Boolean = dataType match {
    case TimestampType | TimestampNTZType | LongType => true
    case _ => false
  }

  /** The first instant of the time line of `dataType`. */
  def lineMin(dataType: DataType): Long =
    if (dataType == LongType) Long.MinValue else TimestampMin

  /** The last instant of the time line of `dataType`: the end of time. */
  def lineMax(dataType: DataType): Long =
    if (dataType == LongType) Long.MaxValue else TimestampMax

  /** How the types are named in messages. */
  val allowedTypes: String = "TIMESTAMP, TIMESTAMP_NTZ or BIGINT"
}
