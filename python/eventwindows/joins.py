"""Joins of event tables by time: `temporal_join`, StreamInsight's join (SPEC 3.9).

Two events meet when their lifetimes `[s, e)` overlap, `a.s < b.e AND b.s < a.e` (both non-empty);
the joined row lives for the intersection. `temporal_join` writes that as an ordinary DataFrame
join whose condition the `RangeJoin` rule of the extension plans as a sorted sweep (see
docs/temporal-joins.md), plus the output lifetime, so it is built from DataFrame operations and
SQL functions only and runs the same under Spark Connect. For example, with
left_lifetime=("s", "e") and right_lifetime=("t", None) (point events of one tick) the condition
is, on equal keys,

    a.s <= b.t AND b.t < coalesce(a.e, END) AND a.s < coalesce(a.e, END) AND b.t < END

(END: the end of time, where an open-ended event ends and a point event is empty) and the
lifetime `STRUCT(greatest(a.s, b.t) AS start, least(a.e, b.t + 1 tick) AS end)`: Spark's
greatest and least skip NULLs, so an unmatched row of an outer join keeps its own lifetime and an
open end (NULL) stays open.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.column import Column
from pyspark.sql.types import LongType, TimestampNTZType, TimestampType

#: Spark's names of the join types `temporal_join` takes, by the name it uses.
_JOIN_TYPES = {
    "inner": "inner",
    "left": "left", "leftouter": "left", "left_outer": "left",
    "right": "right", "rightouter": "right", "right_outer": "right",
    "full": "full", "outer": "full", "fullouter": "full", "full_outer": "full",
    "semi": "left_semi", "leftsemi": "left_semi", "left_semi": "left_semi",
    "anti": "left_anti", "leftanti": "left_anti", "left_anti": "left_anti",
}

#: The last instant of the time line (the end of time of docs/events.md), by time type: an
#: open-ended event lasts until it, a point event at it is empty (it would reach past it).
_END_OF_TIME = {
    LongType(): "9223372036854775807L",
    TimestampType(): "timestamp_micros(253402300799999999)",
    TimestampNTZType(): "TIMESTAMP_NTZ '9999-12-31 23:59:59.999999'",
}

#: One tick, by time type: a point event's length.
_TICK = {
    LongType(): "1L",
    TimestampType(): "INTERVAL 1 MICROSECOND",
    TimestampNTZType(): "INTERVAL 1 MICROSECOND",
}

_LEFT, _RIGHT = "__eventwindows_left", "__eventwindows_right"


class _Side:
    """One side of the join, its lifetime as two hidden columns `<alias>_start` and `<alias>_end`
    (the end checked against the start; a point event's end one tick after it, saturating at the
    end of time), under a DataFrame alias so that a self-join stays unambiguous."""

    def __init__(self, df: DataFrame, lifetime, parameter: str, side: str, alias: str):
        if not isinstance(df, DataFrame):
            raise TypeError(f"temporal_join: `{side}` must be a DataFrame, got "
                            f"{type(df).__name__}")
        if "lifetime" in df.columns:
            raise ValueError(f"temporal_join: `{side}` has a column `lifetime`, the name of the "
                             "output's lifetime; rename it (withColumnRenamed)")
        if (not isinstance(lifetime, (tuple, list)) or len(lifetime) != 2
                or not isinstance(lifetime[0], str)
                or not (lifetime[1] is None or isinstance(lifetime[1], str))):
            raise TypeError(f"temporal_join: `{parameter}` must be a pair (start, end) of column "
                            f"names, end None for point events, got {lifetime!r}")
        self.start_name, self.end_name = lifetime
        self.point = self.end_name is None
        self.time_type = _time_type(df, self.start_name, parameter)
        if not self.point and _time_type(df, self.end_name, parameter) != self.time_type:
            raise TypeError(f"temporal_join: `{parameter}`: the end `{self.end_name}` must be of "
                            f"the type of the start `{self.start_name}`, "
                            f"{self.time_type.simpleString()}")
        self.columns = df.columns
        self.alias = alias
        start = F.col(self.start_name)
        end_of_time = F.expr(_END_OF_TIME[self.time_type])
        if self.point:
            end = F.when(start < end_of_time, start + F.expr(_TICK[self.time_type])) \
                .otherwise(start)
        else:
            end = _checked_end(start, F.col(self.end_name), side)
        self.df = df.withColumns({f"{alias}_start": start, f"{alias}_end": end}).alias(alias)

    def col(self, name: str) -> Column:
        return F.col(f"{self.alias}.`{name}`")

    @property
    def start(self) -> Column:
        return self.col(f"{self.alias}_start")

    @property
    def end(self) -> Column:
        return self.col(f"{self.alias}_end")

    def last_instant(self) -> Column:
        """Where the lifetime ends for the condition: the end of time when it is open-ended."""
        return F.coalesce(self.end, F.expr(_END_OF_TIME[self.time_type]))

    def non_empty(self) -> Column:
        if self.point:
            return self.start < F.expr(_END_OF_TIME[self.time_type])
        return self.start < self.last_instant()

    def starts_before_end_of(self, other: "_Side") -> Column:
        """`self.s < other.e`, for a point `other` `self.s <= other.t` (its end is t + 1 tick)."""
        if other.point:
            return self.start <= other.start
        return self.start < other.last_instant()


def temporal_join(
        left: DataFrame,
        right: DataFrame,
        on: Optional[Union[str, Sequence[str]]],
        how: str = "inner",
        *,
        left_lifetime: Tuple[str, Optional[str]],
        right_lifetime: Tuple[str, Optional[str]]) -> DataFrame:
    """The temporal join of two event tables (StreamInsight's join): the rows of the join of
    `left` and `right` on equal `on` columns whose lifetimes overlap, with a column `lifetime`
    (struct of `start` and `end`): the intersection `[max(a.s, b.s), min(a.e, b.e))`, or for an
    unmatched row of an outer join its own lifetime, so that a window function can run over it.

    Arguments:
      * left, right - the event tables (DataFrames).
      * on - a column name or a list of names present on both sides (equal, as Spark's join on
          names: NULL keys match nothing), each once in the output; None: no key.
      * how - 'inner', 'left', 'right', 'full' (and Spark's other names of them), 'left_semi'
          or 'left_anti' (the left's rows, with their own lifetime).
      * left_lifetime, right_lifetime - each side's lifetime as (start, end) column names
          (nested fields such as 'window.start' too), of one time type for both sides:
          TIMESTAMP, TIMESTAMP_NTZ or BIGINT; an end of None for point events, which last one
          tick (1 microsecond, or 1 for BIGINT). As docs/events.md says: a NULL end lasts to
          the end of time, a NULL start matches nothing, an empty lifetime (end = start)
          overlaps nothing, an end before the start fails the query naming the row.

    The output has the `on` columns (for 'full', the non-NULL one of both sides, as Spark's
    join on names), then the other columns of `left` and of `right`, then `lifetime`. The join is
    planned by the extension's RangeJoin rule, as a sorted sweep.
    """
    if not isinstance(how, str) or how.lower() not in _JOIN_TYPES:
        raise ValueError(f"temporal_join: `how` must be one of 'inner', 'left', 'right', "
                         f"'full', 'left_semi', 'left_anti', got {how!r}")
    join_type = _JOIN_TYPES[how.lower()]
    keys = _keys(on, left, right)
    a = _Side(left, left_lifetime, "left_lifetime", "left", _LEFT)
    b = _Side(right, right_lifetime, "right_lifetime", "right", _RIGHT)
    if a.time_type != b.time_type:
        raise TypeError(f"temporal_join: `left_lifetime` is {a.time_type.simpleString()} but "
                        f"`right_lifetime` {b.time_type.simpleString()}; both sides need one "
                        "time type")
    condition = (a.starts_before_end_of(b) & b.starts_before_end_of(a)
                 & a.non_empty() & b.non_empty())
    for key in keys:
        condition = (a.col(key) == b.col(key)) & condition
    joined = a.df.join(b.df, condition, join_type)
    if join_type in ("left_semi", "left_anti"):
        return joined.select(*[a.col(c) for c in a.columns],
                             F.struct(a.start.alias("start"), a.end.alias("end")).alias("lifetime"))
    key_columns = [(F.coalesce(a.col(k), b.col(k)) if join_type == "full"
                    else b.col(k) if join_type == "right" else a.col(k)).alias(k) for k in keys]
    lifetime = F.struct(F.greatest(a.start, b.start).alias("start"),
                        F.least(a.end, b.end).alias("end"))
    return joined.select(*key_columns,
                         *[a.col(c) for c in a.columns if c not in keys],
                         *[b.col(c) for c in b.columns if c not in keys],
                         lifetime.alias("lifetime"))


def _keys(on, left: DataFrame, right: DataFrame) -> List[str]:
    if on is None:
        return []
    names = [on] if isinstance(on, str) else on
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"temporal_join: `on` must be a column name, a list of names or None, "
                        f"got {on!r}")
    for name in names:
        for side, df in (("left", left), ("right", right)):
            if isinstance(df, DataFrame) and name not in df.columns:
                raise ValueError(f"temporal_join: `on`: `{name}` is not a column of `{side}` "
                                 f"(its columns: {', '.join(df.columns)})")
    return list(names)


def _time_type(df: DataFrame, name: str, parameter: str):
    try:
        data_type = df.select(F.col(name)).schema.fields[0].dataType
    except Exception as e:  # Spark's analysis error, classic or Connect
        raise ValueError(f"temporal_join: `{parameter}`: `{name}` is not a column of the "
                         f"DataFrame (its columns: {', '.join(df.columns)})") from e
    if data_type not in _END_OF_TIME:
        raise TypeError(f"temporal_join: `{parameter}`: `{name}` must be TIMESTAMP, "
                        f"TIMESTAMP_NTZ or BIGINT, got {data_type.simpleString()}")
    return data_type


def _checked_end(start: Column, end: Column, side: str) -> Column:
    """The end, or the project's error for a row whose end is before its start (docs/events.md:
    condition USER_RAISED_EXCEPTION, naming the row's start and end)."""
    message = F.concat(
        F.lit(f"eventwindows: temporal_join: an event of `{side}` must not end before it "
              "starts, but one has start "), start.cast("string"),
        F.lit(" and end "), end.cast("string"))
    return F.when(end < start, F.raise_error(message)).otherwise(end)
