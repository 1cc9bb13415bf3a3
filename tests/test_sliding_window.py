"""IBM Streams SPL sliding windows (SPEC.md 3.5, the SPL documentation): the SQL window function
``sliding_window(order, eviction[, trigger])``, eviction x trigger in count / time / delta.

* the SPL documentation's examples (count(4), time(5) seen at t + 4 and t + 7,
  delta(temperature, 1.5));
* one hand-worked case per combination (nine), with the working in comments;
* the order of work on one arrival (time-trigger instants first, a delta trigger on the window
  before the tuple, eviction, insertion, a count trigger), strict delta comparisons, time-trigger
  instants where no tuple arrives, ties;
* a randomized comparison with the brute-force reference (tests/reference/spl.py) for all nine
  combinations, over BIGINT, TIMESTAMP and TIMESTAMP_NTZ order and integer, DECIMAL and DOUBLE
  delta attributes;
* bad input;
* test_order_at_the_end_of_time: a disagreement with the semantics, failing on purpose (see its
  docstring).

Every hand-worked case is checked against the reference too, so the reference is known to agree
with the hand working. Random cases run batched: each case has its own id ``c``, grouped by next
to the case's key ``k`` (which may be NULL), and the parameter sets of one combination run as one
query (UNION ALL, a column ``p`` naming the parameter set).

Ties of order are ordered by the values the aggregates read (here ``v``), NULLs first; the random
generator makes the ``v`` of tied rows distinct, so arrival order is fully determined.
"""

import random
from decimal import Decimal

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from harness import (
    BIGINT_MAX,
    BIGINT_MIN,
    assert_same_cases,
    grouped_calls,
    micros,
    plain,
    temp_view,
)
from harness import spl_random_rows as random_rows
from reference import spl as ref

WINDOW = "window.start, window.first, window.last, collect_list(v)"
"""The hand-worked cases' projection: (firing time, oldest, newest, values in arrival order)."""


# ----------------------------------------------------------------------------------------------
# Helpers


def policies(eviction, trigger):
    return f"'{eviction}'" + ("" if trigger is None else f", '{trigger}'")


def windows(spark, data, schema, eviction, trigger=None, select=WINDOW, order="o", keys=""):
    """Runs ``SELECT <select> FROM data GROUP BY <keys>sliding_window(<order>, ...)``; sorted rows."""
    with temp_view(spark, data, schema) as view:
        rows = spark.sql(
            f"SELECT {select} FROM {view} GROUP BY {keys}"
            f"sliding_window({order}, {policies(eviction, trigger)})"
        ).collect()
    return ref.sort_rows(plain(r, list) for r in rows)


def reference_windows(data, names, eviction, trigger=None, number=Decimal, v="v", order="o"):
    """The reference's firings of one key, shaped like WINDOW: (time, first, last, [values])."""
    tuples = [dict(zip(names, row)) for row in data]
    for t in tuples:
        t["order"], t["v"] = t[order], t[v]
    trig = (
        ("count", 1)
        if trigger is None
        else (trigger if isinstance(trigger, tuple) else ref.parse_policy(trigger, number))
    )
    evic = eviction if isinstance(eviction, tuple) else ref.parse_policy(eviction, number)
    out = []
    for at, window in ref.firings(ref.arrival_order(tuples), evic, trig):
        out.append(
            (
                at,
                window[0]["order"],
                window[-1]["order"],
                [w["v"] for w in window if w["v"] is not None],
            )
        )
    return ref.sort_rows(out)


HAND = "o BIGINT, v BIGINT, a BIGINT, b BIGINT"
HAND_NAMES = ["o", "v", "a", "b"]


def check_hand(spark, data, eviction, trigger, expected):
    """The operator and the reference both give the hand-worked rows (BIGINT order, o v a b)."""
    assert reference_windows(data, HAND_NAMES, eviction, trigger) == expected, "reference"
    assert windows(spark, data, HAND, eviction, trigger) == expected, "operator"


# ----------------------------------------------------------------------------------------------
# The SPL documentation's examples


@pytest.mark.smoke
def test_spl_example_count_eviction(spark):
    """count(4): the window fills to four tuples, then each new one evicts the oldest. Called
    through the DataFrame API: groupBy(F.expr("sliding_window(...)"))."""
    data = [(o, 10 * o, 0, 0) for o in range(1, 7)]
    expected = [
        (1, 1, 1, [10]),
        (2, 1, 2, [10, 20]),
        (3, 1, 3, [10, 20, 30]),
        (4, 1, 4, [10, 20, 30, 40]),  # full
        (5, 2, 5, [20, 30, 40, 50]),  # 1 evicted
        (6, 3, 6, [30, 40, 50, 60]),  # 2 evicted
    ]
    assert reference_windows(data, HAND_NAMES, "count(4)") == expected
    got = (
        spark.createDataFrame(data, HAND)
        .groupBy(F.expr("sliding_window(o, 'count(4)')"))
        .agg(F.collect_list("v").alias("vs"))
        .select("window.start", "window.first", "window.last", "vs")
        .collect()
    )
    assert ref.sort_rows(plain(r, list) for r in got) == expected


