"""A brute-force, pure-Python reference for psi's dynamic windows (SPEC.md section 3.4; psi's
Windowing Operators, section 3): ``dynamic_window(anchors, messages, time, start, end, on,
bounds).agg(...)`` and the SQL window function ``anchor_window`` behind it.

Written from the semantics, not from the Scala code, to be obviously right rather than fast: for
every anchor, every message is tested against the anchor's interval.

Semantics
---------
* One output row per anchor row, in no particular order (the reference sorts its rows).
* The row holds the anchor's columns, the anchor's interval as given, and aggregates over the
  messages with an equal key (``None`` keys equal ``None`` keys, as in GROUP BY) whose time lies in
  the interval; also when no message does (count 0, sum/min/max ``None``, collect_list ``[]``).
* ``bounds`` says which ends belong to the interval: ``'[]'`` (both), ``'[)'``, ``'(]'``, ``'()'``.
* Messages with a ``None`` time are skipped.
* An anchor with a ``None`` start or end, or an end before its start, is an error naming the row.
* collect_list(v) is in time order; ties in time are ordered by value ascending (``None`` first;
  collect_list drops ``None`` values anyway).

Conventions
-----------
* A message is ``(key, time, value)``; an anchor is ``(key, start, end, row)`` where ``row`` is the
  tuple of the anchor's columns, carried to the output. ``key`` is any hashable value (a tuple of
  several keys, ``None`` allowed); times are Python ints (BIGINT ticks or TIMESTAMP microseconds);
  values are ints or ``None``.
* :func:`dynamic_window` returns sorted rows ``row + (start, end) + aggregate(members)``, where
  :func:`aggregate` gives ``(count(*), count(v), sum(v), min(v), max(v), collect_list(v))``.
"""

from harness import sort_rows

BOUNDS = ("[]", "[)", "(]", "()")


class AnchorError(ValueError):
    """An anchor the query must reject (NULL start or end, end before start)."""


def contains(time, start, end, bounds="[]"):
    """Whether ``time`` lies in the interval from ``start`` to ``end`` with the given bounds."""
    assert bounds in BOUNDS, bounds
    above = time >= start if bounds[0] == "[" else time > start
    below = time <= end if bounds[1] == "]" else time < end
    return above and below


def _value_order(value):
    return (0, 0) if value is None else (1, value)


def aggregate(members):
    """(count(*), count(v), sum(v), min(v), max(v), collect_list(v)) over ``(time, value)`` pairs,
    the way Spark's aggregates do: NULL values are ignored, count(*) counts them, sum/min/max of no
    value are None, collect_list is in time order with ties by value."""
    ordered = sorted(members, key=lambda m: (m[0], _value_order(m[1])))
    values = [v for _, v in ordered if v is not None]
    if not values:
        return (len(members), 0, None, None, None, [])
    return (len(members), len(values), sum(values), min(values), max(values), values)


def check_anchor(key, start, end, row):
    if start is None or end is None:
        raise AnchorError(f"anchor {row!r} has a NULL start or end")
    if end < start:
        raise AnchorError(f"anchor {row!r} has an end {end} before its start {start}")


def dynamic_window(anchors, messages, bounds="[]", aggregate=aggregate):
    """One row per anchor: ``row + (start, end) + aggregate(members)``, sorted.

    ``members`` are the ``(time, value)`` pairs of the messages with the anchor's key and a time in
    the anchor's interval.
    """
    assert bounds in BOUNDS, bounds
    out = []
    for key, start, end, row in anchors:
        check_anchor(key, start, end, row)
        members = [
            (t, v)
            for k, t, v in messages
            if k == key and t is not None and contains(t, start, end, bounds)
        ]
        out.append(tuple(row) + (start, end) + tuple(aggregate(members)))
    return sort_rows(out)
