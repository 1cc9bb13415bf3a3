"""The windows of psi (Platform for Situated Intelligence), as its "Windowing Operators" page
describes them: by relative message index, by relative time, and the dynamic windows whose
intervals another stream gives (:func:`anchor_window` over a table holding both, which
:func:`eventwindows.dynamic_window` builds from two DataFrames)."""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.functions._arguments import (
    ColumnOrName,
    DurationLike,
    IntegerLike,
    OffsetLike,
    _choice,
    _column,
    _duration,
    _integer,
    _offset,
    _optional,
    call,
)
from eventwindows.functions._documentation import WINDOW, documented

_BOUNDS = "'[]', '[)', '(]', '()'"


@documented(WINDOW)
def index_window(
    time: ColumnOrName, lo: IntegerLike | None, hi: IntegerLike, order: ColumnOrName | None = None
) -> Column:
    """
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
    return call(
        "index_window",
        _column(time, "time"),
        F.lit(None) if lo is None else _integer(lo, "lo"),
        _integer(hi, "hi"),
        *_optional(None if order is None else _column(order, "order")),
    )


@documented(WINDOW)
def time_window(
    time: ColumnOrName, lo: OffsetLike, hi: OffsetLike, bounds: str | Column | None = None
) -> Column:
    """
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
    return call(
        "time_window",
        _column(time, "time"),
        _offset(lo, "lo"),
        _offset(hi, "hi"),
        *_optional(None if bounds is None else _choice(bounds, "bounds", _BOUNDS)),
    )


@documented(WINDOW)
def anchor_window(
    time: ColumnOrName,
    anchor_start: ColumnOrName,
    anchor_end: ColumnOrName,
    anchor: ColumnOrName,
    bounds: str | Column | None = None,
    lookback: DurationLike | None = None,
) -> Column:
    """
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
    return call(
        "anchor_window",
        _column(time, "time"),
        _column(anchor_start, "anchor_start"),
        _column(anchor_end, "anchor_end"),
        _column(anchor, "anchor"),
        *_optional(
            None if bounds is None else _choice(bounds, "bounds", _BOUNDS),
            None if lookback is None else _duration(lookback, "lookback"),
        ),
    )
