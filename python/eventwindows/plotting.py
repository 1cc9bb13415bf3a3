"""Pictures of a few events and the windows over them: ``eventwindows.plot(events, ...)``.

matplotlib is an optional dependency (``pip install eventwindows[plot]``): it is imported when
:func:`plot` is called, never by ``import eventwindows``. The figure is a
:class:`matplotlib.figure.Figure` made without pyplot, so no backend is chosen here: a notebook
shows it as a cell's value, ``fig.savefig(path)`` writes it anywhere.

Only what is drawn is collected, and never more than the limits (``max_events``,
``max_windows``, ``max_keys``): each DataFrame is read through ``limit(max + 1)``, so a large one
fails with an error saying how to filter it, instead of being pulled to the driver. Only
DataFrame operations are used (``select``, ``limit``, ``collect``), so it works under Spark
Connect too.

What is drawn can be read back: every artist has a ``gid`` (:meth:`~matplotlib.artist.Artist.
get_gid`) saying what it is; see :func:`plot`.
"""
from __future__ import annotations

import datetime
import decimal
from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, NamedTuple, Optional,
                    Sequence, Tuple, Union)

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.column import Column
from pyspark.sql.types import (ByteType, DataType, IntegerType, LongType, Row, ShortType,
                               StructType, TimestampNTZType, TimestampType)

from eventwindows.errors import invalid_type, invalid_value

if TYPE_CHECKING:  # only for the annotations: importing eventwindows never imports matplotlib
    from matplotlib.figure import Figure

__all__ = ["plot"]

# The gids of the artists (see plot's docstring). Window artists' gids are "<kind>:<group>".
EVENT_BAR = "event-bar"
EVENT_TICK = "event-tick"
EVENT_OPEN = "event-open"
EVENT_LABEL = "event-label"
WINDOW_BAR = "window-bar"
WINDOW_POINT = "window-point"
WINDOW_OPEN = "window-open"
WINDOW_EXTENT = "window-extent"
WINDOW_LABEL = "window-label"

#: The group name of a single ``windows`` DataFrame.
WINDOWS = "windows"

_INSTALL = "pip install eventwindows[plot] (or pip install matplotlib)"

# The ends of the time lines (the README's "Rules for input"): values there are drawn as reaching
# past the edge of the picture.
_BIGINT_MIN, _BIGINT_MAX = -(2**63), 2**63 - 1
_TIMESTAMP_MIN, _TIMESTAMP_MAX = -62135596800000000, 253402300799999999
_NTZ_MIN = "TIMESTAMP_NTZ '0001-01-01 00:00:00'"
_NTZ_MAX = "TIMESTAMP_NTZ '9999-12-31 23:59:59.999999'"
_INTEGRAL = (ByteType, ShortType, IntegerType, LongType)

# Colours: events light blue and windows orange, as in the StreamInsight documents' figures;
# further window groups green and purple.
_EVENT_FACE, _EVENT_EDGE, _EVENT_MARK = "#c6dbef", "#3182bd", "#08519c"
_GROUP_COLOURS = [("#fdd0a2", "#e6550d", "#a63603"), ("#c7e9c0", "#31a354", "#006d2c"),
                  ("#dadaeb", "#756bb1", "#54278f"), ("#fcbba1", "#de2d26", "#a50f15")]

_FONT = 8.0            # points, labels
_ROW_INCHES = 0.3      # height of one row of bars
_BAR = 0.62            # bar height, in rows
_MARK = 7.0            # points, tick and point markers


# ----------------------------------------------------------------------------------------------
# Reading the DataFrames


def _matplotlib():
    """matplotlib's modules, or an ImportError saying how to install it."""
    try:
        import matplotlib  # noqa: F401
        import matplotlib.dates as mdates
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import FancyArrow, Patch, Rectangle
        from matplotlib.ticker import MaxNLocator
    except ImportError as e:
        raise ImportError(
            f"ew.plot draws with matplotlib, which is not installed: {_INSTALL}") from e
    return mdates, Figure, Line2D, FancyArrow, Patch, Rectangle, MaxNLocator


def _quoted(name: str) -> Column:
    return F.col("`" + name.replace("`", "``") + "`")


def _column_name(frame: DataFrame, name: Any, parameter: str, what: str) -> str:
    """`name` as it is spelled in `frame` (exactly, else the one case-insensitive match)."""
    if not isinstance(name, str):
        raise invalid_type(f"ew.plot: `{parameter}` must be a column name (str), got "
                        f"{type(name).__name__}: {name!r}")
    if name in frame.columns:
        return name
    matches = [c for c in frame.columns if c.lower() == name.lower()]
    if len(matches) == 1:
        return matches[0]
    raise invalid_value(f"ew.plot: `{parameter}` {name!r} is not a column of {what}; its columns "
                     f"are {frame.columns}")


def _time_kind(data_type: DataType, what: str) -> str:
    if isinstance(data_type, TimestampType):
        return "timestamp"
    if isinstance(data_type, TimestampNTZType):
        return "timestamp_ntz"
    if isinstance(data_type, _INTEGRAL):
        return "bigint"
    raise invalid_value(f"ew.plot: {what} must be a TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks), got "
                     f"{data_type.simpleString()}")


