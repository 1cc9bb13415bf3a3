"""Sessions over events that last: Trill's session windows, with Azure Stream Analytics' maximum
duration and Trill's progressive output, on the gap rule of Spark's ``session_window``."""
from __future__ import annotations

from typing import Optional, Union

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.functions._arguments import (
    call,
    ColumnOrName,
    DurationLike,
    _choice,
    _duration,
    end_keyword,
    _lifetime,
    _optional,
)

_SESSION_OUTPUTS = "'window', 'changes'"


@end_keyword(durations=1)
def event_session_window(
        start: ColumnOrName,
        gap: DurationLike,
        max_duration: Optional[DurationLike] = None,
        output: Optional[Union[str, Column]] = None,
        *,
        end: Optional[ColumnOrName] = None) -> Column:
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

    In Python, the start comes first, then the durations, as in ``F.window``; ``end`` is a keyword,
    omitted for point events; ``gap`` and ``max_duration`` may be strings, ``datetime.timedelta`` or
    ``int`` ticks; ``max_duration=None`` is no maximum (a SQL NULL when ``output`` is given);
    ``output=None`` omits it (``'window'``).

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(1, 3), (6, 7), (12, 13)], "s bigint, e bigint")
    >>> (df.groupBy(event_session_window("s", 4, end="e")).count()
    ...    .orderBy("window").select("window.start", "window.end", "count").show())
    +-----+---+-----+
    |start|end|count|
    +-----+---+-----+
    |    1| 10|    2|
    |   12| 16|    1|
    +-----+---+-----+
    >>> points = spark.createDataFrame([(11, 1), (12, 1), (21, 2), (25, 2)], "ts bigint, x bigint")
    >>> (points.groupBy(event_session_window("ts", 6, output="changes"))
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
    return call(
        "event_session_window",
        *_lifetime(start, end),
        _duration(gap, "gap"),
        *_optional(
            None if max_duration is None else _duration(max_duration, "max_duration"),
            None if output is None else _choice(output, "output", _SESSION_OUTPUTS)))
