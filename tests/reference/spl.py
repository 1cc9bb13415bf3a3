"""A brute-force, pure-Python reference for IBM Streams SPL sliding windows (SPEC.md 3.5):
the SQL window function ``sliding_window(order, eviction[, trigger])``; and for SPL tumbling
windows (issue 22), ``spl_tumbling_window(order, eviction[, flush_at_end])``, at the end of the
module (:func:`tumbling_window`), with the same conventions and the policy ``("punct", column)``.

Written from the semantics of the brief and the SPEC (not from the Scala code), to be obviously
right rather than fast: the window is a plain list in arrival order, and the clock of time policies
is simulated literally, one arrival (and one time-trigger instant) after the other.

Conventions
-----------
* An input row is a dict with the keys ``key`` (any hashable, ``None`` allowed), ``order`` (a
  Python int: BIGINT ticks, or microseconds for TIMESTAMP order; ``None`` rows are skipped),
  ``v`` (the aggregated value, an int or ``None``) and any attributes delta policies read (ints,
  ``decimal.Decimal`` or floats; timestamps as microseconds).
* A policy is a tuple: ``("count", n)``, ``("time", t)`` (t in ticks: microseconds for TIMESTAMP
  order) or ``("delta", attribute, d)`` (d in the attribute's unit; an int, Decimal or float).
  Delta differences are computed with Python arithmetic on the values given, so ints and Decimals
  compare exactly and floats in doubles, as Spark does for integer/DECIMAL and DOUBLE attributes.
* Within a key, tuples arrive in ``order``; ties are ordered by ``v`` ascending, ``None`` first
  (the values the aggregates read). Callers that aggregate other columns or whose delta attributes
  differ between tied rows with the same ``v`` must avoid ties.
* Every firing over a non-empty window gives a row
  ``(key, start, end, first, last, count, sum, min, max, values)``: start = the firing time,
  end = start + ``tick``, first/last = the order values of the window's oldest/newest tuple (by
  arrival), count = the number of tuples (``count(*)``), sum/min/max over the non-NULL ``v``
  (``None`` if there are none), values = the non-NULL ``v`` in arrival order (``collect_list``).
  The result is sorted (see :func:`sort_rows`).
"""

from decimal import Decimal

from harness import sort_rows


def parse_policy(text, number=Decimal):
    """A policy's text for BIGINT order: 'count(3)' -> ('count', 3); 'time(5)' -> ('time', 5);
    'delta(a, 1.5)' -> ('delta', 'a', number('1.5')) (Decimal for integer and DECIMAL attributes,
    float for DOUBLE ones). Time policies of TIMESTAMP order are written out as tuples instead."""
    name, _, rest = text.strip().partition("(")
    args = [a.strip() for a in rest.rstrip(")").split(",")]
    if name == "count":
        return ("count", int(args[0]))
    if name == "time":
        return ("time", int(args[0]))
    if name == "delta":
        return ("delta", args[0], number(args[1]))
    raise ValueError(text)


def arrival_order(rows):
    """The tuples of one key in arrival order: NULL orders skipped, ties by v (None first)."""
    present = [r for r in rows if r["order"] is not None]
    return sorted(present, key=lambda r: (r["order"], r["v"] is not None, r["v"] or 0))


def output_row(key, at, window, tick):
    """The row of a firing at ``at`` over the (non-empty) window."""
    values = [w["v"] for w in window if w["v"] is not None]
    return (
        key,
        at,
        at + tick,
        window[0]["order"],
        window[-1]["order"],
        len(window),
        sum(values) if values else None,
        min(values) if values else None,
        max(values) if values else None,
        values,
    )


def firings(tuples, eviction, trigger):
    """The firings of one key's tuples (already in arrival order) as ``(time, window)`` pairs,
    ``window`` a copy of the window's tuples in arrival order; firings over an empty window are
    left out. Simulated literally, one arrival (and one time-trigger instant) after the other."""
    out = []
    window = []

    def fire(at):
        if window:
            out.append((at, list(window)))

    def time_evict(now):
        # Tuples that have been in the window for more than t: order < now - t.
        if eviction[0] == "time":
            window[:] = [w for w in window if not w["order"] < now - eviction[1]]

    first = None  # the key's first arrival (time trigger)
    next_instant = None  # the time trigger's next instant not yet fired
    reference = None  # the delta trigger's reference tuple
    arrivals = 0
    for x in tuples:
        now = x["order"]
        # 1. A time trigger fires at its instants before now, each after time eviction there.
        if trigger[0] == "time":
            if first is None:
                first = now
                next_instant = first + trigger[1]
            while next_instant < now:
                time_evict(next_instant)
                fire(next_instant)
                next_instant += trigger[1]
        # 2. A delta trigger looks at the window before x; x becomes the reference.
        if trigger[0] == "delta":
            attr, d = trigger[1], trigger[2]
            if reference is None:
                reference = x
            elif x[attr] - reference[attr] > d:
                fire(now)
                reference = x
        # 3. Eviction.
        if eviction[0] == "count":
            while len(window) >= eviction[1]:
                window.pop(0)
        elif eviction[0] == "time":
            time_evict(now)
        elif eviction[0] == "delta":
            attr, d = eviction[1], eviction[2]
            window[:] = [w for w in window if not x[attr] - w[attr] > d]
        else:
            raise ValueError(eviction)
        # 4. Insertion.
        window.append(x)
        arrivals += 1
        # 5. A count trigger fires on every n-th arrival.
        if trigger[0] == "count" and arrivals % trigger[1] == 0:
            fire(now)
    # The end of the key: a time trigger's remaining instants up to the last arrival.
    if trigger[0] == "time" and tuples:
        last = tuples[-1]["order"]
        while next_instant <= last:
            time_evict(next_instant)
            fire(next_instant)
            next_instant += trigger[1]
    return out


