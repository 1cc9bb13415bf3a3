"""Sessions over events that last: Trill's session windows, with Azure Stream Analytics' maximum
duration and Trill's progressive output, on the gap rule of Spark's ``session_window``."""

from __future__ import annotations

from pyspark.sql.column import Column

from eventwindows.functions._arguments import (
    ColumnOrName,
    DurationLike,
    _choice,
    _duration,
    _lifetime,
    _optional,
    call,
    end_keyword,
)
from eventwindows.functions._documentation import WINDOW, documented

_SESSION_OUTPUTS = "'window', 'changes'"


@documented(WINDOW)
@end_keyword(durations=1)
def event_session_window(
    start: ColumnOrName,
    gap: DurationLike,
    max_duration: DurationLike | None = None,
    output: str | Column | None = None,
    *,
    end: ColumnOrName | None = None,
) -> Column:
    """
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
            None if output is None else _choice(output, "output", _SESSION_OUTPUTS),
        ),
    )
