"""The windows of psi (Platform for Situated Intelligence), as its "Windowing Operators" page
describes them: by relative message index, by relative time, and the dynamic windows whose
intervals another stream gives (:func:`anchor_window` over a table holding both, which
:func:`eventwindows.dynamic_window` builds from two DataFrames)."""
from __future__ import annotations

from typing import Optional, Union

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.functions._arguments import (
    call,
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
)

_BOUNDS = "'[]', '[)', '(]', '()'"


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
    return call(
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
    return call(
        "time_window",
        _column(time, "time"),
        _offset(lo, "lo"),
        _offset(hi, "hi"),
        *_optional(None if bounds is None else _choice(bounds, "bounds", _BOUNDS)))


def anchor_window(time: ColumnOrName, anchor_start: ColumnOrName, anchor_end: ColumnOrName,
                  anchor: ColumnOrName, bounds: Optional[Union[str, Column]] = None,
                  lookback: Optional[DurationLike] = None) -> Column:
    """anchor_window(time, anchor_start, anchor_end, anchor[, bounds[, lookback]]) - Groups a table holding messages and
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
      * lookback - optional, on a stream of anchors only: how long before its own time an
          anchor's interval may start, where the start is not the anchors' watermarked time less
          a constant (which gives it); a duration, at least 0.

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
        *_optional(None if bounds is None else _choice(bounds, "bounds", _BOUNDS),
                   None if lookback is None else _duration(lookback, "lookback")))
