package io.eventwindows.expressions

import io.eventwindows.plans.{Hopping, OutputPolicy, Snapshot}

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Cast, Expression, ExpressionInfo, Literal}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{ByteType, DataType, DayTimeIntervalType, IntegerType, LongType, NullType, ShortType, StringType}

/**
 * The table of SQL functions eventwindows registers: name, documentation (shown by
 * `DESCRIBE FUNCTION EXTENDED`, and repeated as the docstring of the Python function of the same
 * name) and builder. Builders check the arguments and turn constant parameters into ticks, so every
 * misuse is reported at analysis time, naming the parameter.
 */
object EventWindowsFunctions {

  /** One registration, as `SparkSessionExtensions.injectFunction` takes it. */
  type Registration = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression)

  /** `expression`: the class the builder returns, shown as `Class:` by DESCRIBE FUNCTION. */
  private def register(
      name: String, expression: Class[_ <: Expression], usage: String, arguments: String,
      examples: String)(
      builder: Seq[Expression] => Expression): Registration = {
    val info = new ExpressionInfo(expression.getCanonicalName, null, name, usage, arguments,
      examples, "", "datetime_funcs", "0.1.0", "", "built-in")
    (FunctionIdentifier(name), info, builder)
  }

  private val lifetimeArguments =
    """
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
    """

  private val hoppingParameters =
    """
      * alignment - optional, a time of the type of `start` (or a timestamp string) on which
          some window starts; for timestamps also an offset from the epoch, as window() takes
          its start time: an interval string such as '15 minutes', a day-time interval or an
          integer number of microseconds. NULL or absent: the Unix epoch.
      * output - optional, 'window' (default: a row per non-empty window, its lifetime the
          window), 'point' (a point event at each non-empty window's end) or 'changes' (a row per
          run of consecutive windows holding the same events, its lifetime the time over which
          that result holds; needs hop <= size).
      * horizon - optional, the last time open-ended events cover under 'window' and 'point', of
          the type of `start` (or a timestamp string); NULL or absent: the latest finite time in
          the input.
    """

  val hoppingWindow: Registration = register(
    "hopping_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end], size, hop[, alignment[, output[, horizon]]]) - Groups events into
      hopping windows [alignment + n * hop, alignment + n * hop + size) for every integer n. An
      event belongs to every window its lifetime intersects, and aggregates see it in each. Use it
      in GROUP BY; it yields the column `window` (struct of `start` and `end`: the lifetime of the
      output row). Empty windows give no row.
    """,
    s"""
    Arguments:$lifetimeArguments
      * size - the window length: a day-time interval, a string such as '5 seconds' or an
          integer number of microseconds (for BIGINT time an integer number of ticks); positive.
      * hop - the distance between window starts, like `size`; positive.$hoppingParameters""",
    """
    Examples:
      > SELECT window.start, window.end, count(*) FROM VALUES (TIMESTAMP '2024-01-01 00:00:01'), (TIMESTAMP '2024-01-01 00:00:03') AS t(ts) GROUP BY _FUNC_(ts, '4 seconds', '2 seconds') ORDER BY 1;
        2023-12-31 23:59:58	2024-01-01 00:00:02	1
        2024-01-01 00:00:00	2024-01-01 00:00:04	2
        2024-01-01 00:00:02	2024-01-01 00:00:06	1
    """)(hoppingBuilder("hopping_window", tumbling = false))

  val tumblingWindow: Registration = register(
    "tumbling_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end], size[, alignment[, output[, horizon]]]) - Groups events into adjacent,
      non-overlapping windows of length `size`: hopping_window with hop = size.
    """,
    s"""
    Arguments:$lifetimeArguments
      * size - the window length: a day-time interval, a string such as '5 seconds' or an
          integer number of microseconds (for BIGINT time an integer number of ticks); positive.$hoppingParameters""",
    """
    Examples:
      > SELECT window.start, count(*) FROM VALUES (1L), (3L), (4L), (5L) AS t(ts) GROUP BY _FUNC_(ts, 2) ORDER BY 1;
        0	1
        2	1
        4	2
    """)(hoppingBuilder("tumbling_window", tumbling = true))

  val snapshotWindow: Registration = register(
    "snapshot_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end]) - Groups events into snapshot windows: the intervals between consecutive
      distinct event endpoints (starts and ends), one row for each such interval where at least
      one event is active, aggregating the events active there. Use it in GROUP BY; it yields the
      column `window` (struct of `start` and `end`).
    """,
    s"""
    Arguments:$lifetimeArguments""",
    """
    Examples:
      > SELECT window.start, window.end, count(*) FROM VALUES (0L, 4L), (2L, 6L) AS t(s, e) GROUP BY _FUNC_(s, e) ORDER BY 1;
        0	2	1
        2	4	2
        4	6	1
    """)(snapshotBuilder)

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
      * period - the distance between boundaries: a day-time interval, an interval string or an
          integer number of microseconds for timestamps, an integer for BIGINT; positive.
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
    val period = if (!args(2).foldable) widenedToBigint(args(2), time) else {
      val ticks = WindowParameters.durationTicks(name, "period", args(2), time)
      if (time == LongType) Literal(ticks) else Literal(ticks, DayTimeIntervalType())
    }
    SnapToBoundary(args.head, alignment, period)
  }

  private def adjustRegistration(
      name: String, expression: Class[_ <: AdjustLifetime], what: String, example: String)(
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
    if (hop > size) WindowParameters.fail(name, s"`hop` must not exceed `size`, got $hop > $size")
    make(args.head, size, hop, WindowParameters.alignmentTicks(name, args.lift(3), time))
  }

  val adjustStartTime: Registration = adjustRegistration(
    "adjust_start_time",
    classOf[AdjustStartTime],
    """Seed 000's AdjustStartTime: the end of the earliest hopping window that
      contains t. With adjust_end_time it snaps an event's lifetime so that a snapshot window
      over it gives one row per change of the hopping windows' contents.""",
    """> SELECT _FUNC_(3L, 5L, 2L), _FUNC_(4L, 5L, 2L);
        5	5""")(AdjustStartTime(_, _, _, _))

  val adjustEndTime: Registration = adjustRegistration(
    "adjust_end_time",
    classOf[AdjustEndTime],
    """Seed 000's AdjustEndTime: one hop past the end of the latest hopping window
      that starts before t (t is an exclusive end). NULL (an open end) gives the end of time.""",
    """> SELECT _FUNC_(10L, 5L, 2L), _FUNC_(11L, 5L, 2L);
        15	17""")(AdjustEndTime(_, _, _, _))

  /** Every registration, in the order `SHOW FUNCTIONS` would list them. */
  val all: Seq[Registration] = Seq(
    adjustEndTime, adjustStartTime, hoppingWindow, snapToBoundary, snapshotWindow, tumblingWindow)

  private def timeZone: Option[String] = Some(SQLConf.get.sessionLocalTimeZone)

  /** A column for a BIGINT parameter of a narrower integral type, widened to BIGINT. */
  private def widenedToBigint(e: Expression, time: DataType): Expression =
    (time, e.dataType) match {
      case (LongType, ByteType | ShortType | IntegerType) => Cast(e, LongType)
      case _ => e
    }

  private def arity(name: String, expected: String, args: Seq[Expression]): Nothing =
    WindowParameters.fail(name, s"takes $expected, got ${args.size}: " +
      args.map(_.sql).mkString(", "))

  /**
   * Splits `start[, end], params...`: the second argument is the end column unless it is a
   * non-NULL constant (a size or a hop). A NULL constant is an end: every event is open-ended.
   */
  private def lifetime(name: String, args: Seq[Expression], minParams: Int)
      : (Expression, Option[Expression], Seq[Expression]) = {
    if (args.isEmpty) arity(name, "at least a start column", args)
    val start = args.head
    val time = WindowParameters.timeType(name, "start", start)
    val hasEnd = args.size > 1 && (!args(1).foldable || args(1).eval() == null)
    val end = if (!hasEnd) None else Some(args(1).dataType match {
      case NullType => Cast(args(1), time)
      case t if t == time => args(1)
      case t => WindowParameters.fail(name, s"`end` must have the type of `start` (${time.sql}), " +
        s"got ${t.sql} (${args(1).sql})")
    })
    val params = args.drop(if (hasEnd) 2 else 1)
    if (params.size < minParams) arity(name, s"at least $minParams parameters after the " +
      "lifetime columns", args)
    (start, end, params)
  }

  private def hoppingBuilder(name: String, tumbling: Boolean)(args: Seq[Expression]): Expression = {
    val required = if (tumbling) 1 else 2
    val (start, end, params) = lifetime(name, args, required)
    if (params.size > required + 3) arity(name, s"at most ${required + 3} parameters after " +
      "the lifetime columns (size" + (if (tumbling) "" else ", hop") +
      ", alignment, output, horizon)", args)
    val time = start.dataType
    val size = WindowParameters.durationTicks(name, "size", params.head, time)
    val hop = if (tumbling) size else WindowParameters.durationTicks(name, "hop", params(1), time)
    val alignment = WindowParameters.alignmentTicks(name, params.lift(required), time)
    val output = OutputPolicy(WindowParameters.policy(name, "output", params.lift(required + 1),
      OutputPolicy.all.map(_.sqlName), OutputPolicy.Window.sqlName))
    if (output == OutputPolicy.Changes && hop > size) {
      WindowParameters.fail(name, s"`output` 'changes' needs hop <= size (windows without gaps), " +
        s"got hop $hop > size $size")
    }
    val horizon = WindowParameters.optionalTime(name, "horizon", params.lift(required + 2), time)
    EventWindow(start, end, Hopping(size, hop, alignment, output, horizon))
  }

  private def snapshotBuilder(args: Seq[Expression]): Expression = {
    val (start, end, params) = lifetime("snapshot_window", args, 0)
    if (params.nonEmpty) arity("snapshot_window", "1 or 2 arguments (start[, end])", args)
    EventWindow(start, end, Snapshot)
  }
}