def _time(column: Column, kind: str) -> Tuple[Column, Column]:
    """The time as collected (a Python int for BIGINT, a naive datetime: the wall-clock time in
    the session time zone, as show() prints it, for timestamps) and where it lies on the line:
    -1 at its first instant, 1 at its last (the end of time), 0 between."""
    if kind == "bigint":
        value = column.cast("bigint")
        first, last = F.lit(_BIGINT_MIN), F.lit(_BIGINT_MAX)
    elif kind == "timestamp":
        # Cast in Spark: the session time zone's wall clock, whatever the Python process's time
        # zone is, in classic PySpark and Spark Connect alike; kept inside Python's years.
        value = F.greatest(F.least(column.cast("timestamp_ntz"), F.expr(_NTZ_MAX)),
                           F.expr(_NTZ_MIN))
        first = F.timestamp_micros(F.lit(_TIMESTAMP_MIN))
        last = F.timestamp_micros(F.lit(_TIMESTAMP_MAX))
    else:
        value = column
        first, last = F.expr(_NTZ_MIN), F.expr(_NTZ_MAX)
    edge = F.when(column >= last, 1).when(column <= first, -1).otherwise(0)
    return value, edge


def _collect(frame: DataFrame, columns: List[Column], limit: int, parameter: str,
             what: str, name: str) -> list:
    """At most `limit` rows of `frame`'s `columns`, or an error saying how to filter it."""
    rows = frame.select(*columns).limit(limit + 1).collect()
    if len(rows) > limit:
        raise invalid_value(
            f"ew.plot draws at most {limit} {what} ({parameter}); the DataFrame has more: filter "
            f"it first, e.g. {name}.where(...), or pass a larger {parameter}")
    return rows


def _text(value: Any) -> str:
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
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return str(value)


def _sort_key(values: tuple) -> tuple:
    """Orders keys and times that may hold None (first, as Spark's ascending order)."""
    return tuple((0, 0) if v is None else (1, v) for v in values)


# ----------------------------------------------------------------------------------------------
# What is drawn, in data coordinates


@dataclass
class _Event:
    start: float                    # -inf at the first instant of the line
    end: Optional[float]            # None for a point event or an open-ended one
    point: bool
    open: bool                      # to the end of time (a NULL end, or an end at the end of time)
    label: Optional[str]


@dataclass
class _Window:
    start: float
    end: float
    point: bool                     # the output lifetime is one tick
    open: bool
    extent: Optional[Tuple[float, float]]  # [first, last + 1 tick)
    label: Optional[str]


@dataclass
class _Group:
    name: str
    colours: Tuple[str, str, str]
    windows: Dict[tuple, List[_Window]] = field(default_factory=dict)


class _Axis:
    """The time axis: raw times to floats (matplotlib date numbers for timestamps)."""

    def __init__(self, kind: str, mdates: Any):
        self.kind, self._mdates = kind, mdates
        self.dates = kind != "bigint"

    def x(self, value: Any, edge: int) -> Optional[float]:
        """`value` as an x; -inf and inf at the ends of the line (drawn at the picture's edges)."""
        if value is None:
            return None
        if edge != 0:
            return float("inf") if edge > 0 else float("-inf")
        return float(self._mdates.date2num(value)) if self.dates else float(value)

    def after(self, value: Any, edge: int) -> Optional[float]:
        """The time one tick after `value` (an exclusive end)."""
        if value is None or edge != 0:
            return self.x(value, edge)
        if self.dates:
            return float(self._mdates.date2num(value + datetime.timedelta(microseconds=1)))
        return float(value + 1)


def _is_point(start: Any, end: Any) -> bool:
    if start is None or end is None:
        return False
    if isinstance(start, datetime.datetime):
        return end - start == datetime.timedelta(microseconds=1)
    return end - start == 1


# ----------------------------------------------------------------------------------------------
# The public function