@pytest.mark.smoke
def test_spl_example_time_eviction(spark):
    """time(5 seconds): A at t, B at t + 1, C at t + 3.5, D at t + 6; at t + 4 the window holds A,
    B, C; at t + 7 only C and D. Seen with a time trigger every second (instants t + 1, ...) and
    a later arrival E at t + 7.5, so that the instant t + 7 fires before E is inserted.

        C arrives (3.5): instants 1, 2, 3 fire on [A, B]; then C enters.
        D arrives (6):   instant 4: [A, B, C] (A in for 4 s); 5: A in for exactly 5 s, stays;
                         at 6 A (6 s) is evicted, D enters: [B, C, D].
        E arrives (7.5): instant 6: B in for exactly 5 s, stays: [B, C, D]; 7: B (6 s) is
                         evicted: [C, D]; then E enters. The end: instant 8 > 7.5, none.
    """
    base = micros("2024-01-01 00:00:00")
    arrivals = [("A", 0), ("B", 1), ("C", 3.5), ("D", 6), ("E", 7.5)]
    data = [(base + round(s * 1_000_000), ident) for ident, s in arrivals]
    expected = [
        (1.0, ["A", "B"]),
        (2.0, ["A", "B"]),
        (3.0, ["A", "B"]),
        (4.0, ["A", "B", "C"]),  # the example's t + 4
        (5.0, ["A", "B", "C"]),
        (6.0, ["B", "C", "D"]),
        (7.0, ["C", "D"]),  # the example's t + 7
    ]
    tuples = [{"order": us, "v": ident} for us, ident in data]
    assert [
        ((at - base) / 1e6, [w["v"] for w in window])
        for at, window in ref.firings(tuples, ("time", 5_000_000), ("time", 1_000_000))
    ] == expected
    with temp_view(spark, data, "us BIGINT, id STRING") as view:
        got = spark.sql(
            f"SELECT (unix_micros(window.start) - {base}) / 1e6, collect_list(id) "
            f"FROM (SELECT timestamp_micros(us) AS ts, id FROM {view}) GROUP BY "
            f"sliding_window(ts, 'time(5 seconds)', 'time(1 second)')"
        ).collect()
    assert sorted(plain(r, list) for r in got) == expected


@pytest.mark.smoke
@pytest.mark.parametrize("kind", ["DECIMAL(4, 1)", "DOUBLE"])
def test_spl_example_delta_eviction(spark, kind):
    """delta(temperature, 1.5): [17.1, 16.4, 16.0] + 17.6 evicts 16.0 only (17.6 - 16.0 > 1.5;
    17.6 - 16.4 and 17.6 - 17.1 are not more than 1.5): [17.1, 16.4, 17.6]. Then 14.0 evicts
    nothing (14.0 - w is negative for all): [17.1, 16.4, 17.6, 14.0], the window did not slide.
    (In doubles the differences are 1.6000000000000014, 1.2000000000000028, 0.5: the same.)"""
    number = Decimal if kind.startswith("DECIMAL") else float
    temps = [number(t) for t in ("17.1", "16.4", "16.0", "17.6", "14.0")]
    data = [(o, t) for o, t in enumerate(temps, 1)]
    t171, t164, t160, t176, t140 = temps
    expected = [
        (1, 1, 1, [t171]),
        (2, 1, 2, [t171, t164]),
        (3, 1, 3, [t171, t164, t160]),
        (4, 1, 4, [t171, t164, t176]),
        (5, 1, 5, [t171, t164, t176, t140]),
    ]
    names = ["o", "temperature"]
    assert (
        reference_windows(data, names, "delta(temperature, 1.5)", number=number, v="temperature")
        == expected
    )
    assert (
        windows(
            spark,
            data,
            f"o BIGINT, temperature {kind}",
            "delta(temperature, 1.5)",
            select="window.start, window.first, window.last, collect_list(temperature)",
        )
        == expected
    )


@pytest.mark.smoke
def test_documented_example(spark):
    """The example of DESCRIBE FUNCTION EXTENDED sliding_window."""
    got = [
        plain(r, list)
        for r in spark.sql(
            "SELECT window.start, window.first, collect_list(v) FROM VALUES (1L, 1), (2L, 2), "
            "(3L, 3), (4L, 4), (5L, 5) AS t(ts, v) "
            "GROUP BY sliding_window(ts, 'count(3)', 'count(2)') ORDER BY 1"
        ).collect()
    ]
    assert got == [(2, 1, [1, 2]), (4, 2, [2, 3, 4])]


# ----------------------------------------------------------------------------------------------
# One hand-worked case per combination (BIGINT order o, values v = 10 * o, attributes a and b)


def test_count_eviction_count_trigger(spark):
    """count(3), count(2); o 1..6 and a row with a NULL order (skipped: no arrival, not counted).
    1: [1]          2: [1, 2] fires (2nd arrival)     3: [1, 2, 3]
    4: 1 evicted, [2, 3, 4] fires                     5: [3, 4, 5]
    6: [4, 5, 6] fires
    """
    data = [(o, 10 * o, 0, 0) for o in range(1, 7)] + [(None, 99, 0, 0)]
    check_hand(
        spark,
        data,
        "count(3)",
        "count(2)",
        [
            (2, 1, 2, [10, 20]),
            (4, 2, 4, [20, 30, 40]),
            (6, 4, 6, [40, 50, 60]),
        ],
    )


def test_count_eviction_time_trigger(spark):
    """count(2), time(3); o 0, 1, 2, 7, 9; first = 0, instants 3, 6, 9.
    0: [0]   1: [0, 1]   2: 0 evicted, [1, 2]
    7: instants 3 and 6 (< 7) fire on [1, 2] (no time eviction: count policy), where no
       tuple arrives; then 1 evicted, [2, 7]
    9: no instant < 9; 2 evicted, [7, 9]. The end: instant 9 <= 9 fires on [7, 9].
    """
    data = [(o, 10 * o, 0, 0) for o in (0, 1, 2, 7, 9)]
    check_hand(
        spark,
        data,
        "count(2)",
        "time(3)",
        [
            (3, 1, 2, [10, 20]),
            (6, 1, 2, [10, 20]),
            (9, 7, 9, [70, 90]),
        ],
    )


