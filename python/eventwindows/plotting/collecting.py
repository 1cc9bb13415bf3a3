"""What ``ew.plot`` draws, read from the DataFrames: the parameters checked before any Spark job,
then at most the limits' rows collected (``limit(max + 1)``, to tell when there are more), and
turned into events and windows in data coordinates, lane by lane (a lane is a key).

Only DataFrame operations are used (``select``, ``limit``, ``collect``), so this works under
Spark Connect too. Times are collected as Spark casts them (the session time zone's wall clock for
TIMESTAMP) with where they lie on the time line (see :func:`time_columns`), so that the ends of
the line are drawn at the picture's edges.

For example, the events ``(k='a', s=0, e=4)`` and ``(k='b', s=1, e=NULL)`` over BIGINT ticks are
collected as ``{('a',): [Event(start=0.0, end=4.0, ...)], ('b',): [Event(start=1.0, end=None,
open=True, ...)]}``.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.column import Column
from pyspark.sql.types import (
    ByteType,
    DataType,
    IntegerType,
    LongType,
    Row,
    ShortType,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from eventwindows.errors import invalid_type, invalid_value

#: The group name of a single ``windows`` DataFrame.
WINDOWS = "windows"

# The ends of the time lines (the README's "Rules for input"): values there are drawn as reaching
# past the edge of the picture.
_BIGINT_MIN, _BIGINT_MAX = -(2**63), 2**63 - 1
_TIMESTAMP_MIN, _TIMESTAMP_MAX = -62135596800000000, 253402300799999999
_NTZ_MIN = "TIMESTAMP_NTZ '0001-01-01 00:00:00'"
_NTZ_MAX = "TIMESTAMP_NTZ '9999-12-31 23:59:59.999999'"
_INTEGRAL = (ByteType, ShortType, IntegerType, LongType)

Lane = tuple
"""A lane's key: the values of the key columns (the empty tuple without keys)."""


# ----------------------------------------------------------------------------------------------
# What is drawn, in data coordinates


@dataclass
class Event:
    start: float  # -inf at the first instant of the line
    end: float | None  # None for a point event or an open-ended one
    point: bool
    open: bool  # to the end of time (a NULL end, or an end at the end of time)
    label: str | None


@dataclass
class Window:
    start: float
    end: float
    point: bool  # the output lifetime is one tick
    open: bool
    extent: tuple[float, float] | None  # [first, last + 1 tick)
    label: str | None


@dataclass
class Group:
    """One ``windows`` DataFrame's windows, by lane."""

    name: str
    windows: dict[Lane, list[Window]] = field(default_factory=dict)


@dataclass(frozen=True)
class Axis:
    """The time axis: raw times to floats (matplotlib date numbers, by `date2num`, for
    timestamps; the ticks themselves for BIGINT)."""

    kind: str  # "bigint", "timestamp" or "timestamp_ntz" (see time_kind)
    date2num: Callable[[datetime.datetime], float]

    @property
    def dates(self) -> bool:
        return self.kind != "bigint"

    def x(self, value: Any, edge: int) -> float | None:
        """`value` as an x; -inf and inf at the ends of the line (drawn at the picture's edges)."""
        if value is None:
            return None
        if edge != 0:
            return float("inf") if edge > 0 else float("-inf")
        return float(self.date2num(value)) if self.dates else float(value)

    def after(self, value: Any, edge: int) -> float | None:
        """The time one tick after `value` (an exclusive end)."""
        if value is None or edge != 0:
            return self.x(value, edge)
        if self.dates:
            return float(self.date2num(value + datetime.timedelta(microseconds=1)))
        return float(value + 1)


