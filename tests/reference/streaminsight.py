"""A brute-force, pure-Python reference for the eventwindows window families.

Written from SPEC.md sections 1 and 3.1-3.2 (not from the Scala code), to be obviously right
rather than fast: every window that can hold an event is enumerated explicitly and its members are
found by testing every event against it.

Conventions
-----------
* An input row is ``(key, start, end, value)``. ``key`` is any hashable value (``None`` allowed);
  ``start``/``end``/``value`` are Python ints or ``None``. Times are ticks: BIGINT ticks, or
  microseconds for TIMESTAMP (one tick = 1 microsecond).
* An event's lifetime is ``[start, end)``. ``point=True`` means the query has no end column: every
  event is a point event ``[start, start + 1)`` and the ``end`` field is ignored. A ``None`` end is
  an open-ended event. Rows with a ``None`` start are skipped (they are not events).
* Every reference returns a sorted list of ``(key, window_start, window_end, count, sum, min,
  max)`` rows, where the aggregates follow Spark: ``count`` counts rows (``count(*)``), ``sum``,
  ``min`` and ``max`` ignore ``None`` values and are ``None`` when every value is ``None``.
"""

from harness import BIGINT_MAX, BIGINT_MIN, sort_rows


class Event:
    __slots__ = ("key", "start", "end", "value", "open")

    def __init__(self, key, start, end, value, open_):
        self.key, self.start, self.end, self.value, self.open = key, start, end, value, open_

    def __repr__(self):
        return (
            f"Event({self.key!r}, {self.start}, {'open' if self.open else self.end}, {self.value})"
        )


def events_of(rows, point=False):
    """The events of the input rows: NULL starts skipped, point events given their one tick."""
    events = []
    for key, start, end, value in rows:
        if start is None:
            continue
        if point:
            events.append(Event(key, start, start + 1, value, False))
        elif end is None:
            events.append(Event(key, start, None, value, True))
        else:
            if end <= start:
                raise ValueError(f"end {end} <= start {start}")
            events.append(Event(key, start, end, value, False))
    return events


def default_horizon(rows, point=False):
    """The latest finite time of the input: the greatest start, or finite end minus one tick.

    Rows with a NULL start are skipped rows, not events, so they do not count. ``None`` when the
    input has no event.
    """
    times = []
    for e in events_of(rows, point):
        times.append(e.start)
        if not e.open:
            times.append(e.end - 1)
    return max(times) if times else None


def aggregate(members):
    """(count, sum, min, max) over the members, the way Spark's count(*), sum, min, max do."""
    values = [m.value for m in members if m.value is not None]
    if not values:
        return (len(members), None, None, None)
    return (len(members), sum(values), min(values), max(values))


def by_key(events):
    groups = {}
    for e in events:
        groups.setdefault(e.key, []).append(e)
    return groups


# ----------------------------------------------------------------------------------------------
# Hopping and tumbling windows, per-window output ('window' and 'point')


def window_bounds(n, size, hop, alignment):
    """Window n of the hopping windows: [a + n*hop, a + n*hop + size)."""
    start = alignment + n * hop
    return start, start + size