def test_count_eviction_delta_trigger(spark):
    """count(3), delta(b, 2); o 1..6 with b 0, 1, 3, 2, 5, 8.
    1 (b 0): the reference, no firing; [1]
    2 (b 1): 1 - 0 = 1, no; [1, 2]
    3 (b 3): 3 - 0 = 3 > 2: fires on [1, 2] (before 3 enters); reference 3; [1, 2, 3]
    4 (b 2): 2 - 3 < 0, no; 1 evicted, [2, 3, 4]
    5 (b 5): 5 - 3 = 2, not more than 2, no; 2 evicted, [3, 4, 5]
    6 (b 8): 8 - 3 = 5 > 2: fires on [3, 4, 5]; reference 6; [4, 5, 6]
    """
    data = [(o, 10 * o, 0, b) for o, b in zip(range(1, 7), (0, 1, 3, 2, 5, 8))]
    check_hand(
        spark,
        data,
        "count(3)",
        "delta(b, 2)",
        [
            (3, 1, 2, [10, 20]),
            (6, 3, 5, [30, 40, 50]),
        ],
    )


def test_time_eviction_count_trigger(spark):
    """time(4), trigger omitted (count(1)); o 0, 1, 3, 5, 9, 10: drop order < now - 4.
    0: [0]   1: [0, 1]   3: [0, 1, 3]
    5: drop < 1: 0 goes; 1 (in for exactly 4) stays: [1, 3, 5]
    9: drop < 5: [5, 9] (5 in for exactly 4 stays)
    10: drop < 6: [9, 10]
    """
    data = [(o, 10 * o, 0, 0) for o in (0, 1, 3, 5, 9, 10)]
    check_hand(
        spark,
        data,
        "time(4)",
        None,
        [
            (0, 0, 0, [0]),
            (1, 0, 1, [0, 10]),
            (3, 0, 3, [0, 10, 30]),
            (5, 1, 5, [10, 30, 50]),
            (9, 5, 9, [50, 90]),
            (10, 9, 10, [90, 100]),
        ],
    )


def test_time_eviction_time_trigger(spark):
    """time(3), time(2); o 0, 1, 5, 6, 11; first = 0, instants 2, 4, 6, 8, 10 (<= 11).
    0: [0]   1: [0, 1]
    5: instant 2: drop < -1, none: fires [0, 1]; instant 4: drop < 1: [1], fires [1];
       at 5 drop < 2: 1 goes; [5]
    6: instant 6 is not before 6; drop < 3: [5, 6]
    11: instant 6: drop < 3: fires [5, 6]; 8: drop < 5: 5 (in for exactly 3) stays, fires
        [5, 6]; 10: drop < 7: empty, no row. Then [11]. The end: 12 > 11.
    """
    data = [(o, 10 * o, 0, 0) for o in (0, 1, 5, 6, 11)]
    check_hand(
        spark,
        data,
        "time(3)",
        "time(2)",
        [
            (2, 0, 1, [0, 10]),
            (4, 1, 1, [10]),
            (6, 5, 6, [50, 60]),
            (8, 5, 6, [50, 60]),
        ],
    )


def test_time_eviction_delta_trigger(spark):
    """time(2), delta(b, 1); o 0, 1, 2, 4, 5, 9 with b 0, 1, 2, 2, 4, 6.
    0 (b 0): the reference; [0]
    1 (b 1): 1 - 0 = 1, no; drop < -1: [0, 1]
    2 (b 2): 2 - 0 > 1: fires on [0, 1]; reference 2; drop < 0: [0, 1, 2]
    4 (b 2): no; drop < 2: [2, 4]
    5 (b 4): 4 - 2 > 1: fires on [2, 4]; reference 5; drop < 3: [4, 5]
    9 (b 6): 6 - 4 > 1: fires on [4, 5], the window BEFORE the time eviction at 9 (which
       drops both); then [9]
    """
    data = [(o, 10 * o, 0, b) for o, b in zip((0, 1, 2, 4, 5, 9), (0, 1, 2, 2, 4, 6))]
    check_hand(
        spark,
        data,
        "time(2)",
        "delta(b, 1)",
        [
            (2, 0, 1, [0, 10]),
            (5, 2, 4, [20, 40]),
            (9, 4, 5, [40, 50]),
        ],
    )


def test_delta_eviction_count_trigger(spark):
    """delta(a, 2), count(2); o 1..6 with a 5, 3, 6, 8, 4, 9: drop every w with x.a - w.a > 2.
    1 (a 5): [1]
    2 (a 3): 3 - 5 < 0: [1, 2]; fires (2nd arrival)
    3 (a 6): 6 - 5 = 1 stays, 6 - 3 = 3 drops 2: [1, 3] (not the oldest: no slide)
    4 (a 8): 8 - 5 = 3 drops 1, 8 - 6 = 2 stays: [3, 4]; fires
    5 (a 4): nothing: [3, 4, 5]
    6 (a 9): 9 - 6 = 3 drops 3, 9 - 8 = 1 stays, 9 - 4 = 5 drops 5: [4, 6]; fires
    """
    data = [(o, 10 * o, a, 0) for o, a in zip(range(1, 7), (5, 3, 6, 8, 4, 9))]
    check_hand(
        spark,
        data,
        "delta(a, 2)",
        "count(2)",
        [
            (2, 1, 2, [10, 20]),
            (4, 3, 4, [30, 40]),
            (6, 4, 6, [40, 60]),
        ],
    )


