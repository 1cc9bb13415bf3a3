package io.eventwindows.expressions

import java.util.Locale

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{
  Cast, Expression, ExpressionInfo, NamedArgumentExpression
}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DataType, LongType, NullType, TimestampType}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.plans.OutputPolicy
import io.eventwindows.time.CalendarStep

/**
 * What the registrations of every source share: [[register]], which builds a function's
 * `ExpressionInfo` (the documentation `DESCRIBE FUNCTION EXTENDED` shows) and rejects named
 * arguments the function does not take, the documentation of the lifetime columns, and the
 * parsing of the arguments before the constant parameters: the arity, the `start[, end]` columns
 * of an event's lifetime, and SQL's named arguments; for windows on a time axis (hopping, tumbling
 * and cumulating windows) also the parameters they share ([[axisArguments]]). The constant
 * parameters themselves are read by [[WindowParameters]].
 */
private[expressions] object FunctionArguments {

  /**
   * The registration of the function `name`: its `ExpressionInfo`, which Spark's own functions
   * take from their `@ExpressionDescription` (here built by hand, since one expression class,
   * [[EventWindow]], serves many functions), and its builder.
   * `expression`: the class the builder returns, shown as `Class:` by DESCRIBE FUNCTION.
   * `arguments`: the `Arguments:` block, an entry `* name - text` per parameter, then notes; the
   * Python docstrings take each parameter's text from its entry, by name (`FunctionDocsSuite`).
   * `named`: the trailing optional parameters SQL may name (`flush_at_end => true`), which the
   * builder reads through [[namedArguments]]; a function without them takes no named argument.
   */
  private[expressions] def register(
      name: String,
      expression: Class[_ <: Expression],
      usage: String,
      arguments: String,
      examples: String,
      group: String = "datetime_funcs",
      named: Seq[String] = Nil)(
      builder: Seq[Expression] => Expression): Registration = {
    val info = new ExpressionInfo(
      expression.getCanonicalName,
      null,
      name,
      usage,
      arguments,
      examples,
      "",
      group,
      "0.1.0",
      "",
      "built-in")
    val checked = if (named.nonEmpty) builder
    else (args: Seq[Expression]) => {
      args.collectFirst { case n: NamedArgumentExpression =>
        throw EventWindowsErrors.invalidParameter(
          name,
          s"takes positional arguments only, got the named argument " +
            s"`${n.key}`")
      }
      builder(args)
    }
    (FunctionIdentifier(name), info, checked)
  }

  /** The `Arguments:` entries of the lifetime columns `start[, end]`, which [[lifetime]] splits. */
  private[expressions] val lifetimeArguments =
    """
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
    """

  private[expressions] def arity(name: String, expected: String, args: Seq[Expression]): Nothing =
    throw EventWindowsErrors.invalidParameter(
      name,
      s"takes $expected, got ${args.size}: " +
        args.map(_.sql).mkString(", "))

  /**
   * Splits `start[, end], params...`: the second argument is the end column unless it is a
   * non-NULL constant (a size or a hop). A NULL constant is an end: every event is open-ended.
   */
  private[expressions] def lifetime(name: String, args: Seq[Expression], minParams: Int)
      : (Expression, Option[Expression], Seq[Expression]) = {
    if (args.isEmpty) arity(name, "at least a start column", args)
    val start = args.head
    val time = WindowParameters.timeType(name, "start", start)
    val hasEnd = args.size > 1 && (!args(1).foldable || args(1).eval() == null)
    val end = if (!hasEnd) None
    else Some(args(1).dataType match {
      case NullType => Cast(args(1), time)
      case t if t == time => args(1)
      case t => throw EventWindowsErrors.invalidParameter(
          name,
          s"`end` must have the type of `start` (${time.sql}), " +
            s"got ${t.sql} (${args(1).sql})")
    })
    val params = args.drop(if (hasEnd) 2 else 1)
    if (params.size < minParams) arity(
      name,
      s"at least $minParams parameters after the " +
        "lifetime columns",
      args)
    (start, end, params)
  }

  /**
   * Splits SQL's named arguments (`flush_at_end => true`) from the positional ones before them.
   * Only the trailing optional parameters in `names` may be named, each once, after every
   * positional argument, as Spark's own functions take them.
   */
  private[expressions] def namedArguments(name: String, args: Seq[Expression], names: Seq[String])
      : (Seq[Expression], Map[String, Expression]) = {
    val positional = args.takeWhile(!_.isInstanceOf[NamedArgumentExpression])
    val named = args.drop(positional.size).map {
      case NamedArgumentExpression(key, value) => key.toLowerCase(Locale.ROOT) -> value
      case other => throw EventWindowsErrors.invalidParameter(
          name,
          "a positional argument must not follow named " +
            s"arguments, got ${other.sql}")
    }
    named.foreach { case (key, _) =>
      if (!names.contains(key)) {
        throw EventWindowsErrors.invalidParameter(
          name,
          s"has no parameter `$key` that can be named; the named " +
            s"parameters are ${names.map("`" + _ + "`").mkString(", ")}")
      }
    }
    named.groupBy(_._1).collectFirst {
      case (key, uses) if uses.size > 1 =>
        throw EventWindowsErrors.invalidParameter(name, s"`$key` is named twice")
    }
    (positional, named.toMap)
  }

  /** Optional parameter `index` of `params`, or its named argument: one of them, not both. */
  private[expressions] def optional(
      name: String,
      params: Seq[Expression],
      index: Int,
      named: Map[String, Expression],
      parameter: String): Option[Expression] = (params.lift(index), named.get(parameter)) match {
    case (Some(_), Some(_)) =>
      throw EventWindowsErrors.invalidParameter(
        name,
        s"`$parameter` is given both by position and by name")
    case (given, byName) => given.orElse(byName)
  }

  /** The optional parameters of windows on a time axis, after their lengths; SQL may name them. */
  private[expressions] val axisParameters = Seq("alignment", "output", "horizon", "time_zone")

  /**
   * Splits the arguments of windows on a time axis, `start[, end], lengths..., alignment, output,
   * horizon, time_zone` (the last four optional, which SQL may also name), and reads `output`,
   * `horizon` and `time_zone` ([[AxisArguments]]). `lengths`: the names of the one or two
   * lengths, in the function's order.
   */
  private[expressions] def axisArguments(name: String, args: Seq[Expression], lengths: Seq[String])
      : AxisArguments = {
    val (positional, named) = namedArguments(name, args, axisParameters)
    val (start, end, params) = lifetime(name, positional, lengths.size)
    val most = lengths.size + axisParameters.size
    if (params.size > most) arity(
      name,
      s"at most $most parameters after the lifetime columns " +
        s"(${(lengths ++ axisParameters).mkString(", ")})",
      args)
    new AxisArguments(
      name,
      start,
      end,
      lengths,
      params.take(lengths.size),
      parameter =>
        optional(name, params, lengths.size + axisParameters.indexOf(parameter), named, parameter))
  }
}

