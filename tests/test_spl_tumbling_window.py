"""IBM Streams SPL tumbling windows (issue 22): the SQL window function
``spl_tumbling_window(order, eviction[, flush_at_end])``, evictions count / time / delta / punct,
and its Python function with ``ew.punct``.

* hand-worked cases with the working in comments: count(3) and count(1); time(t) with gaps
  between arrivals (a tuple at an instant, instants where the window is empty give no row);
  SPL's ages 0..7 with delta(age, 2) and a delta measured from the OLDEST tuple (not the
  smallest, not the newest), strictly; punct; flush_at_end omitted, false, NULL, true and
  named; ties; the window column's types;
* a randomized comparison with the brute-force reference (tests/reference/spl.py,
  ``tumbling_window``) for all four policies with flush_at_end both ways, over BIGINT,
  TIMESTAMP and TIMESTAMP_NTZ order, with orders next to both ends of the time lines;
* streams (transformWithState): the batch query's rows the watermark closed, a restart from the
  checkpoint; flush_at_end => true on a stream is an analysis error;
* bad input (analysis errors naming the function and the parameter; a NULL punctuation at run
  time naming the row), punct in sliding_window;
* the Python API.

Every hand-worked case is checked against the reference too. Random cases run batched: each
case has its own id ``c``, grouped by next to the case's key ``k`` (which may be NULL), and the
parameter sets of one policy run as one query (``harness.grouped_calls``). Ties of order are
ordered by the values the aggregates read (here ``v``, NULLs first); the random generator makes
the ``v`` of tied rows distinct, so arrival order is fully determined. (Among the columns that
order ties, the operator reads them in the order of the input's columns, as sliding_window
does; every schema here puts v before the policy attributes a, b, p, so v decides, as the
reference assumes.)
"""

import random
from decimal import Decimal

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import functions as F

import eventwindows as ew
from harness import (
    BIGINT_MAX,
    BIGINT_MIN,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    analysis_error,
    assert_same_cases,
    grouped_calls,
    micros,
    plain,
    run_stream,
    second,
    sort_rows,
    spl_random_rows,
    temp_view,
    write_batches,
)
from reference import spl as ref

WINDOW = "window.start, window.first, window.last, collect_list(v)"
"""The hand-worked cases' projection: (flush time, oldest, newest, values in arrival order)."""

HAND = "o BIGINT, v BIGINT, a BIGINT, p BOOLEAN"
HAND_NAMES = ["o", "v", "a", "p"]
SECOND = 1_000_000


# ----------------------------------------------------------------------------------------------
# Helpers


def flush_argument(flush_at_end):
    """The SQL of the third argument: None omits it; else its text (``'true'``,
    ``'flush_at_end => true'``, ``'NULL'``, ...)."""
    return "" if flush_at_end is None else f", {flush_at_end}"


def windows(spark, data, schema, eviction, flush_at_end=None, select=WINDOW, order="o", keys=""):
    """``SELECT <select> FROM data GROUP BY <keys>spl_tumbling_window(<order>, '<eviction>'
    [, <flush_at_end>])``; sorted rows."""
    with temp_view(spark, data, schema) as view:
        rows = spark.sql(
            f"SELECT {select} FROM {view} GROUP BY {keys}spl_tumbling_window("
            f"{order}, '{eviction}'{flush_argument(flush_at_end)})"
        ).collect()
    return sort_rows(plain(r, list) for r in rows)


def reference_windows(data, names, eviction, flush_at_end=False):
    """The reference's flushes of one key, shaped like WINDOW: (time, first, last, [values])."""
    tuples = [dict(zip(names, row)) for row in data]
    for t in tuples:
        t["order"] = t["o"]
    policy = eviction if isinstance(eviction, tuple) else ref.parse_tumbling_policy(eviction)
    return sort_rows(
        (at, w[0]["order"], w[-1]["order"], [x["v"] for x in w if x["v"] is not None])
        for at, w in ref.tumbling_flushes(ref.arrival_order(tuples), policy, flush_at_end)
    )


def check_hand(spark, data, eviction, expected, at_end):
    """The operator and the reference give the hand-worked rows, without flush_at_end (omitted
    and false) and with it (true: ``expected`` plus ``at_end``, the rows of the last window)."""
    with_end = sort_rows(expected + at_end)
    assert reference_windows(data, HAND_NAMES, eviction) == expected, "reference"
    assert reference_windows(data, HAND_NAMES, eviction, True) == with_end, "reference, at end"
    assert windows(spark, data, HAND, eviction) == expected, "operator"
    assert windows(spark, data, HAND, eviction, "false") == expected, "operator, false"
    assert windows(spark, data, HAND, eviction, "true") == with_end, "operator, true"