def test_delta_eviction_time_trigger(spark):
    """delta(a, 1), time(3); o 0, 1, 2, 4, 8 with a 0, 2, 1, 3, 3; first = 0, instants 3, 6.
    0 (a 0): [0]
    1 (a 2): 2 - 0 > 1 drops 0: [1]
    2 (a 1): [1, 2]
    4 (a 3): instant 3 fires on [1, 2] (no time eviction: delta policy); then 3 - 2 = 1
             keeps 1, 3 - 1 = 2 drops 2: [1, 4]
    8 (a 3): instant 6 fires on [1, 4]; nothing dropped: [1, 4, 8]. The end: 9 > 8.
    """
    data = [(o, 10 * o, a, 0) for o, a in zip((0, 1, 2, 4, 8), (0, 2, 1, 3, 3))]
    check_hand(
        spark,
        data,
        "delta(a, 1)",
        "time(3)",
        [
            (3, 1, 2, [10, 20]),
            (6, 1, 4, [10, 40]),
        ],
    )


def test_delta_eviction_delta_trigger(spark):
    """delta(a, 2), delta(b, 3); o 1..6 with a 0, 1, 3, 2, 6, 5 and b 0, 2, 4, 3, 8, 12.
    1: reference (b 0); [1]
    2: 2 - 0 = 2, no; a: 1 - 0 = 1 keeps 1: [1, 2]
    3: 4 - 0 > 3 fires on [1, 2]; reference 3 (b 4); a: 3 - 0 drops 1, 3 - 1 = 2 keeps 2:
       [2, 3]
    4: 3 - 4 < 0, no; a 2 drops nothing: [2, 3, 4]
    5: 8 - 4 > 3 fires on [2, 3, 4]; reference 5 (b 8); a 6 drops 2 (6 - 1), 3 (6 - 3),
       4 (6 - 2): [5]
    6: 12 - 8 > 3 fires on [5]; a 5 drops nothing: [5, 6]
    """
    data = [
        (o, 10 * o, a, b) for o, a, b in zip(range(1, 7), (0, 1, 3, 2, 6, 5), (0, 2, 4, 3, 8, 12))
    ]
    check_hand(
        spark,
        data,
        "delta(a, 2)",
        "delta(b, 3)",
        [
            (3, 1, 2, [10, 20]),
            (5, 2, 4, [20, 30, 40]),
            (6, 5, 5, [50]),
        ],
    )


# ----------------------------------------------------------------------------------------------
# The order of work on one arrival


def test_delta_trigger_sees_the_window_before_the_arrival(spark):
    """count(1) holds one tuple, so the window before x is exactly the previous tuple.
    delta(o, 2) over o 0, 1, 4, 5, 9: 0 sets the reference; 1 - 0 <= 2; 4 - 0 > 2 fires on [1]
    (not [4]: no eviction, no insertion yet); 5 - 4 <= 2; 9 - 4 > 2 fires on [5]."""
    data = [(o, 10 * o, 0, 0) for o in (0, 1, 4, 5, 9)]
    check_hand(
        spark,
        data,
        "count(1)",
        "delta(o, 2)",
        [
            (4, 1, 1, [10]),
            (9, 5, 5, [50]),
        ],
    )


def test_count_trigger_fires_after_insertion(spark):
    """count(5), count(2) over 1..4: fires at 2 on [1, 2] (the window is not full) and at 4 on
    [1..4]. count(1), count(1): every row holds just the arriving tuple (inserted first)."""
    data = [(o, 10 * o, 0, 0) for o in range(1, 5)]
    check_hand(
        spark,
        data,
        "count(5)",
        "count(2)",
        [
            (2, 1, 2, [10, 20]),
            (4, 1, 4, [10, 20, 30, 40]),
        ],
    )
    check_hand(spark, data, "count(1)", "count(1)", [(o, o, o, [10 * o]) for o in range(1, 5)])


def test_first_tuple_never_fires_a_delta_trigger(spark):
    """delta(b, 0): key 'x' has b 5, 7 (7 - 5 > 0 fires on [5] at its second tuple); key 'y' has
    one tuple only, b 100: its first tuple sets its own reference and never fires, whatever the
    other key did (o interleaved with x's). A key with a single tuple gives no row."""
    data = [("x", 1, 10, 5), ("y", 2, 20, 100), ("x", 3, 30, 7)]
    got = windows(
        spark,
        data,
        "k STRING, o BIGINT, v BIGINT, b BIGINT",
        "count(9)",
        "delta(b, 0)",
        select="k, " + WINDOW,
        keys="k, ",
    )
    assert got == [("x", 3, 1, 1, [10])]
    assert (
        reference_windows(
            [r[1:] for r in data if r[0] == "y"], ["o", "v", "b"], "count(9)", "delta(b, 0)"
        )
        == []
    )


def test_strict_delta_decimal(spark):
    """DECIMAL differences are exact: a difference equal to d neither evicts nor triggers.
    delta(t, 1.5), one key per sequence of t:
        k 0: 16.0 -> 17.5, k 1: 16.1 -> 17.6, k 2: 14.6 -> 16.1 (all exactly 1.5): eviction
             keeps both tuples, the trigger never fires;
        k 3: 16.0 -> 17.5 -> 17.6: only 17.6 - 16.0 = 1.6 > 1.5 evicts (16.0) and triggers (on
             [16.0, 17.5], the window before 17.6).
    """
    sequences = [("16.0", "17.5"), ("16.1", "17.6"), ("14.6", "16.1"), ("16.0", "17.5", "17.6")]
    data = [
        (k, o, 10 * o + k, Decimal(t))
        for k, seq in enumerate(sequences)
        for o, t in enumerate(seq, 1)
    ]
    schema = "k INT, o BIGINT, v BIGINT, t DECIMAL(4, 1)"
    evicted = (
        [(k, 1, 1, 1, [10 + k]) for k in range(4)]
        + [(k, 2, 1, 2, [10 + k, 20 + k]) for k in range(4)]
        + [(3, 3, 2, 3, [23, 33])]
    )
    triggered = [(3, 3, 1, 2, [13, 23])]
    assert windows(
        spark, data, schema, "delta(t, 1.5)", select="k, " + WINDOW, keys="k, "
    ) == ref.sort_rows(evicted)
    assert (
        windows(spark, data, schema, "count(9)", "delta(t, 1.5)", select="k, " + WINDOW, keys="k, ")
        == triggered
    )
    for k in range(4):
        mine = [r[1:] for r in data if r[0] == k]
        for trigger, expected in ((None, evicted), ("delta(t, 1.5)", triggered)):
            eviction = "count(9)" if trigger else "delta(t, 1.5)"
            assert reference_windows(mine, ["o", "v", "t"], eviction, trigger) == ref.sort_rows(
                r[1:] for r in expected if r[0] == k
            )


