"""A brute-force, pure-Python reference for event sessions (issue 22): the SQL window function
``event_session_window(start[, end], gap[, max_duration[, output]])``, Trill's session windows
over events with lifetimes, and their 'changes' output (Trill's progressive results).

Written from the settled surface of the function (not from the Scala code), to be obviously right
rather than fast: sessions are formed by one pass over a key's events in start order, pieces are
enumerated one after the other, every event is tested against every piece, and 'changes' is
computed literally as a snapshot window over the extended and clipped lifetimes.

Semantics (per key)
-------------------
* An event's lifetime is ``[s, e)``; a point event (no end column) is ``[t, t + 1)``; a ``None``
  end is an open-ended event, which lasts to the end of the line. Rows with a ``None`` start are
  skipped; an empty lifetime (``e == s``) is in no session; ``e < s`` is an error.
* Events sorted by start form sessions ``[S, E)``: S = the first event's start; every event keeps
  its session open until ``e - 1 tick + gap`` (saturated at the end of the line ``line_max``; an
  open-ended event: ``line_max``); E = the greatest of these over the session's events. An event
  with ``s <= E`` (the current session's E) joins, else it starts a new session. For points:
  ``E = t_last + gap``, as Spark's ``session_window(t, gap)``.
* ``max_duration`` D cuts a session into pieces ``[S + jD, min(S + (j + 1)D, E))``; an event
  belongs to every piece its lifetime intersects; a piece without events gives no row.
* 'window': a row per session (or piece), its lifetime the session (piece), aggregates over its
  events.
* 'changes': in each session (piece), every event's lifetime is extended to the session's
  (piece's) end and clipped to the piece; a snapshot window over those lifetimes gives the rows:
  the intervals between consecutive distinct endpoints in which at least one of them is active.

Conventions
-----------
* An input row is ``(key, start, end, value_0, value_1, ...)`` (at least one value). ``key`` is
  any hashable value (``None`` allowed); times and values are Python ints (values may also be
  floats) or ``None``. Times are ticks: BIGINT ticks, or microseconds for TIMESTAMP and
  TIMESTAMP_NTZ (``line_max`` then is ``harness.TIMESTAMP_MAX``).
* :func:`event_session_window` returns a sorted list of ``(key, start, end, count, sum, min, max)``
  rows, the aggregates over value 0 as Spark's ``count(*)``, ``sum``, ``min``, ``max``.
* :func:`session_windows` returns the rows of output 'window' as :class:`reference.clipped.Window`
  objects (key, lifetime, extent = the session or piece, members with their lifetimes clipped to
  it), so that the summaries of ``reference.clipped`` give what ``clipped_start()``,
  ``clipped_end()`` and ``time_weighted_*`` give under 'window'.
"""

from harness import BIGINT_MAX, sort_key, sort_rows
from reference import clipped

MAX_PIECES = 100_000
"""More pieces than this in one session is a mistake of the caller (say an open-ended event far
from the end of the line with a short max_duration): the reference refuses to enumerate them."""


def events_of(rows, point=False, line_max=BIGINT_MAX):
    """The events of the rows, as ``reference.clipped.Event``: ``None`` starts and empty lifetimes
    skipped, point events given their one tick, open-ended events ended at ``line_max`` (their
    ``open`` flag set)."""
    events = []
    for row in rows:
        key, start, end, *values = row
        if start is None:
            continue
        if point:
            assert start < line_max, "a point at the last instant of the line is not supported"
            events.append(clipped.Event(key, start, start + 1, tuple(values), False, row))
        elif end is None:
            assert start < line_max, "an open-ended event at the last instant is not supported"
            events.append(clipped.Event(key, start, line_max, tuple(values), True, row))
        elif end < start:
            raise ValueError(f"the row {row} has end {end} < start {start}")
        elif end > start:
            assert end <= line_max, row
            events.append(clipped.Event(key, start, end, tuple(values), False, row))
        # end == start: an empty lifetime, in no session
    return events


def keeps_open_until(event, gap, line_max):
    """The time until which the event keeps its session open: e - 1 tick + gap, saturated at the
    end of the line; an open-ended event: the end of the line."""
    if event.open:
        return line_max
    return min(event.end - 1 + gap, line_max)


