"""IBM Streams SPL's windows: sliding windows with their eviction and trigger policies, as SPL's
"Sliding windows" documentation defines them, tumbling windows with their eviction policies and
window punctuation, and the helpers that write the policies in SPL's syntax."""

from __future__ import annotations

import datetime

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.errors import invalid_type
from eventwindows.functions._arguments import ColumnOrName, _column, _optional, call
from eventwindows.functions._documentation import WINDOW, documented

#: An SPL window policy: a string such as ``'count(4)'``, or what ``ew.spl.count``,
#: ``ew.spl.time``, ``ew.spl.delta`` and ``ew.spl.punct`` return.
PolicyLike = str | Column


def count(n: int) -> str:
    """The SPL policy ``count(n)``, for :func:`sliding_window` and :func:`spl_tumbling_window`: as
    eviction of a sliding window, the window holds the last n tuples; as trigger, it fires on every
    n-th arrival; as eviction of a tumbling window, the window is flushed once it holds n tuples.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    n : int
        the number of tuples.

    Returns
    -------
    str
        the policy in SPL's syntax.

    Examples
    --------
    >>> ew.spl.count(4)
    'count(4)'
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise invalid_type(f"count(n) takes an int, got {type(n).__name__}: {n!r}")
    return f"count({n})"


def time(t: str | int | float | datetime.timedelta) -> str:
    """The SPL policy ``time(t)``, for :func:`sliding_window` and :func:`spl_tumbling_window`: as
    eviction of a sliding window, tuples leave once they have been in the window for more than t;
    as trigger, it fires every t; as eviction of a tumbling window, the window is flushed every t
    (at the group's first arrival + k * t, when a tuple at or past that instant arrives).

    .. versionadded:: 0.1.0

    Parameters
    ----------
    t : str, :class:`datetime.timedelta`, int or float
        an interval string such as ``'5 seconds'``, a :class:`datetime.timedelta`, a number of
        seconds (timestamp order) or an int number of ticks (BIGINT order).

    Returns
    -------
    str
        the policy in SPL's syntax.

    Examples
    --------
    >>> ew.spl.time("5 seconds"), ew.spl.time(datetime.timedelta(milliseconds=2))
    ('time(5 seconds)', 'time(2000 microseconds)')
    """
    if isinstance(t, datetime.timedelta):
        return f"time({t // datetime.timedelta(microseconds=1)} microseconds)"
    if isinstance(t, bool) or not isinstance(t, (str, int, float)):
        raise invalid_type(
            f"time(t) takes an interval string, a timedelta or a number, got "
            f"{type(t).__name__}: {t!r}"
        )
    return f"time({t})"


def delta(attribute: str, d: int | float | str | datetime.timedelta) -> str:
    """The SPL policy ``delta(attribute, d)``, for :func:`sliding_window` and
    :func:`spl_tumbling_window`: as eviction of a sliding window, a new tuple evicts every tuple
    whose ``attribute`` is more than d below its own; as trigger, a tuple whose attribute exceeds
    the last firing tuple's by more than d fires the window; as eviction of a tumbling window, a
    tuple whose attribute exceeds the oldest held tuple's by more than d flushes the window first
    and starts the next one.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    attribute : str
        a column name (or SQL expression).
    d : int, float, str or :class:`datetime.timedelta`
        a number, or for timestamps an interval string, a timedelta or seconds.

    Returns
    -------
    str
        the policy in SPL's syntax.

    Examples
    --------
    >>> ew.spl.delta("temperature", 1.5)
    'delta(temperature, 1.5)'
    """
    if not isinstance(attribute, str):
        raise invalid_type(f"delta(attribute, d) takes a column name, got {attribute!r}")
    if isinstance(d, datetime.timedelta):
        d = f"{d // datetime.timedelta(microseconds=1)} microseconds"
    elif isinstance(d, bool) or not isinstance(d, (int, float, str)):
        raise invalid_type(f"delta(attribute, d) takes a number or an interval, got {d!r}")
    return f"delta({attribute}, {d})"


def punct(column: str) -> str:
    """The SPL policy ``punct(column)``, for :func:`spl_tumbling_window` (as eviction; not
    allowed in :func:`sliding_window`): a tuple whose BOOLEAN ``column`` is TRUE is inserted and
    the window flushed after it, as SPL's window punctuation.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    column : str
        the name of a BOOLEAN column; a NULL in it is an error naming the row.

    Returns
    -------
    str
        the policy in SPL's syntax.

    Examples
    --------
    >>> ew.spl.punct("last_of_batch")
    'punct(last_of_batch)'
    """
    if not isinstance(column, str):
        raise invalid_type(
            f"punct(column) takes a column name, got {type(column).__name__}: {column!r}"
        )
    return f"punct({column})"


def _policy(value: PolicyLike, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise invalid_type(
        f"`{parameter}` must be an SPL policy such as 'count(4)' (see eventwindows.count, time, "
        f"delta, punct) or a Column, got {type(value).__name__}: {value!r}"
    )


def _flag(value: bool | Column | None, parameter: str) -> Column | None:
    """A BOOLEAN constant parameter whose default is false: None for False or None (omitted),
    TRUE for True, a Column as it is."""
    if isinstance(value, Column):
        return value
    if value is None or value is False:
        return None
    if value is True:
        return F.lit(True)
    raise invalid_type(
        f"`{parameter}` must be a bool, None or a Column, got {type(value).__name__}: {value!r}"
    )


@documented(WINDOW)
def sliding_window(
    order: ColumnOrName, eviction: PolicyLike, trigger: PolicyLike | None = None
) -> Column:
    """
    In Python the policies are strings as in SPL, or built with ``ew.spl.count``, ``ew.spl.time``
    and ``ew.spl.delta``; ``trigger=None`` is ``count(1)``.

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> df = spark.createDataFrame([(i, i) for i in range(1, 6)], "ts bigint, v bigint")
    >>> (df.groupBy(sliding_window("ts", ew.spl.count(3), ew.spl.count(2)))
    ...    .agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "window.first", "vs").show())
    +-----+-----+---------+
    |start|first|       vs|
    +-----+-----+---------+
    |    2|    1|   [1, 2]|
    |    4|    2|[2, 3, 4]|
    +-----+-----+---------+
    """
    return call(
        "sliding_window",
        _column(order, "order"),
        _policy(eviction, "eviction"),
        *_optional(None if trigger is None else _policy(trigger, "trigger")),
    )


@documented(WINDOW)
def spl_tumbling_window(
    order: ColumnOrName, eviction: PolicyLike, flush_at_end: bool | Column | None = False
) -> Column:
    """
    In Python the policy is a string as in SPL, or built with ``ew.spl.count``, ``ew.spl.time``,
    ``ew.spl.delta`` and ``ew.spl.punct``; ``flush_at_end`` is a ``bool`` (``False`` and ``None``
    omit it) or a constant Column.

    Examples
    --------
    >>> from pyspark.sql import functions as F
    >>> ages = spark.createDataFrame([(i,) for i in range(8)], "age bigint")
    >>> (ages.groupBy(spl_tumbling_window("age", ew.spl.delta("age", 2)))
    ...    .agg(F.collect_list("age").alias("ages")).orderBy("window")
    ...    .select("window.start", "window.first", "window.last", "ages").show())
    +-----+-----+----+---------+
    |start|first|last|     ages|
    +-----+-----+----+---------+
    |    3|    0|   2|[0, 1, 2]|
    |    6|    3|   5|[3, 4, 5]|
    +-----+-----+----+---------+
    >>> df = spark.createDataFrame([(i, i) for i in range(1, 6)], "ts bigint, v bigint")
    >>> (df.groupBy(spl_tumbling_window("ts", ew.spl.count(2), flush_at_end=True))
    ...    .agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "vs").show())
    +-----+------+
    |start|    vs|
    +-----+------+
    |    2|[1, 2]|
    |    4|[3, 4]|
    |    5|   [5]|
    +-----+------+
    >>> marked = df.withColumn("last_of_batch", F.col("v").isin(1, 4))
    >>> (marked.groupBy(spl_tumbling_window("ts", ew.spl.punct("last_of_batch")))
    ...    .agg(F.collect_list("v").alias("vs"))
    ...    .orderBy("window").select("window.start", "vs").show())
    +-----+---------+
    |start|       vs|
    +-----+---------+
    |    1|      [1]|
    |    4|[2, 3, 4]|
    +-----+---------+
    """
    return call(
        "spl_tumbling_window",
        _column(order, "order"),
        _policy(eviction, "eviction"),
        *_optional(_flag(flush_at_end, "flush_at_end")),
    )
