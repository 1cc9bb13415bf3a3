package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.{NullType, NumericType}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.expressions.FunctionArguments.{arity, register}
import io.eventwindows.plans.WindowFamily

/**
 * Clipped lifetimes and the time-weighted aggregates over them: StreamInsight's input policy for
 * time-sensitive aggregates (its "Hopping Windows" and "Count Windows" documentation), where an
 * aggregate sees each event's lifetime clipped to the window.
 */
private[expressions] object ClippedLifetimeFunctions {

  private val clippedArguments = s"""
    Arguments: none.

    Allowed only inside the arguments and FILTER of the aggregates of a GROUP BY over
    ${WindowFamily.ClippingFamilies}; not with output 'changes', where one row stands for many
    windows. Each
    window reads each of its events once: the cost is O(events in the window) per window. For
    time-weighted sums and averages use time_weighted_sum and time_weighted_avg, which cost
    O(log n) per event and per window whatever the events' lengths.
    """

  private def clippedRegistration(isEnd: Boolean, usage: String, examples: String): Registration =
    register(
      if (isEnd) ClippedLifetime.End else ClippedLifetime.Start,
      classOf[ClippedLifetime],
      usage,
      clippedArguments,
      examples) { args =>
      val name = if (isEnd) ClippedLifetime.End else ClippedLifetime.Start
      if (args.nonEmpty) arity(name, "no arguments", args)
      ClippedLifetime(isEnd)
    }

  val clippedStart: Registration = clippedRegistration(
    isEnd = false,
    """
    _FUNC_() - The start of the event an aggregate reads, clipped to the window it is read for:
      the later of the event's start and the window's start, of the window's time type. The
      window's extent is [start, start + size) for hopping and tumbling windows (also under
      output 'point'), the snapshot interval, [s_i, s_k + 1 tick) for count windows, and the
      session or its piece for event_session_window.
    """,
    """
    Examples:
      > SELECT window.start, min(_FUNC_()), sum(clipped_end() - _FUNC_()) FROM VALUES (1L, 7L), (4L, 5L) AS t(s, e) GROUP BY tumbling_window(s, e, 4) ORDER BY 1;
        0	1	3
        4	4	4
    """)

  val clippedEnd: Registration = clippedRegistration(
    isEnd = true,
    """
    _FUNC_() - The end of the event an aggregate reads, clipped to the window it is read for:
      the earlier of the event's exclusive end and the window's end (an open-ended event under
      per-window hopping output ends one tick after the horizon).
    """,
    """
    Examples:
      > SELECT window.start, max(_FUNC_()), collect_list(_FUNC_()) FROM VALUES (1L, 7L), (4L, 5L) AS t(s, e) GROUP BY tumbling_window(s, e, 4) ORDER BY 1;
        0	4	[4]
        4	7	[7,5]
    """)

  private def timeWeightedArguments = s"""
    Arguments:
      * v - a numeric column, read as DOUBLE; events whose v is NULL are left out.

    Allowed inside the aggregates of a GROUP BY over ${WindowFamily.ClippingFamilies}; not with
    output 'changes'. The length of a clipped lifetime is in seconds for TIMESTAMP and TIMESTAMP_NTZ
    time and in ticks for BIGINT time. The window operator integrates v over time once per key:
    O(log n) per event and per window, whatever the events' lengths or the windows they span.
    """

  private def timeWeightedRegistration(
      name: String,
      expression: Class[_ <: Expression],
      usage: String,
      examples: String)(make: Expression => Expression): Registration =
    register(name, expression, usage, timeWeightedArguments, examples, group = "agg_funcs") {
      args =>
        if (args.size != 1) arity(name, "one argument (v)", args)
        args.head.dataType match {
          case _: NumericType | NullType => make(args.head)
          case other => throw EventWindowsErrors.invalidParameter(
              name,
              s"`v` must be numeric, got ${other.sql} " +
                s"(${args.head.sql})")
        }
    }

  val timeWeightedSum: Registration = timeWeightedRegistration(
    TimeWeighted.SumName,
    classOf[TimeWeightedSum],
    """
    _FUNC_(v) - The sum over the window's events of v times the length of the event's lifetime
      clipped to the window; NULL if every v is NULL.
    """,
    """
    Examples:
      > SELECT window.start, _FUNC_(v) FROM VALUES (1L, 7L, 2.0), (4L, 5L, 10.0) AS t(s, e, v) GROUP BY tumbling_window(s, e, 4) ORDER BY 1;
        0	6.0
        4	16.0
    """)(v => TimeWeightedSum(v, ClippedLifetime(isEnd = false), ClippedLifetime(isEnd = true)))

  val timeWeightedAvg: Registration = timeWeightedRegistration(
    TimeWeighted.AvgName,
    classOf[TimeWeightedAvg],
    """
    _FUNC_(v) - The average of v over the window weighted by the length of each event's lifetime
      clipped to the window: time_weighted_sum(v) divided by the summed clipped lengths of the
      events whose v is not NULL; NULL if there are none.
    """,
    """
    Examples:
      > SELECT window.start, _FUNC_(v) FROM VALUES (1L, 7L, 2.0), (4L, 5L, 10.0) AS t(s, e, v) GROUP BY tumbling_window(s, e, 4) ORDER BY 1;
        0	2.0
        4	4.0
    """)(v => TimeWeightedAvg(v, ClippedLifetime(isEnd = false), ClippedLifetime(isEnd = true)))
}