def sliding_window(rows, eviction, trigger=("count", 1), tick=1):
    """sliding_window(order, eviction[, trigger]) grouped by key; see the module docstring."""
    for policy in (eviction, trigger):
        assert policy[0] in ("count", "time", "delta"), policy
        assert policy[0] != "count" or policy[1] >= 1, policy
        assert policy[0] != "delta" or policy[2] >= 0, policy
    assert eviction[0] != "time" or eviction[1] >= 0, eviction
    assert trigger[0] != "time" or trigger[1] > 0, trigger
    groups = {}
    for r in rows:
        groups.setdefault(r["key"], []).append(r)
    out = []
    for key, group in groups.items():
        for at, window in firings(arrival_order(group), eviction, trigger):
            out.append(output_row(key, at, window, tick))
    return sort_rows(out)


# ----------------------------------------------------------------------------------------------
# SPL tumbling windows (issue 22): spl_tumbling_window(order, eviction[, flush_at_end])
#
# A tumbling window is flushed (a row over its tuples, if any) and emptied as its eviction policy
# says; it never slides. Input rows, arrival order and output rows are as for sliding_window
# above: a flush at ``at`` over a non-empty window gives :func:`output_row` (start = the flush
# time, end = start + tick, first/last = the order of the oldest/newest tuple). Policies:
#
# * ``("count", n)`` (n >= 1): insert, then flush once n tuples are held (at that tuple's order);
# * ``("time", t)`` (t > 0): first = the key's first arrival, instants first + k*t (k >= 1); a
#   tuple at or past an instant flushes the window at that instant before it is inserted; later
#   instants up to the tuple find the window empty (no row);
# * ``("delta", attribute, d)`` (d >= 0): a tuple whose attribute exceeds the OLDEST held tuple's
#   by more than d flushes the window first (at the new tuple's order); the new tuple starts the
#   next window;
# * ``("punct", column)``: a tuple whose BOOLEAN ``column`` is True is inserted, then the window
#   is flushed (at its order); ``None`` there is an error naming the row.
#
# flush_at_end: the window still open at the key's end is flushed at its last tuple's order.


def parse_tumbling_policy(text, number=Decimal):
    """A tumbling eviction policy's text: as :func:`parse_policy`, and 'punct(p)' ->
    ('punct', 'p')."""
    name, _, rest = text.strip().partition("(")
    if name == "punct":
        return ("punct", rest.rstrip(")").strip())
    return parse_policy(text, number)


def tumbling_flushes(tuples, eviction, flush_at_end=False):
    """The flushes of one key's tuples (already in arrival order) as ``(time, window)`` pairs,
    ``window`` the flushed tuples in arrival order; flushes of an empty window are left out.
    Simulated literally, one arrival after the other."""
    out = []
    window = []

    def flush(at):
        if window:
            out.append((at, list(window)))
        window.clear()

    kind = eviction[0]
    first = None  # time(t): the key's first arrival
    instant = None  # time(t): the next instant first + k*t not yet passed
    for x in tuples:
        now = x["order"]
        # Before the insertion: a time instant reached, or a delta exceeded.
        if kind == "time":
            t = eviction[1]
            if first is None:
                first, instant = now, now + t
            if now >= instant:
                flush(instant)
                # The later instants up to now find the window empty: no rows. Skip them all
                # (one by one they may be too many): the next instant is the first after now.
                instant = first + ((now - first) // t + 1) * t
        elif kind == "delta":
            attr, d = eviction[1], eviction[2]
            if x[attr] is None:
                raise ValueError(f"{eviction} is NULL in the row {x}")
            if window and x[attr] - window[0][attr] > d:
                flush(now)
        elif kind == "punct":
            if x[eviction[1]] is None:
                raise ValueError(f"{eviction} is NULL in the row {x}")
        window.append(x)
        # After the insertion: a full count window, a punctuation.
        if kind == "count" and len(window) >= eviction[1]:
            flush(now)
        elif kind == "punct" and x[eviction[1]]:
            flush(now)
    if flush_at_end and window:
        flush(window[-1]["order"])
    return out


def tumbling_window(rows, eviction, flush_at_end=False, tick=1):
    """spl_tumbling_window(order, eviction[, flush_at_end]) grouped by key; see above. Returns
    sorted rows ``(key, start, end, first, last, count, sum, min, max, values)``."""
    assert eviction[0] in ("count", "time", "delta", "punct"), eviction
    assert eviction[0] != "count" or eviction[1] >= 1, eviction
    assert eviction[0] != "time" or eviction[1] > 0, eviction
    assert eviction[0] != "delta" or eviction[2] >= 0, eviction
    groups = {}
    for r in rows:
        groups.setdefault(r["key"], []).append(r)
    out = []
    for key, group in groups.items():
        for at, window in tumbling_flushes(arrival_order(group), eviction, flush_at_end):
            out.append(output_row(key, at, window, tick))
    return sort_rows(out)
