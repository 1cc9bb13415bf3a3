"""ASOF joins and point-to-signal: ``eventwindows.asof_join(left, right, ...)`` (pandas'
``merge_asof`` on Spark, planned as each task's left rows looked up among its right rows sorted
by key and time: the ``AsofJoin`` operator) and ``eventwindows.to_signal(df, time, ...)`` (each point event lasts until
the next one of its key).

``asof_join`` calls the SQL table function ``asof_join(TABLE(left), TABLE(right), ...)`` through
``spark.sql``, as ``temporal_join`` does (``joins._table_function``), so the same code runs in
classic PySpark and under Spark Connect and a cached DataFrame is read from the cache.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from eventwindows.errors import invalid_type, invalid_value
from eventwindows.functions._documentation import documented
from eventwindows.joins import _sql_string, _table_function

__all__ = ["asof_join", "to_signal"]

_DIRECTIONS = ("backward", "forward", "nearest")


def _names(on: None | str | Sequence[str]) -> list[str]:
    if on is None:
        return []
    if isinstance(on, str):
        return [on]
    if isinstance(on, (list, tuple)) and all(isinstance(c, str) for c in on):
        return list(on)
    raise invalid_type(
        f"`on` must be a column name, a list of column names or None, got "
        f"{type(on).__name__}: {on!r}"
    )


def _column(df: DataFrame, side: str, parameter: str, name: object) -> str:
    if not isinstance(name, str):
        raise invalid_type(
            f"`{parameter}` must be a column name (str), got {type(name).__name__}: {name!r}"
        )
    if name not in df.columns:
        raise invalid_value(
            f"`{parameter}` names no column of the {side} DataFrame: {name!r} (its "
            f"columns: {', '.join(df.columns)})"
        )
    return name


def _tolerance(tolerance: object) -> str:
    """The tolerance as a SQL literal: an interval string or a timedelta (for timestamps, as
    microseconds), an int (for integral times); the JVM checks it against the time's type."""
    if tolerance is None:
        return "NULL"
    if isinstance(tolerance, bool):
        raise invalid_type(
            f"`tolerance` must be a timedelta, an interval string or an int, got "
            f"bool: {tolerance!r}"
        )
    if isinstance(tolerance, datetime.timedelta):
        micros = tolerance // datetime.timedelta(microseconds=1)
        if micros < 0:
            raise invalid_value(f"`tolerance` must not be negative, got {tolerance!r}")
        return _sql_string(f"{micros} microseconds")
    if isinstance(tolerance, int):
        if tolerance < 0:
            raise invalid_value(f"`tolerance` must not be negative, got {tolerance!r}")
        return f"{tolerance}L"
    if isinstance(tolerance, str):
        return _sql_string(tolerance)
    raise invalid_type(
        f"`tolerance` must be a timedelta, an interval string or an int, got "
        f"{type(tolerance).__name__}: {tolerance!r}"
    )


@documented(
    "every row of ``left`` once, with the columns of its row of ``right`` (NULLs where none).",
    parameters={
        "left": "the table whose every row is kept.",
        "right": "the table whose rows are matched to the left ones.",
        "on": "a column name or a list of names present in both (kept once); None for no keys.",
        "tolerance": "the longest distance between the two times (inclusive): a "
        "``datetime.timedelta`` or an interval string such as ``'2 seconds'`` for "
        "timestamps, an int for integral times; None for no limit.",
        "allow_exact_matches": "False leaves out right rows at the left row's very time.",
    },
)
def asof_join(
    left: DataFrame,
    right: DataFrame,
    on: None | str | Sequence[str],
    left_time: str,
    right_time: str,
    direction: str = "backward",
    tolerance: None | int | str | datetime.timedelta = None,
    allow_exact_matches: bool = True,
) -> DataFrame:
    """
    Other columns of the same name in both are both kept; the right time column is kept unless
    it has the left one's name.

    Examples
    --------
    >>> left = spark.createDataFrame([(1, "a"), (5, "b")], "t bigint, x string")
    >>> right = spark.createDataFrame([(0, 10), (3, 30)], "t bigint, y bigint")
    >>> asof_join(left, right, None, "t", "t").orderBy("t").show()
    +---+---+---+
    |  t|  x|  y|
    +---+---+---+
    |  1|  a| 10|
    |  5|  b| 30|
    +---+---+---+
    """
    for parameter, df in (("left", left), ("right", right)):
        if not isinstance(df, DataFrame):
            raise invalid_type(f"`{parameter}` must be a DataFrame, got {type(df).__name__}")
    keys = _names(on)
    for key in keys:
        _column(left, "left", "on", key)
        _column(right, "right", "on", key)
    _column(left, "left", "left_time", left_time)
    _column(right, "right", "right_time", right_time)
    if direction not in _DIRECTIONS:
        raise invalid_value(
            f"`direction` must be one of {', '.join(map(repr, _DIRECTIONS))}, got {direction!r}"
        )
    if not isinstance(allow_exact_matches, bool):
        raise invalid_type(
            f"`allow_exact_matches` must be a bool, got "
            f"{type(allow_exact_matches).__name__}: {allow_exact_matches!r}"
        )
    arguments = ", ".join(
        [
            _sql_string(left_time),
            _sql_string(right_time),
            _sql_string(",".join(f"{k}" for k in keys)) if keys else "NULL",
            _sql_string(direction),
            _tolerance(tolerance),
            str(allow_exact_matches).lower(),
        ]
    )
    return _table_function("asof_join", left, right, arguments)


