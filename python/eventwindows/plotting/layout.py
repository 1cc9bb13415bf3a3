"""Where ``ew.plot`` draws each mark: the time range, and each lane's events and windows placed in
rows, before anything is drawn.

A mark's span is where it is drawn with its label (data units), so marks whose spans do not
overlap share a row: each span takes the first row that is free from its start. Labels are
measured by an estimate of their width in points (the figure's width is known before it is made),
and times at the ends of the line (-inf, inf) are drawn at the picture's edges. For example, the
events [0, 4), [2, 6) and [5, 7) without labels take two rows: [0, 4) and [5, 7) in the first,
[2, 6) in the second.
"""

from __future__ import annotations

from dataclasses import dataclass

from eventwindows.plotting.collecting import Event, Group, Lane, Window

FONT = 8.0  # points, labels
MARK = 7.0  # points, tick and point markers


@dataclass(frozen=True)
class Scale:
    """The picture's time range [lo, hi) and how many data units a point is wide."""

    lo: float
    hi: float
    per_point: float

    def x(self, x: float) -> float:
        """`x` drawn inside the picture (the ends of the line at its edges)."""
        return min(max(x, self.lo), self.hi)

    def text_width(self, text: str) -> float:
        """About how wide `text` is, in data units."""
        return len(text) * FONT * 0.56 * self.per_point


@dataclass(frozen=True)
class Plan:
    """Where a mark is drawn in its row: its span with its label (x0, x1) and where its label
    starts (None: no label)."""

    x0: float
    x1: float
    label_x: float | None


@dataclass(frozen=True)
class Section:
    """The rows of a lane that hold its events (group None) or one group's windows."""

    name: str  # on the lane's y axis
    n_rows: int
    items: list[Event] | list[Window]  # in drawing order
    plans: list[Plan]
    rows: list[int]  # each item's row in the section
    group: Group | None


@dataclass(frozen=True)
class LaneLayout:
    """A lane's key and its sections: its events' rows, then each group's."""

    lane: Lane
    sections: list[Section]

    @property
    def height(self) -> float:
        """In rows, with the gaps between sections."""
        return sum(section.n_rows for section in self.sections) + 0.7 * len(self.sections)


@dataclass(frozen=True)
class Layout:
    """Every lane's rows, and the scale they are drawn at (its right end holds the labels after
    the last marks too)."""

    scale: Scale
    lanes: list[LaneLayout]
    group_names: list[str]  # in the order of the ``windows``, which gives their colours


def layout(
    lanes: list[tuple[Lane, list[Event]]], groups: list[Group], dates: bool, width: float
) -> Layout:
    """The layout of `lanes` ((key, events) in order) and the `groups`' windows in a figure
    `width` inches wide; `dates`: the axis is of dates (its numbers are days)."""
    lo, hi = _limits(lanes, groups, dates)
    axes_points = max(width * 72 * 0.8, 100.0)
    scale = Scale(lo, hi, (hi - lo) / axes_points)
    planner = _Planner(scale)
    lane_layouts = [LaneLayout(lane, planner.sections(lane, evs, groups)) for lane, evs in lanes]
    # The axes are about as wide as estimated, so the labels' estimated widths still hold.
    furthest = max(
        [plan.x1 for lane in lane_layouts for section in lane.sections for plan in section.plans]
        + [hi]
    )
    final = Scale(lo, max(hi, furthest + 2 * scale.per_point), scale.per_point)
    return Layout(final, lane_layouts, [g.name for g in groups])


def _limits(
    lanes: list[tuple[Lane, list[Event]]], groups: list[Group], dates: bool
) -> tuple[float, float]:
    """The time range of the marks, padded, with room for the arrows of what lasts to the end of
    time."""
    xs: list[float] = []
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
        pad = 1.0 / 86400 if dates else 1.0  # a second, or a tick
        lo, hi = lo - pad, hi + pad
    span = hi - lo
    return lo - 0.03 * span, hi + (0.12 if opened else 0.03) * span