def test_strict_delta_double(spark):
    """DOUBLE differences are computed in doubles: 16.1 - 14.6 = 1.5000000000000018 > 1.5
    evicts and triggers; 16.4 - 14.9 = 1.4999999999999982 does not; 17.6 - 16.1 is exactly 1.5
    in doubles too (not 1.5000000000000018), so it does not either."""
    assert 16.1 - 14.6 > 1.5 and 16.4 - 14.9 < 1.5 and 17.6 - 16.1 == 1.5
    pairs = [(14.6, 16.1), (14.9, 16.4), (16.1, 17.6)]
    data = [(k, o, 10 * o + k, t) for k, pair in enumerate(pairs) for o, t in enumerate(pair, 1)]
    schema = "k INT, o BIGINT, v BIGINT, t DOUBLE"
    got = windows(spark, data, schema, "delta(t, 1.5)", select="k, " + WINDOW, keys="k, ")
    assert got == [
        (0, 1, 1, 1, [10]),
        (0, 2, 2, 2, [20]),  # 14.6 evicted
        (1, 1, 1, 1, [11]),
        (1, 2, 1, 2, [11, 21]),
        (2, 1, 1, 1, [12]),
        (2, 2, 1, 2, [12, 22]),
    ]
    evicted = got
    got = windows(
        spark, data, schema, "count(9)", "delta(t, 1.5)", select="k, " + WINDOW, keys="k, "
    )
    assert got == [(0, 2, 1, 1, [10])]
    triggered = got
    for k in range(3):
        mine = [r[1:] for r in data if r[0] == k]
        assert reference_windows(mine, ["o", "v", "t"], "delta(t, 1.5)", number=float) == [
            r[1:] for r in evicted if r[0] == k
        ]
        assert reference_windows(
            mine, ["o", "v", "t"], "count(9)", "delta(t, 1.5)", number=float
        ) == [r[1:] for r in triggered if r[0] == k]


def test_time_trigger_fires_where_no_tuple_arrives(spark):
    """time(2), time(3) over 0, 1, 10: instants 3, 6, 9 (<= 10), none at an arrival. At 3 the time
    eviction at the instant drops 0 (< 3 - 2), the window is [1]; at 6 and 9 it is empty: no row.
    count(9), time(2) over 0, 7: instants 2, 4, 6 fire on [0] (nothing is evicted); 8 > 7."""
    check_hand(
        spark,
        [(0, 0, 0, 0), (1, 10, 0, 0), (10, 100, 0, 0)],
        "time(2)",
        "time(3)",
        [(3, 1, 1, [10])],
    )
    check_hand(
        spark,
        [(0, 0, 0, 0), (7, 70, 0, 0)],
        "count(9)",
        "time(2)",
        [(2, 0, 0, [0]), (4, 0, 0, [0]), (6, 0, 0, [0])],
    )


def test_time_trigger_instant_at_an_arrival(spark):
    """count(9), time(2) over (0, 1), (2, 2), (2, 3), (5, 4) as (o, v): the instant 2 is not
    before the arrivals at 2, so it fires when 5 arrives, on the window after both tuples at 2:
    [1, 2, 3]; instant 4 too; 6 > 5. A time instant at the last arrival fires after it (see
    test_count_eviction_time_trigger)."""
    data = [(0, 1, 0, 0), (2, 2, 0, 0), (2, 3, 0, 0), (5, 4, 0, 0)]
    check_hand(spark, data, "count(9)", "time(2)", [(2, 0, 2, [1, 2, 3]), (4, 0, 2, [1, 2, 3])])


def test_ties_ordered_by_value_and_several_rows_at_one_time(spark):
    """Four tuples at order 1 arrive by v, NULL first: NULL, 1, 2, 3. count(2) with count(1):
    four rows at the same time 1: [NULL], [NULL, 1], [1, 2], [2, 3]."""
    data = [(1, 3, 0, 0), (1, 1, 0, 0), (1, None, 0, 0), (1, 2, 0, 0)]
    expected = [(1, 1, 1, 1, []), (1, 1, 1, 2, [1]), (1, 1, 1, 2, [1, 2]), (1, 1, 1, 2, [2, 3])]
    assert (
        windows(
            spark,
            data,
            HAND,
            "count(2)",
            select="window.start, window.first, window.last, count(*), collect_list(v)",
        )
        == expected
    )
    assert reference_windows(data, HAND_NAMES, "count(2)") == [
        (s, f, l, vs) for s, f, l, _, vs in expected
    ]


