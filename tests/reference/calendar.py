"""A brute-force reference for calendar windows, written on Python's zoneinfo (not from the Scala
code): hopping and tumbling windows whose size and hop are calendar steps in a time zone.

A step is ``(months, days, micros)``. Window n is ``[start_n, start_n + size)`` with
``start_n = alignment + n*hop``, every ``+`` on the zone's local clock (naive local times): the
months (a day the month lacks becomes its last day), then the days, then the microseconds; when
the hop has months, those of the hops and of the size are counted from the alignment together
(so months aligned on the 31st end on the 31st, where the next starts). A local boundary is then the first instant at which the zone's clock reads
it or later: the earlier instant of one it reads twice (``fold=0``, PEP 495), and for one it skips
the instant it jumps past it (found by bisection). Times are microseconds since the epoch, rows as
in :mod:`reference.streaminsight`.
"""

import calendar
import datetime
import functools
from zoneinfo import ZoneInfo

from harness import TIMESTAMP_MAX, sort_rows
from reference.streaminsight import aggregate, by_key, default_horizon, events_of, intersects

EPOCH = datetime.datetime(1970, 1, 1)
UTC = datetime.timezone.utc


def plus_months(local, months):
    """The local time `months` later, on the month's last day if it lacks the day."""
    month = local.month - 1 + months
    year, month = local.year + month // 12, month % 12 + 1
    day = min(local.day, calendar.monthrange(year, month)[1])
    return local.replace(year=year, month=month, day=day)


def local_micros(local):
    """Microseconds of a naive local time since 1970-01-01 00:00."""
    delta = local - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def local_time(micros):
    return EPOCH + datetime.timedelta(microseconds=micros)


def epoch_micros(instant):
    delta = instant - datetime.datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def clock(micros, zone):
    """The naive local time `zone`'s clock reads at `micros` since the epoch."""
    instant = datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=micros)
    return instant.astimezone(ZoneInfo(zone)).replace(tzinfo=None)


def first_reading(local, zone):
    """The first instant (micros) at which `zone`'s clock reads `local` or later."""
    first = epoch_micros(local.replace(tzinfo=ZoneInfo(zone), fold=0))
    if clock(first, zone) == local:
        return first
    # Skipped: fold=1 reads it with the offset after the jump, an instant before the jump.
    low, high = epoch_micros(local.replace(tzinfo=ZoneInfo(zone), fold=1)), first
    while high - low > 1:
        middle = (low + high) // 2
        if clock(middle, zone) >= local:
            high = middle
        else:
            low = middle
    return high


@functools.lru_cache(maxsize=1 << 16)  # windows_touching asks for each window several times
def boundary(n, size, hop, alignment, zone):
    """`start_n + size` in microseconds since the epoch; `alignment` local micros."""
    if hop[0]:  # the months of the hops and of the size counted from the alignment first
        local = plus_months(local_time(alignment), n * hop[0] + size[0])
        local += datetime.timedelta(days=n * hop[1], microseconds=n * hop[2])
    else:  # the start, a fixed stretch of the local clock from the alignment, plus the size
        start = local_time(alignment) + datetime.timedelta(days=n * hop[1], microseconds=n * hop[2])
        local = plus_months(start, size[0])
    local += datetime.timedelta(days=size[1], microseconds=size[2])
    return first_reading(local, zone)


def window(n, size, hop, alignment, zone):
    return (boundary(n, (0, 0, 0), hop, alignment, zone), boundary(n, size, hop, alignment, zone))


def average(step):
    return step[0] * 30.436875 * 86400e6 + step[1] * 86400e6 + step[2]


def windows_touching(lo, hi, size, hop, alignment, zone):
    """The numbers of every window that intersects [lo, hi), found by walking from a guess."""
    n = int((lo - average(size) - alignment) // average(hop)) - 3
    while window(n, size, hop, alignment, zone)[1] > lo:
        n -= 1
    found = []
    while window(n, size, hop, alignment, zone)[0] < hi:
        ws, we = window(n, size, hop, alignment, zone)
        if intersects(lo, hi, ws, we):
            found.append(n)
        n += 1
    return found


def calendar_window(rows, size, hop, alignment, zone, output="window", horizon=None, point=False):
    """hopping_window(..., size, hop, alignment, output, horizon, time_zone) grouped by key:
    'window' and 'point' as :func:`reference.streaminsight.hopping_window`; 'changes' merges runs
    of consecutive windows holding the same events into one row from the end of the first to the
    end of the window after the last (open-ended events last to the end of time there), unless
    both are one instant."""
    if output == "changes":
        return calendar_changes(rows, size, hop, alignment, zone, point)
    if horizon is None:
        horizon = default_horizon(rows, point)
    out = []
    for key, group in by_key(events_of(rows, point)).items():
        members = {}
        for e in group:
            end = max(horizon, e.start) + 1 if e.open else e.end
            for n in windows_touching(e.start, end, size, hop, alignment, zone):
                members.setdefault(n, []).append(e)
        for n, events in members.items():
            ws, we = window(n, size, hop, alignment, zone)
            life = (ws, we) if output == "window" else (we, we + 1)
            out.append((key,) + life + aggregate(events))
    return sort_rows(out)


def calendar_changes(rows, size, hop, alignment, zone, point=False, line_max=TIMESTAMP_MAX):
    """'changes' from each window's set of events, by walking the windows in order."""
    out = []
    for key, group in by_key(events_of(rows, point)).items():
        lo = min(e.start for e in group)
        hi = max([e.start + 1 for e in group] + [e.end for e in group if not e.open])
        numbers = windows_touching(lo, hi, size, hop, alignment, zone)
        runs = []  # [members, first window, last window]
        for n in range(numbers[0], numbers[-1] + 2):
            ws, we = window(n, size, hop, alignment, zone)
            members = frozenset(
                i for i, e in enumerate(group) if e.start < we and (e.open or e.end > ws)
            )
            if runs and members == runs[-1][0]:
                runs[-1][2] = n
            else:
                runs.append([members, n, n])
        for i, (members, first, last) in enumerate(runs):
            if not members:
                continue
            forever = i == len(runs) - 1 and any(group[j].open for j in members)
            start = window(first, size, hop, alignment, zone)[1]
            end = line_max if forever else window(last + 1, size, hop, alignment, zone)[1]
            if start == end:
                # Windows can share an end (a month from Mar 30 and from Mar 31 both end on
                # Apr 30): the later window's events hold from that end, this run for no time.
                continue
            out.append((key, start, end) + aggregate([group[j] for j in members]))
    return sort_rows(out)