def text(value: Any) -> str:
    """A value as a label: short numbers, lists in brackets."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.1f}" if value.is_integer() and abs(value) < 1e6 else f"{value:.4g}"
    if isinstance(value, decimal.Decimal):
        return str(value.normalize()) if value == value.to_integral() else str(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(text(v) for v in value) + "]"
    return str(value)


def sort_key(values: tuple) -> tuple:
    """Orders keys and times that may hold None (first, as Spark's ascending order)."""
    return tuple((0, 0) if v is None else (1, v) for v in values)


# ----------------------------------------------------------------------------------------------
# The parameters, checked before any Spark job


def check_limits(**limits: Any) -> None:
    """Each of `limits` (name=value) is a positive int."""
    for name, limit in limits.items():
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise invalid_value(f"ew.plot: `{name}` must be a positive int, got {limit!r}")


def column_name(frame: DataFrame, name: Any, parameter: str, what: str) -> str:
    """`name` as it is spelled in `frame` (exactly, else the one case-insensitive match)."""
    if not isinstance(name, str):
        raise invalid_type(
            f"ew.plot: `{parameter}` must be a column name (str), got "
            f"{type(name).__name__}: {name!r}"
        )
    if name in frame.columns:
        return name
    matches = [c for c in frame.columns if c.lower() == name.lower()]
    if len(matches) == 1:
        return matches[0]
    raise invalid_value(
        f"ew.plot: `{parameter}` {name!r} is not a column of {what}; its columns "
        f"are {frame.columns}"
    )


def key_list(key: Any) -> list[Any]:
    """`key` (None, a name or a list of names) as a list of names, not yet checked."""
    if key is None:
        return []
    if isinstance(key, str):
        return [key]
    if isinstance(key, (list, tuple)):
        return list(key)
    raise invalid_type(
        f"ew.plot: `key` must be a column name or a list of column names, got {key!r}"
    )


def time_kind(data_type: DataType, what: str) -> str:
    """The kind of a time type: "timestamp", "timestamp_ntz" or "bigint" (any integral type)."""
    if isinstance(data_type, TimestampType):
        return "timestamp"
    if isinstance(data_type, TimestampNTZType):
        return "timestamp_ntz"
    if isinstance(data_type, _INTEGRAL):
        return "bigint"
    raise invalid_value(
        f"ew.plot: {what} must be a TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks), got "
        f"{data_type.simpleString()}"
    )


def events_time_kind(events: DataFrame, start: str, end: str | None) -> str:
    """The kind of the events' time (see time_kind); `end` must be of the type of `start`."""
    kind = time_kind(events.schema[start].dataType, f"`start` ({start!r})")
    if end is not None:
        end_kind = time_kind(events.schema[end].dataType, f"`end` ({end!r})")
        if (end_kind == "bigint") != (kind == "bigint"):
            raise invalid_value(
                f"ew.plot: `end` ({end!r}) must be of the type of `start` ({start!r})"
            )
    return kind


def window_frames(windows: Any) -> Iterator[tuple[str, DataFrame, str]]:
    """The ``windows`` DataFrames, in order, each checked as it is taken: (group name,
    DataFrame, how errors name it)."""
    if windows is None:
        return
    if isinstance(windows, DataFrame):
        yield WINDOWS, windows, "windows"
        return
    if not isinstance(windows, Mapping):
        raise invalid_type(
            f"ew.plot: `windows` must be a DataFrame or a dict of names to "
            f"DataFrames, got {type(windows).__name__}"
        )
    for group, frame in windows.items():
        if not isinstance(group, str) or not isinstance(frame, DataFrame):
            raise invalid_type("ew.plot: `windows` as a dict maps names (str) to DataFrames")
        what = "windows" if group == WINDOWS and len(windows) == 1 else f"windows[{group!r}]"
        yield group, frame, what


@dataclass(frozen=True)
class WindowSource:
    """A checked ``windows`` DataFrame and what to collect of it (see window_source)."""

    group: str
    frame: DataFrame
    has_extent: bool  # window.first and window.last are there
    label_columns: list[str]
    columns: list[Column]


def window_source(
    group: str, frame: DataFrame, what: str, keys: list[str], labels: list[str], kind: str
) -> WindowSource:
    """Checks a ``windows`` DataFrame; what to collect from it, by name: key0, key1, ...,
    start and start_edge, end and end_edge[, first, first_edge, last, last_edge] (window.*),
    label0, label1, ... (the `labels` columns)."""
    if "window" not in frame.columns or not isinstance(frame.schema["window"].dataType, StructType):
        raise invalid_value(
            f"ew.plot: {what} has no `window` struct column (its columns are {frame.columns}): "
            "pass the result of a GROUP BY over an eventwindows window function, or of "
            "ew.dynamic_window(...).agg(...)"
        )
    struct = frame.schema["window"].dataType
    fields = struct.fieldNames()
    if "start" not in fields or "end" not in fields:
        raise invalid_value(
            f"ew.plot: the `window` column of {what} must have the fields `start` "
            f"and `end`, got {struct.simpleString()}"
        )
    for f in ("start", "end", "first", "last"):
        if f in fields:
            window_kind = time_kind(struct[f].dataType, f"`window.{f}` of {what}")
            if (window_kind == "bigint") != (kind == "bigint"):
                raise invalid_value(
                    f"ew.plot: `window.{f}` of {what} is "
                    f"{struct[f].dataType.simpleString()}, the events' time is "
                    f"{kind.upper()}: draw windows over the events they were "
                    "computed from"
                )
    columns = key_columns([column_name(frame, k, "key", what) for k in keys])
    has_extent = "first" in fields and "last" in fields
    for f in ("start", "end", "first", "last") if has_extent else ("start", "end"):
        columns += time_columns(F.col("window").getField(f), time_kind(struct[f].dataType, f), f)
    label_columns = [column_name(frame, c, "labels", what) for c in labels]
    columns += [_quoted(c).alias(f"label{i}") for i, c in enumerate(label_columns)]
    return WindowSource(group, frame, has_extent, label_columns, columns)


def check_lanes(lanes: dict[Lane, list[Event]], keys: list[str], max_keys: int) -> None:
    """At most `max_keys` lanes; one lane (without a key) where nothing is drawn."""
    if len(lanes) > max_keys:
        raise invalid_value(
            f"ew.plot draws at most {max_keys} keys (max_keys); the events and windows have "
            f"{len(lanes)}: filter them first, e.g. events.where(F.col({keys[0]!r}).isin(...)), "
            f"or pass a larger max_keys"
        )
    if not lanes:
        lanes[()] = []


def time_label(start: str, kind: str, zone: str | None) -> str:
    """The time axis's label: the events' start column and its time type."""
    if kind == "bigint":
        return f"{start} (BIGINT ticks)"
    if kind == "timestamp":
        return f"{start} (TIMESTAMP, {zone})"
    return f"{start} (TIMESTAMP_NTZ)"


# ----------------------------------------------------------------------------------------------
# Collecting the events and the windows, lane by lane


def _quoted(name: str) -> Column:
    return F.col("`" + name.replace("`", "``") + "`")


def key_columns(keys: list[str]) -> list[Column]:
    """The key columns, collected as key0, key1, ..."""
    return [_quoted(k).alias(f"key{i}") for i, k in enumerate(keys)]


def _lane(row: Row, n_keys: int) -> Lane:
    """The lane (the key) of a collected row."""
    return tuple(row[f"key{i}"] for i in range(n_keys))


def _time(column: Column, kind: str) -> tuple[Column, Column]:
    """The time as collected (a Python int for BIGINT, a naive datetime: the wall-clock time in
    the session time zone, as show() prints it, for timestamps) and where it lies on the line:
    -1 at its first instant, 1 at its last (the end of time), 0 between."""
    if kind == "bigint":
        value = column.cast("bigint")
        first, last = F.lit(_BIGINT_MIN), F.lit(_BIGINT_MAX)
    elif kind == "timestamp":
        # Cast in Spark: the session time zone's wall clock, whatever the Python process's time
        # zone is, in classic PySpark and Spark Connect alike; kept inside Python's years.
        value = F.greatest(
            F.least(column.cast("timestamp_ntz"), F.expr(_NTZ_MAX)), F.expr(_NTZ_MIN)
        )
        first = F.timestamp_micros(F.lit(_TIMESTAMP_MIN))
        last = F.timestamp_micros(F.lit(_TIMESTAMP_MAX))
    else:
        value = column
        first, last = F.expr(_NTZ_MIN), F.expr(_NTZ_MAX)
    edge = F.when(column >= last, 1).when(column <= first, -1).otherwise(0)
    return value, edge


def time_columns(column: Column, kind: str, name: str) -> list[Column]:
    """A time, collected as `name` and where it lies on the line as `name`_edge (see _time)."""
    value, edge = _time(column, kind)
    return [value.alias(name), edge.alias(name + "_edge")]


def _collect(
    frame: DataFrame, columns: list[Column], limit: int, parameter: str, what: str, name: str
) -> list[Row]:
    """At most `limit` rows of `frame`'s `columns`, or an error saying how to filter it."""
    rows = frame.select(*columns).limit(limit + 1).collect()
    if len(rows) > limit:
        raise invalid_value(
            f"ew.plot draws at most {limit} {what} ({parameter}); the DataFrame has more: filter "
            f"it first, e.g. {name}.where(...), or pass a larger {parameter}"
        )
    return rows


def collect_events(
    events: DataFrame,
    axis: Axis,
    keys: list[str],
    start: str,
    end: str | None,
    value: str | None,
    max_events: int,
) -> dict[Lane, list[Event]]:
    """The events of each lane, in the order collected. A lane whose events all have a NULL
    start is there, empty."""
    columns = key_columns(keys) + time_columns(_quoted(start), kind=axis.kind, name="start")
    if end is not None:
        columns += time_columns(_quoted(end), kind=axis.kind, name="end")
        columns.append(_quoted(end).isNull().alias("end_null"))
    if value is not None:
        columns.append(_quoted(value).alias("value"))
    lanes: dict[Lane, list[Event]] = {}
    for row in _collect(events, columns, max_events, "max_events", "events", "events"):
        lane = lanes.setdefault(_lane(row, len(keys)), [])
        if row["start"] is not None:
            lane.append(_event(row, axis, start, end, value is not None))
    return lanes


def _event(row: Row, axis: Axis, start: str, end: str | None, labelled: bool) -> Event:
    """The event of a collected row with a start; an error if it ends before it starts."""
    label = text(row["value"]) if labelled else None
    x = axis.x(row["start"], row["start_edge"])
    if end is None:
        return Event(x, None, True, False, label)
    if not row["end_null"] and row["end"] < row["start"]:
        raise invalid_value(
            f"ew.plot: an event ends before it starts: {start}={row['start']}, {end}={row['end']}"
        )
    is_open = row["end_null"] or row["end_edge"] == 1
    end_x = None if is_open else axis.x(row["end"], row["end_edge"])
    return Event(x, end_x, False, is_open, label)


def collect_windows(
    source: WindowSource,
    axis: Axis,
    n_keys: int,
    max_windows: int,
    lanes: dict[Lane, list[Event]],
) -> Group:
    """The windows of `source`, lane by lane; lanes of keys without events join `lanes`."""
    group = Group(source.group)
    rows = _collect(source.frame, source.columns, max_windows, "max_windows", "windows", "windows")
    for row in rows:
        lane = _lane(row, n_keys)
        lanes.setdefault(lane, [])
        if row["start"] is not None:
            group.windows.setdefault(lane, []).append(_window(row, axis, source))
    return group


def _is_point(start: Any, end: Any) -> bool:
    if start is None or end is None:
        return False
    if isinstance(start, datetime.datetime):
        return end - start == datetime.timedelta(microseconds=1)
    return end - start == 1


def _window(row: Row, axis: Axis, source: WindowSource) -> Window:
    """The window of a collected row with a start."""
    start, start_edge, end, end_edge = row["start"], row["start_edge"], row["end"], row["end_edge"]
    extent = None
    if source.has_extent and row["first"] is not None and row["last"] is not None:
        extent = (
            axis.x(row["first"], row["first_edge"]),
            axis.after(row["last"], row["last_edge"]),
        )
    return Window(
        axis.x(start, start_edge),
        axis.x(end, end_edge),
        end_edge == 0 and start_edge == 0 and _is_point(start, end),
        end is None or end_edge == 1,
        extent,
        _window_label(row, source.label_columns),
    )


def _window_label(row: Row, label_columns: list[str]) -> str | None:
    """A window's label: the `labels` columns' values as name=value, or None without them."""
    label = ", ".join(f"{c}={text(row[f'label{i}'])}" for i, c in enumerate(label_columns))
    return label or None
