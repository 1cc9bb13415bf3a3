package io.eventwindows.expressions

import java.util.Locale

import io.eventwindows.plans.{AnchorWindow, Bounds, CountWindow, Hopping, IndexWindow, OutputPolicy, RelativeTimeWindow, SessionWindow, SlidingWindow, Snapshot, SplTumblingWindow}

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Cast, Expression, ExpressionInfo, Literal, NamedArgumentExpression}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{ByteType, DataType, DayTimeIntervalType, IntegerType, LongType, NullType, NumericType, ShortType, StringType}

/**
 * The table of SQL functions eventwindows registers: name, documentation (shown by
 * `DESCRIBE FUNCTION EXTENDED`, and repeated as the docstring of the Python function of the same
 * name) and builder. Builders check the arguments and turn constant parameters into ticks, so every
 * misuse is reported at analysis time, naming the parameter.
 */
object EventWindowsFunctions {

  /** One registration, as `SparkSessionExtensions.injectFunction` takes it. */
  type Registration = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression)

  /**
   * `expression`: the class the builder returns, shown as `Class:` by DESCRIBE FUNCTION.
   * `named`: the trailing optional parameters SQL may name (`flush_at_end => true`), which the
   * builder reads through [[namedArguments]]; a function without them takes no named argument.
   */
  private def register(
      name: String, expression: Class[_ <: Expression], usage: String, arguments: String,
      examples: String, group: String = "datetime_funcs", named: Seq[String] = Nil)(
      builder: Seq[Expression] => Expression): Registration = {
    val info = new ExpressionInfo(expression.getCanonicalName, null, name, usage, arguments,
      examples, "", group, "0.1.0", "", "built-in")
    val checked = if (named.nonEmpty) builder else (args: Seq[Expression]) => {
      args.collectFirst { case n: NamedArgumentExpression =>
        WindowParameters.fail(name, s"takes positional arguments only, got the named argument " +
          s"`${n.key}`")
      }
      builder(args)
    }
    (FunctionIdentifier(name), info, checked)
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

  val slidingWindow: Registration = register(
    "sliding_window",
    classOf[EventWindow],
    """
    _FUNC_(order, eviction[, trigger]) - Groups tuples into IBM Streams SPL sliding windows. The
      tuples of each group arrive in the order of `order`, the clock of time policies. The
      eviction policy says which tuples the window holds, the trigger policy when it is
      evaluated; a firing over a non-empty window gives a row. On each arrival, as in the SPL
      runtime: a time trigger first fires at its instants before the arrival (after time
      eviction at each); a delta trigger is checked against the window before the new tuple; then
      eviction, then insertion; then a count trigger. Use it in GROUP BY (the other keys
      partition the windows); it yields the column `window` (struct of `start`, `end`: a point
      event at the firing time, and `first`, `last`: the order values of the window's oldest and
      newest tuples).
    """,
    """
    Arguments:
      * order - the arrival order: TIMESTAMP, TIMESTAMP_NTZ or an integer (BIGINT ticks). Rows
          with a NULL order are skipped; ties are ordered by the values the aggregates and
          the delta policies read.
      * eviction - 'count(n)': the window holds the last n tuples; 'time(t)': tuples leave once
          they have been in the window for more than t (t an interval such as '5 seconds' or a
          number of seconds, an integer number of ticks for BIGINT order); 'delta(attribute, d)':
          a new tuple evicts every tuple whose attribute is more than d below its own (numeric or
          timestamp attributes; d a number, or for timestamps an interval or seconds).
      * trigger - optional, 'count(n)' (default 'count(1)'): fires on every n-th arrival;
          'time(t)': fires at first + k * t (k >= 1, first = the group's first arrival) up to the
          last arrival, also where no tuple arrives; 'delta(attribute, d)': fires when a tuple's
          attribute exceeds the last firing tuple's by more than d (the first tuple only sets it).
    """,
    """
    Examples:
      > SELECT window.start, window.first, collect_list(v) FROM VALUES (1L, 1), (2L, 2), (3L, 3), (4L, 4), (5L, 5) AS t(ts, v) GROUP BY _FUNC_(ts, 'count(3)', 'count(2)') ORDER BY 1;
        2	1	[1,2]
        4	2	[2,3,4]
    """)(slidingBuilder)

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
          interval, a string such as '5 minutes' or an integer number of microseconds (for BIGINT
          time an integer number of ticks); positive.
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

  val splTumblingWindow: Registration = register(
    "spl_tumbling_window",
    classOf[EventWindow],
    """
    _FUNC_(order, eviction[, flush_at_end]) - Groups tuples into IBM Streams SPL tumbling windows.
      The tuples of each group arrive in the order of `order`, the clock of time policies. The
      window fills and is flushed whole as its eviction policy says; each flush of a non-empty
      window gives a row. Use it in GROUP BY (the other keys partition the windows); it yields
      the column `window` (struct of `start`, `end`: a point event at the flush time, and
      `first`, `last`: the order values of the window's oldest and newest tuples).
    """,
    """
    Arguments:
      * order - the arrival order: TIMESTAMP, TIMESTAMP_NTZ or an integer (BIGINT ticks). Rows
          with a NULL order are skipped; ties are ordered by the values the aggregates and the
          policy read.
      * eviction - 'count(n)': a tuple is inserted and the window flushed once it holds n (at
          that tuple's order); 'time(t)': the window is flushed at first + k * t (k >= 1, first =
          the group's first arrival; t positive, an interval such as '5 seconds' or a number of
          seconds, an integer number of ticks for BIGINT order) when a tuple at or past that
          instant arrives, before it is inserted; 'delta(attribute, d)': when a new tuple's
          attribute exceeds the oldest held tuple's by more than d, the window is flushed first
          (at the new tuple's order) and the new tuple starts the next window (numeric or
          timestamp attributes); 'punct(column)': a tuple whose BOOLEAN column is TRUE is
          inserted and the window flushed after it (SPL's window punctuation; a NULL is an error
          naming the row).
      * flush_at_end - optional, a BOOLEAN constant (default false; SQL may write
          flush_at_end => true): the window still open when a group's tuples end gives a row too,
          at its last tuple's order. Not on streaming DataFrames, whose groups never end.

    Cost: one sort and O(1) amortized aggregate work per tuple; memory holds the open window.
    """,
    """
    Examples:
      > SELECT window.start, window.first, window.last, collect_list(age) FROM VALUES (0L), (1L), (2L), (3L), (4L), (5L), (6L), (7L) AS t(age) GROUP BY _FUNC_(age, 'delta(age, 2)') ORDER BY 1;
        3	0	2	[0,1,2]
        6	3	5	[3,4,5]
      > SELECT window.start, collect_list(v) FROM VALUES (1L, 1), (2L, 2), (3L, 3), (4L, 4), (5L, 5) AS t(ts, v) GROUP BY _FUNC_(ts, 'count(2)', flush_at_end => true) ORDER BY 1;
        2	[1,2]
        4	[3,4]
        5	[5]
    """,
    named = Seq("flush_at_end"))(splTumblingBuilder)

  val anchorWindow: Registration = register(
    "anchor_window",
    classOf[EventWindow],
    """
    _FUNC_(time, anchor_start, anchor_end, anchor[, bounds]) - Groups a table holding messages and
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
    """,
    """
    Examples:
      > SELECT window.anchor.id, window.start, window.end, count(v), sum(v) FROM (SELECT ts, v, NULL AS s, NULL AS e, NULL AS a FROM VALUES (1L, 1), (2L, 2), (5L, 4) AS m(ts, v) UNION ALL SELECT NULL, NULL, s, e, named_struct('id', id) FROM VALUES ('x', 0L, 2L), ('y', 3L, 4L) AS q(id, s, e)) GROUP BY _FUNC_(ts, s, e, a) ORDER BY 1;
        x	0	2	2	3
        y	3	4	0	NULL
    """)(anchorBuilder)

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

  private val clippedFamilies = "hopping_window, tumbling_window (outputs 'window' and " +
    "'point'), snapshot_window, count_window or event_session_window (output 'window')"

  private val clippedArguments = s"""
    Arguments: none.

    Allowed only inside the arguments and FILTER of the aggregates of a GROUP BY over
    $clippedFamilies; not with output 'changes', where one row stands for many windows. Each
    window reads each of its events once: the cost is O(events in the window) per window. For
    time-weighted sums and averages use time_weighted_sum and time_weighted_avg, which cost
    O(log n) per event and per window whatever the events' lengths.
    """

  private def clippedRegistration(isEnd: Boolean, usage: String, examples: String): Registration =
    register(if (isEnd) ClippedLifetime.End else ClippedLifetime.Start, classOf[ClippedLifetime],
      usage, clippedArguments, examples) { args =>
      val name = if (isEnd) ClippedLifetime.End else ClippedLifetime.Start
      if (args.nonEmpty) arity(name, "no arguments", args)
      ClippedLifetime(isEnd)
    }

  val clippedStart: Registration = clippedRegistration(isEnd = false,
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

  val clippedEnd: Registration = clippedRegistration(isEnd = true,
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

    Allowed inside the aggregates of a GROUP BY over $clippedFamilies; not with output
    'changes'. The length of a clipped lifetime is in seconds for TIMESTAMP and TIMESTAMP_NTZ
    time and in ticks for BIGINT time. The window operator integrates v over time once per key:
    O(log n) per event and per window, whatever the events' lengths or the windows they span.
    """

  private def timeWeightedRegistration(name: String, expression: Class[_ <: Expression],
      usage: String, examples: String)(make: Expression => Expression): Registration =
    register(name, expression, usage, timeWeightedArguments, examples, group = "agg_funcs") {
      args =>
        if (args.size != 1) arity(name, "one argument (v)", args)
        args.head.dataType match {
          case _: NumericType | NullType => make(args.head)
          case other => WindowParameters.fail(name, s"`v` must be numeric, got ${other.sql} " +
            s"(${args.head.sql})")
        }
    }

  val timeWeightedSum: Registration = timeWeightedRegistration(TimeWeighted.SumName,
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

  val timeWeightedAvg: Registration = timeWeightedRegistration(TimeWeighted.AvgName,
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

  /** Every registration, in the order `SHOW FUNCTIONS` would list them. */
  val all: Seq[Registration] = Seq(
    adjustEndTime, adjustStartTime, anchorWindow, clippedEnd, clippedStart, countWindow,
    eventSessionWindow, hoppingWindow, indexWindow, slidingWindow, snapToBoundary, snapshotWindow,
    splTumblingWindow, timeWeightedAvg, timeWeightedSum, timeWindow, tumblingWindow)

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

  private def countBuilder(args: Seq[Expression]): Expression = {
    val name = "count_window"
    val (start, end, params) = lifetime(name, args, 1)
    if (params.size > 2) arity(name, "at most 2 parameters after the lifetime columns (n, output)",
      args)
    val n = WindowParameters.integer(name, "n", params.head)
    if (n < 1) WindowParameters.fail(name, s"`n` must be at least 1, got $n")
    val output = OutputPolicy(WindowParameters.policy(name, "output", params.lift(1),
      Seq(OutputPolicy.Point, OutputPolicy.Window).map(_.sqlName), OutputPolicy.Point.sqlName))
    EventWindow(start, end, CountWindow(n, output))
  }

  private def indexBuilder(args: Seq[Expression]): Expression = {
    val name = "index_window"
    if (args.size < 3 || args.size > 4) arity(name, "3 or 4 arguments (time, lo, hi[, order])", args)
    val time = args.head
    WindowParameters.timeType(name, "time", time)
    val lo = if (args(1).foldable && args(1).eval() == null) None
      else Some(WindowParameters.integer(name, "lo", args(1)))
    val hi = WindowParameters.integer(name, "hi", args(2))
    lo.filter(_ > hi).foreach { l =>
      WindowParameters.fail(name, s"`lo` must not exceed `hi`, got lo $l > hi $hi (psi would " +
        "swap them; eventwindows does not guess)")
    }
    EventWindow(time, None, IndexWindow(lo, hi), order = args.drop(3))
  }

  private def timeBuilder(args: Seq[Expression]): Expression = {
    val name = "time_window"
    if (args.size < 3 || args.size > 4) arity(name, "3 or 4 arguments (time, lo, hi[, bounds])", args)
    val time = args.head
    val timeType = WindowParameters.timeType(name, "time", time)
    val lo = WindowParameters.offsetTicks(name, "lo", args(1), timeType)
    val hi = WindowParameters.offsetTicks(name, "hi", args(2), timeType)
    if (lo > hi) {
      WindowParameters.fail(name, s"`lo` must not exceed `hi`, got ${args(1).sql} > ${args(2).sql}")
    }
    val bounds = Bounds(WindowParameters.policy(name, "bounds", args.lift(3),
      Bounds.all.map(_.sqlName), Bounds(lowerInclusive = true, upperInclusive = true).sqlName))
    EventWindow(time, None, RelativeTimeWindow(lo, hi, bounds))
  }

  private def slidingBuilder(args: Seq[Expression]): Expression = {
    val name = "sliding_window"
    if (args.size < 2 || args.size > 3) {
      arity(name, "2 or 3 arguments (order, eviction[, trigger])", args)
    }
    val order = splOrder(args.head)
    val orderType = WindowParameters.timeType(name, "order", order)
    val (eviction, evictionAttribute) = SplPolicies.parse(name, "eviction",
      WindowParameters.text(name, "eviction", args(1)), orderType, tumbling = false)
    val (trigger, triggerAttribute) = SplPolicies.parse(name, "trigger",
      args.lift(2).map(WindowParameters.text(name, "trigger", _)).getOrElse("count(1)"), orderType,
      tumbling = false)
    EventWindow(order, None, SlidingWindow(eviction, trigger),
      values = evictionAttribute.toSeq ++ triggerAttribute)
  }

  private def sessionBuilder(args: Seq[Expression]): Expression = {
    val name = "event_session_window"
    val (positional, named) = namedArguments(name, args, Seq("max_duration", "output"))
    val (start, end, params) = lifetime(name, positional, 1)
    if (params.size > 3) arity(name, "at most 3 parameters after the lifetime columns (gap, " +
      "max_duration, output)", args)
    val time = start.dataType
    val gap = WindowParameters.durationTicks(name, "gap", params.head, time)
    val maxDurationArgument = optional(name, params, 1, named, "max_duration")
      .filterNot(e => e.foldable && e.eval() == null)
    val maxDuration = maxDurationArgument.map { e =>
      val ticks = WindowParameters.durationTicks(name, "max_duration", e, time)
      if (ticks < gap) WindowParameters.fail(name, s"`max_duration` must be at least `gap`, got " +
        s"${e.sql} < ${params.head.sql}")
      ticks
    }
    val output = OutputPolicy(WindowParameters.policy(name, "output",
      optional(name, params, 2, named, "output"),
      Seq(OutputPolicy.Window, OutputPolicy.Changes).map(_.sqlName), OutputPolicy.Window.sqlName))
    EventWindow(start, end, SessionWindow(gap, maxDuration, output))
  }

  private def splTumblingBuilder(args: Seq[Expression]): Expression = {
    val name = "spl_tumbling_window"
    val (positional, named) = namedArguments(name, args, Seq("flush_at_end"))
    if (positional.size < 2 || positional.size > 3) {
      arity(name, "2 or 3 arguments (order, eviction[, flush_at_end])", args)
    }
    val order = splOrder(positional.head)
    val orderType = WindowParameters.timeType(name, "order", order)
    val (eviction, attribute) = SplPolicies.parse(name, "eviction",
      WindowParameters.text(name, "eviction", positional(1)), orderType, tumbling = true)
    val flushAtEnd = optional(name, positional, 2, named, "flush_at_end")
      .exists(WindowParameters.flag(name, "flush_at_end", _))
    EventWindow(order, None, SplTumblingWindow(eviction, flushAtEnd), values = attribute.toSeq)
  }

  /** An SPL order column: integers widen to BIGINT ticks. */
  private def splOrder(order: Expression): Expression = order.dataType match {
    case ByteType | ShortType | IntegerType => Cast(order, LongType)
    case _ => order
  }

  /**
   * Splits SQL's named arguments (`flush_at_end => true`) from the positional ones before them.
   * Only the trailing optional parameters in `names` may be named, each once, after every
   * positional argument, as Spark's own functions take them.
   */
  private def namedArguments(name: String, args: Seq[Expression], names: Seq[String])
      : (Seq[Expression], Map[String, Expression]) = {
    val positional = args.takeWhile(!_.isInstanceOf[NamedArgumentExpression])
    val named = args.drop(positional.size).map {
      case NamedArgumentExpression(key, value) => key.toLowerCase(Locale.ROOT) -> value
      case other => WindowParameters.fail(name, "a positional argument must not follow named " +
        s"arguments, got ${other.sql}")
    }
    named.foreach { case (key, _) =>
      if (!names.contains(key)) {
        WindowParameters.fail(name, s"has no parameter `$key` that can be named; the named " +
          s"parameters are ${names.map("`" + _ + "`").mkString(", ")}")
      }
    }
    named.groupBy(_._1).collectFirst { case (key, uses) if uses.size > 1 =>
      WindowParameters.fail(name, s"`$key` is named twice")
    }
    (positional, named.toMap)
  }

  /** Optional parameter `index` of `params`, or its named argument: one of them, not both. */
  private def optional(
      name: String,
      params: Seq[Expression],
      index: Int,
      named: Map[String, Expression],
      parameter: String): Option[Expression] = (params.lift(index), named.get(parameter)) match {
    case (Some(_), Some(_)) =>
      WindowParameters.fail(name, s"`$parameter` is given both by position and by name")
    case (given, byName) => given.orElse(byName)
  }

  private def anchorBuilder(args: Seq[Expression]): Expression = {
    val name = "anchor_window"
    if (args.size < 4 || args.size > 5) {
      arity(name, "4 or 5 arguments (time, anchor_start, anchor_end, anchor[, bounds])", args)
    }
    val Seq(time, anchorStart, anchorEnd, anchor) = args.take(4)
    val timeType = WindowParameters.timeType(name, "time", time)
    val Seq(start, end) = Seq("anchor_start" -> anchorStart, "anchor_end" -> anchorEnd).map {
      case (_, e) if e.dataType == timeType => e
      case (_, e) if e.dataType == NullType => Cast(e, timeType)
      case (parameter, e) => WindowParameters.fail(name, s"`$parameter` must have the type of " +
        s"`time` (${timeType.sql}), got ${e.dataType.sql} (${e.sql})")
    }
    val bounds = Bounds(WindowParameters.policy(name, "bounds", args.lift(4),
      Bounds.all.map(_.sqlName), Bounds(lowerInclusive = true, upperInclusive = true).sqlName))
    val (sortTime, side) = AnchorSortKey(time, start, anchor, bounds)
    EventWindow(sortTime, None, AnchorWindow(bounds), order = Seq(side),
      values = Seq(start, end, anchor))
  }
}