def sessions(events, gap, line_max=BIGINT_MAX):
    """The sessions of one key's events: a list of ``(S, E, events)``."""
    out = []
    for event in sorted(events, key=lambda e: e.start):
        if out and event.start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], keeps_open_until(event, gap, line_max))
            out[-1][2].append(event)
        else:
            out.append([event.start, keeps_open_until(event, gap, line_max), [event]])
    return [tuple(s) for s in out]


def pieces(session_start, session_end, max_duration=None):
    """The pieces [S + jD, min(S + (j + 1)D, E)) of the session [S, E); the session itself
    without max_duration."""
    if max_duration is None:
        return [(session_start, session_end)]
    assert (session_end - session_start) // max_duration < MAX_PIECES, (
        f"[{session_start}, {session_end}) has too many pieces of {max_duration}"
    )
    out = []
    a = session_start
    while a < session_end:
        out.append((a, min(a + max_duration, session_end)))
        a += max_duration
    return out


def _by_key(events):
    groups = {}
    for e in events:
        groups.setdefault(e.key, []).append(e)
    return groups


def _check(gap, max_duration):
    assert gap > 0, gap
    assert max_duration is None or max_duration >= gap, (gap, max_duration)


def session_windows(rows, gap, max_duration=None, point=False, line_max=BIGINT_MAX):
    """The rows of output 'window' as ``reference.clipped.Window`` objects (see the module
    docstring), sorted by key and time."""
    _check(gap, max_duration)
    out = []
    for key, group in _by_key(events_of(rows, point, line_max)).items():
        for session_start, session_end, members in sessions(group, gap, line_max):
            for a, b in pieces(session_start, session_end, max_duration):
                inside = [
                    clipped.Member(e, max(e.start, a), min(e.end, b))
                    for e in members
                    if e.start < b and e.end > a
                ]
                if inside:
                    out.append(clipped.Window(key, a, b, (a, b), inside))
    return sorted(out, key=lambda w: sort_key((w.key, w.start, w.end)))


def aggregate(events):
    """(count, sum, min, max) over value 0 of the events, as Spark's count(*), sum, min, max."""
    values = [e.values[0] for e in events if e.values[0] is not None]
    if not values:
        return (len(events), None, None, None)
    return (len(events), sum(values), min(values), max(values))


def snapshot(lifetimes):
    """A snapshot window over ``(event, start, end)`` lifetimes: ``(p, q, events active in
    [p, q))`` for the intervals between consecutive distinct endpoints with at least one event
    active."""
    points = sorted({t for _, s, e in lifetimes for t in (s, e)})
    out = []
    for p, q in zip(points, points[1:]):
        active = [ev for ev, s, e in lifetimes if s <= p and e >= q]
        if active:
            out.append((p, q, active))
    return out


def changes(window):
    """The 'changes' rows of one session or piece (a ``reference.clipped.Window``): every
    member's lifetime extended to the piece's end, clipped to the piece, then a snapshot."""
    a, b = window.extent
    extended = [(m.event, max(m.event.start, a), b) for m in window.members]
    return snapshot(extended)


def event_session_window(
    rows, gap, max_duration=None, output="window", point=False, line_max=BIGINT_MAX
):
    """event_session_window(start[, end], gap[, max_duration[, output]]) grouped by key; see the
    module docstring. ``max_duration=None`` is no maximum."""
    assert output in ("window", "changes"), output
    out = []
    for w in session_windows(rows, gap, max_duration, point, line_max):
        if output == "window":
            out.append((w.key, w.start, w.end) + aggregate([m.event for m in w.members]))
        else:
            for p, q, active in changes(w):
                out.append((w.key, p, q) + aggregate(active))
    return sort_rows(out)


def changes_by_running_aggregate(rows, gap, max_duration=None, point=False, line_max=BIGINT_MAX):
    """A second derivation of 'changes', to check the reference itself: in each piece [a, b) the
    members' clipped starts c_1 < ... < c_m (distinct) give the rows [c_i, c_{i+1}) and [c_m, b),
    each over the members whose clipped start is at most c_i (a running aggregate)."""
    out = []
    for w in session_windows(rows, gap, max_duration, point, line_max):
        starts = sorted({m.start for m in w.members})
        for i, c in enumerate(starts):
            nxt = starts[i + 1] if i + 1 < len(starts) else w.end
            out.append((w.key, c, nxt) + aggregate([m.event for m in w.members if m.start <= c]))
    return sort_rows(out)
