"""``ew.plot``'s figure: a laid-out picture (:mod:`.layout`) drawn with matplotlib, one Axes per
lane, every artist with a gid saying what it is (see ``ew.plot``).

matplotlib is imported by :func:`matplotlib_parts` only, when ``ew.plot`` is called. The figure
is made without pyplot, so no backend is chosen here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from eventwindows.plotting.collecting import WINDOWS, Event, Lane, Window, text
from eventwindows.plotting.layout import FONT, MARK, Layout, Plan, Section

if TYPE_CHECKING:  # only for the annotations: importing eventwindows never imports matplotlib
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

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

_INSTALL = "pip install eventwindows[plot] (or pip install matplotlib)"

# Colours: events light blue and windows orange, as in the StreamInsight documents' figures;
# further window groups green and purple.
_EVENT_FACE, _EVENT_EDGE, _EVENT_MARK = "#c6dbef", "#3182bd", "#08519c"
_GROUP_COLOURS = [
    ("#fdd0a2", "#e6550d", "#a63603"),
    ("#c7e9c0", "#31a354", "#006d2c"),
    ("#dadaeb", "#756bb1", "#54278f"),
    ("#fcbba1", "#de2d26", "#a50f15"),
]

ROW_INCHES = 0.3  # height of one row of bars
_BAR = 0.62  # bar height, in rows


@dataclass(frozen=True)
class Matplotlib:
    """The parts of matplotlib the figure is drawn with."""

    dates: ModuleType  # matplotlib.dates
    Figure: type
    Line2D: type
    FancyArrow: type
    Patch: type
    Rectangle: type
    MaxNLocator: type


def matplotlib_parts() -> Matplotlib:
    """matplotlib's parts, or an ImportError saying how to install it."""
    try:
        import matplotlib  # noqa: F401
        import matplotlib.dates as mdates
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import FancyArrow, Patch, Rectangle
        from matplotlib.ticker import MaxNLocator
    except ImportError as e:
        raise ImportError(
            f"ew.plot draws with matplotlib, which is not installed: {_INSTALL}"
        ) from e
    return Matplotlib(mdates, Figure, Line2D, FancyArrow, Patch, Rectangle, MaxNLocator)