# ----------------------------------------------------------------------------------------------
# Hand-worked cases (BIGINT order o, values v = 10 * o, attribute a, punctuation p)


def test_count(spark):
    """count(3) over o 1..7 and a row with a NULL order (skipped):
    1, 2, 3: the third fills the window: a row at 3 over [1, 2, 3], emptied;
    4, 5, 6: a row at 6; 7 stays in the open window (a row at 7 with flush_at_end)."""
    data = [(o, 10 * o, 0, False) for o in range(1, 8)] + [(None, 99, 0, None)]
    check_hand(
        spark,
        data,
        "count(3)",
        [(3, 1, 3, [10, 20, 30]), (6, 4, 6, [40, 50, 60])],
        [(7, 7, 7, [70])],
    )


def test_count_one(spark):
    """count(1): every tuple is flushed alone at its order; nothing is left at the end."""
    data = [(o, 10 * o, 0, False) for o in (2, 3, 5)]
    expected = [(o, o, o, [10 * o]) for o in (2, 3, 5)]
    check_hand(spark, data, "count(1)", expected, [])


def test_time_with_gaps_between_arrivals(spark):
    """time(3) over o 0, 1, 3, 7, 8, 15: first = 0, instants 3, 6, 9, 12, 15, 18, ...
    0, 1: inserted.
    3: at the instant 3: the window is flushed at 3 over [0, 1] before 3 is inserted.
    7: past the instant 6: flushed at 6 over [3]; then 7 enters (the next instant is 9).
    8: before 9: inserted.
    15: past 9: flushed at 9 over [7, 8]; the instants 12 and 15 (<= 15) find the window
        empty: no rows; 15 enters, the next instant is 18.
    The end: [15] is open (flush_at_end: a row at its last tuple's order 15, not at 18)."""
    data = [(o, 10 * o, 0, False) for o in (0, 1, 3, 7, 8, 15)]
    check_hand(
        spark,
        data,
        "time(3)",
        [(3, 0, 1, [0, 10]), (6, 3, 3, [30]), (9, 7, 8, [70, 80])],
        [(15, 15, 15, [150])],
    )


def test_time_instants_without_tuples(spark):
    """time(2) over o 10, 11, 100: first = 10; 100 is past the instants 12, 14, ..., 100: the
    window is flushed once, at 12, over [10, 11]; the 44 later instants up to 100 give no row."""
    data = [(o, o, 0, False) for o in (10, 11, 100)]
    check_hand(spark, data, "time(2)", [(12, 10, 11, [10, 11])], [(100, 100, 100, [100])])


@pytest.mark.smoke
def test_spl_ages_example(spark):
    """SPL's example: ages 0..7 (attribute a, order o = age), delta(a, 2):
    0, 1, 2: 2 - 0 = 2 is not more than 2: [0, 1, 2];
    3: 3 - 0 > 2: flushed at 3 over [0, 1, 2]; 3 starts the next window;
    4, 5: [3, 4, 5]; 6: 6 - 3 > 2: flushed at 6; 7: [6, 7] open."""
    data = [(age, 10 * age, age, False) for age in range(8)]
    check_hand(
        spark,
        data,
        "delta(a, 2)",
        [(3, 0, 2, [0, 10, 20]), (6, 3, 5, [30, 40, 50])],
        [(7, 6, 7, [60, 70])],
    )


def test_delta_from_the_oldest_tuple(spark):
    """delta(a, 2) over o 1..7 with a 0, 1, -5, 2, 3, 4, 6: compared with the OLDEST tuple held,
    strictly:
        1 (a 0), 2 (a 1), 3 (a -5): nothing more than 2 above 0: [1, 2, 3];
        4 (a 2): 2 - 0 = 2, not more (from the smallest, -5, it would be 7): [1, 2, 3, 4];
        5 (a 3): 3 - 0 > 2 (from the newest, 2, it would be 1): flushed at 5 over [1..4];
        6 (a 4): 4 - 3 = 1: [5, 6];  7 (a 6): 6 - 3 > 2: flushed at 7 over [5, 6]; [7] open."""
    data = [(o, 10 * o, a, False) for o, a in zip(range(1, 8), (0, 1, -5, 2, 3, 4, 6))]
    check_hand(
        spark,
        data,
        "delta(a, 2)",
        [(5, 1, 4, [10, 20, 30, 40]), (7, 5, 6, [50, 60])],
        [(7, 7, 7, [70])],
    )


