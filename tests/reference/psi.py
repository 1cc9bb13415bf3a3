"""A brute-force, pure-Python reference for count windows (StreamInsight, SPEC 3.3) and
\\psi's windows by message index and by relative time (SPEC 3.4).

Written from the contract of the functions and the SPEC (not from the Scala code), to be obviously
right rather than fast: every window is enumerated and its members found by testing every event.

Conventions (as in streaminsight.py)
--------------------------------
* Times are ticks (Python ints): BIGINT ticks, or microseconds for TIMESTAMP. ``key`` is any
  hashable value (``None`` allowed); values are ints or ``None``.
* Count windows take rows ``(key, start, end, value)``; ``point=True`` means the query has no end
  column (every event lasts ``[start, start + 1)``). A ``None`` start is skipped; a ``None`` end is
  open-ended (to the end of time); ``end < start`` is an error; ``end == start`` is an empty
  lifetime: in no window, and its start is no start time. Lifetimes are clipped to the time line
  (``line_max``), so a point event or an open-ended event starting at the end of time is empty.
* \\psi windows take messages ``(key, time, value)`` or ``(key, time, order, value)``; a ``None``
  time is skipped. A message at the end of time is still a message (its row's ``end`` is clipped
  to ``line_max``); windows by relative time are computed exactly (``t + lo`` is not saturated),
  as the messages with time in the interval.
* Every reference returns a sorted list of ``(key, window fields..., count, sum, min, max,
  values)``: Spark's ``count(*)``, ``sum``, ``min``, ``max`` (``None`` over no or only ``None``
  values) and ``collect_list(value)`` as a tuple (``None`` values left out, as Spark does),
  the values in the order the window operator feeds them: by time, then (index windows) by the
  order column, then by value, ``None`` first (the documented tie rule).
"""

from harness import BIGINT_MAX, sort_rows

BOUNDS = ("[]", "[)", "(]", "()")


def _none_first(x):
    return (0, 0) if x is None else (1, x)


def aggregate(values):
    """(count, sum, min, max, collect_list) over the values of a window, already in feed order."""
    present = [v for v in values if v is not None]
    if not present:
        return (len(values), None, None, None, ())
    return (len(values), sum(present), min(present), max(present), tuple(present))


def _by_key(items):
    groups = {}
    for item in items:
        groups.setdefault(item[0], []).append(item)
    return groups


# ----------------------------------------------------------------------------------------------
# Count windows


def count_window(rows, n, output="point", point=False, line_max=BIGINT_MAX):
    """count_window(start[, end], n[, output]) grouped by key.

    Per key, with s_1 < ... < s_m the distinct start times of its (non-empty) events, window k
    (n <= k <= m) is W_k = [s_{k-n+1}, s_k + 1) and holds every event with start <= s_k and
    end > s_{k-n+1} (open-ended: end = +infinity). Output rows
    ``(key, start, end, first, last, count, sum, min, max, values)``: 'point' -> [s_k, s_k + 1),
    'window' -> [s_{k-n+1}, s_k + 1); first = s_{k-n+1}, last = s_k.
    """
    assert n >= 1 and output in ("point", "window")
    events = []  # (key, start, end or None for open-ended, value)
    for key, start, end, value in rows:
        if start is None:
            continue
        if point:
            end = min(start + 1, line_max)  # clipped to the time line
        elif end is not None and end < start:
            raise ValueError(f"end {end} < start {start}")
        if (line_max if end is None else end) == start:
            continue  # an empty lifetime: in no window, not a start time
        events.append((key, start, end, value))
    out = []
    for key, group in _by_key(events).items():
        starts = sorted({e[1] for e in group})
        for k in range(n - 1, len(starts)):
            first, last = starts[k - n + 1], starts[k]
            members = [e for e in group if e[1] <= last and (e[2] is None or e[2] > first)]
            members.sort(key=lambda e: (e[1], _none_first(e[3])))  # time order, ties by value
            lifetime = (
                (last, min(last + 1, line_max))
                if output == "point"
                else (first, min(last + 1, line_max))
            )
            out.append((key,) + lifetime + (first, last) + aggregate([e[3] for e in members]))
    return sort_rows(out)


# ----------------------------------------------------------------------------------------------
# \psi windows


def _messages(rows):
    """(key, time, order, value) of the messages with a time; rows may lack the order column."""
    out = []
    for row in rows:
        if len(row) == 3:
            key, time, value = row
            order = None
        else:
            key, time, order, value = row
        if time is not None:
            out.append((key, time, order, value))
    return out


def _sorted_messages(group):
    """A key's messages in index order: time, then order, then value, NULLs first."""
    return sorted(group, key=lambda m: (m[1], _none_first(m[2]), _none_first(m[3])))


def index_window(rows, lo, hi, line_max=BIGINT_MAX):
    """index_window(time, lo, hi[, order]) grouped by key; ``lo=None``: no lower end.

    Per key, the messages sorted as :func:`_sorted_messages` get indices 0..m-1; anchor p's window
    holds the messages p + lo .. p + hi (lo None: 0 .. p + hi) and gives a row only when whole:
    first index >= 0 (lo None: p + hi >= 0) and last index <= m - 1. Output rows
    ``(key, start, end, first, last, count, sum, min, max, values)``: [t_p, t_p + 1) and the
    times of the window's first and last messages.
    """
    assert lo is None or lo <= hi
    out = []
    for key, group in _by_key(_messages(rows)).items():
        ms = _sorted_messages(group)
        m = len(ms)
        for p in range(m):
            first = 0 if lo is None else p + lo
            last = p + hi
            if first < 0 or last < 0 or last > m - 1:
                continue
            window = ms[first : last + 1]
            t = ms[p][1]
            out.append(
                (key, t, min(t + 1, line_max), ms[first][1], ms[last][1])
                + aggregate([x[3] for x in window])
            )
    return sort_rows(out)


def contains(t, lo, hi, bounds):
    """Whether time t lies in the interval from lo to hi with the ends `bounds` says."""
    assert bounds in BOUNDS
    low_ok = t >= lo if bounds[0] == "[" else t > lo
    high_ok = t <= hi if bounds[1] == "]" else t < hi
    return low_ok and high_ok


def time_window(rows, lo, hi, bounds="[]", line_max=BIGINT_MAX):
    """time_window(time, lo, hi[, bounds]) grouped by key.

    One row per message (anchor at time t), also for an empty window: the messages of the key
    with time in [t + lo, t + hi], ends per `bounds`. Output rows
    ``(key, start, end, count, sum, min, max, values)`` with [t, t + 1).
    """
    assert lo <= hi
    out = []
    for key, group in _by_key(_messages(rows)).items():
        ms = _sorted_messages(group)
        for anchor in ms:
            t = anchor[1]
            window = [x for x in ms if contains(x[1], t + lo, t + hi, bounds)]
            out.append((key, t, min(t + 1, line_max)) + aggregate([x[3] for x in window]))
    return sort_rows(out)
