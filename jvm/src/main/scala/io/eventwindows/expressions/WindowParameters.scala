package io.eventwindows.expressions

import java.util.Locale

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions.{Cast, Expression, Literal}
import org.apache.spark.sql.catalyst.util.{DateTimeUtils, IntervalUtils}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.time.CalendarStep

/**
 * Reads the constant parameters of the window functions (durations, alignments, policies) and
 * rejects bad ones at analysis time with a message that names the function and the parameter.
 *
 * Constants follow Spark's own functions: every integral type widens to the BIGINT a parameter
 * needs, and for timestamps whatever Spark's `window()` accepts for a duration or a start time is
 * accepted (an integer there is a number of microseconds).
 */
object WindowParameters {

  /** Rejects a parameter of `function` ([[EventWindowsErrors.invalidParameter]]). */
  private def fail(function: String, message: String): Nothing =
    throw EventWindowsErrors.invalidParameter(function, message)

  /** Checks that a time argument has one of the time types and returns that type. */
  def timeType(function: String, parameter: String, e: Expression): DataType = {
    if (!EventTime.isTimeType(e.dataType)) {
      fail(
        function,
        s"`$parameter` must be ${EventTime.allowedTypes}, got ${e.dataType.sql} " +
          s"(${e.sql})")
    }
    e.dataType
  }

  private def constant(function: String, parameter: String, e: Expression): Any = {
    if (!e.foldable) fail(function, s"`$parameter` must be a constant, got ${e.sql}")
    e.eval()
  }

  private def nonNullConstant(function: String, parameter: String, e: Expression): Any = {
    val value = constant(function, parameter, e)
    if (value == null) fail(function, s"`$parameter` must not be NULL")
    value
  }

