"""Column functions for the eventwindows SQL functions, for classic PySpark and Spark Connect.

Every function here builds a call of the SQL function of the same name with
``pyspark.sql.functions.call_function``; the eventwindows extension must be enabled in the
session (``eventwindows.builder()`` does it). Each docstring repeats the SQL function's
documentation (``DESCRIBE FUNCTION EXTENDED <name>``), then says how Python values map to SQL.

Python values for the constant parameters:

* time columns (``start``, ``end``, ``t``, ``time``): a :class:`~pyspark.sql.Column` or a column
  name.
* durations (``size``, ``hop``, ``period``, ``gap``, ``max_duration``): an interval string such
  as ``'5 seconds'``, a :class:`datetime.timedelta` (a day-time interval), an ``int`` number of
  ticks (microseconds for timestamps, as Spark's ``window()`` reads integers), or a
  :class:`~pyspark.sql.Column` holding a constant.
* times (``alignment``, ``horizon``): a timestamp string, a :class:`datetime.datetime` or
  :class:`datetime.date`, an ``int`` (BIGINT time), ``None`` (the default) or a
  :class:`~pyspark.sql.Column`. A string, a date or a naive datetime is read as a timestamp
  string: in the session time zone for TIMESTAMP time, as is for TIMESTAMP_NTZ. A datetime with
  a ``tzinfo`` is that instant (a TIMESTAMP). For timestamps, an ``alignment`` may also be an
  offset from the epoch, as Spark's ``window()`` takes its start time: an interval string such
  as ``'15 minutes'``, a :class:`datetime.timedelta` or an ``int`` number of microseconds.
* ``output``: ``'window'``, ``'point'``, ``'changes'`` or ``None`` (the default, ``'window'``);
  for ``count_window``, ``'point'``, ``'window'`` or ``None`` (the default, ``'point'``); for
  ``event_session_window``, ``'window'``, ``'changes'`` or ``None`` (the default, ``'window'``).
* counts and message indices (``n`` of ``count_window``, ``lo`` and ``hi`` of ``index_window``):
  an ``int`` (negative indices are before the anchor) or a :class:`~pyspark.sql.Column` holding
  a constant integer; ``lo=None`` of ``index_window`` is a SQL NULL: no lower end (a running
  window).
* time offsets (``lo``, ``hi`` of ``time_window``), of any sign or zero: an interval string such
  as ``'-10 seconds'``, a :class:`datetime.timedelta` (a day-time interval, may be negative), an
  ``int`` number of ticks for BIGINT time, or a :class:`~pyspark.sql.Column` holding a constant.
* ``bounds`` of ``time_window``: ``'[]'``, ``'[)'``, ``'(]'``, ``'()'`` or ``None`` (the default,
  ``'[]'``).
* ``order`` of ``index_window``: a :class:`~pyspark.sql.Column`, a column name or ``None``.
* SPL policies (``eviction``, ``trigger`` of ``sliding_window``, ``eviction`` of
  ``spl_tumbling_window``): a string as in SPL, such as ``'count(4)'``, what :func:`count`,
  :func:`time`, :func:`delta` and :func:`punct` (``spl_tumbling_window`` only) return, or a
  :class:`~pyspark.sql.Column` holding a constant string.
* ``flush_at_end`` of ``spl_tumbling_window``: ``False`` (the default) or ``None`` omit it,
  ``True`` passes ``TRUE``; or a :class:`~pyspark.sql.Column` holding a constant BOOLEAN.

A ``None`` before a later optional parameter that is given is passed as a SQL NULL, which the
SQL functions read as the default.
"""
from __future__ import annotations

import datetime
import numbers
from typing import List, Optional, Union

from pyspark.sql import functions as F
from pyspark.sql.column import Column

__all__ = [
    "hopping_window",
    "tumbling_window",
    "snapshot_window",
    "snap_to_boundary",
    "adjust_start_time",
    "adjust_end_time",
    "count_window",
    "event_session_window",
    "index_window",
    "time_window",
    "sliding_window",
    "spl_tumbling_window",
    "count",
    "time",
    "delta",
    "punct",
    "anchor_window",
    "clipped_start",
    "clipped_end",
    "time_weighted_sum",
    "time_weighted_avg",
]

#: A column or the name of a column.
ColumnOrName = Union[Column, str]
#: A window length or hop: interval string, timedelta, int ticks (µs for timestamps) or a Column.
DurationLike = Union[str, datetime.timedelta, int, Column]
#: A count or a message index: an int or a constant Column.
IntegerLike = Union[int, Column]
#: A time offset of any sign: interval string, timedelta, int ticks (BIGINT time) or a Column.
OffsetLike = Union[str, datetime.timedelta, int, Column]
#: An instant: timestamp string, datetime, date, int (BIGINT time) or a constant Column; an
#: alignment also an offset from the epoch (interval string, timedelta, int microseconds).
TimeLike = Union[str, datetime.datetime, datetime.date, datetime.timedelta, int, Column]