def test_punct(spark):
    """punct(p) over o 1..6 with p false, TRUE, false, false, TRUE, false, and a row with a NULL
    order and a NULL p (skipped, not an error):
        1; 2 (TRUE): inserted, then flushed at 2 over [1, 2];
        3, 4; 5 (TRUE): flushed at 5 over [3, 4, 5]; 6 open."""
    data = [
        (o, 10 * o, 0, p) for o, p in zip(range(1, 7), (False, True, False, False, True, False))
    ] + [(None, 7, 0, None)]
    check_hand(
        spark, data, "punct(p)", [(2, 1, 2, [10, 20]), (5, 3, 5, [30, 40, 50])], [(6, 6, 6, [60])]
    )


def test_flush_at_end_forms(spark):
    """count(2) over o 1, 2, 3: a row at 2 over [1, 2]; [3] open. flush_at_end NULL is false;
    named ``flush_at_end => true`` / ``=> false``; a constant expression of BOOLEAN type."""
    data = [(o, 10 * o, 0, False) for o in (1, 2, 3)]
    closed = [(2, 1, 2, [10, 20])]
    every = closed + [(3, 3, 3, [30])]
    for argument, expected in (
        ("NULL", closed),
        ("CAST(NULL AS BOOLEAN)", closed),
        ("flush_at_end => true", every),
        ("flush_at_end => false", closed),
        ("flush_at_end => NULL", closed),
        ("1 < 2", every),
        ("NOT true", closed),
    ):
        assert windows(spark, data, HAND, "count(2)", argument) == expected, argument


def test_flush_at_end_per_key(spark):
    """Each key's last window is flushed at that key's last tuple: count(3), key x: o 1, 2
    (open, flushed at 2); key y: o 1..4 (a row at 3, then [4] flushed at 4); key NULL: o 5 (at
    5)."""
    data = [
        ("x", 1, 1),
        ("x", 2, 2),
        ("y", 1, 10),
        ("y", 2, 20),
        ("y", 3, 30),
        ("y", 4, 40),
        (None, 5, 50),
    ]
    got = windows(
        spark,
        data,
        "k STRING, o BIGINT, v BIGINT",
        "count(3)",
        "true",
        select="k, " + WINDOW,
        keys="k, ",
    )
    assert got == [
        (None, 5, 5, 5, [50]),
        ("x", 2, 1, 2, [1, 2]),
        ("y", 3, 1, 3, [10, 20, 30]),
        ("y", 4, 4, 4, [40]),
    ]


def test_ties(spark):
    """Ties of order arrive by v, NULL first.
    count(2): four tuples at 1 with v 3, 1, NULL, 2 arrive NULL, 1, 2, 3: rows at 1 over
    [NULL, 1] and over [2, 3].
    punct(p): at 5, v NULL (false), 1 (false), 2 (TRUE), 3 (false); at 6, v 4 (TRUE): the
    tuple with p TRUE comes third, so the row at 5 holds [NULL, 1, 2] and the row at 6 [3, 4]
    (first 5, last 6).
    time(2): o 0 (v 0), then two tuples at the instant 2 (v 5, 1): the first of them (v 1)
    flushes [0] at 2; the second (v 5) is inserted (the next instant is 4): [1, 5] open, with
    flush_at_end a second row at 2."""
    data = [(1, 3, 0, False), (1, 1, 0, False), (1, None, 0, False), (1, 2, 0, False)]
    assert windows(spark, data, HAND, "count(2)", select=WINDOW + ", count(*)") == [
        (1, 1, 1, [1], 2),
        (1, 1, 1, [2, 3], 2),
    ]
    assert reference_windows(data, HAND_NAMES, "count(2)") == [(1, 1, 1, [1]), (1, 1, 1, [2, 3])]
    data = [
        (5, 2, 0, True),
        (5, 3, 0, False),
        (5, None, 0, False),
        (5, 1, 0, False),
        (6, 4, 0, True),
    ]
    check_hand(spark, data, "punct(p)", [(5, 5, 5, [1, 2]), (6, 5, 6, [3, 4])], [])
    data = [(0, 0, 0, False), (2, 5, 0, False), (2, 1, 0, False)]
    check_hand(spark, data, "time(2)", [(2, 0, 0, [0])], [(2, 2, 2, [1, 5])])