def plot(
        events: DataFrame,
        start: str,
        end: Optional[str] = None,
        key: Optional[Union[str, Sequence[str]]] = None,
        value: Optional[str] = None,
        windows: Optional[Union[DataFrame, Mapping[str, DataFrame]]] = None,
        *,
        labels: Optional[Sequence[str]] = None,
        max_events: int = 200,
        max_windows: int = 200,
        max_keys: int = 10,
        title: Optional[str] = None,
        figsize: Optional[Tuple[float, float]] = None,
        legend: bool = True) -> "Figure":
    """Draws a small sample of events, and the windows over them, as a matplotlib Figure.

    One lane (an Axes) per key, top to bottom in key order (NULL first), its title the key
    (``k = a``). In a lane each event is a bar over its lifetime ``[start, end)``, a tick mark for
    a point event, an arrow to the right edge for an open-ended one (a NULL end, or an end at the
    end of time), labelled by ``value``; events that overlap in time are stacked in rows. The
    rows of ``windows`` (any window family's result: the keys' columns, the ``window`` struct and
    the aggregates) are drawn below the events of their key, in rows of their own:

    * the output lifetime ``[window.start, window.end)``: a bar (hopping and tumbling ``'window'``
      output, snapshot windows, ``'changes'`` runs, dynamic windows' intervals), a diamond where
      it is a point event, one tick long (hopping ``'point'`` output at the window end, count
      windows' default output, ``index_window``, ``time_window``, ``sliding_window`` firings),
      an arrow where it lasts to the end of time (the last ``'changes'`` row over an open-ended
      event);
    * the window's extent, where the row has it (``window.first`` and ``window.last``: count,
      index and SPL sliding windows): a dashed box ``[first, last + 1 tick)``. Rows without them
      (hopping ``'point'`` output, ``time_window``) do not say where their window lay: only the
      output lifetime is drawn;
    * the ``labels`` columns' values, as ``name=value``.

    The time axis reads as the time type does: dates and times (the session time zone's wall
    clock, as ``show()`` prints them) for TIMESTAMP and TIMESTAMP_NTZ, numbers for BIGINT.

    Only what is drawn is collected: each DataFrame is read through ``limit(max + 1)``, and
    more rows (or keys) than a limit is a ``ValueError`` saying how to filter, not a large
    collect to the driver. Only DataFrame operations are used, so Spark Connect works too.

    Parameters
    ----------
    events : DataFrame
        The events. Rows with a NULL start are not drawn (no window reads them).
    start : str
        The events' start (or time) column: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
    end : str, optional
        The events' exclusive end column, of the type of ``start``; a NULL end is an open-ended
        event. ``None`` (the default): point events, which last one tick.
    key : str or list of str, optional
        The key columns: one lane per distinct key of the events and windows. The ``windows``
        DataFrames must have them too. ``None``: one lane.
    value : str, optional
        A column of the events whose value labels each event.
    windows : DataFrame or dict of str to DataFrame, optional
        A windowed result (its ``window`` column a struct with ``start`` and ``end``, of the
        events' time type), or several, by name (e.g. ``{"'window'": w, "'changes'": c}``): each
        is drawn in rows of its own, in its own colour, named on the lane's axis.
    labels : list of str, optional
        Columns of the ``windows`` whose values label each window (e.g. ``["count"]``), as
        ``name=value``; with several ``windows``, each of them must have these columns.
    max_events, max_windows : int
        The most events, and windows per ``windows`` DataFrame, that are drawn (default 200):
        more is a ``ValueError``.
    max_keys : int
        The most lanes (default 10): more keys is a ``ValueError``.
    title : str, optional
        The figure's title.
    figsize : (float, float), optional
        Width and height in inches; by default 10 inches wide and as high as the rows need.
    legend : bool
        Whether to draw a legend of what the marks mean (default ``True``).

    Returns
    -------
    matplotlib.figure.Figure
        Made without pyplot (no backend is chosen): in a notebook it shows as the cell's value;
        save it with ``fig.savefig(path)``. ``fig.axes`` holds the lanes. Every mark has a gid:
        ``event-bar`` (a Rectangle: ``get_x()`` the start, ``get_width()`` the length),
        ``event-tick`` (a Line2D marker at the point event's time), ``event-open`` (a
        FancyArrow from the start to the right edge), ``event-label`` (a Text); for the windows
        ``window-bar``, ``window-point``, ``window-open``, ``window-extent`` (Rectangle:
        ``[first, last + 1 tick)``) and ``window-label``, each followed by ``:`` and the group
        name (``windows`` for a single DataFrame, else its key in ``windows``). x values are
        matplotlib date numbers (``matplotlib.dates.date2num``) for timestamps, the ticks for
        BIGINT.

    Raises
    ------
    ImportError
        Without matplotlib: ``pip install eventwindows[plot]``.
    ValueError
        A column that is not there, a ``windows`` DataFrame without a ``window`` struct, time
        types that do not match, or more rows or keys than the limits.

    Examples
    --------
    >>> events = spark.createDataFrame(
    ...     [("a", 0, 4, "x"), ("a", 2, 6, "y"), ("b", 1, None, "z")],
    ...     "k string, s bigint, e bigint, id string")
    >>> windows = events.groupBy("k", hopping_window("s", 4, 2, end="e")).agg(
    ...     F.count("*").alias("n"))
    >>> fig = plot(events, "s", "e", key="k", value="id", windows=windows, labels=["n"])
    >>> [ax.get_title(loc="left") for ax in fig.axes]
    ['k = a', 'k = b']
    >>> sorted((p.get_x(), p.get_width()) for p in fig.axes[0].patches
    ...        if p.get_gid() == "event-bar")
    [(0.0, 4.0), (2.0, 4.0)]
    >>> sorted(t.get_text() for t in fig.axes[0].texts if t.get_gid() == "window-label:windows")
    ['n=1', 'n=1', 'n=2', 'n=2']
    >>> fig.savefig(io.BytesIO(), format="png")
    """
    mdates, Figure, Line2D, FancyArrow, Patch, Rectangle, MaxNLocator = _matplotlib()

    # -- the parameters, checked before any Spark job
    if not isinstance(events, DataFrame):
        raise invalid_type(f"ew.plot: `events` must be a DataFrame, got {type(events).__name__}")
    _check_limits(max_events=max_events, max_windows=max_windows, max_keys=max_keys)
    start = _column_name(events, start, "start", "events")
    end = None if end is None else _column_name(events, end, "end", "events")
    keys = [_column_name(events, k, "key", "events") for k in _key_list(key)]
    value = None if value is None else _column_name(events, value, "value", "events")
    labels = [labels] if isinstance(labels, str) else list(labels or [])
    kind = _events_time_kind(events, start, end)
    sources = [_window_source(group, frame, what, keys, labels, kind)
               for group, frame, what in _window_frames(windows)]

    # -- collect: only the columns drawn, at most the limits (+ 1, to tell when there are more)
    axis = _Axis(kind, mdates)
    lanes = _collect_events(events, axis, keys, start, end, value, max_events)
    groups = [_collect_windows(source, _GROUP_COLOURS[index % len(_GROUP_COLOURS)], axis,
                               len(keys), max_windows, lanes)
              for index, source in enumerate(sources)]
    _check_lanes(lanes, keys, max_keys)

    # -- draw
    session_zone = None
    if kind == "timestamp":
        session_zone = events.sparkSession.conf.get("spark.sql.session.timeZone")
    drawing = _Drawing(axis, mdates, Figure, Line2D, FancyArrow, Patch, Rectangle, MaxNLocator)
    return drawing.draw(
        sorted(lanes.items(), key=lambda item: _sort_key(item[0])), keys, groups,
        time_label=_time_label(start, kind, session_zone), title=title, figsize=figsize,
        legend=legend)