@dataclass
class Drawing:
    """Draws `layout` with `mpl`: `dates` says the time axis is of dates (matplotlib date
    numbers), else of BIGINT ticks. The legend's entries gather as marks are drawn."""

    mpl: Matplotlib
    layout: Layout
    dates: bool
    _legend: dict[str, Any] = field(default_factory=dict, init=False)  # in drawing order

    def figure(
        self,
        keys: list[str],
        time_label: str,
        title: str | None,
        figsize: tuple[float, float] | None,
        legend: bool,
    ) -> Figure:
        """The figure: one Axes per lane, each with its events' rows, then each group's rows;
        the time axis at the bottom. `keys` name the lanes' titles."""
        heights = [lane.height for lane in self.layout.lanes]
        if figsize is None:
            figsize = (
                10.0,
                0.9
                + (0.35 if title else 0)
                + (0.45 if legend else 0)
                + sum(h * ROW_INCHES + (0.3 if keys else 0.05) for h in heights),
            )
        fig = self.mpl.Figure(figsize=figsize, layout="constrained")
        axes = fig.subplots(
            len(heights), 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": heights}
        )[:, 0]
        for ax, lane in zip(axes, self.layout.lanes):
            self._lane(ax, lane.lane, keys, lane.sections)
        self._time_axis(axes[-1], time_label)
        if title:
            fig.suptitle(title)
        if legend and self._legend:
            handles = list(self._legend.values())
            fig.legend(
                handles=handles,
                loc="outside lower center",
                ncols=min(len(handles), 4),
                frameon=False,
                fontsize=FONT,
            )
        return fig

    def _x(self, x: float) -> float:
        return self.layout.scale.x(x)

    def _time_axis(self, bottom: Axes, time_label: str) -> None:
        """The time axis, on the bottom lane (the lanes share it): its limits, dates or whole
        numbers, its label."""
        bottom.set_xlim(self.layout.scale.lo, self.layout.scale.hi)
        if self.dates:
            locator = self.mpl.dates.AutoDateLocator()
            bottom.xaxis.set_major_locator(locator)
            bottom.xaxis.set_major_formatter(self.mpl.dates.ConciseDateFormatter(locator))
        else:
            bottom.xaxis.set_major_locator(self.mpl.MaxNLocator(integer=True))
        bottom.set_xlabel(time_label, fontsize=9)

    def _lane(self, ax: Axes, lane: Lane, keys: list[str], sections: list[Section]) -> None:
        if keys:
            ax.set_title(
                ", ".join(f"{k} = {text(v)}" for k, v in zip(keys, lane)),
                loc="left",
                fontsize=9,
                pad=3,
            )
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
                    self._window(ax, section.group.name, item, plan, y + row)
            ticks.append(y + (section.n_rows - 1) / 2)
            y += section.n_rows + 0.7
        ax.set_yticks(ticks, [section.name for section in sections], fontsize=FONT)
        ax.tick_params(axis="y", length=0)
        ax.set_ylim(y - 0.7 - 0.5, -0.5)  # row 0 at the top

    def _legend_entry(self, key: str, handle: Any) -> None:
        self._legend.setdefault(key, handle)

    def _label(self, ax: Axes, label: str | None, x: float | None, y: float, gid: str) -> None:
        if x is not None:
            ax.text(x, y, label, ha="left", va="center", fontsize=FONT, gid=gid)

    def _arrow(self, ax: Axes, x0: float, y: float, face: str, edge: str, gid: str) -> None:
        """A bar from x0 with its head at the right edge: to the end of time."""
        per_point = self.layout.scale.per_point
        length = max(self.layout.scale.hi - x0, 1e-12)
        ax.add_patch(
            self.mpl.FancyArrow(
                x0,
                y,
                length,
                0,
                width=_BAR,
                head_width=_BAR * 1.4,
                head_length=min(length, 9 * per_point),
                length_includes_head=True,
                facecolor=face,
                edgecolor=edge,
                linewidth=0.8,
                gid=gid,
            )
        )

    def _event(self, ax: Axes, ev: Event, plan: Plan, y: float) -> None:
        mpl, x0 = self.mpl, self._x(ev.start)
        if ev.open:
            self._arrow(ax, x0, y, _EVENT_FACE, _EVENT_EDGE, EVENT_OPEN)
            self._legend_entry(
                EVENT_OPEN,
                mpl.Patch(
                    facecolor=_EVENT_FACE,
                    edgecolor=_EVENT_EDGE,
                    label="open-ended event (to the end of time)",
                ),
            )
        elif ev.point:
            ax.add_line(
                mpl.Line2D(
                    [x0],
                    [y],
                    marker="|",
                    markersize=MARK * 1.7,
                    markeredgewidth=2,
                    color=_EVENT_MARK,
                    linestyle="none",
                    gid=EVENT_TICK,
                )
            )
            self._legend_entry(
                EVENT_TICK,
                mpl.Line2D(
                    [],
                    [],
                    marker="|",
                    markersize=MARK * 1.4,
                    markeredgewidth=2,
                    color=_EVENT_MARK,
                    linestyle="none",
                    label="point event",
                ),
            )
        else:
            ax.add_patch(
                mpl.Rectangle(
                    (x0, y - _BAR / 2),
                    self._x(ev.end) - x0,
                    _BAR,
                    facecolor=_EVENT_FACE,
                    edgecolor=_EVENT_EDGE,
                    linewidth=0.8,
                    gid=EVENT_BAR,
                )
            )
            self._legend_entry(
                EVENT_BAR,
                mpl.Patch(facecolor=_EVENT_FACE, edgecolor=_EVENT_EDGE, label="event [start, end)"),
            )
        self._label(ax, ev.label, plan.label_x, y, EVENT_LABEL)

    def _colours(self, group: str) -> tuple[str, str, str]:
        """A group's face, edge and mark colours, by its place among the ``windows``."""
        index = self.layout.group_names.index(group)
        return _GROUP_COLOURS[index % len(_GROUP_COLOURS)]

    def _window(self, ax: Axes, group: str, w: Window, plan: Plan, y: float) -> None:
        mpl = self.mpl
        face, edge, mark = self._colours(group)
        x0 = self._x(w.start)
        suffix = ":" + group
        name = "" if group == WINDOWS else f"{group}: "
        if w.extent:
            e0, e1 = self._x(w.extent[0]), self._x(w.extent[1])
            ax.add_patch(
                mpl.Rectangle(
                    (e0, y - _BAR / 2 - 0.1),
                    e1 - e0,
                    _BAR + 0.2,
                    facecolor="none",
                    edgecolor=edge,
                    linestyle="--",
                    linewidth=1.0,
                    gid=WINDOW_EXTENT + suffix,
                )
            )
            self._legend_entry(
                WINDOW_EXTENT + suffix,
                mpl.Patch(
                    facecolor="none",
                    edgecolor=edge,
                    linestyle="--",
                    label=f"{name}window [first, last + 1 tick)",
                ),
            )
        if w.point:
            ax.add_line(
                mpl.Line2D(
                    [x0],
                    [y],
                    marker="D",
                    markersize=MARK * 0.85,
                    color=mark,
                    markeredgecolor="white",
                    markeredgewidth=0.6,
                    linestyle="none",
                    gid=WINDOW_POINT + suffix,
                )
            )
            self._legend_entry(
                WINDOW_POINT + suffix,
                mpl.Line2D(
                    [],
                    [],
                    marker="D",
                    markersize=MARK * 0.85,
                    color=mark,
                    linestyle="none",
                    label=f"{name}output point event",
                ),
            )
        else:
            if w.open:
                self._arrow(ax, x0, y, face, edge, WINDOW_OPEN + suffix)
            else:
                ax.add_patch(
                    mpl.Rectangle(
                        (x0, y - _BAR / 2),
                        self._x(w.end) - x0,
                        _BAR,
                        facecolor=face,
                        edgecolor=edge,
                        linewidth=0.8,
                        gid=WINDOW_BAR + suffix,
                    )
                )
            self._legend_entry(
                WINDOW_BAR + suffix,
                mpl.Patch(facecolor=face, edgecolor=edge, label=f"{name}output lifetime"),
            )
        self._label(ax, w.label, plan.label_x, y, WINDOW_LABEL + suffix)
