"""Clipped lifetimes and the time-weighted aggregates over them: StreamInsight's input policy for
time-sensitive aggregates (its "Hopping Windows" and "Count Windows" documentation), where an
aggregate sees each event's lifetime clipped to the window."""

from __future__ import annotations

from pyspark.sql.column import Column

from eventwindows.functions._arguments import ColumnOrName, _column, call
from eventwindows.functions._documentation import (
    CLIPPED_END,
    CLIPPED_START,
    TIME_WEIGHTED,
    documented,
)


@documented(CLIPPED_START)
def clipped_start() -> Column:
    """
    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7), (4, 5)], "s bigint, e bigint")
    >>> (df.groupBy(tumbling_window("s", 4, end="e"))
    ...    .agg(F.min(clipped_start()).alias("first"),
    ...         F.sum(clipped_end() - clipped_start()).alias("length"))
    ...    .orderBy("window").select("window.start", "first", "length").show())
    +-----+-----+------+
    |start|first|length|
    +-----+-----+------+
    |    0|    1|     3|
    |    4|    4|     4|
    +-----+-----+------+
    """
    return call("clipped_start")


@documented(CLIPPED_END)
def clipped_end() -> Column:
    """
    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7), (4, 5)], "s bigint, e bigint")
    >>> (df.groupBy(tumbling_window("s", 4, end="e"))
    ...    .agg(F.collect_list(clipped_end()).alias("ends"))
    ...    .orderBy("window").select("window.start", "ends").show())
    +-----+------+
    |start|  ends|
    +-----+------+
    |    0|   [4]|
    |    4|[7, 5]|
    +-----+------+
    """
    return call("clipped_end")


@documented(TIME_WEIGHTED)
def time_weighted_sum(v: ColumnOrName) -> Column:
    """
    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7, 2.0), (4, 5, 10.0)], "s bigint, e bigint, v double")
    >>> (df.groupBy(tumbling_window("s", 4, end="e")).agg(time_weighted_sum("v").alias("sum"))
    ...    .orderBy("window").select("window.start", "sum").show())
    +-----+----+
    |start| sum|
    +-----+----+
    |    0| 6.0|
    |    4|16.0|
    +-----+----+
    """
    return call("time_weighted_sum", _column(v, "v"))


@documented(TIME_WEIGHTED)
def time_weighted_avg(v: ColumnOrName) -> Column:
    """
    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7, 2.0), (4, 5, 10.0)], "s bigint, e bigint, v double")
    >>> (df.groupBy(tumbling_window("s", 4, end="e")).agg(time_weighted_avg("v").alias("avg"))
    ...    .orderBy("window").select("window.start", "avg").show())
    +-----+---+
    |start|avg|
    +-----+---+
    |    0|2.0|
    |    4|4.0|
    +-----+---+
    """
    return call("time_weighted_avg", _column(v, "v"))
