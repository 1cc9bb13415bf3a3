"""StreamInsight's windows. Hopping and tumbling windows follow StreamInsight's "Hopping Windows"
documentation, with the output 'changes' of the blog post "Taming Hopping Windows"; snapshot
windows are StreamInsight's, and count windows follow its "Count Windows" documentation."""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.errors import invalid_type
from eventwindows.functions._arguments import (
    ColumnOrName,
    DurationLike,
    IntegerLike,
    TimeLike,
    _choice,
    _duration,
    _integer,
    _lifetime,
    _optional,
    _time,
    call,
    end_keyword,
)
from eventwindows.functions._documentation import WINDOW, documented


def _output(value: str | Column) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise invalid_type(
        f"`output` must be 'window', 'point', 'changes', None or a Column, got "
        f"{type(value).__name__}: {value!r}"
    )


_COUNT_OUTPUTS = "'point', 'window'"


def _time_zone(value: str | Column) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise invalid_type(
        f"`time_zone` must be a time zone ID such as 'Europe/Berlin', None or a Column, got "
        f"{type(value).__name__}: {value!r}"
    )


def _hopping_parameters(
    alignment: TimeLike | None,
    output: str | Column | None,
    horizon: TimeLike | None,
    time_zone: str | Column | None,
) -> list[Column]:
    return _optional(
        None if alignment is None else _time(alignment, "alignment"),
        None if output is None else _output(output),
        None if horizon is None else _time(horizon, "horizon"),
        None if time_zone is None else _time_zone(time_zone),
    )


@documented(WINDOW)
@end_keyword(durations=2)
def hopping_window(
    start: ColumnOrName,
    size: DurationLike,
    hop: DurationLike,
    alignment: TimeLike | None = None,
    output: str | Column | None = None,
    horizon: TimeLike | None = None,
    time_zone: str | Column | None = None,
    *,
    end: ColumnOrName | None = None,
) -> Column:
    """
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
        *_hopping_parameters(alignment, output, horizon, time_zone),
    )


@documented(WINDOW)
@end_keyword(durations=1)
def tumbling_window(
    start: ColumnOrName,
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
        *_hopping_parameters(alignment, output, horizon, time_zone),
    )


@documented(WINDOW)
@end_keyword(durations=0)
def snapshot_window(start: ColumnOrName, *, end: ColumnOrName | None = None) -> Column:
    """
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


@documented(WINDOW)
@end_keyword(durations=1)
def count_window(
    start: ColumnOrName,
    n: IntegerLike,
    output: str | Column | None = None,
    *,
    end: ColumnOrName | None = None,
) -> Column:
    """
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
        *_optional(None if output is None else _choice(output, "output", _COUNT_OUTPUTS)),
    )