def candidate_windows(lo, hi, size, hop, alignment):
    """A superset of the indices n of the windows that can intersect [lo, hi).

    Window n intersects [lo, hi) iff a + n*hop < hi and a + n*hop + size > lo, i.e.
    (lo - size - a)/hop < n < (hi - a)/hop.
    """
    return range((lo - size - alignment) // hop, (hi - alignment) // hop + 2)


def intersects(event_start, event_end, window_start, window_end):
    return event_start < window_end and event_end > window_start


def hopping_window(
    rows,
    size,
    hop,
    alignment=0,
    output="window",
    horizon=None,
    point=False,
    line_max=BIGINT_MAX,
    line_min=BIGINT_MIN,
):
    """hopping_window(start[, end], size, hop, alignment, output[, horizon]) grouped by key.

    'window': a row per non-empty window, lifetime = the window. 'point': a row per non-empty
    window, lifetime = [window end, window end + 1). Open-ended events last through the horizon
    tick (and at least their own start tick): end = max(horizon, start) + 1. 'changes' delegates to
    :func:`hopping_changes`. Windows reaching past an end of the time line ``[line_min,
    line_max]`` are clipped there and keep their events.
    """
    assert size > 0 and hop > 0
    if output == "changes":
        return hopping_changes(
            rows, size, hop, alignment, point=point, line_max=line_max, line_min=line_min
        )
    assert output in ("window", "point")
    if horizon is None:
        horizon = default_horizon(rows, point)
    lifetimes = []
    for e in events_of(rows, point):
        end = max(horizon, e.start) + 1 if e.open else e.end
        lifetimes.append((e.key, e.start, end, e))
    out = []
    for key in {lt[0] for lt in lifetimes}:
        mine = [(s, t, e) for k, s, t, e in lifetimes if k == key]
        lo = min(s for s, _, _ in mine)
        hi = max(t for _, t, _ in mine)
        for n in candidate_windows(lo, hi, size, hop, alignment):
            ws, we = window_bounds(n, size, hop, alignment)
            members = [e for s, t, e in mine if intersects(s, t, ws, we)]
            if not members:
                continue
            life = (ws, we) if output == "window" else (we, we + 1)
            life = tuple(min(max(t, line_min), line_max) for t in life)
            out.append((key,) + life + aggregate(members))
    return sort_rows(out)


def tumbling_window(
    rows,
    size,
    alignment=0,
    output="window",
    horizon=None,
    point=False,
    line_max=BIGINT_MAX,
    line_min=BIGINT_MIN,
):
    """tumbling_window = hopping_window with hop = size."""
    return hopping_window(rows, size, size, alignment, output, horizon, point, line_max, line_min)


# ----------------------------------------------------------------------------------------------
# Hopping windows, 'changes' output (the "Taming Hopping Windows" post): snapped lifetimes, then
# a snapshot window


def snapped_start(t, size, hop, alignment):
    """The end of the earliest window that contains time t (found by testing windows)."""
    containing = [
        n
        for n in candidate_windows(t, t + 1, size, hop, alignment)
        if window_bounds(n, size, hop, alignment)[0]
        <= t
        < window_bounds(n, size, hop, alignment)[1]
    ]
    assert containing, "hop <= size: every time lies in some window"
    return window_bounds(min(containing), size, hop, alignment)[1]


def snapped_end(t, size, hop, alignment):
    """One hop past the end of the latest window that starts before t (t an exclusive end)."""
    starting_before = [
        n
        for n in candidate_windows(t - 1, t, size, hop, alignment)
        if window_bounds(n, size, hop, alignment)[0] < t
    ]
    n = max(starting_before)
    # The candidates must reach past the latest window starting before t.
    assert window_bounds(n + 1, size, hop, alignment)[0] >= t
    return window_bounds(n, size, hop, alignment)[1] + hop


def snapped_rows(rows, size, hop, alignment, point=False, line_max=BIGINT_MAX, line_min=BIGINT_MIN):
    """The input rows with their lifetimes snapped as the post's SnapToWindowIntervals, then
    clipped to the time line; a row whose snapped lifetime lies past its end is left out."""
    out = []
    for key, start, end, value in rows:
        if start is None:
            continue
        if point:
            end = start + 1
        s2 = snapped_start(start, size, hop, alignment)
        e2 = line_max if end is None else snapped_end(end, size, hop, alignment)
        s2, e2 = (min(max(t, line_min), line_max) for t in (s2, e2))
        if s2 >= e2:
            continue
        out.append((key, s2, e2, value))
    return out


def hopping_changes(
    rows, size, hop, alignment=0, point=False, line_max=BIGINT_MAX, line_min=BIGINT_MIN
):
    """hopping_window(..., 'changes'): needs hop <= size; open-ended events last to the end of time."""
    assert 0 < hop <= size
    return snapshot_window(
        snapped_rows(rows, size, hop, alignment, point, line_max, line_min), line_max=line_max
    )


def tumbling_changes(rows, size, alignment=0, point=False, line_max=BIGINT_MAX):
    return hopping_changes(rows, size, size, alignment, point, line_max)


def changes_from_window_sets(rows, size, hop, alignment, point=False, line_max=BIGINT_MAX):
    """A second, independent derivation of 'changes', used to check the reference itself.

    Enumerates the hopping windows, computes each window's set of events (by identity; open-ended
    events belong to every window from their first one on), and merges runs of consecutive windows
    holding the same non-empty set into one row [end of first window, end of last window + hop);
    the run that never ends (open-ended events only) lasts to the end of time.
    """
    assert 0 < hop <= size
    out = []
    for key, group in by_key(events_of(rows, point)).items():
        lo = min(e.start for e in group)
        finite = [e.end for e in group if not e.open]
        # Beyond `last`, every window holds exactly the open-ended events.
        last = max([e.start + 1 for e in group] + finite) + size + 2 * hop
        runs = []  # [indices of the events, first window end, last window end]
        for n in candidate_windows(lo, last, size, hop, alignment):
            ws, we = window_bounds(n, size, hop, alignment)
            members = frozenset(
                i for i, e in enumerate(group) if e.start < we and (e.open or e.end > ws)
            )
            if runs and members == runs[-1][0]:
                runs[-1][2] = we
            else:
                runs.append([members, we, we])
        for i, (members, first_end, last_end) in enumerate(runs):
            if not members:
                continue
            forever = i == len(runs) - 1  # the last run holds the open-ended events only
            end = line_max if forever else last_end + hop
            out.append((key, first_end, end) + aggregate([group[j] for j in members]))
    return sort_rows(out)


def expand_changes(changes_rows, hop, size, max_window_start):
    """Expands 'changes' rows into 'point' rows: a row [S, E) stands for the windows ending at
    S, S + hop, ... < E; only windows starting at or before ``max_window_start`` are produced.
    """
    out = []
    for key, s, e, *aggs in changes_rows:
        w = s
        while w < e and w - size <= max_window_start:
            out.append((key, w, w + 1, *aggs))
            w += hop
    return sort_rows(out)


# ----------------------------------------------------------------------------------------------
# Snapshot windows


def snapshot_window(rows, point=False, line_max=BIGINT_MAX):
    """snapshot_window(start[, end]) grouped by key.

    Per key, the windows are the intervals between consecutive distinct endpoints (starts and
    ends) of its events; a row for each interval in which at least one event is active.
    Open-ended events last to the end of time.
    """
    events = events_of(rows, point)
    out = []
    for key, group in by_key(events).items():
        lifetimes = [(e, e.start, line_max if e.open else e.end) for e in group]
        points = sorted({t for _, s, e in lifetimes for t in (s, e)})
        for p, q in zip(points, points[1:]):
            members = [e for e, s, t in lifetimes if s <= p and t >= q]
            if members:
                out.append((key, p, q) + aggregate(members))
    return sort_rows(out)
