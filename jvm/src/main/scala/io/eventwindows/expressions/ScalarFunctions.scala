package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{Cast, Expression, Literal}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{
  ByteType, DataType, DayTimeIntervalType, IntegerType, LongType, ShortType, StringType
}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.expressions.FunctionArguments.{arity, register}

/**
 * The scalar time helpers of the blog post "Taming Hopping Windows" (StreamInsight): its
 * `SnapToBoundary`, with floor rounding, and its `AdjustStartTime` and `AdjustEndTime`, which snap
 * an event's lifetime to the hopping windows' intervals so that a snapshot window over it gives one
 * row per change of the windows' contents.
 */
private[expressions] object ScalarFunctions {

  val snapToBoundary: Registration = register(
    "snap_to_boundary",
    classOf[SnapToBoundary],
    """
    _FUNC_(t, alignment, period) - The largest time alignment + n * period that is <= t, over all
      integers n (floor rounding: right before the alignment and before 1970).
    """,
    """
    Arguments:
      * t - a TIMESTAMP, TIMESTAMP_NTZ or BIGINT.
      * alignment - a boundary, of the type of `t` (or a timestamp string); for timestamps a
          constant may also be an offset from the epoch, as for hopping_window.
      * period - the distance between boundaries: a day-time interval or an interval string for
          timestamps, an integer for BIGINT; positive.
    """,
    """
    Examples:
      > SELECT _FUNC_(-1L, 0L, 5L), _FUNC_(5L, 0L, 5L), _FUNC_(TIMESTAMP '1969-12-31 23:59:59', TIMESTAMP '1970-01-01 00:00:00', '2 seconds');
        -5	5	1969-12-31 23:59:58
    """) { args =>
    val name = "snap_to_boundary"
    if (args.size != 3) arity(name, "3 arguments (t, alignment, period)", args)
    val time = WindowParameters.timeType(name, "t", args.head)
    val alignment = args(1) match {
      case a if !a.foldable && a.dataType == StringType && time != LongType =>
        Cast(a, time, timeZone)
      case a if !a.foldable => widenedToBigint(a, time)
      case a if a.eval() == null => Literal(null, time) // NULL in, NULL out (not the epoch)
      case a => Literal(WindowParameters.alignmentTicks(name, Some(a), time), time)
    }
    val period = if (!args(2).foldable) widenedToBigint(args(2), time)
    else {
      val ticks = WindowParameters.durationTicks(name, "period", args(2), time)
      if (time == LongType) Literal(ticks) else Literal(ticks, DayTimeIntervalType())
    }
    SnapToBoundary(args.head, alignment, period)
  }

  private def adjustRegistration(
      name: String,
      expression: Class[_ <: AdjustLifetime],
      what: String,
      example: String)(
      make: (Expression, Long, Long, Long) => Expression): Registration = register(
    name,
    expression,
    s"""
    _FUNC_(t, size, hop[, alignment]) - $what
    """,
    """
    Arguments:
      * t - a TIMESTAMP, TIMESTAMP_NTZ or BIGINT.
      * size, hop - the hopping windows' length and hop, as for hopping_window; 0 < hop <= size.
      * alignment - optional, as for hopping_window.
    """,
    s"""
    Examples:
      $example
    """) { args =>
    if (args.size < 3 || args.size > 4) arity(name, "3 or 4 arguments", args)
    val time = WindowParameters.timeType(name, "t", args.head)
    val size = WindowParameters.durationTicks(name, "size", args(1), time)
    val hop = WindowParameters.durationTicks(name, "hop", args(2), time)
    if (hop > size) {
      throw EventWindowsErrors.invalidParameter(
        name,
        s"`hop` must not exceed `size`, got " +
          s"${WindowParameters.describeTicks(hop, time)} > ${WindowParameters.describeTicks(size, time)}")
    }
    make(args.head, size, hop, WindowParameters.alignmentTicks(name, args.lift(3), time))
  }

  val adjustStartTime: Registration = adjustRegistration(
    "adjust_start_time",
    classOf[AdjustStartTime],
    """AdjustStartTime of the blog post "Taming
      Hopping Windows" (StreamInsight): the end of the earliest hopping window that contains t.
      With adjust_end_time it snaps an event's lifetime so that a snapshot window over it gives
      one row per change of the hopping windows' contents.""",
    """> SELECT _FUNC_(3L, 5L, 2L), _FUNC_(4L, 5L, 2L);
        5	5""")(AdjustStartTime(_, _, _, _))

  val adjustEndTime: Registration = adjustRegistration(
    "adjust_end_time",
    classOf[AdjustEndTime],
    """AdjustEndTime of the blog post "Taming Hopping
      Windows" (StreamInsight): one hop past the end of the latest hopping window that starts
      before t (t is an exclusive end). NULL (an open end) gives the end of time.""",
    """> SELECT _FUNC_(10L, 5L, 2L), _FUNC_(11L, 5L, 2L);
        15	17""")(AdjustEndTime(_, _, _, _))

  private def timeZone: Option[String] = Some(SQLConf.get.sessionLocalTimeZone)

  /** A column for a BIGINT parameter of a narrower integral type, widened to BIGINT. */
  private def widenedToBigint(e: Expression, time: DataType): Expression =
    (time, e.dataType) match {
      case (LongType, ByteType | ShortType | IntegerType) => Cast(e, LongType)
      case _ => e
    }
}