def to_signal(
    df: DataFrame,
    time: str,
    on: None | str | Sequence[str] = None,
    tolerance: None | int | datetime.timedelta = None,
) -> DataFrame:
    """Point events as a signal: each row with ``start`` (its ``time``) and ``end``, the time of
    the next row of its ``on`` keys (Spark's ``lead`` over a window by the keys ordered by
    time), at most ``time + tolerance``; the last row of a key ends at ``time + tolerance``, or
    never (NULL) without a tolerance. A row followed by another at the same time ends where it
    starts (an empty lifetime): the later one holds. The result's lifetimes ``[start, end)``
    compose with the temporal join and the windows.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    df : :class:`~pyspark.sql.DataFrame`
        the point events; it must have no column named ``start`` or ``end``.
    time : str
        the name of the time column: TIMESTAMP, TIMESTAMP_NTZ or an integral type.
    on : str or Sequence[str], optional
        a key column name or a list of names; None for no keys.
    tolerance : int or :class:`datetime.timedelta`, optional
        how long a row lasts at most: a ``datetime.timedelta`` for timestamps, an int for
        integral times; None for no limit.

    Returns
    -------
    :class:`~pyspark.sql.DataFrame`
        ``df`` with the columns ``start`` and ``end``.

    Examples
    --------
    >>> df = spark.createDataFrame([("a", 1), ("a", 4), ("b", 2)], "k string, t bigint")
    >>> to_signal(df, "t", "k", tolerance=2).orderBy("k", "t").show()
    +---+---+-----+---+
    |  k|  t|start|end|
    +---+---+-----+---+
    |  a|  1|    1|  3|
    |  a|  4|    4|  6|
    |  b|  2|    2|  4|
    +---+---+-----+---+
    """
    if not isinstance(df, DataFrame):
        raise invalid_type(f"`df` must be a DataFrame, got {type(df).__name__}")
    keys = _names(on)
    for key in keys:
        _column(df, "", "on", key)
    _column(df, "", "time", time)
    for taken in ("start", "end"):
        if taken in df.columns:
            raise invalid_value(
                f"to_signal: the DataFrame has a column named {taken!r}, which the "
                "result uses for the lifetime; rename it first"
            )
    t = F.col(f"`{time}`")
    if tolerance is None:
        limit = None
    elif isinstance(tolerance, datetime.timedelta):
        if tolerance < datetime.timedelta(0):
            raise invalid_value(f"`tolerance` must not be negative, got {tolerance!r}")
        limit = t + F.expr(
            f"INTERVAL {tolerance // datetime.timedelta(microseconds=1)} MICROSECONDS"
        )
    elif isinstance(tolerance, int) and not isinstance(tolerance, bool):
        if tolerance < 0:
            raise invalid_value(f"`tolerance` must not be negative, got {tolerance!r}")
        limit = t + F.lit(tolerance)
    else:
        raise invalid_type(
            f"`tolerance` must be a timedelta or an int, got "
            f"{type(tolerance).__name__}: {tolerance!r}"
        )
    following = F.lead(t).over(Window.partitionBy(*[F.col(f"`{k}`") for k in keys]).orderBy(t))
    end = following if limit is None else F.coalesce(F.least(following, limit), limit)
    return df.withColumn("start", t).withColumn("end", end)
