package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{Cast, Expression}
import org.apache.spark.sql.types.NullType

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.expressions.FunctionArguments.{arity, register}
import io.eventwindows.plans.{AnchorValues, AnchorWindow, Bounds, IndexWindow, RelativeTimeWindow}

/**
 * The windows of \psi (Platform for Situated Intelligence), as its "Windowing Operators" page
 * describes them: by relative message index, by relative time, and the dynamic windows whose
 * intervals another stream gives (here a table holding both, which the Python
 * `dynamic_window` and the table function of the same name build from two tables).
 */
private[expressions] object PsiFunctions {

  val indexWindow: Registration = register(
    "index_window",
    classOf[EventWindow],
    """
    _FUNC_(time, lo, hi[, order]) - Groups messages (point events) into the windows by relative
      message index of psi (Platform for Situated Intelligence): with the messages of a key
      numbered in time order, the window of the message at index p (the anchor) holds the
      messages with index in [p + lo, p + hi]. Only full
      windows give a row: one per anchor whose whole window exists. Use it in GROUP BY; it
      yields the column `window` (struct of `start`, `end`: a point event at the anchor's time,
      and `first`, `last`: the times of the window's first and last messages).
    """,
    """
    Arguments:
      * time - the message time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks). Rows with a NULL
          time are skipped.
      * lo - the first message of the window relative to the anchor: a constant integer, or NULL
          for no lower end (a running window from the key's first message).
      * hi - the last message of the window relative to the anchor: a constant integer, at least
          `lo`.
      * order - optional, a column ordering messages with equal times (ascending, NULLs first).
          Messages with equal times (and equal `order`) are ordered by the values of the columns
          the aggregates read, ascending, so that results are deterministic.
    """,
    """
    Examples:
      > SELECT window.start, window.first, avg(v) FROM VALUES (1L, 1), (2L, 2), (3L, 4), (5L, 8) AS t(ts, v) GROUP BY _FUNC_(ts, -1, 0) ORDER BY 1;
        2	1	1.5
        3	2	3.0
        5	3	6.0
    """)(indexBuilder)

  val timeWindow: Registration = register(
    "time_window",
    classOf[EventWindow],
    """
    _FUNC_(time, lo, hi[, bounds]) - Groups messages (point events) into the windows by
      relative time of psi (Platform for Situated Intelligence): every message (the anchor, at time t) has the window of the messages of its
      key with time in [t + lo, t + hi]. One row for every message, also when its window is
      empty (count 0, sum NULL). Use it in GROUP BY; it yields the column `window` (struct of
      `start`, `end`: a point event at the anchor's time).
    """,
    """
    Arguments:
      * time - the message time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks). Rows with a NULL
          time are skipped.
      * lo - the window's start relative to the anchor, of any sign: a day-time interval or a
          string such as '-10 seconds' (an integer number of ticks for BIGINT time).
      * hi - the window's end relative to the anchor, like `lo`; at least `lo`.
      * bounds - optional, which ends belong to the window: '[]' (default, both, as psi's
          RelativeTimeInterval), '[)', '(]' or '()'.
    """,
    """
    Examples:
      > SELECT window.start, count(*), sum(v) FROM VALUES (1L, 1), (2L, 2), (3L, 4), (7L, 8) AS t(ts, v) GROUP BY _FUNC_(ts, -2, -1) ORDER BY 1;
        1	0	NULL
        2	1	1
        3	2	3
        7	0	NULL
    """)(timeBuilder)

  val anchorWindow: Registration = register(
    "anchor_window",
    classOf[EventWindow],
    """
    _FUNC_(time, anchor_start, anchor_end, anchor[, bounds[, lookback]]) - Groups a table holding messages and
      anchors into psi's dynamic windows: every anchor row (`anchor` not NULL) has the window of
      the messages (rows whose `anchor` is NULL) of its GROUP BY keys with `time` in
      [anchor_start, anchor_end]. One row per anchor, also when its window is empty (count 0, sum
      NULL); intervals may overlap, nest or be empty. Aggregates see the messages only. This is
      what the Python function dynamic_window(anchors, messages, ...) builds from two tables (a
      UNION ALL of both); the plan has no join (a sweep, or the anchors broadcast). It yields the
      column `window` (struct of `start`, `end`: the anchor's interval, and `anchor`: the anchor
      column's value).
    """,
    """
    Arguments:
      * time - the message time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks). Messages with a NULL
          time are skipped.
      * anchor_start - the start of an anchor's interval, of the type of `time`.
      * anchor_end - the end of an anchor's interval, of the type of `time`. An anchor with a
          NULL start or end, or an end before its start, is an error naming the row.
      * anchor - the anchor's columns (e.g. a struct); NULL on message rows.
      * bounds - optional, which ends belong to the interval: '[]' (default, both), '[)', '(]'
          or '()'.
      * lookback - optional, on a stream of anchors only: how long before its own time an
          anchor's interval may start, where the start is not the anchors' watermarked time less
          a constant (which gives it); a duration, at least 0.
    """,
    """
    Examples:
      > SELECT window.anchor.id, window.start, window.end, count(v), sum(v) FROM (SELECT ts, v, NULL AS s, NULL AS e, NULL AS a FROM VALUES (1L, 1), (2L, 2), (5L, 4) AS m(ts, v) UNION ALL SELECT NULL, NULL, s, e, named_struct('id', id) FROM VALUES ('x', 0L, 2L), ('y', 3L, 4L) AS q(id, s, e)) GROUP BY _FUNC_(ts, s, e, a) ORDER BY 1;
        x	0	2	2	3
        y	3	4	0	NULL
    """)(anchorBuilder)

  private def indexBuilder(args: Seq[Expression]): Expression = {
    val name = "index_window"
    if (args.size < 3 || args.size > 4)
      arity(name, "3 or 4 arguments (time, lo, hi[, order])", args)
    val time = args.head
    WindowParameters.timeType(name, "time", time)
    val lo = if (args(1).foldable && args(1).eval() == null) None
    else Some(WindowParameters.integer(name, "lo", args(1)))
    val hi = WindowParameters.integer(name, "hi", args(2))
    lo.filter(_ > hi).foreach { l =>
      throw EventWindowsErrors.invalidParameter(
        name,
        s"`lo` must not exceed `hi`, got lo $l > hi $hi (psi would " +
          "swap them; eventwindows does not guess)")
    }
    EventWindow(time, None, IndexWindow(lo, hi), order = args.drop(3))
  }

  private def timeBuilder(args: Seq[Expression]): Expression = {
    val name = "time_window"
    if (args.size < 3 || args.size > 4)
      arity(name, "3 or 4 arguments (time, lo, hi[, bounds])", args)
    val time = args.head
    val timeType = WindowParameters.timeType(name, "time", time)
    val lo = WindowParameters.offsetTicks(name, "lo", args(1), timeType)
    val hi = WindowParameters.offsetTicks(name, "hi", args(2), timeType)
    if (lo > hi) {
      throw EventWindowsErrors.invalidParameter(
        name,
        s"`lo` must not exceed `hi`, got ${args(1).sql} > ${args(2).sql}")
    }
    val bounds = Bounds(WindowParameters.policy(
      name,
      "bounds",
      args.lift(3),
      Bounds.all.map(_.sqlName),
      Bounds(lowerInclusive = true, upperInclusive = true).sqlName))
    EventWindow(time, None, RelativeTimeWindow(lo, hi, bounds))
  }

  private def anchorBuilder(args: Seq[Expression]): Expression = {
    val name = "anchor_window"
    if (args.size < 4 || args.size > 6) {
      arity(
        name,
        "4 to 6 arguments (time, anchor_start, anchor_end, anchor[, bounds[, " +
          "lookback]])",
        args)
    }
    val Seq(time, anchorStart, anchorEnd, anchor) = args.take(4)
    val timeType = WindowParameters.timeType(name, "time", time)
    val Seq(start, end) = Seq("anchor_start" -> anchorStart, "anchor_end" -> anchorEnd).map {
      case (_, e) if e.dataType == timeType => e
      case (_, e) if e.dataType == NullType => Cast(e, timeType)
      case (parameter, e) => throw EventWindowsErrors.invalidParameter(
          name,
          s"`$parameter` must have the type of " +
            s"`time` (${timeType.sql}), got ${e.dataType.sql} (${e.sql})")
    }
    val bounds = Bounds(WindowParameters.policy(
      name,
      "bounds",
      args.lift(4),
      Bounds.all.map(_.sqlName),
      Bounds(lowerInclusive = true, upperInclusive = true).sqlName))
    val lookback = args.lift(5).filterNot(e => e.foldable && e.eval() == null).map { e =>
      val ticks = WindowParameters.offsetTicks(name, "lookback", e, timeType)
      if (ticks < 0) throw EventWindowsErrors.invalidParameter(
        name,
        s"`lookback` must not be negative, got ${e.sql}")
      ticks
    }
    val (sortTime, side) = AnchorSortKey(time, start, anchor, bounds)
    EventWindow(
      sortTime,
      None,
      AnchorWindow(bounds, lookback),
      order = Seq(side),
      values = AnchorValues(start, end, anchor).values)
  }
}
