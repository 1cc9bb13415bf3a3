"""StreamInsight's windows. Hopping and tumbling windows follow StreamInsight's "Hopping Windows"
documentation, with the output 'changes' of the blog post "Taming Hopping Windows"; snapshot
windows are StreamInsight's, and count windows follow its "Count Windows" documentation."""
from __future__ import annotations

from typing import List, Optional, Union

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.errors import invalid_type
from eventwindows.functions._arguments import (
    call,
    ColumnOrName,
    DurationLike,
    IntegerLike,
    TimeLike,
    _choice,
    _duration,
    end_keyword,
    _integer,
    _lifetime,
    _optional,
    _time,
)

def _output(value: Union[str, Column]) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise invalid_type(
        f"`output` must be 'window', 'point', 'changes', None or a Column, got "
        f"{type(value).__name__}: {value!r}")


_COUNT_OUTPUTS = "'point', 'window'"


def _time_zone(value: Union[str, Column]) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise invalid_type(
        f"`time_zone` must be a time zone ID such as 'Europe/Berlin', None or a Column, got "
        f"{type(value).__name__}: {value!r}")


def _hopping_parameters(
        alignment: Optional[TimeLike],
        output: Optional[Union[str, Column]],
        horizon: Optional[TimeLike],
        time_zone: Optional[Union[str, Column]]) -> List[Column]:
    return _optional(
        None if alignment is None else _time(alignment, "alignment"),
        None if output is None else _output(output),
        None if horizon is None else _time(horizon, "horizon"),
        None if time_zone is None else _time_zone(time_zone))


@end_keyword(durations=2)
def hopping_window(
        start: ColumnOrName,
        size: DurationLike,
        hop: DurationLike,
        alignment: Optional[TimeLike] = None,
        output: Optional[Union[str, Column]] = None,
        horizon: Optional[TimeLike] = None,
        time_zone: Optional[Union[str, Column]] = None,
        *,
        end: Optional[ColumnOrName] = None) -> Column:
    """hopping_window(start[, end], size, hop[, alignment[, output[, horizon[, time_zone]]]]) -
    Groups events into hopping windows [alignment + n * hop, alignment + n * hop + size) for every
    integer n. An event belongs to every window its lifetime intersects, and aggregates see it
    in each. Use it in GROUP BY; it yields the column `window` (struct of `start` and `end`: the
    lifetime of the output row). Empty windows give no row.

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
      * size - the window length: a day-time interval, a string such as '5 seconds' or '1 month',
          or a year-month interval (for BIGINT time an integer number of ticks; for timestamps an
          integer is no duration); positive.
      * hop - the distance between window starts, like `size`; positive.
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

    In Python, the start comes first, then the durations, as in ``F.window``; ``end`` is a keyword,
    omitted for point events; ``size`` and ``hop`` may be strings, ``datetime.timedelta`` or ``int``
    ticks, ``alignment``/``horizon`` strings, datetimes or ``int``, and ``alignment`` also a
    ``datetime.timedelta`` (see the module documentation).

    Examples
    --------
    >>> df = spark.createDataFrame(
    ...     [("2024-01-01 00:00:01",), ("2024-01-01 00:00:03",)], "ts string"
    ... ).selectExpr("CAST(ts AS TIMESTAMP) AS ts")
    >>> (df.groupBy(hopping_window("ts", "4 seconds", "2 seconds"))
    ...    .count().orderBy("window").select("window.start", "window.end", "count").show())
    +-------------------+-------------------+-----+
    |              start|                end|count|
    +-------------------+-------------------+-----+
    |2023-12-31 23:59:58|2024-01-01 00:00:02|    1|
    |2024-01-01 00:00:00|2024-01-01 00:00:04|    2|
    |2024-01-01 00:00:02|2024-01-01 00:00:06|    1|
    +-------------------+-------------------+-----+
    """
    return call(
        "hopping_window",
        *_lifetime(start, end),
        _duration(size, "size"),
        _duration(hop, "hop"),
        *_hopping_parameters(alignment, output, horizon, time_zone))


@end_keyword(durations=1)
def tumbling_window(
        start: ColumnOrName,
        size: DurationLike,
        alignment: Optional[TimeLike] = None,
        output: Optional[Union[str, Column]] = None,
        horizon: Optional[TimeLike] = None,
        time_zone: Optional[Union[str, Column]] = None,
        *,
        end: Optional[ColumnOrName] = None) -> Column:
    """tumbling_window(start[, end], size[, alignment[, output[, horizon[, time_zone]]]]) - Groups
    events into adjacent, non-overlapping windows of length `size`: hopping_window with hop = size.

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
      * size - the window length: a day-time interval, a string such as '5 seconds' or '1 month',
          or a year-month interval (for BIGINT time an integer number of ticks; for timestamps an
          integer is no duration); positive.
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

    In Python, the start comes first, then the durations, as in ``F.window``; ``end`` is a keyword,
    omitted for point events; ``size`` may be a string, a ``datetime.timedelta`` or ``int`` ticks,
    ``alignment``/``horizon`` strings, datetimes or ``int``, and ``alignment`` also a
    ``datetime.timedelta`` (see the module documentation).

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (3,), (4,), (5,)], "ts bigint")
    >>> (df.groupBy(tumbling_window("ts", 2)).count()
    ...    .orderBy("window").select("window.start", "count").show())
    +-----+-----+
    |start|count|
    +-----+-----+
    |    0|    1|
    |    2|    1|
    |    4|    2|
    +-----+-----+
    """
    return call(
        "tumbling_window",
        *_lifetime(start, end),
        _duration(size, "size"),
        *_hopping_parameters(alignment, output, horizon, time_zone))


@end_keyword(durations=0)
def snapshot_window(start: ColumnOrName, *, end: Optional[ColumnOrName] = None) -> Column:
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

    In Python, the start comes first, then the durations, as in ``F.window``; ``end`` is a keyword,
    omitted for point events.

    Examples
    --------
    >>> df = spark.createDataFrame([(0, 4), (2, 6)], "s bigint, e bigint")
    >>> (df.groupBy(snapshot_window("s", end="e")).count()
    ...    .orderBy("window").select("window.start", "window.end", "count").show())
    +-----+---+-----+
    |start|end|count|
    +-----+---+-----+
    |    0|  2|    1|
    |    2|  4|    2|
    |    4|  6|    1|
    +-----+---+-----+
    """
    return call("snapshot_window", *_lifetime(start, end))


@end_keyword(durations=1)
def count_window(
        start: ColumnOrName,
        n: IntegerLike,
        output: Optional[Union[str, Column]] = None,
        *,
        end: Optional[ColumnOrName] = None) -> Column:
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

    In Python, the start comes first, then the durations, as in ``F.window``; ``end`` is a keyword,
    omitted for point events; ``n`` is an ``int`` (or a constant Column); ``output=None`` omits it
    (``'point'``).

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(1, 10), (2, 20), (2, 5), (4, 40)], "ts bigint, v bigint")
    >>> (df.groupBy(count_window("ts", 2)).agg(F.sum("v").alias("total"))
    ...    .orderBy("window").select("window.*", "total").show())
    +-----+---+-----+----+-----+
    |start|end|first|last|total|
    +-----+---+-----+----+-----+
    |    2|  3|    1|   2|   35|
    |    4|  5|    2|   4|   65|
    +-----+---+-----+----+-----+
    """
    return call(
        "count_window",
        *_lifetime(start, end),
        _integer(n, "n"),
        *_optional(None if output is None else _choice(output, "output", _COUNT_OUTPUTS)))