def test_window_column_types_and_end(spark):
    """window.start/end/first/last have the order's type; end = start + 1 tick (1 for integer
    order, 1 microsecond for TIMESTAMP and TIMESTAMP_NTZ)."""
    got = spark.sql(
        "SELECT window.start, window.end, window.first, window.last FROM "
        "VALUES (3, 1), (5, 2) AS t(o, v) "
        "GROUP BY sliding_window(o, 'count(2)', 'count(2)')"
    ).collect()
    assert [tuple(r) for r in got] == [(5, 6, 3, 5)]
    start = micros("2024-01-01 00:00:02.5")
    for kind in ("TIMESTAMP", "TIMESTAMP_NTZ"):
        df = spark.sql(
            f"SELECT window FROM VALUES ({kind} '2024-01-01 00:00:01', 1), "
            f"({kind} '2024-01-01 00:00:02.5', 2) AS t(o, v) "
            f"GROUP BY sliding_window(o, 'time(1 second)', 'count(2)')"
        )
        fields = {f.name: f.dataType.simpleString() for f in df.schema["window"].dataType.fields}
        assert fields == {
            "start": kind.lower(),
            "end": kind.lower(),
            "first": kind.lower(),
            "last": kind.lower(),
        }
        # 1 is evicted at 2.5 (in for 1.5 s > 1 s); the session time zone is UTC.
        got = df.selectExpr(
            *(
                f"unix_micros(CAST(window.{f} AS TIMESTAMP))"
                for f in ("start", "end", "first", "last")
            )
        ).collect()
        assert [tuple(r) for r in got] == [(start, start + 1, start, start)]


def test_order_at_the_end_of_time(spark):
    """A tuple whose order is the last instant of the time line (BIGINT 2^63 - 1, TIMESTAMP
    9999-12-31 23:59:59.999999) is a valid tuple - only rows with a NULL order are skipped. window.end is not checked:
    start + 1 tick is past the end of time, where it saturates is the operator's call.

    count(9), count(1) over MAX - 1 (v 1), MAX (v 2): rows at MAX - 1 [1] and at MAX [1, 2];
    the operator gives only the first."""
    big = 2**63 - 1
    data = [(big - 1, 1, 0, 0), (big, 2, 0, 0)]
    expected = [(big - 1, big - 1, big - 1, [1]), (big, big - 1, big, [1, 2])]
    assert reference_windows(data, HAND_NAMES, "count(9)") == expected
    end = micros("9999-12-31 23:59:59.999999")
    got = windows(
        spark,
        [(end - 1, 1), (end, 2)],
        "us BIGINT, v BIGINT",
        "count(9)",
        order="timestamp_micros(us)",
        select="unix_micros(window.start), unix_micros(window.first), "
        "unix_micros(window.last), collect_list(v)",
    )
    bigint = windows(spark, data, HAND, "count(9)")
    assert (bigint, got) == (
        expected,
        [(end - 1, end - 1, end - 1, [1]), (end, end - 1, end, [1, 2])],
    )


# ----------------------------------------------------------------------------------------------
# Randomized comparison with the reference

RANDOM = "c INT, k INT, o BIGINT, v BIGINT, a BIGINT, b BIGINT"
RANDOM_NAMES = ["c", "k", "o", "v", "a", "b"]


def reference_rows(rows, names=RANDOM_NAMES):
    out = []
    for row in rows:
        t = dict(zip(names, row))
        t["key"], t["order"] = (t["c"], t["k"]), t["o"]
        out.append(t)
    return out


def run_random(spark, rows, calls, schema=RANDOM, order="o", bounds=None):
    """One query: the parameter sets `calls` (policy argument texts) UNION ALL, each grouped by
    c, k, sliding_window(<order>, <call>). Returns each parameter set's sorted reference-shaped
    rows.

    `order` is an expression over the view's columns (e.g. timestamp_micros(o)); `bounds` turns
    window.start, end, first, last into BIGINT ticks."""
    bounds = bounds or "window.start, window.end, window.first, window.last"
    return grouped_calls(
        spark,
        rows,
        schema,
        [f"sliding_window(ord, {call})" for call in calls],
        f"{bounds}, count(*), sum(v), min(v), max(v), collect_list(v)",
        f"(SELECT *, {order} AS ord FROM {{view}})",
        sequence=list,
    )


def assert_same(actual, expected, rows, call):
    """Compares whole results; on a difference, shows the smallest differing case in full."""
    assert_same_cases(
        actual,
        expected,
        rows,
        [f"call: sliding_window(o, {call})"],
        "(c, k, o, v, a, b)",
        "((c, k), start, end, first, last, count, sum, min, max, values)",
    )


def check_random(spark, rows, parameter_sets, tick=1, names=RANDOM_NAMES, **run_args):
    """parameter_sets: (call text, eviction tuple, trigger tuple)."""
    actual = run_random(spark, rows, [call for call, _, _ in parameter_sets], **run_args)
    inputs = reference_rows(rows, names)
    for p, (call, eviction, trigger) in enumerate(parameter_sets):
        expected = ref.sliding_window(inputs, eviction, trigger, tick=tick)
        assert_same(actual[p], expected, rows, call)


def bigint_set(eviction, trigger=None):
    """A parameter set of BIGINT order and integer attributes from the policies' texts."""
    return (
        policies(eviction, trigger),
        ref.parse_policy(eviction),
        ("count", 1) if trigger is None else ref.parse_policy(trigger),
    )


