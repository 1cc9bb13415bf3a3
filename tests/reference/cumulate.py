"""A brute-force reference for cumulating windows (Flink's CUMULATE), written from the issue's
definition and Flink's documentation (not from the Scala code).

The time line is cut into buckets ``[a + b*size, a + (b+1)*size)``; bucket b has the windows
``[bucket start, min(a + b*size + k*step, bucket end))`` for k = 1, 2, ... as long as the window
before ends before the bucket does. An event belongs to every window its lifetime intersects.
Sizes and steps are ints (ticks: exact durations, size a multiple of step) or calendar steps
``(months, days, micros)`` in a zone, added as :mod:`reference.calendar` adds them. Rows as in
:mod:`reference.streaminsight`.
"""

from harness import BIGINT_MAX, sort_rows
from reference.calendar import average, boundary
from reference.streaminsight import aggregate, by_key, default_horizon, events_of, intersects


class ExactBuckets:
    def __init__(self, step, size, alignment):
        assert size % step == 0
        self.step, self.size, self.alignment = step, size, alignment

    def bucket_of(self, t):
        return (t - self.alignment) // self.size

    def windows(self, b):
        start = self.alignment + b * self.size
        return [(start, start + k * self.step) for k in range(1, self.size // self.step + 1)]


class CalendarBuckets:
    def __init__(self, step, size, alignment, zone):
        self.step, self.size, self.alignment, self.zone = step, size, alignment, zone

    def bound(self, b, k, step):
        plus = tuple(k * part for part in step)
        return boundary(b, plus, self.size, self.alignment, self.zone)

    def bucket_of(self, t):
        b = int((t - self.alignment) // average(self.size)) + 2
        while self.bound(b, 0, self.step) > t:
            b -= 1
        return b

    def windows(self, b):
        start, end = self.bound(b, 0, self.step), self.bound(b, 1, self.size)
        found, k = [], 1
        while not found or found[-1][1] < end:
            found.append((start, min(self.bound(b, k, self.step), end)))
            k += 1
        return found


def numbered_windows(buckets, lo, hi, extra=0):
    """The windows of every bucket from lo's to (hi - 1)'s, and `extra` buckets more, in order."""
    out = []
    for b in range(buckets.bucket_of(lo), buckets.bucket_of(hi - 1) + 1 + extra):
        out.extend(buckets.windows(b))
    return out


def cumulate_window(rows, buckets, output="window", horizon=None, point=False, line_max=BIGINT_MAX):
    """cumulate_window(start[, end], step, size, ..., output, horizon) grouped by key. 'window':
    a row per non-empty window, its lifetime the window; 'point': [window end, window end + 1);
    open-ended events last through the horizon tick. 'changes': runs of consecutive windows
    holding the same events, one row from the end of the run's first window to the end of the
    window after its last (open-ended events last to the end of time there)."""
    if output == "changes":
        return cumulate_changes(rows, buckets, point, line_max)
    if horizon is None:
        horizon = default_horizon(rows, point)
    out = []
    for key, group in by_key(events_of(rows, point)).items():
        lifetimes = [(e, e.start, max(horizon, e.start) + 1 if e.open else e.end) for e in group]
        lo = min(s for _, s, _ in lifetimes)
        hi = max(t for _, _, t in lifetimes)
        for ws, we in numbered_windows(buckets, lo, hi):
            members = [e for e, s, t in lifetimes if intersects(s, t, ws, we)]
            if members:
                life = (ws, we) if output == "window" else (we, we + 1)
                out.append((key,) + life + aggregate(members))
    return sort_rows(out)


def cumulate_changes(rows, buckets, point=False, line_max=BIGINT_MAX):
    out = []
    for key, group in by_key(events_of(rows, point)).items():
        lo = min(e.start for e in group)
        hi = max([e.start + 1 for e in group] + [e.end for e in group if not e.open])
        windows = numbered_windows(buckets, lo, hi, extra=1)
        runs = []  # [members, first window, last window]
        for i, (ws, we) in enumerate(windows):
            members = frozenset(
                j for j, e in enumerate(group) if e.start < we and (e.open or e.end > ws)
            )
            if runs and members == runs[-1][0]:
                runs[-1][2] = i
            else:
                runs.append([members, i, i])
        for r, (members, first, last) in enumerate(runs):
            if not members:
                continue
            forever = r == len(runs) - 1 and any(group[j].open for j in members)
            end = line_max if forever else windows[last + 1][1]
            out.append((key, windows[first][1], end) + aggregate([group[j] for j in members]))
    return sort_rows(out)
