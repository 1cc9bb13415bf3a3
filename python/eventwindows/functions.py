"""Column functions for the eventwindows SQL functions, for classic PySpark and Spark Connect.

Every function here builds a call of the SQL function of the same name with
``pyspark.sql.functions.call_function``; the eventwindows extension must be enabled in the
session (``eventwindows.builder()`` does it). Each docstring repeats the SQL function's
documentation (``DESCRIBE FUNCTION EXTENDED <name>``), then says how Python values map to SQL.

Python values for the constant parameters:

* time columns (``start``, ``end``, ``t``): a :class:`~pyspark.sql.Column` or a column name.
* durations (``size``, ``hop``, ``period``): an interval string such as ``'5 seconds'``, a
  :class:`datetime.timedelta` (a day-time interval), an ``int`` number of ticks (microseconds
  for timestamps, as Spark's ``window()`` reads integers), or a :class:`~pyspark.sql.Column`
  holding a constant.
* times (``alignment``, ``horizon``): a timestamp string, a :class:`datetime.datetime` or
  :class:`datetime.date`, an ``int`` (BIGINT time), ``None`` (the default) or a
  :class:`~pyspark.sql.Column`. A string, a date or a naive datetime is read as a timestamp
  string: in the session time zone for TIMESTAMP time, as is for TIMESTAMP_NTZ. A datetime with
  a ``tzinfo`` is that instant (a TIMESTAMP). For timestamps, an ``alignment`` may also be an
  offset from the epoch, as Spark's ``window()`` takes its start time: an interval string such
  as ``'15 minutes'``, a :class:`datetime.timedelta` or an ``int`` number of microseconds.
* ``output``: ``'window'``, ``'point'``, ``'changes'`` or ``None`` (the default, ``'window'``).

A ``None`` before a later optional parameter that is given is passed as a SQL NULL, which the
SQL functions read as the default.
"""
from __future__ import annotations

import datetime
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
]

#: A column or the name of a column.
ColumnOrName = Union[Column, str]
#: A window length or hop: interval string, timedelta, int ticks (µs for timestamps) or a Column.
DurationLike = Union[str, datetime.timedelta, int, Column]
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


def _duration(value: DurationLike, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, bool):
        raise TypeError(f"`{parameter}` must be a duration, got bool: {value!r}")
    if isinstance(value, (str, datetime.timedelta, int)):
        return F.lit(value)
    raise TypeError(
        f"`{parameter}` must be an interval string such as '5 seconds', a datetime.timedelta, an "
        f"int (ticks: microseconds for timestamps) or a Column, got {type(value).__name__}: "
        f"{value!r}")


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
