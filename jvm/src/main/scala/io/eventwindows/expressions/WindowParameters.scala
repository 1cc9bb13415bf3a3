package io.eventwindows.expressions

import java.util.Locale

import scala.util.control.NonFatal

import io.eventwindows.EventWindowsAnalysisException

import org.apache.spark.sql.catalyst.expressions.{Cast, Expression, Literal}
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

/**
 * Reads the constant parameters of the window functions (durations, alignments, policies) and
 * rejects bad ones at analysis time with a message that names the function and the parameter.
 */
object WindowParameters {

  def fail(function: String, message: String): Nothing =
    throw new EventWindowsAnalysisException(s"$function: $message")

  /** Checks that a time argument has one of the time types and returns that type. */
  def timeType(function: String, parameter: String, e: Expression): DataType = {
    if (!EventTime.isTimeType(e.dataType)) {
      fail(function, s"`$parameter` must be ${EventTime.allowedTypes}, got ${e.dataType.sql} " +
        s"(${e.sql})")
    }
    e.dataType
  }

  private def constant(function: String, parameter: String, e: Expression): Any = {
    if (!e.foldable) fail(function, s"`$parameter` must be a constant, got ${e.sql}")
    e.eval()
  }

  /**
   * A duration in ticks of the time type `time`: for timestamps a day-time interval, an interval
   * string such as '5 seconds' or a calendar interval without months; for BIGINT time an integer.
   * It must be positive.
   */
  def durationTicks(function: String, parameter: String, e: Expression, time: DataType): Long = {
    val value = constant(function, parameter, e)
    if (value == null) fail(function, s"`$parameter` must not be NULL")
    val ticks = (time, e.dataType, value) match {
      case (LongType, ByteType | ShortType | IntegerType | LongType, n) => n.asInstanceOf[Number].longValue()
      case (LongType, other, _) =>
        fail(function, s"`$parameter` must be an integer number of ticks for BIGINT time, got " +
          s"${other.sql}")
      case (_, _: DayTimeIntervalType, micros: Long) => micros
      case (_, StringType, s: UTF8String) =>
        val interval = try IntervalUtils.stringToInterval(s) catch {
          case _: IllegalArgumentException | _: ArithmeticException =>
            fail(function, s"`$parameter` is not a valid interval: '$s'")
        }
        calendarMicros(function, parameter, interval)
      case (_, CalendarIntervalType, interval: CalendarInterval) =>
        calendarMicros(function, parameter, interval)
      case (_, other, _) =>
        fail(function, s"`$parameter` must be a day-time interval or an interval string such as " +
          s"'5 seconds' for ${time.sql} time, got ${other.sql}")
    }
    if (ticks <= 0) fail(function, s"`$parameter` must be positive, got ${e.sql}")
    ticks
  }

  private def calendarMicros(function: String, parameter: String, i: CalendarInterval): Long = {
    if (i.months != 0) {
      fail(function, s"`$parameter` must not have months or years (they vary in length), got $i")
    }
    Math.addExact(Math.multiplyExact(i.days.toLong, 86400000000L), i.microseconds)
  }

  /**
   * The alignment as ticks: a value of the time column's own type, or a string for timestamps;
   * NULL or absent means the Unix epoch (tick 0 for BIGINT).
   */
  def alignmentTicks(function: String, e: Option[Expression], time: DataType): Long =
    optionalTime(function, "alignment", e, time).getOrElse(0L)

  /**
   * An optional constant instant of the time column's type, also given as a string for
   * timestamps; NULL means none.
   */
  def optionalTime(function: String, parameter: String, e: Option[Expression], time: DataType)
      : Option[Long] = e.flatMap { t =>
    (constant(function, parameter, t), t.dataType) match {
      case (null, _) => None
      case (value, dt) if dt == time => Some(value.asInstanceOf[Long])
      case (value, StringType) if time != LongType =>
        val cast = Cast(Literal(value, StringType), time, Some(sessionTimeZone))
        val ticks = try Option(cast.eval()) catch { case NonFatal(_) => None }
        Some(ticks.map(_.asInstanceOf[Long]).getOrElse(
          fail(function, s"`$parameter` is not a valid ${time.sql}: '$value'")))
      case (_, dt) =>
        fail(function, s"`$parameter` must be ${time.sql} like the time column" +
          (if (time != LongType) " (or a timestamp string)" else "") + s", got ${dt.sql}")
    }
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
          fail(function, s"`$parameter` must be one of ${allowed.map("'" + _ + "'").mkString(", ")}" +
            s", got ${p.sql}")
      }
  }

  /** A constant integer of any integral type (TINYINT to BIGINT), not NULL. */
  def integer(function: String, parameter: String, e: Expression): Long =
    (constant(function, parameter, e), e.dataType) match {
      case (null, _) => fail(function, s"`$parameter` must not be NULL")
      case (n: Number, ByteType | ShortType | IntegerType | LongType) => n.longValue()
      case (_, other) => fail(function, s"`$parameter` must be an integer, got ${other.sql} (${e.sql})")
    }

  /**
   * A relative time offset of any sign in ticks of the time type `time`: for timestamps a
   * day-time interval or an interval string such as '-5 seconds'; for BIGINT time an integer.
   */
  def offsetTicks(function: String, parameter: String, e: Expression, time: DataType): Long = {
    val value = constant(function, parameter, e)
    if (value == null) fail(function, s"`$parameter` must not be NULL")
    (time, e.dataType, value) match {
      case (LongType, ByteType | ShortType | IntegerType | LongType, n) => n.asInstanceOf[Number].longValue()
      case (LongType, other, _) =>
        fail(function, s"`$parameter` must be an integer number of ticks for BIGINT time, got " +
          s"${other.sql}")
      case (_, _: DayTimeIntervalType, micros: Long) => micros
      case (_, StringType, s: UTF8String) =>
        val interval = try IntervalUtils.stringToInterval(s) catch {
          case _: IllegalArgumentException | _: ArithmeticException =>
            fail(function, s"`$parameter` is not a valid interval: '$s'")
        }
        calendarMicros(function, parameter, interval)
      case (_, CalendarIntervalType, interval: CalendarInterval) =>
        calendarMicros(function, parameter, interval)
      case (_, other, _) =>
        fail(function, s"`$parameter` must be a day-time interval or an interval string such as " +
          s"'5 seconds' for ${time.sql} time, got ${other.sql}")
    }
  }

  /** A constant string, not NULL. */
  def text(function: String, parameter: String, e: Expression): String =
    (constant(function, parameter, e), e.dataType) match {
      case (null, _) => fail(function, s"`$parameter` must not be NULL")
      case (s: UTF8String, StringType) => s.toString
      case (_, other) => fail(function, s"`$parameter` must be a string, got ${other.sql} (${e.sql})")
    }
}