# ----------------------------------------------------------------------------------------------
# The parameters


def _check_limits(**limits: Any) -> None:
    """Each of `limits` (name=value) is a positive int."""
    for name, limit in limits.items():
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise invalid_value(f"ew.plot: `{name}` must be a positive int, got {limit!r}")


def _key_list(key: Any) -> List[Any]:
    """`key` (None, a name or a list of names) as a list of names, not yet checked."""
    if key is None:
        return []
    if isinstance(key, str):
        return [key]
    if isinstance(key, (list, tuple)):
        return list(key)
    raise invalid_type(f"ew.plot: `key` must be a column name or a list of column names, got "
                    f"{key!r}")


def _events_time_kind(events: DataFrame, start: str, end: Optional[str]) -> str:
    """The kind of the events' time (see _time_kind); `end` must be of the type of `start`."""
    kind = _time_kind(events.schema[start].dataType, f"`start` ({start!r})")
    if end is not None:
        end_kind = _time_kind(events.schema[end].dataType, f"`end` ({end!r})")
        if (end_kind == "bigint") != (kind == "bigint"):
            raise invalid_value(f"ew.plot: `end` ({end!r}) must be of the type of `start` "
                             f"({start!r})")
    return kind


def _window_frames(windows: Any) -> Iterator[Tuple[str, DataFrame, str]]:
    """The ``windows`` DataFrames, in order, each checked as it is taken: (group name,
    DataFrame, how errors name it)."""
    if windows is None:
        return
    if isinstance(windows, DataFrame):
        yield WINDOWS, windows, "windows"
        return
    if not isinstance(windows, Mapping):
        raise invalid_type(f"ew.plot: `windows` must be a DataFrame or a dict of names to "
                        f"DataFrames, got {type(windows).__name__}")
    for group, frame in windows.items():
        if not isinstance(group, str) or not isinstance(frame, DataFrame):
            raise invalid_type("ew.plot: `windows` as a dict maps names (str) to DataFrames")
        yield group, frame, ("windows" if group == WINDOWS and len(windows) == 1
                             else f"windows[{group!r}]")


@dataclass
class _WindowSource:
    """A checked ``windows`` DataFrame and what to collect of it (see _window_source)."""
    group: str
    frame: DataFrame
    has_extent: bool                # window.first and window.last are there
    label_columns: List[str]
    columns: List[Column]


def _window_source(group: str, frame: DataFrame, what: str, keys: List[str], labels: List[str],
                   kind: str) -> _WindowSource:
    """Checks a ``windows`` DataFrame; what to collect from it, by name: key0, key1, ...,
    start and start_edge, end and end_edge[, first, first_edge, last, last_edge] (window.*),
    label0, label1, ... (the `labels` columns)."""
    if "window" not in frame.columns or not isinstance(frame.schema["window"].dataType,
                                                        StructType):
        raise invalid_value(
            f"ew.plot: {what} has no `window` struct column (its columns are {frame.columns}): "
            "pass the result of a GROUP BY over an eventwindows window function, or of "
            "ew.dynamic_window(...).agg(...)")
    struct = frame.schema["window"].dataType
    fields = struct.fieldNames()
    if "start" not in fields or "end" not in fields:
        raise invalid_value(f"ew.plot: the `window` column of {what} must have the fields `start` "
                         f"and `end`, got {struct.simpleString()}")
    for f in ("start", "end", "first", "last"):
        if f in fields:
            window_kind = _time_kind(struct[f].dataType, f"`window.{f}` of {what}")
            if (window_kind == "bigint") != (kind == "bigint"):
                raise invalid_value(f"ew.plot: `window.{f}` of {what} is "
                                 f"{struct[f].dataType.simpleString()}, the events' time is "
                                 f"{kind.upper()}: draw windows over the events they were "
                                 "computed from")
    columns = _key_columns([_column_name(frame, k, "key", what) for k in keys])
    has_extent = "first" in fields and "last" in fields
    for f in ("start", "end", "first", "last") if has_extent else ("start", "end"):
        columns += _time_columns(F.col("window").getField(f),
                                 _time_kind(struct[f].dataType, f), f)
    label_columns = [_column_name(frame, c, "labels", what) for c in labels]
    columns += [_quoted(c).alias(f"label{i}") for i, c in enumerate(label_columns)]
    return _WindowSource(group, frame, has_extent, label_columns, columns)