# Per combination, a few parameter sets: boundary sizes (count(1), time(0), delta 0), typical
# ones, fractional deltas over integer attributes, the order column as a delta attribute, the same
# attribute for eviction and trigger, and an omitted trigger.
COMBINATIONS = {
    "count-count": [
        ("count(1)", "count(1)"),
        ("count(3)", None),
        ("count(3)", "count(2)"),
        ("count(4)", "count(5)"),
    ],
    "count-time": [("count(1)", "time(1)"), ("count(3)", "time(3)"), ("count(5)", "time(7)")],
    "count-delta": [
        ("count(1)", "delta(b, 0)"),
        ("count(3)", "delta(b, 2)"),
        ("count(4)", "delta(o, 3)"),
        ("count(2)", "delta(b, 1.5)"),
    ],
    "time-count": [("time(0)", "count(1)"), ("time(4)", None), ("time(9)", "count(3)")],
    "time-time": [
        ("time(0)", "time(1)"),
        ("time(3)", "time(2)"),
        ("time(5)", "time(5)"),
        ("time(8)", "time(3)"),
    ],
    "time-delta": [
        ("time(0)", "delta(b, 0)"),
        ("time(4)", "delta(b, 2)"),
        ("time(6)", "delta(o, 4)"),
    ],
    "delta-count": [
        ("delta(a, 0)", "count(1)"),
        ("delta(a, 2)", None),
        ("delta(a, 3.5)", "count(2)"),
        ("delta(o, 5)", "count(3)"),
    ],
    "delta-time": [
        ("delta(a, 0)", "time(2)"),
        ("delta(a, 2)", "time(1)"),
        ("delta(a, 1.5)", "time(5)"),
    ],
    "delta-delta": [
        ("delta(a, 0)", "delta(b, 0)"),
        ("delta(a, 2)", "delta(b, 1)"),
        ("delta(a, 1)", "delta(a, 3)"),
        ("delta(b, 2.5)", "delta(o, 4)"),
    ],
}


@pytest.mark.parametrize(
    "combination",
    [pytest.param(c, marks=pytest.mark.smoke) if c == "count-count" else c for c in COMBINATIONS],
)
def test_random_bigint(spark, combination):
    rng = random.Random("sliding-" + combination)
    rows = random_rows(rng, 30)
    check_random(spark, rows, [bigint_set(e, t) for e, t in COMBINATIONS[combination]])


def test_random_one_big_key(spark):
    """Long windows in one key: 300 tuples, ties, walks of the attributes."""
    rng = random.Random("sliding-big")
    rows = random_rows(rng, 1, max_len=300)
    check_random(
        spark,
        rows,
        [
            bigint_set("time(40)", "delta(b, 3)"),
            bigint_set("delta(a, 6)", "count(7)"),
            bigint_set("count(50)", "time(13)"),
        ],
    )


