"""Apache Flink's windows: cumulating windows follow the CUMULATE window table-valued function of
Flink's "Windowing TVF" documentation, with the output policies, calendar units and lifetimes of
hopping windows."""

from __future__ import annotations

from pyspark.sql.column import Column

from eventwindows.functions._arguments import (
    ColumnOrName,
    DurationLike,
    TimeLike,
    _duration,
    _lifetime,
    call,
    end_keyword,
)
from eventwindows.functions._documentation import WINDOW, documented
from eventwindows.functions.streaminsight import _hopping_parameters


@documented(WINDOW)
@end_keyword(durations=2)
def cumulate_window(
    start: ColumnOrName,
    step: DurationLike,
    size: DurationLike,
    alignment: TimeLike | None = None,
    output: str | Column | None = None,
    horizon: TimeLike | None = None,
    time_zone: str | Column | None = None,
    *,
    end: ColumnOrName | None = None,
) -> Column:
    """
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
        *_hopping_parameters(alignment, output, horizon, time_zone),
    )