def _check_lanes(lanes: Dict[tuple, List[_Event]], keys: List[str], max_keys: int) -> None:
    """At most `max_keys` lanes; one lane (without a key) where nothing is drawn."""
    if len(lanes) > max_keys:
        raise invalid_value(
            f"ew.plot draws at most {max_keys} keys (max_keys); the events and windows have "
            f"{len(lanes)}: filter them first, e.g. events.where(F.col({keys[0]!r}).isin(...)), "
            f"or pass a larger max_keys")
    if not lanes:
        lanes[()] = []


def _time_label(start: str, kind: str, zone: Optional[str]) -> str:
    if kind == "bigint":
        return f"{start} (BIGINT ticks)"
    if kind == "timestamp":
        return f"{start} (TIMESTAMP, {zone})"
    return f"{start} (TIMESTAMP_NTZ)"


# ----------------------------------------------------------------------------------------------
# Collecting the events and the windows, lane by lane


def _key_columns(keys: List[str]) -> List[Column]:
    """The key columns, collected as key0, key1, ..."""
    return [_quoted(k).alias(f"key{i}") for i, k in enumerate(keys)]


def _lane(row: Row, n_keys: int) -> tuple:
    """The lane (the key) of a collected row."""
    return tuple(row[f"key{i}"] for i in range(n_keys))


def _time_columns(column: Column, kind: str, name: str) -> List[Column]:
    """A time, collected as `name` and where it lies on the line as `name`_edge (see _time)."""
    value, edge = _time(column, kind)
    return [value.alias(name), edge.alias(name + "_edge")]


def _collect_events(events: DataFrame, axis: _Axis, keys: List[str], start: str,
                    end: Optional[str], value: Optional[str], max_events: int
                    ) -> Dict[tuple, List[_Event]]:
    """The events of each lane, in the order collected. A lane whose events all have a NULL
    start is there, empty."""
    columns = _key_columns(keys) + _time_columns(_quoted(start), kind=axis.kind, name="start")
    if end is not None:
        columns += _time_columns(_quoted(end), kind=axis.kind, name="end")
        columns.append(_quoted(end).isNull().alias("end_null"))
    if value is not None:
        columns.append(_quoted(value).alias("value"))
    lanes: Dict[tuple, List[_Event]] = {}
    for row in _collect(events, columns, max_events, "max_events", "events", "events"):
        lane = lanes.setdefault(_lane(row, len(keys)), [])
        if row["start"] is not None:
            lane.append(_event(row, axis, start, end, value is not None))
    return lanes


def _event(row: Row, axis: _Axis, start: str, end: Optional[str], labelled: bool) -> _Event:
    """The event of a collected row with a start; an error if it ends before it starts."""
    label = _text(row["value"]) if labelled else None
    x = axis.x(row["start"], row["start_edge"])
    if end is None:
        return _Event(x, None, True, False, label)
    if not row["end_null"] and row["end"] < row["start"]:
        raise invalid_value(f"ew.plot: an event ends before it starts: {start}={row['start']}, "
                         f"{end}={row['end']}")
    is_open = row["end_null"] or row["end_edge"] == 1
    return _Event(x, None if is_open else axis.x(row["end"], row["end_edge"]), False, is_open,
                  label)


def _collect_windows(source: _WindowSource, colours: Tuple[str, str, str], axis: _Axis,
                     n_keys: int, max_windows: int, lanes: Dict[tuple, List[_Event]]
                     ) -> _Group:
    """The windows of `source`, lane by lane; lanes of keys without events join `lanes`."""
    group = _Group(source.group, colours)
    for row in _collect(source.frame, source.columns, max_windows, "max_windows", "windows",
                        "windows"):
        lane = _lane(row, n_keys)
        lanes.setdefault(lane, [])
        if row["start"] is not None:
            group.windows.setdefault(lane, []).append(_window(row, axis, source))
    return group