@pytest.mark.parametrize("kind", ["TIMESTAMP", "TIMESTAMP_NTZ"])
def test_random_timestamp(spark, kind):
    """TIMESTAMP order with time policies in seconds: orders 0.5 s apart or more, +- 1 us now and
    then, so that time boundaries are hit and just missed; delta over the order column itself."""
    rng = random.Random("sliding-timestamp-" + kind)
    base = micros("2024-02-29 23:59:50")
    rows = random_rows(rng, 24, gaps=(1, 1, 2, 3, 4, 6), base=base, scale=500_000, jitter=(-1, 1))
    order = "timestamp_micros(o)"
    as_ts = "window.{}"
    if kind == "TIMESTAMP_NTZ":
        order = "CAST(timestamp_micros(o) AS TIMESTAMP_NTZ)"
        as_ts = "CAST(window.{} AS TIMESTAMP)"  # the session time zone is UTC
    bounds = ", ".join(f"unix_micros({as_ts.format(f)})" for f in ("start", "end", "first", "last"))
    s = 1_000_000
    sets = [
        ("'time(3 seconds)', 'time(2)'", ("time", 3 * s), ("time", 2 * s)),
        ("'count(3)', 'time(1.5)'", ("count", 3), ("time", 3 * s // 2)),
        ("'time(2.5)', 'count(2)'", ("time", 5 * s // 2), ("count", 2)),
        ("'time(1500 milliseconds)', 'delta(ord, 2)'", ("time", 3 * s // 2), ("delta", "o", 2 * s)),
        ("'delta(ord, 2.5 seconds)', 'time(1 second)'", ("delta", "o", 5 * s // 2), ("time", s)),
        ("'delta(ord, 1)', 'delta(a, 1)'", ("delta", "o", s), ("delta", "a", 1)),
    ]
    check_random(spark, rows, sets, order=order, bounds=bounds)


@pytest.mark.parametrize("side", ["start", "end"])
def test_random_at_the_ends_of_the_line(spark, side):
    """BIGINT orders from the first tick of the line on, or up to its last: time eviction and
    triggers whose instants lie past an end, deltas over the order column there."""
    rng = random.Random("sliding-ends-" + side)
    max_len = 12
    base = BIGINT_MIN + 20 if side == "start" else BIGINT_MAX - 20 - 13 * max_len
    rows = random_rows(rng, 24, max_len=max_len, base=base)
    sets = [
        bigint_set(e, t)
        for e, t in [
            ("time(0)", "time(1)"),
            ("time(3)", "time(2)"),
            ("time(8)", "time(3)"),
            ("time(4)", None),
            ("count(3)", "time(3)"),
            ("delta(o, 5)", "count(3)"),
            ("count(4)", "delta(o, 3)"),
            ("time(6)", "delta(o, 4)"),
            ("delta(a, 2)", "time(1)"),
        ]
    ]
    check_random(spark, rows, sets)


def test_random_decimal_and_double_attributes(spark):
    """DECIMAL(5, 1) attribute a compared exactly, DOUBLE attribute b in doubles (tenths, whose
    double differences land just above or below the decimal ones)."""
    rng = random.Random("sliding-decimal-double")
    rows = random_rows(rng, 30, attribute=lambda x: Decimal(x) / 10)
    rows = [(c, k, o, v, a, None if b is None else float(b)) for c, k, o, v, a, b in rows]
    schema = "c INT, k INT, o BIGINT, v BIGINT, a DECIMAL(5, 1), b DOUBLE"
    sets = [
        ("'delta(a, 0.3)', 'delta(b, 0.3)'", ("delta", "a", Decimal("0.3")), ("delta", "b", 0.3)),
        ("'delta(b, 0.2)', 'delta(a, 0.1)'", ("delta", "b", 0.2), ("delta", "a", Decimal("0.1"))),
        ("'count(3)', 'delta(b, 0.1)'", ("count", 3), ("delta", "b", 0.1)),
        ("'delta(b, 0.3)', 'count(1)'", ("delta", "b", 0.3), ("count", 1)),
        ("'delta(a, 0)', 'time(2)'", ("delta", "a", Decimal(0)), ("time", 2)),
        # a delta finer than the attribute's scale: exact, not rounded to DECIMAL(5, 1)
        (
            "'delta(a, 0.25)', 'delta(a, 0.15)'",
            ("delta", "a", Decimal("0.25")),
            ("delta", "a", Decimal("0.15")),
        ),
    ]
    check_random(spark, rows, sets, schema=schema)


@pytest.mark.slow  # random inputs against a reference
def test_reference_agrees_with_a_second_simulation():
    """The reference checks itself on many small random inputs against a second, independent
    formulation: the window's content recomputed from scratch at each firing time as "the tuples
    not evicted so far", with evictions recorded as events, rather than kept in a list."""
    rng = random.Random("self-check")
    for _ in range(400):
        rows = random_rows(rng, 1, max_len=8)
        evic = rng.choice(
            [
                ("count", rng.randint(1, 4)),
                ("time", rng.randint(0, 6)),
                ("delta", "a", rng.randint(0, 3)),
            ]
        )
        trig = rng.choice(
            [
                ("count", rng.randint(1, 3)),
                ("time", rng.randint(1, 5)),
                ("delta", "b", rng.randint(0, 3)),
            ]
        )
        inputs = reference_rows(rows)
        assert ref.sliding_window(inputs, evic, trig) == second_simulation(inputs, evic, trig)


def second_simulation(inputs, eviction, trigger):
    """An event list per key: (time, phase, ...) sorted, where phase orders the work at one time
    (0: time-trigger instants strictly before the arrival, 1: the arrival); membership by sets of
    arrival indices."""
    out = []
    for key in {t["key"] for t in inputs}:
        tuples = ref.arrival_order([t for t in inputs if t["key"] == key])
        if not tuples:
            continue
        alive = set()  # indices of the tuples in the window
        fired = []

        def emit(at):
            members = sorted(alive)
            if members:
                fired.append((at, [tuples[i] for i in members]))

        instants = []
        if trigger[0] == "time":
            f = tuples[0]["order"] + trigger[1]
            while f <= tuples[-1]["order"]:
                instants.append(f)
                f += trigger[1]
        reference_value = None
        pending = list(instants)
        for i, x in enumerate(tuples):
            while pending and pending[0] < x["order"]:
                f = pending.pop(0)
                if eviction[0] == "time":
                    alive -= {j for j in alive if tuples[j]["order"] < f - eviction[1]}
                emit(f)
            if trigger[0] == "delta":
                if i > 0 and x[trigger[1]] - reference_value > trigger[2]:
                    emit(x["order"])
                    reference_value = x[trigger[1]]
                elif i == 0:
                    reference_value = x[trigger[1]]
            if eviction[0] == "count":
                alive -= set(sorted(alive)[: max(0, len(alive) - eviction[1] + 1)])
            elif eviction[0] == "time":
                alive -= {j for j in alive if tuples[j]["order"] < x["order"] - eviction[1]}
            else:
                alive -= {j for j in alive if x[eviction[1]] - tuples[j][eviction[1]] > eviction[2]}
            alive.add(i)
            if trigger[0] == "count" and (i + 1) % trigger[1] == 0:
                emit(x["order"])
        for f in pending:
            if eviction[0] == "time":
                alive -= {j for j in alive if tuples[j]["order"] < f - eviction[1]}
            emit(f)
        out.extend(ref.output_row(key, at, w, 1) for at, w in fired)
    return ref.sort_rows(out)


# ----------------------------------------------------------------------------------------------
# Bad input: an AnalysisException naming the parameter and the policy

BAD = "o BIGINT, v BIGINT, a BIGINT, s STRING, d DATE, x DOUBLE, ts TIMESTAMP"


@pytest.mark.parametrize(
    "call, parameter, text",
    [
        ("o, 'bogus(3)'", "eviction", "bogus(3)"),
        ("o, 'count(2)', 'sometimes'", "trigger", "sometimes"),
        ("o, 'count(2'", "eviction", "count(2"),
        ("o, 'count(0)'", "eviction", "count(0)"),
        ("o, 'count(-1)'", "eviction", "count(-1)"),
        ("o, 'count(1)', 'count(0)'", "trigger", "count(0)"),
        ("o, 'time(-1)'", "eviction", "time(-1)"),
        ("o, 'count(2)', 'time(-2)'", "trigger", "time(-2)"),
        ("o, 'count(2)', 'time(0)'", "trigger", "time(0)"),
        ("ts, 'count(2)', 'time(0 seconds)'", "trigger", "time(0 seconds)"),
        ("o, 'time(2.5)'", "eviction", "time(2.5)"),
        ("o, 'delta(a, -1)'", "eviction", "delta(a, -1)"),
        ("o, 'count(2)', 'delta(a, -0.5)'", "trigger", "delta(a, -0.5)"),
        ("o, 'delta(s, 1)'", "eviction", "delta(s, 1)"),
        ("o, 'count(2)', 'delta(s, 1)'", "trigger", "delta(s, 1)"),
        ("s, 'count(2)'", "order", "STRING"),
        ("d, 'count(2)'", "order", "DATE"),
        ("x, 'count(2)'", "order", "DOUBLE"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_bad_input(spark, call, parameter, text):
    with temp_view(spark, [], BAD) as view, pytest.raises(AnalysisException) as error:
        spark.sql(f"SELECT count(*) FROM {view} GROUP BY sliding_window({call})").collect()
    message = str(error.value)
    assert f"`{parameter}`" in message and text in message, message