def _rows(spans: list[tuple[float, float]]) -> tuple[list[int], int]:
    """A row for each span (in order): the first row that is free from the span's start."""
    ends: list[float] = []
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


@dataclass(frozen=True)
class _Planner:
    """Plans marks at `scale`: their spans and where their labels go."""

    scale: Scale

    def sections(self, lane: Lane, evs: list[Event], groups: list[Group]) -> list[Section]:
        """A lane's events in rows, then each group's windows of the lane in rows of their
        own."""
        evs = sorted(evs, key=lambda e: (e.start, e.end if e.end is not None else e.start))
        sections = [_section("events", evs, [self._event_plan(e) for e in evs], None)]
        for g in groups:
            ws = sorted(
                g.windows.get(lane, []),
                key=lambda w: (w.start, w.end, w.extent or (w.start, w.end)),
            )
            sections.append(_section(g.name, ws, [self._window_plan(w) for w in ws], g))
        return sections

    def _label_place(
        self, text: str | None, x0: float, x1: float, inside: bool
    ) -> tuple[float | None, float]:
        """Where a label starts: inside [x0, x1) when it fits there and `inside`, else after
        x1; and where the mark with its label ends."""
        if not text:
            return None, x1
        width, pad = self.scale.text_width(text), 3 * self.scale.per_point
        if inside and x1 - x0 >= width + 2 * pad:
            return x0 + pad, x1
        return x1 + pad, x1 + pad + width

    def _open_plan(self, x0: float, text: str | None) -> Plan:
        """An arrow from x0 to the right edge, its label inside: the edge moves right if the
        label needs it."""
        if not text:
            return Plan(x0, self.scale.hi, None)
        per_point = self.scale.per_point
        right = x0 + 3 * per_point + self.scale.text_width(text) + 12 * per_point  # 12: the head
        return Plan(x0, max(self.scale.hi, right), x0 + 3 * per_point)

    def _event_plan(self, ev: Event) -> Plan:
        """The event's span and where its label starts."""
        x0, mark = self.scale.x(ev.start), MARK * self.scale.per_point
        if ev.open:
            return self._open_plan(x0, ev.label)
        x1 = x0 + mark / 2 if ev.point else self.scale.x(ev.end)
        place, right = self._label_place(ev.label, x0, x1, not ev.point)
        return Plan(x0, max(right, x0 + mark), place)

    def _window_plan(self, w: Window) -> Plan:
        """The window's span (its lifetime and extent) and where its label starts: inside the
        lifetime bar, or inside the extent (before the point at its end), else after them.
        Dashed extents keep a gap to the next mark in their row, so that two never read as
        one."""
        x0, mark = self.scale.x(w.start), MARK * self.scale.per_point
        if w.open and not w.extent:
            return self._open_plan(x0, w.label)
        if w.point:
            x1 = x0 + mark / 2
        else:
            x1 = self.scale.hi if w.open else max(self.scale.x(w.end), x0)
        left, right = x0, x1
        if w.extent:
            e0, e1 = self.scale.x(w.extent[0]), self.scale.x(w.extent[1])
            left, right = min(left, e0), max(right, e1)
            gap = mark
            if w.point:  # the label in the box, clear of the point (at its end, if it is there)
                end = min(e1, x0 - mark / 2) if e0 <= x0 <= e1 + mark / 2 else e1
                place, label_end = self._label_place(w.label, e0, end, True)
                if place is not None and place >= end:  # it did not fit: after everything
                    place, label_end = self._label_place(w.label, left, right, False)
                return Plan(left, max(label_end, right + gap, left + mark), place)
        else:
            gap = 0.0
        place, label_end = self._label_place(w.label, left, right, not w.point)
        return Plan(left, max(label_end, right + gap, left + mark), place)


def _section(
    name: str, items: list[Event] | list[Window], plans: list[Plan], group: Group | None
) -> Section:
    """`items` with their `plans`, placed in rows (at least one, also when empty)."""
    rows, n_rows = _rows([(plan.x0, plan.x1) for plan in plans])
    return Section(name, max(n_rows, 1), items, plans, rows, group)