def _window(row: Row, axis: _Axis, source: _WindowSource) -> _Window:
    """The window of a collected row with a start."""
    start, start_edge, end, end_edge = row["start"], row["start_edge"], row["end"], row["end_edge"]
    extent = None
    if source.has_extent and row["first"] is not None and row["last"] is not None:
        extent = (axis.x(row["first"], row["first_edge"]),
                  axis.after(row["last"], row["last_edge"]))
    return _Window(axis.x(start, start_edge), axis.x(end, end_edge),
                   end_edge == 0 and start_edge == 0 and _is_point(start, end),
                   end is None or end_edge == 1, extent,
                   _window_label(row, source.label_columns))


def _window_label(row: Row, label_columns: List[str]) -> Optional[str]:
    """A window's label: the `labels` columns' values as name=value, or None without them."""
    label = ", ".join(f"{c}={_text(row[f'label{i}'])}" for i, c in enumerate(label_columns))
    return label or None


# ----------------------------------------------------------------------------------------------
# Layout and drawing


class _Plan(NamedTuple):
    """Where a mark is drawn in its row: its span with its label (x0, x1) and where its label
    starts (None: no label)."""
    x0: float
    x1: float
    label_x: Optional[float]


class _Section(NamedTuple):
    """The rows of a lane that hold its events (group None) or one group's windows."""
    name: str                       # on the lane's y axis
    n_rows: int
    items: list                     # the events or windows, in drawing order
    plans: List[_Plan]
    rows: List[int]                 # each item's row in the section
    group: Optional[_Group]


