package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.Expression

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.expressions.FunctionArguments.{
  arity, axisArguments, axisParameters, lifetime, lifetimeArguments, register
}
import io.eventwindows.plans.{CalendarHopping, CountWindow, Hopping, OutputPolicy, Snapshot}
import io.eventwindows.time.CalendarWindows

/**
 * StreamInsight's windows. Hopping and tumbling windows follow StreamInsight's "Hopping Windows"
 * documentation (windows `[a + n * hop, a + n * hop + size)`, the output policies), with the
 * output 'changes' of the blog post "Taming Hopping Windows" (events snapped to the windows'
 * intervals under a snapshot window); snapshot windows are StreamInsight's, and count windows
 * follow its "Count Windows" documentation.
 */
private[expressions] object StreamInsightFunctions {

  private val hoppingParameters =
    """
      * alignment - optional, a time of the type of `start` (or a timestamp string) on which
          some window starts; for timestamps also an offset from the epoch, as window() takes
          its start time: an interval string such as '15 minutes', a day-time interval or an
          integer number of microseconds. NULL or absent: the Unix epoch. Calendar windows align
          on a local time (a string is a wall clock): by default 1970-01-01 00:00, for weeks
          Monday 1970-01-05 00:00 (ISO weeks).
      * output - optional, 'window' (default: a row per non-empty window, its lifetime the
          window), 'point' (a point event at each non-empty window's end) or 'changes' (a row per
          run of consecutive windows holding the same events, its lifetime the time over which
          that result holds; needs hop <= size, for calendar windows in each part).
      * horizon - optional, the last time open-ended events cover under 'window' and 'point', of
          the type of `start` (or a timestamp string); NULL or absent: the latest finite time in
          the input.
      * time_zone - optional, a time zone ID such as 'Europe/Berlin' (SQL may write time_zone =>
          'Europe/Berlin'): the windows are calendar windows of that zone. TIMESTAMP time only.
    Calendar windows: when the size or the hop has months or years, or a time_zone is given,
      window n is [start_n, start_n + size) with start_n = alignment + n * hop, where + steps the
      local clock of the time zone (the session's if none is given): months, then days, then
      hours and smaller units; when the hop has months, those of the hops and of the size are
      counted from the alignment together. A day runs from local midnight to local midnight (23
      or 25 hours across a daylight saving change), a month from the 1st to the 1st, an hour from
      a full hour of the local clock to the next. A local time is read as the first instant the
      clock reads it or later: where the clocks spring forward, the instant they jump past it;
      where they fall back, its first reading. Over TIMESTAMP_NTZ time the wall clock is stepped
      as it is.
    """

  val hoppingWindow: Registration = register(
    "hopping_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end], size, hop[, alignment[, output[, horizon[, time_zone]]]]) - Groups
      events into hopping windows [alignment + n * hop, alignment + n * hop + size) for every
      integer n. An event belongs to every window its lifetime intersects, and aggregates see it
      in each. Use it in GROUP BY; it yields the column `window` (struct of `start` and `end`: the
      lifetime of the output row). Empty windows give no row.
    """,
    s"""
    Arguments:$lifetimeArguments
      * size - the window length: a day-time interval, a string such as '5 seconds' or '1 month',
          or a year-month interval (for BIGINT time an integer number of ticks; for timestamps an
          integer is no duration); positive.
      * hop - the distance between window starts, like `size`; positive.$hoppingParameters""",
    """
    Examples:
      > SELECT window.start, window.end, count(*) FROM VALUES (TIMESTAMP '2024-01-01 00:00:01'), (TIMESTAMP '2024-01-01 00:00:03') AS t(ts) GROUP BY _FUNC_(ts, '4 seconds', '2 seconds') ORDER BY 1;
        2023-12-31 23:59:58	2024-01-01 00:00:02	1
        2024-01-01 00:00:00	2024-01-01 00:00:04	2
        2024-01-01 00:00:02	2024-01-01 00:00:06	1
    """,
    named = axisParameters)(hoppingBuilder("hopping_window", tumbling = false))

  val tumblingWindow: Registration = register(
    "tumbling_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end], size[, alignment[, output[, horizon[, time_zone]]]]) - Groups events
      into adjacent, non-overlapping windows of length `size`: hopping_window with hop = size.
    """,
    s"""
    Arguments:$lifetimeArguments
      * size - the window length: a day-time interval, a string such as '5 seconds' or '1 month',
          or a year-month interval (for BIGINT time an integer number of ticks; for timestamps an
          integer is no duration); positive.$hoppingParameters""",
    """
    Examples:
      > SELECT window.start, count(*) FROM VALUES (1L), (3L), (4L), (5L) AS t(ts) GROUP BY _FUNC_(ts, 2) ORDER BY 1;
        0	1
        2	1
        4	2
    """,
    named = axisParameters)(hoppingBuilder("tumbling_window", tumbling = true))

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

  val countWindow: Registration = register(
    "count_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end], n[, output]) - Groups events into StreamInsight's count windows: for
      every n consecutive distinct start times s_i, ..., s_k of the events (k = i + n - 1), the
      window [s_i, s_k + 1 tick) holding every event whose lifetime intersects it (several
      events with one start time all count, so a window may hold more than n events). No window
      until n distinct start times exist. Use it in GROUP BY; it yields the column `window`
      (struct of `start`, `end`: the lifetime of the output row, and `first`, `last`: s_i and
      s_k).
    """,
    s"""
    Arguments:$lifetimeArguments
      * n - the number of distinct start times in a window: a constant integer, at least 1.
      * output - optional, 'point' (default, as StreamInsight: a point event at s_k) or 'window'
          (the row's lifetime is the window [s_i, s_k + 1 tick)).
    """,
    """
    Examples:
      > SELECT window.start, window.first, count(*), sum(v) FROM VALUES (1L, 10), (2L, 20), (2L, 5), (4L, 40) AS t(ts, v) GROUP BY _FUNC_(ts, 2) ORDER BY 1;
        2	1	3	35
        4	2	3	65
    """)(countBuilder)

  private def hoppingBuilder(name: String, tumbling: Boolean)(args: Seq[Expression]): Expression = {
    val axis = axisArguments(name, args, if (tumbling) Seq("size") else Seq("size", "hop"))
    val changes = axis.output == OutputPolicy.Changes
    val family = axis.windows(
      calendar = (size, hop) => {
        if (changes && !hop.atMost(size)) {
          throw EventWindowsErrors.invalidParameter(
            name,
            "`output` 'changes' needs windows without gaps: a hop " +
              s"never longer than the size, got hop $hop, size $size")
        }
        val alignment = axis.calendarAlignment(period = hop)
        CalendarHopping(
          CalendarWindows(size, hop, alignment, axis.calendarZone),
          axis.output,
          axis.horizon)
      },
      exact = (size, hop) => {
        if (changes && hop > size) {
          val time = axis.start.dataType
          throw EventWindowsErrors.invalidParameter(
            name,
            s"`output` 'changes' needs hop <= size (windows without " +
              s"gaps), got hop ${WindowParameters.describeTicks(hop, time)} > size " +
              WindowParameters.describeTicks(size, time))
        }
        Hopping(size, hop, axis.alignmentTicks, axis.output, axis.horizon)
      })
    EventWindow(axis.start, axis.end, family)
  }

  private def snapshotBuilder(args: Seq[Expression]): Expression = {
    val (start, end, params) = lifetime("snapshot_window", args, 0)
    if (params.nonEmpty) arity("snapshot_window", "1 or 2 arguments (start[, end])", args)
    EventWindow(start, end, Snapshot)
  }

  private def countBuilder(args: Seq[Expression]): Expression = {
    val name = "count_window"
    val (start, end, params) = lifetime(name, args, 1)
    if (params.size > 2) arity(
      name,
      "at most 2 parameters after the lifetime columns (n, output)",
      args)
    val n = WindowParameters.integer(name, "n", params.head)
    if (n < 1) throw EventWindowsErrors.invalidParameter(name, s"`n` must be at least 1, got $n")
    val output = OutputPolicy(WindowParameters.policy(
      name,
      "output",
      params.lift(1),
      Seq(OutputPolicy.Point, OutputPolicy.Window).map(_.sqlName),
      OutputPolicy.Point.sqlName))
    EventWindow(start, end, CountWindow(n, output))
  }
}