  /** TINYINT, SMALLINT, INT and BIGINT: each widens to BIGINT, as in Spark's own functions. */
  private def isIntegral(dataType: DataType): Boolean = dataType match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }

  /** The value of a constant of an integral type, widened to a Long. */
  private def widened(value: Any): Long = value.asInstanceOf[Number].longValue()

  /** A constant integer of any integral type (a count, an index), not NULL. */
  def integer(function: String, parameter: String, e: Expression): Long = {
    val value = nonNullConstant(function, parameter, e)
    if (!isIntegral(e.dataType)) {
      fail(
        function,
        s"`$parameter` must be an integer (TINYINT, SMALLINT, INT or BIGINT), got " +
          s"${e.dataType.sql} (${e.sql})")
    }
    widened(value)
  }

  /**
   * A relative time in ticks of the time type `time`, of any sign: for BIGINT time an integer; for
   * timestamps a day-time interval, an interval string such as '-5 seconds' or a calendar interval
   * without months, as Python's `F.window` takes durations: a bare integer is no duration there
   * (Spark's SQL `window()` would read it as microseconds, silently tiny windows).
   */
  def offsetTicks(function: String, parameter: String, e: Expression, time: DataType): Long = {
    val value = nonNullConstant(function, parameter, e)
    (time, e.dataType, value) match {
      case (LongType, dataType, n) if isIntegral(dataType) => widened(n)
      case (_, dataType, n) if isIntegral(dataType) =>
        fail(
          function,
          s"`$parameter` must be ${relativeTimes(time)}, got the integer $n, which " +
            s"is no duration for ${time.sql} time (as in Spark's window()); for microseconds write " +
            s"'$n microseconds'")
      case (LongType, other, _) =>
        fail(
          function,
          s"`$parameter` must be an integer number of ticks for BIGINT time, got " +
            s"${other.sql} (${e.sql})")
      case (_, _: DayTimeIntervalType, micros: Long) => micros
      case (_, StringType, s: UTF8String) =>
        val interval = parseInterval(s).getOrElse(
          fail(function, s"`$parameter` is not a valid interval: '$s'"))
        calendarMicros(function, parameter, interval)
      case (_, CalendarIntervalType, interval: CalendarInterval) =>
        calendarMicros(function, parameter, interval)
      case (_, other, _) =>
        fail(function, s"`$parameter` must be ${relativeTimes(time)}, got ${other.sql} (${e.sql})")
    }
  }

  /** The types other than strings that [[alignmentTicks]] reads as offsets for timestamps. */
  private def isOffsetType(dataType: DataType): Boolean = dataType match {
    case _: DayTimeIntervalType | CalendarIntervalType => true
    case other => isIntegral(other)
  }

  /** What [[offsetTicks]] accepts for timestamps, for messages. */
  private def relativeTimes(time: DataType): String =
    s"an interval string such as '5 seconds' or a day-time interval for ${time.sql} time"

  /**
   * `ticks` of the time type `time` as a user writes them: a number for BIGINT time, an interval
   * for timestamps ('10 minutes', not 600000000).
   */
  def describeTicks(ticks: Long, time: DataType): String =
    if (time == LongType) ticks.toString else new CalendarInterval(0, 0, ticks).toString

  /** A positive [[offsetTicks]]: a window length, a hop, a period. */
  def durationTicks(function: String, parameter: String, e: Expression, time: DataType): Long = {
    val ticks = offsetTicks(function, parameter, e, time)
    if (ticks <= 0) fail(function, s"`$parameter` must be positive, got ${e.sql}")
    ticks
  }

  /**
   * A window length or hop of calendar windows over timestamps: what [[durationTicks]] takes, and
   * also months and years (a string such as '1 month', a year-month interval). The days of a
   * string or a day-time interval are calendar days, as Spark adds either to a timestamp.
   * Positive, and no part negative.
   */
  def calendarStep(function: String, parameter: String, e: Expression, time: DataType)
      : CalendarStep = {
    val value = nonNullConstant(function, parameter, e)
    val interval = (e.dataType, value) match {
      case (_: YearMonthIntervalType, months: Int) => new CalendarInterval(months, 0, 0L)
      case (_: DayTimeIntervalType, micros: Long) =>
        new CalendarInterval(
          0,
          (micros / CalendarStep.DayMicros).toInt,
          micros % CalendarStep.DayMicros)
      case (StringType, s: UTF8String) => parseInterval(s).getOrElse(
          fail(function, s"`$parameter` is not a valid interval: '$s'"))
      case (CalendarIntervalType, i: CalendarInterval) => i
      case _ => new CalendarInterval(0, 0, durationTicks(function, parameter, e, time))
    }
    if (interval.months < 0 || interval.days < 0 || interval.microseconds < 0 ||
      (interval.months == 0 && interval.days == 0 && interval.microseconds == 0)) {
      fail(function, s"`$parameter` must be positive, with no negative part, got $interval")
    }
    CalendarStep(interval.months, interval.days, interval.microseconds)
  }

  /**
   * The optional time zone of calendar windows, normalized (a region such as 'Europe/Berlin', or
   * an offset such as '+05:45', as Spark's session time zone takes them); only over TIMESTAMP
   * time. NULL means none.
   */
  def timeZone(function: String, e: Option[Expression], time: DataType): Option[String] =
    e.flatMap(c => Option(constant(function, "time_zone", c))).map { value =>
      if (time != TimestampType) {
        fail(
          function,
          s"`time_zone` needs TIMESTAMP time, got ${time.sql}: " + (
            if (time == TimestampNTZType) "TIMESTAMP_NTZ calendar windows step the wall clock, " +
              "which has no time zone"
            else "BIGINT time has no calendar"))
      }
      val zone = text(function, "time_zone", e.get)
      try DateTimeUtils.getZoneId(zone).getId
      catch {
        case NonFatal(_) => fail(function, s"`time_zone` is not a valid time zone: '$zone'")
      }
    }

  /**
   * The local time (wall-clock microseconds) on which calendar windows align: a timestamp string
   * or a TIMESTAMP_NTZ read as a wall clock, a TIMESTAMP as its wall clock in `zone`, or an offset
   * from 1970-01-01 00:00 as [[alignmentTicks]] reads one; NULL or absent: `default`.
   */
  def calendarAlignment(
      function: String,
      e: Option[Expression],
      time: DataType,
      zone: String,
      default: Long): Long =
    e.filter(c => constant(function, "alignment", c) != null) match {
      case None => default
      case Some(c) if c.dataType == TimestampType && time == TimestampType =>
        val instant = DateTimeUtils.microsToInstant(c.eval().asInstanceOf[Long])
        DateTimeUtils.localDateTimeToMicros(
          java.time.LocalDateTime.ofInstant(instant, java.time.ZoneId.of(zone)))
      case Some(c) => alignmentTicks(function, Some(c), TimestampNTZType)
    }

  private def parseInterval(s: UTF8String): Option[CalendarInterval] =
    try Some(IntervalUtils.stringToInterval(s))
    catch {
      case _: IllegalArgumentException | _: ArithmeticException => None
    }

  private def calendarMicros(function: String, parameter: String, i: CalendarInterval): Long = {
    if (i.months != 0) {
      fail(function, s"`$parameter` must not have months or years (they vary in length), got $i")
    }
    try Math.addExact(Math.multiplyExact(i.days.toLong, 86400000000L), i.microseconds)
    catch {
      case _: ArithmeticException => fail(
          function,
          s"`$parameter` is too long: $i is more than " +
            "9223372036854775807 microseconds (about 292,000 years)")
    }
  }

  /**
   * The alignment as ticks: an instant as for [[optionalTime]], or for timestamps also an offset
   * from the epoch as Spark's `window()` takes its start time ([[offsetTicks]]: '15 minutes',
   * INTERVAL -5 SECONDS, an integer number of microseconds). A string is read as a timestamp
   * first, then as an interval. NULL or absent means the Unix epoch (tick 0 for BIGINT).
   */
  def alignmentTicks(function: String, e: Option[Expression], time: DataType): Long =
    e.flatMap(instant(function, "alignment", _, time, offsetFromEpoch = true)).getOrElse(0L)

  /**
   * An optional constant instant of the time column's type: for BIGINT time any integer, for
   * timestamps a value of the time column's type or a timestamp string; NULL means none.
   */
  def optionalTime(function: String, parameter: String, e: Option[Expression], time: DataType)
      : Option[Long] = e.flatMap(instant(function, parameter, _, time, offsetFromEpoch = false))

  private def instant(
      function: String,
      parameter: String,
      e: Expression,
      time: DataType,
      offsetFromEpoch: Boolean): Option[Long] =
    Option(constant(function, parameter, e)).map { value =>
      e.dataType match {
        case dataType if dataType == time => value.asInstanceOf[Long]
        case dataType if time == LongType && isIntegral(dataType) => widened(value)
        case StringType if time != LongType =>
          val s = value.asInstanceOf[UTF8String]
          timestampTicks(s, time)
            .orElse(if (offsetFromEpoch)
              parseInterval(s).map(calendarMicros(function, parameter, _))
            else None)
            .getOrElse(fail(
              function,
              s"`$parameter` is not a valid ${time.sql}" +
                (if (offsetFromEpoch) " nor an interval" else "") + s": '$s'"))
        // An integer is microseconds here, as window() takes its start time in SQL.
        case dataType if offsetFromEpoch && time != LongType && isIntegral(dataType) =>
          widened(value)
        case dataType if offsetFromEpoch && time != LongType && isOffsetType(dataType) =>
          offsetTicks(function, parameter, e, time)
        case dataType =>
          val alternatives = if (time == LongType) " (or a narrower integer)"
          else if (!offsetFromEpoch) " (or a timestamp string)"
          else " or a timestamp string, or an offset from the epoch as window() takes its " +
            s"start time: ${relativeTimes(time)}, or an integer number of microseconds"
          fail(
            function,
            s"`$parameter` must be ${time.sql} like the time column$alternatives, " +
              s"got ${dataType.sql} (${e.sql})")
      }
    }

  /** A timestamp string as ticks of `time`, in the session time zone for TIMESTAMP. */
  private def timestampTicks(s: UTF8String, time: DataType): Option[Long] = {
    val cast = Cast(Literal(s, StringType), time, Some(sessionTimeZone))
    try Option(cast.eval()).map(_.asInstanceOf[Long])
    catch { case NonFatal(_) => None }
  }

  private def sessionTimeZone: String =
    org.apache.spark.sql.internal.SQLConf.get.sessionLocalTimeZone

  /** A lower-cased policy name, which must be one of `allowed`; NULL or absent gives `default`. */
  def policy(
      function: String,
      parameter: String,
      e: Option[Expression],
      allowed: Seq[String],
      default: String): String = e match {
    case None => default
    case Some(p) =>
      constant(function, parameter, p) match {
        case null => default
        case s: UTF8String if allowed.contains(s.toString.toLowerCase(Locale.ROOT)) =>
          s.toString.toLowerCase(Locale.ROOT)
        case other =>
          fail(
            function,
            s"`$parameter` must be one of ${allowed.map("'" + _ + "'").mkString(", ")}" +
              s", got ${p.sql}")
      }
  }

  /** A constant BOOLEAN; NULL is false. */
  def flag(function: String, parameter: String, e: Expression): Boolean =
    (constant(function, parameter, e), e.dataType) match {
      case (null, _) => false
      case (b: java.lang.Boolean, BooleanType) => b
      case (_, other) =>
        fail(function, s"`$parameter` must be a BOOLEAN, got ${other.sql} (${e.sql})")
    }

  /** A constant string, not NULL. */
  def text(function: String, parameter: String, e: Expression): String =
    (constant(function, parameter, e), e.dataType) match {
      case (null, _) => fail(function, s"`$parameter` must not be NULL")
      case (s: UTF8String, StringType) => s.toString
      case (_, other) =>
        fail(function, s"`$parameter` must be a string, got ${other.sql} (${e.sql})")
    }
}