def _column(value: ColumnOrName, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.col(value)
    raise TypeError(
        f"`{parameter}` must be a Column or a column name, got {type(value).__name__}: {value!r}")


def _interval(value, parameter: str, kind: str, forms: str) -> Column:
    """An interval-like parameter: a Column, or an interval string, timedelta or int literal."""
    if isinstance(value, Column):
        return value
    if isinstance(value, bool):
        raise TypeError(f"`{parameter}` must be {kind}, got bool: {value!r}")
    if isinstance(value, (str, datetime.timedelta, int)):
        return F.lit(value)
    raise TypeError(
        f"`{parameter}` must be {forms} or a Column, got {type(value).__name__}: {value!r}")


def _duration(value: DurationLike, parameter: str) -> Column:
    return _interval(value, parameter, "a duration",
                     "an interval string such as '5 seconds', a datetime.timedelta, an int "
                     "(ticks: microseconds for timestamps)")


def _time(value: Optional[TimeLike], parameter: str) -> Column:
    if value is None:
        return F.lit(None)
    if isinstance(value, Column):
        return value
    if isinstance(value, bool):
        raise TypeError(f"`{parameter}` must be a time, got bool: {value!r}")
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None and value.utcoffset() is not None:
            return F.lit(value)
        return F.lit(value.isoformat(sep=" "))
    if isinstance(value, (datetime.date, str)):
        return F.lit(str(value))
    if isinstance(value, (int, datetime.timedelta)):
        return F.lit(value)
    raise TypeError(
        f"`{parameter}` must be a timestamp string, a datetime, a date, a timedelta, an int, "
        f"None or a Column, got {type(value).__name__}: {value!r}")


def _output(value: Union[str, Column]) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise TypeError(
        f"`output` must be 'window', 'point', 'changes', None or a Column, got "
        f"{type(value).__name__}: {value!r}")


_COUNT_OUTPUTS = "'point', 'window'"
_SESSION_OUTPUTS = "'window', 'changes'"
_BOUNDS = "'[]', '[)', '(]', '()'"


def _integer(value: IntegerLike, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return F.lit(int(value))  # INT, or BIGINT when it does not fit: Spark sees an integer
    raise TypeError(
        f"`{parameter}` must be an int or a Column, got {type(value).__name__}: {value!r}")


def _offset(value: OffsetLike, parameter: str) -> Column:
    return _interval(value, parameter, "a time offset",
                     "an interval string such as '-10 seconds', a datetime.timedelta (negative "
                     "allowed), an int (BIGINT ticks)")


def _choice(value: Union[str, Column], parameter: str, allowed: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise TypeError(
        f"`{parameter}` must be {allowed}, None or a Column, got {type(value).__name__}: "
        f"{value!r}")


def _optional(*args: Optional[Column]) -> List[Column]:
    """Drops trailing absent arguments; an absent one before a given one becomes NULL."""
    given = list(args)
    while given and given[-1] is None:
        given.pop()
    return [F.lit(None) if a is None else a for a in given]


def _hopping_parameters(
        alignment: Optional[TimeLike],
        output: Optional[Union[str, Column]],
        horizon: Optional[TimeLike]) -> List[Column]:
    return _optional(
        None if alignment is None else _time(alignment, "alignment"),
        None if output is None else _output(output),
        None if horizon is None else _time(horizon, "horizon"))


def _lifetime(start: ColumnOrName, end: Optional[ColumnOrName]) -> List[Column]:
    cols = [_column(start, "start")]
    if end is not None:
        cols.append(_column(end, "end"))
    return cols


def hopping_window(
        start: ColumnOrName,
        end: Optional[ColumnOrName],
        size: DurationLike,
        hop: DurationLike,
        alignment: Optional[TimeLike] = None,
        output: Optional[Union[str, Column]] = None,
        horizon: Optional[TimeLike] = None) -> Column:
    """hopping_window(start[, end], size, hop[, alignment[, output[, horizon]]]) - Groups events into
    hopping windows [alignment + n * hop, alignment + n * hop + size) for every integer n. An
    event belongs to every window its lifetime intersects, and aggregates see it in each. Use it
    in GROUP BY; it yields the column `window` (struct of `start` and `end`: the lifetime of the
    output row). Empty windows give no row.

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
      * size - the window length: a day-time interval, a string such as '5 seconds' or an
          integer number of microseconds (for BIGINT time an integer number of ticks); positive.
      * hop - the distance between window starts, like `size`; positive.
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

    In Python, ``end=None`` omits the end column (point events); ``size`` and ``hop`` may be
    strings, ``datetime.timedelta`` or ``int`` ticks, ``alignment``/``horizon`` strings,
    datetimes or ``int``, and ``alignment`` also a ``datetime.timedelta`` (see the module
    documentation).

    Examples
    --------
    >>> df = spark.createDataFrame(
    ...     [("2024-01-01 00:00:01",), ("2024-01-01 00:00:03",)], "ts string"
    ... ).selectExpr("CAST(ts AS TIMESTAMP) AS ts")
    >>> (df.groupBy(hopping_window("ts", None, "4 seconds", "2 seconds"))
    ...    .count().orderBy("window").select("window.start", "window.end", "count").show())
    +-------------------+-------------------+-----+
    |              start|                end|count|
    +-------------------+-------------------+-----+
    |2023-12-31 23:59:58|2024-01-01 00:00:02|    1|
    |2024-01-01 00:00:00|2024-01-01 00:00:04|    2|
    |2024-01-01 00:00:02|2024-01-01 00:00:06|    1|
    +-------------------+-------------------+-----+
    """
    return F.call_function(
        "hopping_window",
        *_lifetime(start, end),
        _duration(size, "size"),
        _duration(hop, "hop"),
        *_hopping_parameters(alignment, output, horizon))


def tumbling_window(
        start: ColumnOrName,
        end: Optional[ColumnOrName],
        size: DurationLike,
        alignment: Optional[TimeLike] = None,
        output: Optional[Union[str, Column]] = None,
        horizon: Optional[TimeLike] = None) -> Column:
    """tumbling_window(start[, end], size[, alignment[, output[, horizon]]]) - Groups events into adjacent,
    non-overlapping windows of length `size`: hopping_window with hop = size.

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
      * size - the window length: a day-time interval, a string such as '5 seconds' or an
          integer number of microseconds (for BIGINT time an integer number of ticks); positive.
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

    In Python, ``end=None`` omits the end column (point events); ``size`` may be a string, a
    ``datetime.timedelta`` or ``int`` ticks, ``alignment``/``horizon`` strings, datetimes or
    ``int``, and ``alignment`` also a ``datetime.timedelta`` (see the module documentation).

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (3,), (4,), (5,)], "ts bigint")
    >>> (df.groupBy(tumbling_window("ts", None, 2)).count()
    ...    .orderBy("window").select("window.start", "count").show())
    +-----+-----+
    |start|count|
    +-----+-----+
    |    0|    1|
    |    2|    1|
    |    4|    2|
    +-----+-----+
    """
    return F.call_function(
        "tumbling_window",
        *_lifetime(start, end),
        _duration(size, "size"),
        *_hopping_parameters(alignment, output, horizon))


def snapshot_window(start: ColumnOrName, end: Optional[ColumnOrName] = None) -> Column:
    """snapshot_window(start[, end]) - Groups events into snapshot windows: the intervals between consecutive
    distinct event endpoints (starts and ends), one row for each such interval where at least
    one event is active, aggregating the events active there. Use it in GROUP BY; it yields the
    column `window` (struct of `start` and `end`).

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().

    In Python, ``end=None`` omits the end column (point events).

    Examples
    --------
    >>> df = spark.createDataFrame([(0, 4), (2, 6)], "s bigint, e bigint")
    >>> (df.groupBy(snapshot_window("s", "e")).count()
    ...    .orderBy("window").select("window.start", "window.end", "count").show())
    +-----+---+-----+
    |start|end|count|
    +-----+---+-----+
    |    0|  2|    1|
    |    2|  4|    2|
    |    4|  6|    1|
    +-----+---+-----+
    """
    return F.call_function("snapshot_window", *_lifetime(start, end))


def snap_to_boundary(t: ColumnOrName, alignment: TimeLike, period: DurationLike) -> Column:
    """snap_to_boundary(t, alignment, period) - The largest time alignment + n * period that is <= t, over all
    integers n (floor rounding: right before the alignment and before 1970).

    Arguments:
      * t - a TIMESTAMP, TIMESTAMP_NTZ or BIGINT.
      * alignment - a boundary, of the type of `t` (or a timestamp string); for timestamps a
          constant may also be an offset from the epoch, as for hopping_window.
      * period - the distance between boundaries: a day-time interval, an interval string or an
          integer number of microseconds for timestamps, an integer for BIGINT; positive.

    In Python, ``t`` is a Column or a column name; a string ``alignment`` is a timestamp string,
    or else an interval string (pass a Column to snap to another column); ``period`` may be a
    string, a ``datetime.timedelta`` or an ``int``.

    Examples
    --------
    >>> df = spark.createDataFrame([(-1,), (5,)], "t bigint")
    >>> df.select("t", snap_to_boundary("t", 0, 5).alias("snapped")).show()
    +---+-------+
    |  t|snapped|
    +---+-------+
    | -1|     -5|
    |  5|      5|
    +---+-------+
    """
    return F.call_function(
        "snap_to_boundary",
        _column(t, "t"),
        _time(alignment, "alignment"),
        _duration(period, "period"))


def adjust_start_time(
        t: ColumnOrName,
        size: DurationLike,
        hop: DurationLike,
        alignment: Optional[TimeLike] = None) -> Column:
    """adjust_start_time(t, size, hop[, alignment]) - Seed 000's AdjustStartTime: the end of the earliest hopping window that
      contains t. With adjust_end_time it snaps an event's lifetime so that a snapshot window
      over it gives one row per change of the hopping windows' contents.

    Arguments:
      * t - a TIMESTAMP, TIMESTAMP_NTZ or BIGINT.
      * size, hop - the hopping windows' length and hop, as for hopping_window; 0 < hop <= size.
      * alignment - optional, as for hopping_window.

    In Python, ``size`` and ``hop`` may be strings, ``datetime.timedelta`` or ``int`` ticks;
    ``alignment=None`` omits it (the Unix epoch).

    Examples
    --------
    >>> df = spark.createDataFrame([(3,), (4,)], "t bigint")
    >>> df.select("t", adjust_start_time("t", 5, 2).alias("adjusted")).show()
    +---+--------+
    |  t|adjusted|
    +---+--------+
    |  3|       5|
    |  4|       5|
    +---+--------+
    """
    return F.call_function(
        "adjust_start_time",
        _column(t, "t"),
        _duration(size, "size"),
        _duration(hop, "hop"),
        *_optional(None if alignment is None else _time(alignment, "alignment")))


def adjust_end_time(
        t: ColumnOrName,
        size: DurationLike,
        hop: DurationLike,
        alignment: Optional[TimeLike] = None) -> Column:
    """adjust_end_time(t, size, hop[, alignment]) - Seed 000's AdjustEndTime: one hop past the end of the latest hopping window
      that starts before t (t is an exclusive end). NULL (an open end) gives the end of time.

    Arguments:
      * t - a TIMESTAMP, TIMESTAMP_NTZ or BIGINT.
      * size, hop - the hopping windows' length and hop, as for hopping_window; 0 < hop <= size.
      * alignment - optional, as for hopping_window.

    In Python, ``size`` and ``hop`` may be strings, ``datetime.timedelta`` or ``int`` ticks;
    ``alignment=None`` omits it (the Unix epoch).

    Examples
    --------
    >>> df = spark.createDataFrame([(10,), (11,)], "t bigint")
    >>> df.select("t", adjust_end_time("t", 5, 2).alias("adjusted")).show()
    +---+--------+
    |  t|adjusted|
    +---+--------+
    | 10|      15|
    | 11|      17|
    +---+--------+
    """
    return F.call_function(
        "adjust_end_time",
        _column(t, "t"),
        _duration(size, "size"),
        _duration(hop, "hop"),
        *_optional(None if alignment is None else _time(alignment, "alignment")))


def count_window(
        start: ColumnOrName,
        end: Optional[ColumnOrName],
        n: IntegerLike,
        output: Optional[Union[str, Column]] = None) -> Column:
    """count_window(start[, end], n[, output]) - Groups events into StreamInsight's count windows: for
      every n consecutive distinct start times s_i, ..., s_k of the events (k = i + n - 1), the
      window [s_i, s_k + 1 tick) holding every event whose lifetime intersects it (several
      events with one start time all count, so a window may hold more than n events). No window
      until n distinct start times exist. Use it in GROUP BY; it yields the column `window`
      (struct of `start`, `end`: the lifetime of the output row, and `first`, `last`: s_i and
      s_k).

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
      * n - the number of distinct start times in a window: a constant integer, at least 1.
      * output - optional, 'point' (default, as StreamInsight: a point event at s_k) or 'window'
          (the row's lifetime is the window [s_i, s_k + 1 tick)).

    In Python, ``end=None`` omits the end column (point events); ``n`` is an ``int`` (or a
    constant Column); ``output=None`` omits it (``'point'``).

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(1, 10), (2, 20), (2, 5), (4, 40)], "ts bigint, v bigint")
    >>> (df.groupBy(count_window("ts", None, 2)).agg(F.sum("v").alias("total"))
    ...    .orderBy("window").select("window.*", "total").show())
    +-----+---+-----+----+-----+
    |start|end|first|last|total|
    +-----+---+-----+----+-----+
    |    2|  3|    1|   2|   35|
    |    4|  5|    2|   4|   65|
    +-----+---+-----+----+-----+
    """
    return F.call_function(
        "count_window",
        *_lifetime(start, end),
        _integer(n, "n"),
        *_optional(None if output is None else _choice(output, "output", _COUNT_OUTPUTS)))


def event_session_window(
        start: ColumnOrName,
        end: Optional[ColumnOrName],
        gap: DurationLike,
        max_duration: Optional[DurationLike] = None,
        output: Optional[Union[str, Column]] = None) -> Column:
    """event_session_window(start[, end], gap[, max_duration[, output]]) - Groups events into sessions, also events
      that last (Trill's session windows, with Azure Stream Analytics' maximum duration). Per
      group, events sorted by start form sessions: an event keeps its session open until its
      last active tick plus `gap` (a point event at t: until t + gap, as Spark's
      session_window(t, gap); an event [s, e): until e - 1 tick + gap; an open-ended event:
      forever); an event that starts at or before the session's end joins it, else it starts a
      new session. Use it in GROUP BY; it yields the column `window` (struct of `start` and
      `end`: the session [first start, session end), or a piece of it, or a change within it).

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
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

    In Python, ``end=None`` omits the end column (point events); ``gap`` and ``max_duration``
    may be strings, ``datetime.timedelta`` or ``int`` ticks; ``max_duration=None`` is no maximum
    (a SQL NULL when ``output`` is given); ``output=None`` omits it (``'window'``).

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(1, 3), (6, 7), (12, 13)], "s bigint, e bigint")
    >>> (df.groupBy(event_session_window("s", "e", 4)).count()
    ...    .orderBy("window").select("window.start", "window.end", "count").show())
    +-----+---+-----+
    |start|end|count|
    +-----+---+-----+
    |    1| 10|    2|
    |   12| 16|    1|
    +-----+---+-----+
    >>> points = spark.createDataFrame([(11, 1), (12, 1), (21, 2), (25, 2)], "ts bigint, x bigint")
    >>> (points.groupBy(event_session_window("ts", None, 6, output="changes"))
    ...    .agg(F.sum("x").alias("total"))
    ...    .orderBy("window").select("window.start", "window.end", "total").show())
    +-----+---+-----+
    |start|end|total|
    +-----+---+-----+
    |   11| 12|    1|
    |   12| 18|    2|
    |   21| 25|    2|
    |   25| 31|    4|
    +-----+---+-----+
    """
    return F.call_function(
        "event_session_window",
        *_lifetime(start, end),
        _duration(gap, "gap"),
        *_optional(
            None if max_duration is None else _duration(max_duration, "max_duration"),
            None if output is None else _choice(output, "output", _SESSION_OUTPUTS)))


def index_window(
        time: ColumnOrName,
        lo: Optional[IntegerLike],
        hi: IntegerLike,
        order: Optional[ColumnOrName] = None) -> Column:
    """index_window(time, lo, hi[, order]) - Groups messages (point events) into the windows by relative
      message index of psi (Platform for Situated Intelligence): with the messages of a key
      numbered in time order, the window of the message at index p (the anchor) holds the
      messages with index in [p + lo, p + hi]. Only full
      windows give a row: one per anchor whose whole window exists. Use it in GROUP BY; it
      yields the column `window` (struct of `start`, `end`: a point event at the anchor's time,
      and `first`, `last`: the times of the window's first and last messages).

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

    In Python, ``lo`` and ``hi`` are ``int`` (or constant Columns); ``lo=None`` is passed as a
    SQL NULL: the running window from the key's first message. ``order`` is a Column, a column
    name or ``None`` (omitted).

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(1, 1), (2, 3), (3, 2), (5, 6)], "ts bigint, v bigint")
    >>> (df.groupBy(index_window("ts", -1, 0)).agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "window.first", "vs").show())
    +-----+-----+------+
    |start|first|    vs|
    +-----+-----+------+
    |    2|    1|[1, 3]|
    |    3|    2|[3, 2]|
    |    5|    3|[2, 6]|
    +-----+-----+------+
    >>> (df.groupBy(index_window("ts", None, 0)).agg(F.avg("v").alias("running_avg"))
    ...    .orderBy("window").select("window.start", "running_avg").show())
    +-----+-----------+
    |start|running_avg|
    +-----+-----------+
    |    1|        1.0|
    |    2|        2.0|
    |    3|        2.0|
    |    5|        3.0|
    +-----+-----------+
    """
    return F.call_function(
        "index_window",
        _column(time, "time"),
        F.lit(None) if lo is None else _integer(lo, "lo"),
        _integer(hi, "hi"),
        *_optional(None if order is None else _column(order, "order")))


def time_window(
        time: ColumnOrName,
        lo: OffsetLike,
        hi: OffsetLike,
        bounds: Optional[Union[str, Column]] = None) -> Column:
    """time_window(time, lo, hi[, bounds]) - Groups messages (point events) into the windows by
      relative time of psi (Platform for Situated Intelligence): every message (the anchor, at time t) has the window of the messages of its
      key with time in [t + lo, t + hi]. One row for every message, also when its window is
      empty (count 0, sum NULL). Use it in GROUP BY; it yields the column `window` (struct of
      `start`, `end`: a point event at the anchor's time).

    Arguments:
      * time - the message time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks). Rows with a NULL
          time are skipped.
      * lo - the window's start relative to the anchor, of any sign: a day-time interval or a
          string such as '-10 seconds' (an integer number of ticks for BIGINT time).
      * hi - the window's end relative to the anchor, like `lo`; at least `lo`.
      * bounds - optional, which ends belong to the window: '[]' (default, both, as psi's
          RelativeTimeInterval), '[)', '(]' or '()'.

    In Python, ``lo`` and ``hi`` may be interval strings, ``datetime.timedelta`` (negative ones
    too), ``int`` ticks for BIGINT time or constant Columns; ``bounds=None`` omits it (``'[]'``).

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(1, 1), (2, 2), (3, 4), (7, 8)], "ts bigint, v bigint")
    >>> (df.groupBy(time_window("ts", -2, -1))
    ...    .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    ...    .orderBy("window").select("window.start", "n", "total").show())
    +-----+---+-----+
    |start|  n|total|
    +-----+---+-----+
    |    1|  0| NULL|
    |    2|  1|    1|
    |    3|  2|    3|
    |    7|  0| NULL|
    +-----+---+-----+
    >>> (df.groupBy(time_window("ts", -2, 0, bounds="(]")).agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "vs").show())
    +-----+------+
    |start|    vs|
    +-----+------+
    |    1|   [1]|
    |    2|[1, 2]|
    |    3|[2, 4]|
    |    7|   [8]|
    +-----+------+
    """
    return F.call_function(
        "time_window",
        _column(time, "time"),
        _offset(lo, "lo"),
        _offset(hi, "hi"),
        *_optional(None if bounds is None else _choice(bounds, "bounds", _BOUNDS)))


#: An SPL window policy: a string such as ``'count(4)'``, or what :func:`count`, :func:`time`,
#: :func:`delta` and :func:`punct` return.
PolicyLike = Union[str, Column]


def count(n: int) -> str:
    """The SPL policy ``count(n)``, for :func:`sliding_window` and :func:`spl_tumbling_window`: as
    eviction of a sliding window, the window holds the last n tuples; as trigger, it fires on every
    n-th arrival; as eviction of a tumbling window, the window is flushed once it holds n tuples."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"count(n) takes an int, got {type(n).__name__}: {n!r}")
    return f"count({n})"


def time(t: Union[str, int, float, datetime.timedelta]) -> str:
    """The SPL policy ``time(t)``, for :func:`sliding_window` and :func:`spl_tumbling_window`: as
    eviction of a sliding window, tuples leave once they have been in the window for more than t;
    as trigger, it fires every t; as eviction of a tumbling window, the window is flushed every t
    (at the group's first arrival + k * t, when a tuple at or past that instant arrives). ``t``
    is an interval string such as ``'5 seconds'``, a :class:`datetime.timedelta`, a number of
    seconds (timestamp order) or an int number of ticks (BIGINT order)."""
    if isinstance(t, datetime.timedelta):
        return f"time({t // datetime.timedelta(microseconds=1)} microseconds)"
    if isinstance(t, bool) or not isinstance(t, (str, int, float)):
        raise TypeError(f"time(t) takes an interval string, a timedelta or a number, got "
                        f"{type(t).__name__}: {t!r}")
    return f"time({t})"


def delta(attribute: str, d: Union[int, float, str, datetime.timedelta]) -> str:
    """The SPL policy ``delta(attribute, d)``, for :func:`sliding_window` and
    :func:`spl_tumbling_window`: as eviction of a sliding window, a new tuple evicts every tuple
    whose ``attribute`` is more than d below its own; as trigger, a tuple whose attribute exceeds
    the last firing tuple's by more than d fires the window; as eviction of a tumbling window, a
    tuple whose attribute exceeds the oldest held tuple's by more than d flushes the window first
    and starts the next one. ``attribute`` is a column name (or SQL expression); ``d`` a number,
    or for timestamps an interval string, a timedelta or seconds."""
    if not isinstance(attribute, str):
        raise TypeError(f"delta(attribute, d) takes a column name, got {attribute!r}")
    if isinstance(d, datetime.timedelta):
        d = f"{d // datetime.timedelta(microseconds=1)} microseconds"
    elif isinstance(d, bool) or not isinstance(d, (int, float, str)):
        raise TypeError(f"delta(attribute, d) takes a number or an interval, got {d!r}")
    return f"delta({attribute}, {d})"


def punct(column: str) -> str:
    """The SPL policy ``punct(column)``, for :func:`spl_tumbling_window` (as eviction; not
    allowed in :func:`sliding_window`): a tuple whose BOOLEAN ``column`` is TRUE is inserted and
    the window flushed after it, as SPL's window punctuation. ``column`` is a column name; a NULL
    in it is an error naming the row."""
    if not isinstance(column, str):
        raise TypeError(f"punct(column) takes a column name, got {type(column).__name__}: "
                        f"{column!r}")
    return f"punct({column})"


def _policy(value: PolicyLike, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise TypeError(
        f"`{parameter}` must be an SPL policy such as 'count(4)' (see eventwindows.count, time, "
        f"delta, punct) or a Column, got {type(value).__name__}: {value!r}")


def _flag(value: Optional[Union[bool, Column]], parameter: str) -> Optional[Column]:
    """A BOOLEAN constant parameter whose default is false: None for False or None (omitted),
    TRUE for True, a Column as it is."""
    if isinstance(value, Column):
        return value
    if value is None or value is False:
        return None
    if value is True:
        return F.lit(True)
    raise TypeError(
        f"`{parameter}` must be a bool, None or a Column, got {type(value).__name__}: {value!r}")


def sliding_window(order: ColumnOrName, eviction: PolicyLike,
                   trigger: Optional[PolicyLike] = None) -> Column:
    """sliding_window(order, eviction[, trigger]) - Groups tuples into IBM Streams SPL sliding windows. The
      tuples of each group arrive in the order of `order`, the clock of time policies. The
      eviction policy says which tuples the window holds, the trigger policy when it is
      evaluated; a firing over a non-empty window gives a row. On each arrival, as in the SPL
      runtime: a time trigger first fires at its instants before the arrival (after time
      eviction at each); a delta trigger is checked against the window before the new tuple; then
      eviction, then insertion; then a count trigger. Use it in GROUP BY (the other keys
      partition the windows); it yields the column `window` (struct of `start`, `end`: a point
      event at the firing time, and `first`, `last`: the order values of the window's oldest and
      newest tuples).

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

    In Python the policies are strings as in SPL, or built with :func:`count`, :func:`time` and
    :func:`delta`; ``trigger=None`` is ``count(1)``.

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(i, i) for i in range(1, 6)], "ts bigint, v bigint")
    >>> (df.groupBy(sliding_window("ts", count(3), count(2))).agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "window.first", "vs").show())
    +-----+-----+---------+
    |start|first|       vs|
    +-----+-----+---------+
    |    2|    1|   [1, 2]|
    |    4|    2|[2, 3, 4]|
    +-----+-----+---------+
    """
    return F.call_function(
        "sliding_window",
        _column(order, "order"),
        _policy(eviction, "eviction"),
        *_optional(None if trigger is None else _policy(trigger, "trigger")))


def spl_tumbling_window(order: ColumnOrName, eviction: PolicyLike,
                        flush_at_end: Optional[Union[bool, Column]] = False) -> Column:
    """spl_tumbling_window(order, eviction[, flush_at_end]) - Groups tuples into IBM Streams SPL tumbling windows.
      The tuples of each group arrive in the order of `order`, the clock of time policies. The
      window fills and is flushed whole as its eviction policy says; each flush of a non-empty
      window gives a row. Use it in GROUP BY (the other keys partition the windows); it yields
      the column `window` (struct of `start`, `end`: a point event at the flush time, and
      `first`, `last`: the order values of the window's oldest and newest tuples).

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

    In Python the policy is a string as in SPL, or built with :func:`count`, :func:`time`,
    :func:`delta` and :func:`punct`; ``flush_at_end`` is a ``bool`` (``False`` and ``None``
    omit it) or a constant Column.

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> ages = spark.createDataFrame([(i,) for i in range(8)], "age bigint")
    >>> (ages.groupBy(spl_tumbling_window("age", delta("age", 2)))
    ...    .agg(F.collect_list("age").alias("ages")).orderBy("window")
    ...    .select("window.start", "window.first", "window.last", "ages").show())
    +-----+-----+----+---------+
    |start|first|last|     ages|
    +-----+-----+----+---------+
    |    3|    0|   2|[0, 1, 2]|
    |    6|    3|   5|[3, 4, 5]|
    +-----+-----+----+---------+
    >>> df = spark.createDataFrame([(i, i) for i in range(1, 6)], "ts bigint, v bigint")
    >>> (df.groupBy(spl_tumbling_window("ts", count(2), flush_at_end=True))
    ...    .agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "vs").show())
    +-----+------+
    |start|    vs|
    +-----+------+
    |    2|[1, 2]|
    |    4|[3, 4]|
    |    5|   [5]|
    +-----+------+
    >>> marked = df.withColumn("last_of_batch", F.col("v").isin(1, 4))
    >>> (marked.groupBy(spl_tumbling_window("ts", punct("last_of_batch")))
    ...    .agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "vs").show())
    +-----+---------+
    |start|       vs|
    +-----+---------+
    |    1|      [1]|
    |    4|[2, 3, 4]|
    +-----+---------+
    """
    return F.call_function(
        "spl_tumbling_window",
        _column(order, "order"),
        _policy(eviction, "eviction"),
        *_optional(_flag(flush_at_end, "flush_at_end")))


def anchor_window(time: ColumnOrName, anchor_start: ColumnOrName, anchor_end: ColumnOrName,
                  anchor: ColumnOrName, bounds: Optional[Union[str, Column]] = None) -> Column:
    """anchor_window(time, anchor_start, anchor_end, anchor[, bounds]) - Groups a table holding messages and
      anchors into psi's dynamic windows: every anchor row (`anchor` not NULL) has the window of
      the messages (rows whose `anchor` is NULL) of its GROUP BY keys with `time` in
      [anchor_start, anchor_end]. One row per anchor, also when its window is empty (count 0, sum
      NULL); intervals may overlap, nest or be empty. Aggregates see the messages only. This is
      what the Python function dynamic_window(anchors, messages, ...) builds from two tables (a
      UNION ALL of both); the plan has no join (a sweep, or the anchors broadcast). It yields the
      column `window` (struct of `start`, `end`: the anchor's interval, and `anchor`: the anchor
      column's value).

    Arguments:
      * time - the message time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks). Messages with a NULL
          time are skipped.
      * anchor_start - the start of an anchor's interval, of the type of `time`.
      * anchor_end - the end of an anchor's interval, of the type of `time`. An anchor with a
          NULL start or end, or an end before its start, is an error naming the row.
      * anchor - the anchor's columns (e.g. a struct); NULL on message rows.
      * bounds - optional, which ends belong to the interval: '[]' (default, both), '[)', '(]'
          or '()'.

    In Python, :func:`eventwindows.dynamic_window` builds the union of two DataFrames and calls
    this; use it directly only on a table that already holds both.

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> rows = [(1, 1, None, None, None), (2, 2, None, None, None), (5, 4, None, None, None),
    ...         (None, None, 0, 2, ("x",)), (None, None, 3, 4, ("y",))]
    >>> df = spark.createDataFrame(rows, "ts bigint, v bigint, s bigint, e bigint, a struct<id: string>")
    >>> (df.groupBy(anchor_window("ts", "s", "e", "a")).agg(F.count("v").alias("n"))
    ...    .select("window.anchor.id", "window.start", "window.end", "n").orderBy("id").show())
    +---+-----+---+---+
    | id|start|end|  n|
    +---+-----+---+---+
    |  x|    0|  2|  2|
    |  y|    3|  4|  0|
    +---+-----+---+---+
    """
    return F.call_function(
        "anchor_window",
        _column(time, "time"),
        _column(anchor_start, "anchor_start"),
        _column(anchor_end, "anchor_end"),
        _column(anchor, "anchor"),
        *_optional(None if bounds is None else _choice(bounds, "bounds", _BOUNDS)))


# ----------------------------------------------------------------------------------------------
# Clipped lifetimes and time-weighted aggregates


def clipped_start() -> Column:
    """clipped_start() - The start of the event an aggregate reads, clipped to the window it is
    read for: the later of the event's start and the window's start, of the window's time type.
    The window's extent is [start, start + size) for hopping and tumbling windows (also under
    output 'point'), the snapshot interval, [s_i, s_k + 1 tick) for count windows, and the
    session or its piece for event_session_window.

    Arguments: none.

    Allowed only inside the arguments and FILTER of the aggregates of a GROUP BY over
    hopping_window, tumbling_window (outputs 'window' and 'point'), snapshot_window,
    count_window or event_session_window (output 'window'); not with output 'changes', where
    one row stands for many windows. Each
    window reads each of its events once: the cost is O(events in the window) per window. For
    time-weighted sums and averages use time_weighted_sum and time_weighted_avg, which cost
    O(log n) per event and per window whatever the events' lengths.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7), (4, 5)], "s bigint, e bigint")
    >>> (df.groupBy(tumbling_window("s", "e", 4))
    ...    .agg(F.min(clipped_start()).alias("first"),
    ...         F.sum(clipped_end() - clipped_start()).alias("length"))
    ...    .orderBy("window").select("window.start", "first", "length").show())
    +-----+-----+------+
    |start|first|length|
    +-----+-----+------+
    |    0|    1|     3|
    |    4|    4|     4|
    +-----+-----+------+
    """
    return F.call_function("clipped_start")


def clipped_end() -> Column:
    """clipped_end() - The end of the event an aggregate reads, clipped to the window it is read
    for: the earlier of the event's exclusive end and the window's end (an open-ended event under
    per-window hopping output ends one tick after the horizon).

    Arguments: none.

    Allowed only inside the arguments and FILTER of the aggregates of a GROUP BY over
    hopping_window, tumbling_window (outputs 'window' and 'point'), snapshot_window,
    count_window or event_session_window (output 'window'); not with output 'changes', where
    one row stands for many windows. Each
    window reads each of its events once: the cost is O(events in the window) per window. For
    time-weighted sums and averages use time_weighted_sum and time_weighted_avg, which cost
    O(log n) per event and per window whatever the events' lengths.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7), (4, 5)], "s bigint, e bigint")
    >>> (df.groupBy(tumbling_window("s", "e", 4))
    ...    .agg(F.collect_list(clipped_end()).alias("ends"))
    ...    .orderBy("window").select("window.start", "ends").show())
    +-----+------+
    |start|  ends|
    +-----+------+
    |    0|   [4]|
    |    4|[7, 5]|
    +-----+------+
    """
    return F.call_function("clipped_end")


def time_weighted_sum(v: ColumnOrName) -> Column:
    """time_weighted_sum(v) - The sum over the window's events of v times the length of the
    event's lifetime clipped to the window; NULL if every v is NULL.

    Arguments:
      * v - a numeric column, read as DOUBLE; events whose v is NULL are left out.

    Allowed inside the aggregates of a GROUP BY over hopping_window, tumbling_window (outputs
    'window' and 'point'), snapshot_window, count_window or event_session_window (output
    'window'); not with output 'changes'. The
    length of a clipped lifetime is in seconds for TIMESTAMP and TIMESTAMP_NTZ time and in ticks
    for BIGINT time. The window operator integrates v over time once per key: O(log n) per event
    and per window, whatever the events' lengths or the windows they span.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7, 2.0), (4, 5, 10.0)], "s bigint, e bigint, v double")
    >>> (df.groupBy(tumbling_window("s", "e", 4)).agg(time_weighted_sum("v").alias("sum"))
    ...    .orderBy("window").select("window.start", "sum").show())
    +-----+----+
    |start| sum|
    +-----+----+
    |    0| 6.0|
    |    4|16.0|
    +-----+----+
    """
    return F.call_function("time_weighted_sum", _column(v, "v"))


def time_weighted_avg(v: ColumnOrName) -> Column:
    """time_weighted_avg(v) - The average of v over the window weighted by the length of each
    event's lifetime clipped to the window: time_weighted_sum(v) divided by the summed clipped
    lengths of the events whose v is not NULL; NULL if there are none.

    Arguments:
      * v - a numeric column, read as DOUBLE; events whose v is NULL are left out.

    Allowed inside the aggregates of a GROUP BY over hopping_window, tumbling_window (outputs
    'window' and 'point'), snapshot_window, count_window or event_session_window (output
    'window'); not with output 'changes'. The
    length of a clipped lifetime is in seconds for TIMESTAMP and TIMESTAMP_NTZ time and in ticks
    for BIGINT time. The window operator integrates v over time once per key: O(log n) per event
    and per window, whatever the events' lengths or the windows they span.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7, 2.0), (4, 5, 10.0)], "s bigint, e bigint, v double")
    >>> (df.groupBy(tumbling_window("s", "e", 4)).agg(time_weighted_avg("v").alias("avg"))
    ...    .orderBy("window").select("window.start", "avg").show())
    +-----+---+
    |start|avg|
    +-----+---+
    |    0|2.0|
    |    4|4.0|
    +-----+---+
    """
    return F.call_function("time_weighted_avg", _column(v, "v"))