def test_window_column_types_and_end(spark):
    """window.start/end/first/last have the order's type; end = start + 1 tick. TIMESTAMP order
    with time(2 seconds): 00:00:01, 00:00:02.5, 00:00:03 (first 1 s, instant 3 s): the tuple at
    3 s flushes [1 s, 2.5 s] at 3 s."""
    got = spark.sql(
        "SELECT window.start, window.end, window.first, window.last FROM "
        "VALUES (3L, 1), (5L, 2) AS t(o, v) "
        "GROUP BY spl_tumbling_window(o, 'count(2)')"
    ).collect()
    assert [tuple(r) for r in got] == [(5, 6, 3, 5)]
    at = micros("2024-01-01 00:00:03")
    for kind in ("TIMESTAMP", "TIMESTAMP_NTZ"):
        df = spark.sql(
            f"SELECT window, collect_list(v) AS vs FROM VALUES "
            f"({kind} '2024-01-01 00:00:01', 1), ({kind} '2024-01-01 00:00:02.5', 2), "
            f"({kind} '2024-01-01 00:00:03', 3) AS t(o, v) "
            f"GROUP BY spl_tumbling_window(o, 'time(2 seconds)')"
        )
        fields = {f.name: f.dataType.simpleString() for f in df.schema["window"].dataType.fields}
        assert fields == {
            "start": kind.lower(),
            "end": kind.lower(),
            "first": kind.lower(),
            "last": kind.lower(),
        }
        got = df.selectExpr(
            *(
                f"unix_micros(CAST(window.{f} AS TIMESTAMP))"
                for f in ("start", "end", "first", "last")
            ),
            "vs",
        ).collect()
        assert [plain(r, list) for r in got] == [
            (at, at + 1, at - 2 * SECOND, at - SECOND // 2, [1, 2])
        ], kind


def test_time_in_seconds_and_intervals(spark):
    """For TIMESTAMP order, time(1.5) is 1.5 seconds, as time(1500 milliseconds) and
    time(INTERVAL ...)-like strings: over 0 s, 1 s, 1.5 s, 2 s (first 0, instants 1.5, 3): the
    tuple at 1.5 s flushes [0, 1] at 1.5 s; [1.5, 2] stays open."""
    base = micros("2024-01-01 00:00:00")
    data = [(base + int(s * SECOND), int(s * 10)) for s in (0, 1, 1.5, 2)]
    for policy in ("time(1.5)", "time(1500 milliseconds)", "time(1.5 seconds)"):
        got = windows(
            spark,
            data,
            "us BIGINT, v BIGINT",
            policy,
            order="timestamp_micros(us)",
            select="unix_micros(window.start) - " + str(base) + ", collect_list(v)",
        )
        assert got == [(3 * SECOND // 2, [0, 10])], policy


# ----------------------------------------------------------------------------------------------
# Randomized comparison with the reference

RANDOM = "c INT, k INT, o BIGINT, v BIGINT, a BIGINT, b BIGINT, p BOOLEAN"
RANDOM_NAMES = ["c", "k", "o", "v", "a", "b", "p"]


def random_rows(rng, n_cases, max_len=14, **kwargs):
    """harness.spl_random_rows with punctuations: rows (c, k, o, v, a, b, p)."""
    return spl_random_rows(rng, n_cases, max_len, punctuation=True, **kwargs)


def reference_rows(rows):
    out = []
    for row in rows:
        t = dict(zip(RANDOM_NAMES, row))
        t["key"], t["order"] = (t["c"], t["k"]), t["o"]
        out.append(t)
    return out


def run_random(spark, rows, calls, order="o", bounds=None):
    """One query: the calls (argument texts after the order) UNION ALL, each grouped by c, k,
    spl_tumbling_window(<order>, <call>). Returns each call's sorted reference-shaped rows.
    `order` is an expression over the view's columns (e.g. timestamp_micros(o)); `bounds` turns
    window.start, end, first, last into BIGINT ticks."""
    bounds = bounds or "window.start, window.end, window.first, window.last"
    return grouped_calls(
        spark,
        rows,
        RANDOM,
        [f"spl_tumbling_window(ord, {call})" for call in calls],
        f"{bounds}, count(*), sum(v), min(v), max(v), collect_list(v)",
        f"(SELECT *, {order} AS ord FROM {{view}})",
        sequence=list,
    )


def check_random(spark, rows, parameter_sets, **run_args):
    """parameter_sets: (call text, eviction tuple, flush_at_end)."""
    actual = run_random(spark, rows, [call for call, _, _ in parameter_sets], **run_args)
    inputs = reference_rows(rows)
    for p, (call, eviction, flush_at_end) in enumerate(parameter_sets):
        expected = ref.tumbling_window(inputs, eviction, flush_at_end)
        assert_same_cases(
            actual[p],
            expected,
            rows,
            [f"call: spl_tumbling_window(o, {call})"],
            "(c, k, o, v, a, b, p)",
            "((c, k), start, end, first, last, count, sum, min, max, values)",
        )


FLUSH_FORMS = [(None, False), ("false", False), ("true", True), ("flush_at_end => true", True)]


def bigint_sets(policies):
    """The parameter sets of BIGINT order for the policies' texts, with flush_at_end omitted,
    false, true and named (two of these per policy, in turn)."""
    out = []
    for i, text in enumerate(policies):
        for form, flush in (FLUSH_FORMS[i % 2], FLUSH_FORMS[2 + i % 2]):
            out.append(
                (
                    f"'{text}'" + ("" if form is None else f", {form}"),
                    ref.parse_tumbling_policy(text),
                    flush,
                )
            )
    return out


POLICIES = {
    "count": ["count(1)", "count(2)", "count(3)", "count(7)", "punct(p)"],
    "time": ["time(1)", "time(2)", "time(3)", "time(5)", "time(13)"],
    "delta": ["delta(a, 0)", "delta(a, 2)", "delta(b, 1.5)", "delta(o, 3)", "delta(o, 0)"],
}


@pytest.mark.parametrize("kind", list(POLICIES))
def test_random_bigint(spark, kind):
    rng = random.Random("tumbling-" + kind)
    check_random(spark, random_rows(rng, 30), bigint_sets(POLICIES[kind]))


@pytest.mark.smoke
def test_random_one_big_key(spark):
    """Long windows in one key: 300 tuples, ties, walks of the attributes."""
    rng = random.Random("tumbling-big")
    rows = random_rows(rng, 1, max_len=300)
    check_random(spark, rows, bigint_sets(["count(50)", "time(40)", "delta(a, 6)", "punct(p)"]))


@pytest.mark.parametrize("kind", ["TIMESTAMP", "TIMESTAMP_NTZ"])
def test_random_timestamp(spark, kind):
    """TIMESTAMP order with time policies in seconds: orders 0.5 s apart or more, +- 1 us now and
    then, so that instants are hit and just missed; delta over the order column itself."""
    rng = random.Random("tumbling-timestamp-" + kind)
    base = micros("2024-02-29 23:59:50")
    rows = random_rows(
        rng, 24, gaps=(1, 1, 2, 3, 4, 6), base=base, scale=SECOND // 2, jitter=(-1, 1)
    )
    order, bounds = timestamp_order(kind)
    s = SECOND
    sets = [
        ("'time(3 seconds)'", ("time", 3 * s), False),
        ("'time(1.5)', true", ("time", 3 * s // 2), True),
        ("'time(2500 milliseconds)', flush_at_end => true", ("time", 5 * s // 2), True),
        ("'count(3)', true", ("count", 3), True),
        ("'delta(ord, 2 seconds)'", ("delta", "o", 2 * s), False),
        ("'delta(ord, 1.5)', true", ("delta", "o", 3 * s // 2), True),
        ("'delta(a, 1)'", ("delta", "a", 1), False),
        ("'punct(p)', true", ("punct", "p"), True),
        ("'punct(p)'", ("punct", "p"), False),
    ]
    check_random(spark, rows, sets, order=order, bounds=bounds)


def timestamp_order(kind):
    """The order expression of a TIMESTAMP (or TIMESTAMP_NTZ) column made from o (microseconds),
    and the window's fields back as microseconds."""
    order = "timestamp_micros(o)"
    as_ts = "window.{}"
    if kind == "TIMESTAMP_NTZ":
        order = "CAST(timestamp_micros(o) AS TIMESTAMP_NTZ)"
        as_ts = "CAST(window.{} AS TIMESTAMP)"  # the session time zone is UTC
    bounds = ", ".join(f"unix_micros({as_ts.format(f)})" for f in ("start", "end", "first", "last"))
    return order, bounds


@pytest.mark.parametrize("side", ["start", "end"])
@pytest.mark.parametrize("time", ["bigint", "timestamp"])
def test_random_at_the_ends_of_the_line(spark, time, side):
    """Orders from the first tick of the line on, or up to one tick before its last (a row's end
    is its start + 1 tick): time instants past the end of the line, deltas over the order column
    there."""
    rng = random.Random(f"tumbling-ends-{time}-{side}")
    max_len = 12
    first, last = (BIGINT_MIN, BIGINT_MAX) if time == "bigint" else (TIMESTAMP_MIN, TIMESTAMP_MAX)
    base = first + 20 if side == "start" else last - 21 - 13 * max_len
    rows = random_rows(rng, 20, max_len=max_len, base=base)
    assert all(r[2] is None or first <= r[2] < last for r in rows)
    if time == "bigint":
        sets = bigint_sets(
            [
                "time(3)",
                "time(8)",
                "count(3)",
                "delta(o, 5)",
                "punct(p)",
                "time(9223372036854775807)",
            ]
        )
        check_random(spark, rows, sets)
    else:
        sets = [
            ("'time(3 microseconds)', true", ("time", 3), True),
            ("'time(8 microseconds)'", ("time", 8), False),
            ("'count(3)', true", ("count", 3), True),
            ("'delta(ord, 5 microseconds)', true", ("delta", "o", 5), True),
            ("'punct(p)', true", ("punct", "p"), True),
            ("'time(100000 days)', true", ("time", 100000 * 86400 * SECOND), True),
        ]
        check_random(
            spark, rows, sets, order="timestamp_micros(o)", bounds=timestamp_order("TIMESTAMP")[1]
        )


@pytest.mark.slow  # random inputs against a reference
def test_reference_agrees_with_fixed_windows():
    """The reference checks itself: count(n) flushes the tuples in arrival order in blocks of n;
    time(t) flushes, at the first instant a later tuple reaches, the tuples of each interval
    [first + (j - 1)t, first + jt)."""
    rng = random.Random("tumbling-self-check")
    for _ in range(300):
        rows = reference_rows(random_rows(rng, 1, max_len=15))
        n, t = rng.randint(1, 5), rng.randint(1, 6)
        by_count, by_time = [], []
        for key in {r["key"] for r in rows}:
            tuples = ref.arrival_order([r for r in rows if r["key"] == key])
            blocks = [tuples[i : i + n] for i in range(0, len(tuples), n)]
            by_count += [ref.output_row(key, b[-1]["order"], b, 1) for b in blocks if len(b) == n]
            if not tuples:
                continue
            first = tuples[0]["order"]
            intervals = {}
            for x in tuples:
                intervals.setdefault((x["order"] - first) // t, []).append(x)
            for j, members in intervals.items():
                end = first + (j + 1) * t  # flushed there if some tuple reaches it
                if any(x["order"] >= end for x in tuples):
                    by_time.append(ref.output_row(key, end, members, 1))
        assert ref.tumbling_window(rows, ("count", n)) == sort_rows(by_count)
        assert ref.tumbling_window(rows, ("time", t)) == sort_rows(by_time)


# ----------------------------------------------------------------------------------------------
# Streams


def records(batches):
    """The JSON records of micro-batches of tuples (k, second of 2024-01-01 00:00, v, p)."""
    return [
        [{"k": k, "ts": second(t), "v": v, "p": p} for k, t, v, p in batch] for batch in batches
    ]


STREAM_SCHEMA = "k string, ts timestamp, v bigint, p boolean"

#: Two keys; out of order within the watermark's delay (2 s): a at 2 s after a at 3 s, b at 9 s
#: after b at 10 s; ties (a at 3 s, v 2 and 8). The last batch (a at 40 s) moves the watermark to
#: 38 s. Every row the batch query flushes before 38 s depends only on tuples before 38 s (the
#: time(4 s) row of a at the instant 24 s comes from a at 37 s; a at 40 s only flushes at 40 s),
#: and no row lies at 38 s.
STREAM_BATCHES = [
    [("a", 0, 1, False), ("a", 3, 2, False), ("b", 2, 4, True), ("a", 3, 8, True)],
    [("a", 2, 16, False), ("a", 5, 32, False), ("b", 10, 64, False)],
    [
        ("b", 9, 128, True),
        ("a", 12, 256, False),
        ("b", 13, 512, False),
        ("a", 20, 1024, True),
        ("a", 37, 4096, False),
    ],
    [("a", 40, 2048, False)],
]
CLOSED_BY = "2024-01-01 00:00:38"

STREAM_POLICIES = ["count(2)", "time(4 seconds)", "delta(v, 100)", "punct(p)"]


def tumbling_query(policy):
    def query(events):
        return (
            events.groupBy("k", F.expr(f"spl_tumbling_window(ts, '{policy}')"))
            .agg(F.count("*").alias("n"), F.collect_list("v").alias("vs"))
            .selectExpr(
                "k",
                "string(window.start) AS ws",
                "string(window.first) AS wf",
                "string(window.last) AS wl",
                "n",
                "vs",
            )
        )

    return query


@pytest.mark.parametrize("policy", STREAM_POLICIES)
def test_tumbling_on_a_stream(spark, tmp_path, policy):
    """A stream over batches 1 and 2, stopped; batches 3 and 4 written; the stream restarted
    from its checkpoint: together the rows are the batch query's rows at flush times the final
    watermark (38 s) has passed, without loss or repetition. The route: transformWithState."""
    query = tumbling_query(policy)
    source, out, checkpoint = tmp_path / "source", tmp_path / "out", tmp_path / "checkpoint"
    write_batches(source, records(STREAM_BATCHES[:2]))
    stream = (
        spark.readStream.schema(STREAM_SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
        .withWatermark("ts", "2 seconds")
    )
    run_stream(query(stream), out, checkpoint)
    first = spark.read.parquet(str(out)).count()
    write_batches(source, records(STREAM_BATCHES[2:]), first_mtime=1_700_000_100)
    restarted = run_stream(query(stream), out, checkpoint)
    streamed = sort_rows(plain(r) for r in spark.read.parquet(str(out)).collect())

    batch = query(spark.read.schema(STREAM_SCHEMA).json(str(source)))
    closed = sort_rows(plain(r) for r in batch.collect() if r[1] < CLOSED_BY)
    assert len(closed) >= 4, closed
    assert streamed == closed
    assert first < len(streamed)  # the restarted run gave rows
    assert "TransformWithState" in restarted._jsq.explainInternal(False)


@pytest.mark.smoke
def test_flush_at_end_on_a_stream_is_an_error(spark, tmp_path):
    source = tmp_path / "source"
    write_batches(source, records(STREAM_BATCHES[:1]))
    stream = (
        spark.readStream.schema(STREAM_SCHEMA).json(str(source)).withWatermark("ts", "2 seconds")
    )
    for argument in ("true", "flush_at_end => true"):
        with pytest.raises(AnalysisException) as info:
            frame = stream.groupBy(
                "k", F.expr(f"spl_tumbling_window(ts, 'count(2)', {argument})")
            ).count()
            query = (
                frame.writeStream.format("memory")
                .queryName("ew_tumbling_flush")
                .outputMode("append")
                .option("checkpointLocation", str(tmp_path / "cp"))
                .trigger(availableNow=True)
                .start()
            )
            query.awaitTermination()
        message = str(info.value)
        assert "spl_tumbling_window" in message and "flush_at_end" in message, message
    # flush_at_end false on a stream is fine (the query runs).
    frame = stream.groupBy("k", F.expr("spl_tumbling_window(ts, 'count(2)', false)")).count()
    assert run_stream(frame, tmp_path / "out", tmp_path / "cp2").exception() is None


# ----------------------------------------------------------------------------------------------
# Bad input

BAD = (
    "(SELECT o, v, a, amount, p, s, timestamp_seconds(o) AS ts FROM VALUES "
    "(1L, 2L, 3L, 4.5D, true, 'x') AS t(o, v, a, amount, p, s))"
)


@pytest.mark.parametrize(
    "call, parameter, text",
    [
        ("o, 'bogus(3)'", "eviction", "bogus(3)"),
        ("o, 'sometimes'", "eviction", "sometimes"),
        ("o, 'count(0)'", "eviction", "count(0)"),
        ("o, 'time(0)'", "eviction", "time(0)"),
        ("ts, 'time(0 seconds)'", "eviction", "time(0 seconds)"),
        ("o, 'time(-1)'", "eviction", "time(-1)"),
        ("o, 'delta(a, -1)'", "eviction", "delta(a, -1)"),
        ("o, 'delta(s, 1)'", "eviction", "delta(s, 1)"),
        ("o, 'punct(amount)'", "eviction", "amount"),
        ("o, 'punct(a)'", "eviction", "punct(a)"),
        ("o, 'punct(s)'", "eviction", "punct(s)"),
        ("o, 'punct(nosuchcol)'", "eviction", "nosuchcol"),
        ("o, 'punct()'", "eviction", "punct()"),
        ("o, 'count(2)', p", "flush_at_end", ""),
        ("o, 'count(2)', a > 1", "flush_at_end", ""),
        ("o, 'count(2)', 1", "flush_at_end", ""),
        ("o, 'count(2)', 1.5D", "flush_at_end", ""),
        ("o, 'count(2)', flush_at_end => 1", "flush_at_end", ""),
        ("o, 'count(2)', flush_at_end => p", "flush_at_end", ""),
        ("s, 'count(2)'", "order", "STRING"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_bad_input(spark, call, parameter, text):
    message = analysis_error(
        spark, f"SELECT count(*) FROM {BAD} GROUP BY spl_tumbling_window({call})"
    )
    assert "spl_tumbling_window" in message and f"`{parameter}`" in message, message
    assert text in message, message


@pytest.mark.parametrize(
    "call, parameter",
    [
        ("o, 'punct(p)'", "eviction"),
        ("o, 'count(2)', 'punct(p)'", "trigger"),
    ],
)
def test_punct_is_not_for_sliding_windows(spark, call, parameter):
    message = analysis_error(spark, f"SELECT count(*) FROM {BAD} GROUP BY sliding_window({call})")
    assert "sliding_window" in message and f"`{parameter}`" in message, message
    assert "punct" in message, message


@pytest.mark.parametrize(
    "rows, policy, row",
    [
        ("(1L, true), (2L, NULL)", "punct(p)", "(o=2, p=null)"),
        ("(1L, NULL), (2L, true)", "punct(p)", "(o=1, p=null)"),
        ("(1L, 3L), (2L, NULL)", "delta(p, 1)", "(o=2, p=null)"),
    ],
    ids=["punct", "punct-first-row", "delta"],
)
def test_null_policy_value_names_the_row(spark, rows, policy, row):
    """A NULL punctuation (or delta attribute) in a row with an order fails the query with a
    Spark error naming the function, the policy and the row."""
    with pytest.raises(IllegalArgumentException) as info:
        spark.sql(
            f"SELECT count(*) FROM VALUES {rows} AS t(o, p) "
            f"GROUP BY spl_tumbling_window(o, '{policy}')"
        ).collect()
    error = info.value
    assert (error.getCondition(), error.getSqlState()) == ("EVENTWINDOWS_INVALID_INPUT", "22000")
    message = str(error)
    assert "spl_tumbling_window" in message and policy in message and row in message, message


# ----------------------------------------------------------------------------------------------
# The Python API


def test_punct_builds_the_policy(spark):
    assert ew.spl.punct("p") == "punct(p)"


def test_python_bad_parameters(spark):
    df = spark.createDataFrame([(1, 2.5)], "o bigint, amount double")
    with pytest.raises(AnalysisException) as info:
        df.groupBy(ew.spl_tumbling_window("o", ew.spl.punct("amount"))).count().schema  # noqa: B018
    assert "spl_tumbling_window" in str(info.value) and "amount" in str(info.value)
    with pytest.raises(AnalysisException) as info:
        df.groupBy(ew.spl_tumbling_window("o", ew.spl.time(0))).count().schema  # noqa: B018
    assert "spl_tumbling_window" in str(info.value) and "`eviction`" in str(info.value)


def test_decimal_delta_attribute(spark):
    """DECIMAL attribute, exact: delta(t, 1.5) over 16.0, 17.5 (exactly 1.5: no flush), 17.6
    (1.6 > 1.5 from the oldest, 16.0: a flush at its order over [16.0, 17.5])."""
    data = [(1, 10, Decimal("16.0")), (2, 20, Decimal("17.5")), (3, 30, Decimal("17.6"))]
    got = windows(spark, data, "o BIGINT, v BIGINT, t DECIMAL(4, 1)", "delta(t, 1.5)", "true")
    assert got == [(3, 1, 2, [10, 20]), (3, 3, 3, [30])]
    assert reference_windows(data, ["o", "v", "t"], ("delta", "t", Decimal("1.5")), True) == got
