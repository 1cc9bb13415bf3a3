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

:func:`plot` checks its parameters and runs three steps, a module each: :mod:`.collecting` reads
the DataFrames into events and windows by lane, :mod:`.layout` places them in rows, and
:mod:`.drawing` draws the laid-out picture with matplotlib.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pyspark.sql import DataFrame

from eventwindows.errors import invalid_type
from eventwindows.plotting import collecting
from eventwindows.plotting.collecting import Axis
from eventwindows.plotting.drawing import Drawing, matplotlib_parts
from eventwindows.plotting.layout import layout

if TYPE_CHECKING:  # only for the annotations: importing eventwindows never imports matplotlib
    from matplotlib.figure import Figure

__all__ = ["plot"]


def plot(
    events: DataFrame,
    start: str,
    end: str | None = None,
    key: str | Sequence[str] | None = None,
    value: str | None = None,
    windows: DataFrame | Mapping[str, DataFrame] | None = None,
    *,
    labels: Sequence[str] | None = None,
    max_events: int = 200,
    max_windows: int = 200,
    max_keys: int = 10,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    legend: bool = True,
) -> Figure:
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
    mpl = matplotlib_parts()

    # -- the parameters, checked before any Spark job
    if not isinstance(events, DataFrame):
        raise invalid_type(f"ew.plot: `events` must be a DataFrame, got {type(events).__name__}")
    collecting.check_limits(max_events=max_events, max_windows=max_windows, max_keys=max_keys)
    start = collecting.column_name(events, start, "start", "events")
    end = None if end is None else collecting.column_name(events, end, "end", "events")
    keys = [collecting.column_name(events, k, "key", "events") for k in collecting.key_list(key)]
    value = None if value is None else collecting.column_name(events, value, "value", "events")
    labels = [labels] if isinstance(labels, str) else list(labels or [])
    kind = collecting.events_time_kind(events, start, end)
    sources = [
        collecting.window_source(group, frame, what, keys, labels, kind)
        for group, frame, what in collecting.window_frames(windows)
    ]

    # -- collect: only the columns drawn, at most the limits (+ 1, to tell when there are more)
    axis = Axis(kind, mpl.dates.date2num)
    lanes = collecting.collect_events(events, axis, keys, start, end, value, max_events)
    groups = [
        collecting.collect_windows(source, axis, len(keys), max_windows, lanes)
        for source in sources
    ]
    collecting.check_lanes(lanes, keys, max_keys)

    # -- lay out, then draw
    zone = None
    if kind == "timestamp":
        zone = events.sparkSession.conf.get("spark.sql.session.timeZone")
    ordered = sorted(lanes.items(), key=lambda item: collecting.sort_key(item[0]))
    width = figsize[0] if figsize else 10.0
    drawing = Drawing(mpl, layout(ordered, groups, axis.dates, width), axis.dates)
    return drawing.figure(
        keys,
        time_label=collecting.time_label(start, kind, zone),
        title=title,
        figsize=figsize,
        legend=legend,
    )