/**
 * The arguments of windows on a time axis, which hopping, tumbling and cumulating windows share,
 * as [[FunctionArguments.axisArguments]] splits them: `start[, end]`, one or two constant lengths
 * and the optional [[FunctionArguments.axisParameters]]. `output`, `horizon` and `time_zone` are
 * read at once; the lengths and the alignment when [[windows]] builds the windows, so that each
 * function checks its lengths before the alignment is read.
 *
 * @param lengths         the lengths' names, in the function's order (`size` alone: the second
 *                        length is the first, as a tumbling window's hop is its size)
 * @param lengthArguments the lengths' arguments
 * @param parameter       the optional parameter of a name, given by position or by name
 */
private[expressions] final class AxisArguments(
    name: String,
    val start: Expression,
    val end: Option[Expression],
    lengths: Seq[String],
    val lengthArguments: Seq[Expression],
    parameter: String => Option[Expression]) {

  private val time = start.dataType

  /** What each window emits: 'window' (by default), 'point' or 'changes'. */
  val output: OutputPolicy = OutputPolicy(WindowParameters.policy(
    name,
    "output",
    parameter("output"),
    OutputPolicy.all.map(_.sqlName),
    OutputPolicy.Window.sqlName))

  /** The last time open-ended events cover; None: the latest finite time of the input. */
  val horizon: Option[Long] = WindowParameters.optionalTime(
    name,
    "horizon",
    parameter("horizon"),
    time)

  private val zone = WindowParameters.timeZone(name, parameter("time_zone"), time)

  /**
   * The windows: calendar windows, built by `calendar` from the two lengths as calendar steps,
   * when either has months or years or a time zone is given (timestamps only); otherwise windows
   * of exact durations, built by `exact` from the lengths in ticks.
   */
  def windows[T](calendar: (CalendarStep, CalendarStep) => T, exact: (Long, Long) => T): T = {
    val steps = if (time == LongType) None else Some(both(WindowParameters.calendarStep))
    steps.filterNot { case (a, b) => a.months == 0 && b.months == 0 && zone.isEmpty } match {
      case Some((a, b)) => calendar(a, b)
      case None =>
        val (a, b) = both(WindowParameters.durationTicks)
        exact(a, b)
    }
  }

  /** The two lengths as `read` reads them; one length is both. */
  private def both[L](read: (String, String, Expression, DataType) => L): (L, L) = {
    val first = read(name, lengths.head, lengthArguments.head, time)
    (first, if (lengths.size == 1) first else read(name, lengths(1), lengthArguments(1), time))
  }

  /** The time zone of calendar windows: `time_zone`, or the session's (UTC for TIMESTAMP_NTZ). */
  lazy val calendarZone: String = zone.getOrElse(
    if (time == TimestampType) DateTimeUtils.getZoneId(SQLConf.get.sessionLocalTimeZone).getId
    else "UTC")

  /**
   * The local time on which calendar windows starting every `period` align: `alignment`, or by
   * default 1970-01-01 00:00, for whole weeks Monday 1970-01-05 00:00 (ISO weeks start on Mondays).
   */
  def calendarAlignment(period: CalendarStep): Long = {
    val weekly = period.months == 0 && period.micros == 0 && period.days % 7 == 0
    WindowParameters.calendarAlignment(
      name,
      parameter("alignment"),
      time,
      calendarZone,
      default = if (weekly) 4 * CalendarStep.DayMicros else 0L)
  }

  /** The alignment of windows of exact durations, in ticks. */
  def alignmentTicks: Long = WindowParameters.alignmentTicks(name, parameter("alignment"), time)
}
