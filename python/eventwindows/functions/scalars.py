"""The scalar time helpers of the blog post "Taming Hopping Windows" (StreamInsight): its
``SnapToBoundary``, with floor rounding, and its ``AdjustStartTime`` and ``AdjustEndTime``, which
snap an event's lifetime to the hopping windows' intervals so that a snapshot window over it gives
one row per change of the windows' contents."""

from __future__ import annotations

from pyspark.sql.column import Column

from eventwindows.functions._arguments import (
    ColumnOrName,
    DurationLike,
    TimeLike,
    _column,
    _duration,
    _optional,
    _time,
    call,
)
from eventwindows.functions._documentation import TIME, documented


@documented(TIME)
def snap_to_boundary(t: ColumnOrName, alignment: TimeLike, period: DurationLike) -> Column:
    """
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
    return call(
        "snap_to_boundary",
        _column(t, "t"),
        _time(alignment, "alignment"),
        _duration(period, "period"),
    )


@documented(TIME)
def adjust_start_time(
    t: ColumnOrName, size: DurationLike, hop: DurationLike, alignment: TimeLike | None = None
) -> Column:
    """
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
    return call(
        "adjust_start_time",
        _column(t, "t"),
        _duration(size, "size"),
        _duration(hop, "hop"),
        *_optional(None if alignment is None else _time(alignment, "alignment")),
    )


@documented(TIME)
def adjust_end_time(
    t: ColumnOrName, size: DurationLike, hop: DurationLike, alignment: TimeLike | None = None
) -> Column:
    """
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
    return call(
        "adjust_end_time",
        _column(t, "t"),
        _duration(size, "size"),
        _duration(hop, "hop"),
        *_optional(None if alignment is None else _time(alignment, "alignment")),
    )
