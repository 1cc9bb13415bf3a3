package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.Expression

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.expressions.FunctionArguments.{
  arity, lifetime, lifetimeArguments, namedArguments, optional, register
}
import io.eventwindows.plans.{OutputPolicy, SessionWindow}

/**
 * Sessions over events that last: Trill's session windows, with Azure Stream Analytics' maximum
 * duration and Trill's progressive output, on the gap rule of Spark's `session_window`.
 */
private[expressions] object SessionFunctions {

  val eventSessionWindow: Registration = register(
    "event_session_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end], gap[, max_duration[, output]]) - Groups events into sessions, also events
      that last (Trill's session windows, with Azure Stream Analytics' maximum duration). Per
      group, events sorted by start form sessions: an event keeps its session open until its
      last active tick plus `gap` (a point event at t: until t + gap, as Spark's
      session_window(t, gap); an event [s, e): until e - 1 tick + gap; an open-ended event:
      forever); an event that starts at or before the session's end joins it, else it starts a
      new session. Use it in GROUP BY; it yields the column `window` (struct of `start` and
      `end`: the session [first start, session end), or a piece of it, or a change within it).
    """,
    s"""
    Arguments:$lifetimeArguments
      * gap - how long a session stays open after its events' last active tick: a day-time
          interval or a string such as '5 minutes' (for BIGINT time an integer number of ticks; for
          timestamps an integer is no duration); positive.
      * max_duration - optional, like `gap` and at least `gap`: cuts a session [S, E) into
          pieces [S + j * max_duration, min(S + (j + 1) * max_duration, E)); an event belongs to
          every piece its lifetime intersects, and a piece with no event gives no row. NULL or
          absent: sessions are not cut.
      * output - optional, 'window' (default: a row per session or piece, aggregating its
          events) or 'changes' (Trill's progressive sessions: every event's lifetime is extended
          to the end of its session or piece, and a row is given for every change, [a, b) with
          the aggregates over the events started by a; the last row of a session or piece has
          its 'window' row's aggregates).

    SQL may name the optional parameters: max_duration => ..., output => ....
    Cost: one sort and O(1) amortized aggregate work per event (O(log n) with max_duration or
    'changes'); memory holds the open session. clipped_start(), clipped_end() and the
    time-weighted aggregates clip each event to its session or piece under 'window'.
    """,
    """
    Examples:
      > SELECT window.start, window.end, count(*) FROM VALUES (1L, 3L), (6L, 7L), (12L, 13L) AS t(s, e) GROUP BY _FUNC_(s, e, 4) ORDER BY 1;
        1	10	2
        12	16	1
      > SELECT window.start, window.end, sum(x) FROM VALUES (11L, 1), (12L, 1), (21L, 2), (25L, 2) AS t(ts, x) GROUP BY _FUNC_(ts, 6, output => 'changes') ORDER BY 1;
        11	12	1
        12	18	2
        21	25	2
        25	31	4
    """,
    named = Seq("max_duration", "output"))(sessionBuilder)

  private def sessionBuilder(args: Seq[Expression]): Expression = {
    val name = "event_session_window"
    val (positional, named) = namedArguments(name, args, Seq("max_duration", "output"))
    val (start, end, params) = lifetime(name, positional, 1)
    if (params.size > 3) arity(
      name,
      "at most 3 parameters after the lifetime columns (gap, " +
        "max_duration, output)",
      args)
    val time = start.dataType
    val gap = WindowParameters.durationTicks(name, "gap", params.head, time)
    val maxDurationArgument = optional(name, params, 1, named, "max_duration")
      .filterNot(e => e.foldable && e.eval() == null)
    val maxDuration = maxDurationArgument.map { e =>
      val ticks = WindowParameters.durationTicks(name, "max_duration", e, time)
      if (ticks < gap) throw EventWindowsErrors.invalidParameter(
        name,
        s"`max_duration` must be at least `gap`, got " +
          s"${e.sql} < ${params.head.sql}")
      ticks
    }
    val output = OutputPolicy(WindowParameters.policy(
      name,
      "output",
      optional(name, params, 2, named, "output"),
      Seq(OutputPolicy.Window, OutputPolicy.Changes).map(_.sqlName),
      OutputPolicy.Window.sqlName))
    EventWindow(start, end, SessionWindow(gap, maxDuration, output))
  }
}
