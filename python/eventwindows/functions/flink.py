"""Apache Flink's windows: cumulating windows follow the CUMULATE window table-valued function of
Flink's "Windowing TVF" documentation, with the output policies, calendar units and lifetimes of
hopping windows."""
from __future__ import annotations

from typing import Optional, Union

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.functions._arguments import (
    call,
    ColumnOrName,
    DurationLike,
    TimeLike,
    _duration,
    end_keyword,
    _lifetime,
)
from eventwindows.functions.streaminsight import _hopping_parameters


@end_keyword(durations=2)
def cumulate_window(
        start: ColumnOrName,
        step: DurationLike,
        size: DurationLike,
        alignment: Optional[TimeLike] = None,
        output: Optional[Union[str, Column]] = None,
        horizon: Optional[TimeLike] = None,
        time_zone: Optional[Union[str, Column]] = None,
        *,
        end: Optional[ColumnOrName] = None) -> Column:
    """cumulate_window(start[, end], step, size[, alignment[, output[, horizon[, time_zone]]]]) -
    Groups events into cumulating windows, as Flink's CUMULATE: the time line is cut into buckets
    [alignment + n * size, alignment + (n + 1) * size), and each bucket has the windows
    [bucket start, bucket start + k * step) for k = 1, 2, ..., size / step (the bucket so far,
    every step). An event belongs to every window its lifetime intersects, and aggregates see
    it in each. Use it in GROUP BY; it yields the column `window` (struct of `start` and `end`:
    the lifetime of the output row). Empty windows give no row.

    Arguments:
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
      * step - how much each window of a bucket is longer than the one before: a day-time
          interval, a string such as '1 minute' or '1 day' or a year-month interval (for BIGINT time
          an integer number of ticks; for timestamps an integer is no duration); positive.
      * size - the bucket length, like `step`; a multiple of `step` (for calendar windows: not
          shorter than `step`, and with months if `step` has any).
      * alignment - optional, a time of the type of `start` (or a timestamp string) on which
          some bucket starts (Flink's offset); for timestamps also an offset from the epoch, as
          window() takes its start time: an interval string such as '15 minutes', a day-time
          interval or an integer number of microseconds. NULL or absent: the Unix epoch.
          Calendar windows align on a local time (a string is a wall clock): by default
          1970-01-01 00:00, for buckets of whole weeks Monday 1970-01-05 00:00 (ISO weeks).
      * output - optional, 'window' (default: a row per non-empty window, its lifetime the
          window), 'point' (a point event at each non-empty window's end) or 'changes' (a row per
          run of consecutive windows holding the same events, its lifetime the time over which
          that result holds: a row only when the cumulated result changes).
      * horizon - optional, the last time open-ended events cover under 'window' and 'point', of
          the type of `start` (or a timestamp string); NULL or absent: the latest finite time in
          the input.
      * time_zone - optional, a time zone ID such as 'Europe/Berlin' (SQL may write time_zone =>
          'Europe/Berlin'): the windows are calendar windows of that zone. TIMESTAMP time only.
    Calendar windows: when the step or the size has months or years, or a time_zone is given,
      bucket n starts at alignment + n * size, and its window k ends at alignment + (n * size +
      k * step) or at the bucket's end if that comes first, with + stepping the local clock of
      the time zone (the session's if none is given): months, then days, then hours and smaller
      units. So '1 day' steps through a '1 month' bucket end at local midnights, 28 to 31
      windows, the last the whole month. A local time is read as the first instant the clock
      reads it or later: where the clocks spring forward, the instant they jump past it; where
      they fall back, its first reading. Over TIMESTAMP_NTZ time the wall clock is stepped as it
      is.
    Cost: as hopping windows with as many windows per event; 'changes' costs one row per change.

    In Python, the start comes first, then the durations, as in ``F.window``; ``end`` is a keyword,
    omitted for point events; ``step`` and ``size`` may be strings, ``datetime.timedelta`` or
    ``int`` ticks, ``alignment``/``horizon`` strings, datetimes or ``int``, and ``alignment`` also a
    ``datetime.timedelta`` (see the module documentation of :mod:`eventwindows.functions`).

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (3,), (4,), (8,)], "ts bigint")
    >>> (df.groupBy(cumulate_window("ts", 2, 6)).count()
    ...    .orderBy("window.start", "window.end")
    ...    .select("window.start", "window.end", "count").show())
    +-----+---+-----+
    |start|end|count|
    +-----+---+-----+
    |    0|  2|    1|
    |    0|  4|    2|
    |    0|  6|    3|
    |    6| 10|    1|
    |    6| 12|    1|
    +-----+---+-----+
    """
    return call(
        "cumulate_window",
        *_lifetime(start, end),
        _duration(step, "step"),
        _duration(size, "size"),
        *_hopping_parameters(alignment, output, horizon, time_zone))
