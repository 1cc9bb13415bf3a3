"""Joins of event tables by time: `temporal_join`, StreamInsight's join (SPEC 3.9).

Two events meet when their lifetimes `[s, e)` overlap, `a.s < b.e AND b.s < a.e` (both non-empty);
the joined row lives for the intersection. `temporal_join` calls the SQL table function
``temporal_join(TABLE(left), TABLE(right), ...)`` (`TemporalJoinTableFunction`, which writes it as
a join the `RangeJoin` rule plans as a sorted sweep, see docs/temporal-joins.md) through
``spark.sql`` over the two DataFrames as temporary views (``_table_function``, which keeps a
cached DataFrame cached in classic PySpark), so the same code runs under Spark Connect. The arguments are checked here first, so that a bad one is a TypeError or
ValueError naming the parameter.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, TimestampNTZType, TimestampType

from eventwindows.errors import invalid_type, invalid_value
from eventwindows.functions._documentation import documented

#: The names of the join types `temporal_join` takes (Spark's names of them).
_JOIN_TYPES = (
    "inner",
    "left",
    "leftouter",
    "left_outer",
    "right",
    "rightouter",
    "right_outer",
    "full",
    "outer",
    "fullouter",
    "full_outer",
    "semi",
    "leftsemi",
    "left_semi",
    "anti",
    "leftanti",
    "left_anti",
)

_TIME_TYPES = (LongType(), TimestampType(), TimestampNTZType())


@documented(
    "the joined rows, with the column ``lifetime`` (struct of ``start`` and ``end``).",
    parameters={
        "left": "the left event table.",
        "right": "the right event table.",
        "on": "a column name or a list of names present on both sides (equal, as Spark's join on "
        "names: NULL keys match nothing), each once in the output; None: no key.",
        "left_lifetime": "the left side's lifetime as (start, end) column names (nested fields "
        "such as 'window.start' too), of the time type of the right side's: "
        "TIMESTAMP, TIMESTAMP_NTZ or BIGINT; an end of None for point events, "
        "which last one tick (1 microsecond, or 1 for BIGINT). A NULL end lasts "
        "to the end of time, a NULL start matches nothing, an empty lifetime "
        "overlaps nothing, an end before the start fails the query naming the "
        "row.",
        "right_lifetime": "the right side's lifetime, as ``left_lifetime``.",
    },
)
def temporal_join(
    left: DataFrame,
    right: DataFrame,
    on: str | Sequence[str] | None,
    how: str = "inner",
    *,
    left_lifetime: tuple[str, str | None],
    right_lifetime: tuple[str, str | None],
) -> DataFrame:
    """
    The output has the `on` columns (for 'full', the non-NULL one of both sides, as Spark's
    join on names), then the other columns of `left` and of `right`, then `lifetime`.

    Examples
    --------
    >>> readings = spark.createDataFrame([("m", 0, 3, 1), ("m", 4, 9, 2)],
    ...                                  "k string, s bigint, e bigint, v bigint")
    >>> states = spark.createDataFrame([("m", "idle", 0, 5)],
    ...                                "k string, state string, since bigint, until bigint")
    >>> (temporal_join(readings, states, "k", left_lifetime=("s", "e"),
    ...                right_lifetime=("since", "until"))
    ...    .orderBy("v").select("k", "v", "state", "lifetime.*").show())
    +---+---+-----+-----+---+
    |  k|  v|state|start|end|
    +---+---+-----+-----+---+
    |  m|  1| idle|    0|  3|
    |  m|  2| idle|    4|  5|
    +---+---+-----+-----+---+
    """
    if not isinstance(how, str) or how.lower() not in _JOIN_TYPES:
        raise invalid_value(
            f"temporal_join: `how` must be one of 'inner', 'left', 'right', "
            f"'full', 'left_semi', 'left_anti', got {how!r}"
        )
    keys = _keys(on, left, right)
    left_type = _lifetime(left, left_lifetime, "left_lifetime", "left")
    right_type = _lifetime(right, right_lifetime, "right_lifetime", "right")
    if left_type != right_type:
        raise invalid_type(
            f"temporal_join: `left_lifetime` is {left_type.simpleString()} but "
            f"`right_lifetime` {right_type.simpleString()}; both sides need one "
            "time type"
        )
    arguments = ", ".join(
        [_sql_string(",".join(keys)) if keys else "NULL", _sql_string(how)]
        + [_sql_string(n) if n is not None else "NULL" for n in (*left_lifetime, *right_lifetime)]
    )
    return _table_function("temporal_join", left, right, arguments)


def _keys(on, left: DataFrame, right: DataFrame) -> list[str]:
    if on is None:
        return []
    names = [on] if isinstance(on, str) else on
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise invalid_type(
            f"temporal_join: `on` must be a column name, a list of names or None, got {on!r}"
        )
    for name in names:
        for side, df in (("left", left), ("right", right)):
            if isinstance(df, DataFrame) and name not in df.columns:
                raise invalid_value(
                    f"temporal_join: `on`: `{name}` is not a column of `{side}` "
                    f"(its columns: {', '.join(df.columns)})"
                )
    return list(names)


def _lifetime(df: DataFrame, lifetime, parameter: str, side: str):
    """Checks one side and its lifetime (start, end) names; its time type."""
    if not isinstance(df, DataFrame):
        raise invalid_type(f"temporal_join: `{side}` must be a DataFrame, got {type(df).__name__}")
    if "lifetime" in df.columns:
        raise invalid_value(
            f"temporal_join: `{side}` has a column `lifetime`, the name of the "
            "output's lifetime; rename it (withColumnRenamed)"
        )
    if (
        not isinstance(lifetime, (tuple, list))
        or len(lifetime) != 2
        or not isinstance(lifetime[0], str)
        or not (lifetime[1] is None or isinstance(lifetime[1], str))
    ):
        raise invalid_type(
            f"temporal_join: `{parameter}` must be a pair (start, end) of column "
            f"names, end None for point events, got {lifetime!r}"
        )
    start, end = lifetime
    time_type = _time_type(df, start, parameter)
    if end is not None and _time_type(df, end, parameter) != time_type:
        raise invalid_type(
            f"temporal_join: `{parameter}`: the end `{end}` must be of the type of "
            f"the start `{start}`, {time_type.simpleString()}"
        )
    return time_type


def _time_type(df: DataFrame, name: str, parameter: str):
    try:
        data_type = df.select(F.col(name)).schema.fields[0].dataType
    except Exception as e:  # Spark's analysis error, classic or Connect
        raise invalid_value(
            f"temporal_join: `{parameter}`: `{name}` is not a column of the "
            f"DataFrame (its columns: {', '.join(df.columns)})"
        ) from e
    if data_type not in _TIME_TYPES:
        raise invalid_type(
            f"temporal_join: `{parameter}`: `{name}` must be TIMESTAMP, "
            f"TIMESTAMP_NTZ or BIGINT, got {data_type.simpleString()}"
        )
    return data_type


def _table_function(function: str, left: DataFrame, right: DataFrame, arguments: str) -> DataFrame:
    """``SELECT * FROM function(TABLE(left), TABLE(right), arguments)``, reading each DataFrame from
    Spark's cache where it is cached.

    The DataFrames are passed as temporary views of names of their own, dropped with SQL's
    ``DROP VIEW`` once the query is analyzed (its plan holds theirs). Not through ``spark.sql``'s
    DataFrame arguments: PySpark drops the views it makes for them with
    ``spark.catalog.dropTempView``, which uncaches the plan of the view, so a cached DataFrame passed
    that way would lose its cache (for the join and for every later use); ``DROP VIEW`` of a
    temporary view leaves it cached.

    Under Spark Connect the query is analyzed again at each use, so the views could not be
    dropped: there it goes through ``spark.sql``'s DataFrame arguments, whose views the server
    drops with ``dropTempView`` at each analysis, uncaching the inputs (Spark's limit, see
    docs/temporal-joins.md).
    """
    session = left.sparkSession
    if type(left).__module__.startswith("pyspark.sql.connect"):
        return session.sql(
            f"SELECT * FROM {function}(TABLE({{left}}), TABLE({{right}}), {arguments})",
            left=left,
            right=right,
        )
    names = [f"__eventwindows_{side}_{uuid.uuid4().hex}" for side in ("left", "right")]
    left.createOrReplaceTempView(names[0])
    right.createOrReplaceTempView(names[1])
    try:
        return session.sql(
            f"SELECT * FROM {function}(TABLE({names[0]}), TABLE({names[1]}), {arguments})"
        )
    finally:
        for name in names:
            session.sql(f"DROP VIEW IF EXISTS {name}")


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