class _Drawing:
    """Places the marks in rows, lane by lane, and draws them.

    A mark's span is where it is drawn with its label (data units), so marks whose spans do not
    overlap share a row. Times at the ends of the line (-inf, inf) are drawn at the picture's
    edges.
    """

    def __init__(self, axis: _Axis, mdates, Figure, Line2D, FancyArrow, Patch, Rectangle,
                 MaxNLocator):
        self.axis, self.mdates = axis, mdates
        self.Figure, self.Line2D, self.FancyArrow = Figure, Line2D, FancyArrow
        self.Patch, self.Rectangle, self.MaxNLocator = Patch, Rectangle, MaxNLocator
        self.drawn: Dict[str, Any] = {}  # legend entries, in drawing order

    # -- the time range

    def _limits(self, lanes, groups) -> Tuple[float, float]:
        xs: List[float] = []
        opened = False
        for _, evs in lanes:
            for ev in evs:
                xs += [ev.start] + ([] if ev.end is None else [ev.end])
                opened = opened or ev.open
        for g in groups:
            for ws in g.windows.values():
                for w in ws:
                    xs += [w.start, w.end] + list(w.extent or ())
                    opened = opened or w.open
        xs = [x for x in xs if abs(x) != float("inf")]
        if not xs:
            return (0.0, 1.0)
        lo, hi = min(xs), max(xs)
        if hi == lo:
            pad = 1.0 / 86400 if self.axis.dates else 1.0  # a second, or a tick
            lo, hi = lo - pad, hi + pad
        span = hi - lo
        # room for the arrows of what lasts to the end of time
        return lo - 0.03 * span, hi + (0.12 if opened else 0.03) * span

    def _x(self, x: float) -> float:
        """`x` drawn inside the picture (the ends of the line at its edges)."""
        return min(max(x, self.lo), self.hi)

    def _text_width(self, text: str) -> float:
        """About how wide `text` is, in data units."""
        return len(text) * _FONT * 0.56 * self.per_point

    # -- rows

    @staticmethod
    def _rows(spans: List[Tuple[float, float]]) -> Tuple[List[int], int]:
        """A row for each span (in order): the first row that is free from the span's start."""
        ends: List[float] = []
        rows = []
        for x0, x1 in spans:
            for i, e in enumerate(ends):
                if e <= x0:
                    ends[i] = x1
                    rows.append(i)
                    break
            else:
                ends.append(x1)
                rows.append(len(ends) - 1)
        return rows, len(ends)

    def _label_place(self, text: Optional[str], x0: float, x1: float, inside: bool
                     ) -> Tuple[Optional[float], float]:
        """Where a label starts: inside [x0, x1) when it fits there and `inside`, else after
        x1; and where the mark with its label ends."""
        if not text:
            return None, x1
        width, pad = self._text_width(text), 3 * self.per_point
        if inside and x1 - x0 >= width + 2 * pad:
            return x0 + pad, x1
        return x1 + pad, x1 + pad + width

    def _open_plan(self, x0: float, text: Optional[str]) -> _Plan:
        """An arrow from x0 to the right edge, its label inside: the edge moves right if the
        label needs it."""
        if not text:
            return _Plan(x0, self.hi, None)
        pad = 3 * self.per_point
        right = x0 + pad + self._text_width(text) + 12 * self.per_point  # 12: the head
        return _Plan(x0, max(self.hi, right), x0 + pad)

    def _event_plan(self, ev: _Event) -> _Plan:
        """The event's span and where its label starts."""
        x0, mark = self._x(ev.start), _MARK * self.per_point
        if ev.open:
            return self._open_plan(x0, ev.label)
        x1 = x0 + mark / 2 if ev.point else self._x(ev.end)
        place, right = self._label_place(ev.label, x0, x1, not ev.point)
        return _Plan(x0, max(right, x0 + mark), place)

    def _window_plan(self, w: _Window) -> _Plan:
        """The window's span (its lifetime and extent) and where its label starts: inside the
        lifetime bar, or inside the extent (before the point at its end), else after them.
        Dashed extents keep a gap to the next mark in their row, so that two never read as
        one."""
        x0, mark = self._x(w.start), _MARK * self.per_point
        if w.open and not w.extent:
            return self._open_plan(x0, w.label)
        if w.point:
            x1 = x0 + mark / 2
        else:
            x1 = self.hi if w.open else max(self._x(w.end), x0)
        left, right = x0, x1
        if w.extent:
            e0, e1 = self._x(w.extent[0]), self._x(w.extent[1])
            left, right = min(left, e0), max(right, e1)
            gap = mark
            if w.point:  # the label in the box, clear of the point (at its end, if it is there)
                end = min(e1, x0 - mark / 2) if e0 <= x0 <= e1 + mark / 2 else e1
                place, label_end = self._label_place(w.label, e0, end, True)
                if place is not None and place >= end:  # it did not fit: after everything
                    place, label_end = self._label_place(w.label, left, right, False)
                return _Plan(left, max(label_end, right + gap, left + mark), place)
        else:
            gap = 0.0
        place, label_end = self._label_place(w.label, left, right, not w.point)
        return _Plan(left, max(label_end, right + gap, left + mark), place)

    # -- the figure

    def draw(self, lanes, keys, groups, time_label, title, figsize, legend):
        """The figure: one Axes per lane (`lanes`: (key, events) in order), each with its
        events' rows, then each group's rows; the time axis at the bottom."""
        self.lo, self.hi = self._limits(lanes, groups)
        width = figsize[0] if figsize else 10.0
        axes_points = max(width * 72 * 0.8, 100.0)
        self.per_point = (self.hi - self.lo) / axes_points
        layouts = [(lane, self._sections(lane, evs, groups)) for lane, evs in lanes]
        # the right limit holds the labels after the last marks too; the axes are about as wide
        # as estimated, so the labels' estimated widths still hold
        furthest = max([plan.x1 for _, sections in layouts for section in sections
                        for plan in section.plans] + [self.hi])
        self.hi = max(self.hi, furthest + 2 * self.per_point)

        heights = [sum(section.n_rows for section in sections) + 0.7 * len(sections)
                   for _, sections in layouts]
        if figsize is None:
            figsize = (width, 0.9 + (0.35 if title else 0) + (0.45 if legend else 0) +
                       sum(h * _ROW_INCHES + (0.3 if keys else 0.05) for h in heights))
        fig = self.Figure(figsize=figsize, layout="constrained")
        axes = fig.subplots(len(layouts), 1, sharex=True, squeeze=False,
                            gridspec_kw={"height_ratios": heights})[:, 0]
        for ax, (lane, sections) in zip(axes, layouts):
            self._lane(ax, lane, keys, sections)
        self._time_axis(axes[-1], time_label)
        if title:
            fig.suptitle(title)
        if legend and self.drawn:
            handles = list(self.drawn.values())
            fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4),
                       frameon=False, fontsize=_FONT)
        return fig

    def _sections(self, lane: tuple, evs: List[_Event], groups: List[_Group]
                  ) -> List[_Section]:
        """A lane's events in rows, then each group's windows of the lane in rows of their
        own."""
        evs = sorted(evs, key=lambda e: (e.start, e.end if e.end is not None else e.start))
        sections = [self._section("events", evs, [self._event_plan(e) for e in evs], None)]
        for g in groups:
            ws = sorted(g.windows.get(lane, []),
                        key=lambda w: (w.start, w.end, w.extent or (w.start, w.end)))
            sections.append(self._section(g.name, ws, [self._window_plan(w) for w in ws], g))
        return sections

    def _section(self, name: str, items: list, plans: List[_Plan], group: Optional[_Group]
                 ) -> _Section:
        """`items` with their `plans`, placed in rows (at least one, also when empty)."""
        rows, n_rows = self._rows([(plan.x0, plan.x1) for plan in plans])
        return _Section(name, max(n_rows, 1), items, plans, rows, group)

    def _time_axis(self, bottom, time_label: str) -> None:
        """The time axis, on the bottom lane (the lanes share it): its limits, dates or whole
        numbers, its label."""
        bottom.set_xlim(self.lo, self.hi)
        if self.axis.dates:
            locator = self.mdates.AutoDateLocator()
            bottom.xaxis.set_major_locator(locator)
            bottom.xaxis.set_major_formatter(self.mdates.ConciseDateFormatter(locator))
        else:
            bottom.xaxis.set_major_locator(self.MaxNLocator(integer=True))
        bottom.set_xlabel(time_label, fontsize=9)

    def _lane(self, ax, lane, keys, sections):
        if keys:
            ax.set_title(", ".join(f"{k} = {_text(v)}" for k, v in zip(keys, lane)),
                         loc="left", fontsize=9, pad=3)
        ax.spines[["top", "right", "left"]].set_visible(False)
        ax.grid(axis="x", color="#e6e6e6", linewidth=0.6)
        ax.set_axisbelow(True)
        y, ticks = 0.0, []
        for index, section in enumerate(sections):
            if index:
                ax.axhline(y - 0.85, color="#bdbdbd", linewidth=0.6)
            for item, plan, row in zip(section.items, section.plans, section.rows):
                if section.group is None:
                    self._event(ax, item, plan, y + row)
                else:
                    self._window(ax, section.group, item, plan, y + row)
            ticks.append(y + (section.n_rows - 1) / 2)
            y += section.n_rows + 0.7
        ax.set_yticks(ticks, [section.name for section in sections], fontsize=_FONT)
        ax.tick_params(axis="y", length=0)
        ax.set_ylim(y - 0.7 - 0.5, -0.5)  # row 0 at the top

    def _legend(self, key: str, handle: Any) -> None:
        self.drawn.setdefault(key, handle)

    def _label(self, ax, text: Optional[str], x: Optional[float], y: float, gid: str) -> None:
        if x is not None:
            ax.text(x, y, text, ha="left", va="center", fontsize=_FONT, gid=gid)

    def _arrow(self, ax, x0: float, y: float, face: str, edge: str, gid: str) -> None:
        """A bar from x0 with its head at the right edge: to the end of time."""
        length = max(self.hi - x0, 1e-12)
        ax.add_patch(self.FancyArrow(
            x0, y, length, 0, width=_BAR, head_width=_BAR * 1.4,
            head_length=min(length, 9 * self.per_point), length_includes_head=True,
            facecolor=face, edgecolor=edge, linewidth=0.8, gid=gid))

    def _event(self, ax, ev: _Event, plan: _Plan, y: float) -> None:
        x0 = self._x(ev.start)
        if ev.open:
            self._arrow(ax, x0, y, _EVENT_FACE, _EVENT_EDGE, EVENT_OPEN)
            self._legend(EVENT_OPEN, self.Patch(facecolor=_EVENT_FACE, edgecolor=_EVENT_EDGE,
                                                label="open-ended event (to the end of time)"))
        elif ev.point:
            ax.add_line(self.Line2D([x0], [y], marker="|", markersize=_MARK * 1.7,
                                    markeredgewidth=2, color=_EVENT_MARK, linestyle="none",
                                    gid=EVENT_TICK))
            self._legend(EVENT_TICK, self.Line2D([], [], marker="|", markersize=_MARK * 1.4,
                                                 markeredgewidth=2, color=_EVENT_MARK,
                                                 linestyle="none", label="point event"))
        else:
            ax.add_patch(self.Rectangle((x0, y - _BAR / 2), self._x(ev.end) - x0, _BAR,
                                        facecolor=_EVENT_FACE, edgecolor=_EVENT_EDGE,
                                        linewidth=0.8, gid=EVENT_BAR))
            self._legend(EVENT_BAR, self.Patch(facecolor=_EVENT_FACE, edgecolor=_EVENT_EDGE,
                                               label="event [start, end)"))
        self._label(ax, ev.label, plan.label_x, y, EVENT_LABEL)

    def _window(self, ax, g: _Group, w: _Window, plan: _Plan, y: float) -> None:
        face, edge, mark = g.colours
        x0 = self._x(w.start)
        suffix = ":" + g.name
        name = "" if g.name == WINDOWS else f"{g.name}: "
        if w.extent:
            e0, e1 = self._x(w.extent[0]), self._x(w.extent[1])
            ax.add_patch(self.Rectangle((e0, y - _BAR / 2 - 0.1), e1 - e0, _BAR + 0.2,
                                        facecolor="none", edgecolor=edge, linestyle="--",
                                        linewidth=1.0, gid=WINDOW_EXTENT + suffix))
            self._legend(WINDOW_EXTENT + suffix, self.Patch(
                facecolor="none", edgecolor=edge, linestyle="--",
                label=f"{name}window [first, last + 1 tick)"))
        if w.point:
            ax.add_line(self.Line2D([x0], [y], marker="D", markersize=_MARK * 0.85,
                                    color=mark, markeredgecolor="white", markeredgewidth=0.6,
                                    linestyle="none", gid=WINDOW_POINT + suffix))
            self._legend(WINDOW_POINT + suffix, self.Line2D(
                [], [], marker="D", markersize=_MARK * 0.85, color=mark, linestyle="none",
                label=f"{name}output point event"))
        else:
            if w.open:
                self._arrow(ax, x0, y, face, edge, WINDOW_OPEN + suffix)
            else:
                ax.add_patch(self.Rectangle(
                    (x0, y - _BAR / 2), self._x(w.end) - x0, _BAR, facecolor=face,
                    edgecolor=edge, linewidth=0.8, gid=WINDOW_BAR + suffix))
            self._legend(WINDOW_BAR + suffix, self.Patch(facecolor=face, edgecolor=edge,
                                                         label=f"{name}output lifetime"))
        self._label(ax, w.label, plan.label_x, y, WINDOW_LABEL + suffix)
