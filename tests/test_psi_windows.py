"""\\psi's windows by message index and by relative time (SPEC 3.4, \\psi's Windowing
Operators):
``index_window(time, lo, hi[, order])`` and ``time_window(time, lo, hi[, bounds])``.

Hand-worked cases (\\psi's index windows over 5 messages, \\psi's window statistics as
one-liners, the four bounds, empty windows, ties, TIMESTAMP time), a randomized comparison with
the brute-force reference (tests/reference/psi.py), and bad input through the Python API.

Random cases run batched: each case has its own id ``c``, grouped by next to the case's key ``k``
(which may be NULL), so one query covers many cases; the queries of several parameter sets are
one ``UNION ALL``, so one Spark job checks a whole parametrization.
"""

import datetime
import random

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import eventwindows as ew
from harness import (
    LINES,
    TIMESTAMP_MAX,
    assert_same_cases,
    at_an_end,
    grouped_calls,
    micros,
    plain,
    sort_key,
    sql_int,
)
from reference import psi as refp

SCHEMA = "c INT, k INT, t BIGINT, o INT, v BIGINT"
AGGREGATES = "count(*), sum(v), min(v), max(v), collect_list(v)"
INDEX_FIELDS = ("start", "end", "first", "last")
TIME_FIELDS = ("start", "end")


def rows_of(spark, sql):
    return [plain(r) for r in spark.sql(sql).collect()]


# ----------------------------------------------------------------------------------------------
# Running many calls in one query, comparing with the reference


def run_calls(spark, rows, calls, fields, time="bigint"):
    """The results of ``GROUP BY c, k, <call>`` for every call, from one UNION ALL query.

    Each result is a sorted list of reference-shaped rows ``((c, k), <window fields>, count, sum,
    min, max, values)``. With time="timestamp" (or "timestamp_ntz") the column t is a timestamp
    made from the BIGINT microseconds and the window fields come back as microseconds.
    """
    if time == "bigint":
        source = "{view}"
        selected = ", ".join(f"window.{f}" for f in fields)
    else:
        cast = "TIMESTAMP" if time == "timestamp" else "TIMESTAMP_NTZ"
        source = f"(SELECT c, k, CAST(timestamp_micros(t) AS {cast}) AS t, o, v FROM {{view}})"
        selected = ", ".join(f"unix_micros(CAST(window.{f} AS TIMESTAMP))" for f in fields)
    return grouped_calls(spark, rows, SCHEMA, calls, f"{selected}, {AGGREGATES}", source)


def messages(rows, order=False):
    """The rows as the reference takes them: key = (case, key); the order column if `order`."""
    if order:
        return [((c, k), t, o, v) for c, k, t, o, v in rows]
    return [((c, k), t, v) for c, k, t, o, v in rows]


def assert_same(actual, expected, rows, call):
    """Compares whole results; on a difference, shows the smallest differing case in full."""
    assert_same_cases(
        actual,
        expected,
        rows,
        [f"call: {call}"],
        "(c, k, t, o, v)",
        "(key, window fields..., count, sum, min, max, values)",
    )


def random_messages(rng, n_cases, scale=1, jitter=(), max_messages=25):
    """Rows (c, k, t, o, v): ties of times (and of values), negative times, NULL times, values
    and orders, NULL keys; some cases empty or with one, two or three messages."""
    rows = []
    for c in range(n_cases):
        keys = rng.sample([None, 0, 1, 2], rng.randint(1, 3))
        values = rng.choice([(-3, 3), (-50, 50)])  # small ranges: ties in time and value
        times = []
        for _ in range(
            rng.choice([0, 1, 2, 3, rng.randint(4, max_messages), rng.randint(4, max_messages)])
        ):
            k = rng.choice(keys)
            v = None if rng.random() < 0.12 else rng.randint(*values)
            o = None if rng.random() < 0.2 else rng.randint(0, 3)
            if rng.random() < 0.06:
                t = None
            elif times and rng.random() < 0.3:
                t = rng.choice(times)  # a tie
            else:
                t = rng.randint(-20, 20) * scale
                if jitter and rng.random() < 0.3:
                    t += rng.choice(jitter)
                times.append(t)
            rows.append((c, k, t, o, v))
    rng.shuffle(rows)
    return rows


# ----------------------------------------------------------------------------------------------
# The reference itself, on hand-worked cases (no Spark)

FIVE = [(None, 10, 1), (None, 20, 2), (None, 30, 3), (None, 40, 4), (None, 50, 5)]


def test_reference_index_windows_over_five_messages():
    def windows(lo, hi):
        return [(r[1], r[3], r[4], r[9]) for r in refp.index_window(FIVE, lo, hi)]

    # (anchor time, first time, last time, values)
    assert windows(-2, 0) == [
        (30, 10, 30, (1, 2, 3)),
        (40, 20, 40, (2, 3, 4)),
        (50, 30, 50, (3, 4, 5)),
    ]
    assert windows(0, 2) == [
        (10, 10, 30, (1, 2, 3)),
        (20, 20, 40, (2, 3, 4)),
        (30, 30, 50, (3, 4, 5)),
    ]
    assert windows(-1, 2) == [(20, 10, 40, (1, 2, 3, 4)), (30, 20, 50, (2, 3, 4, 5))]
    assert windows(None, -1) == [
        (20, 10, 10, (1,)),
        (30, 10, 20, (1, 2)),
        (40, 10, 30, (1, 2, 3)),
        (50, 10, 40, (1, 2, 3, 4)),
    ]
    assert windows(-5, 0) == []


def test_reference_bounds():
    assert [refp.contains(t, 2, 5, "[]") for t in (1, 2, 3, 5, 6)] == [0, 1, 1, 1, 0]
    assert [refp.contains(t, 2, 5, "[)") for t in (1, 2, 3, 5, 6)] == [0, 1, 1, 0, 0]
    assert [refp.contains(t, 2, 5, "(]") for t in (1, 2, 3, 5, 6)] == [0, 0, 1, 1, 0]
    assert [refp.contains(t, 2, 5, "()") for t in (1, 2, 3, 5, 6)] == [0, 0, 1, 0, 0]
    assert [refp.contains(t, 2, 2, "[]") for t in (1, 2, 3)] == [0, 1, 0]
    assert [refp.contains(t, 2, 2, b) for t in (1, 2, 3) for b in ("[)", "(]", "()")] == [0] * 9


@pytest.mark.slow  # random inputs against a reference
def test_reference_bounds_agree_on_integer_ticks():
    """On integer times, an open end is the closed end one tick inward; [lo, hi] with lo below
    every time and hi above is the whole key."""
    rng = random.Random("bounds-self-check")
    for _ in range(200):
        rows = messages(random_messages(rng, 1, max_messages=10))
        lo = rng.randint(-6, 4)
        hi = lo + rng.randint(2, 6)
        closed = refp.time_window(rows, lo, hi, "[]")
        assert refp.time_window(rows, lo - 1, hi + 1, "()") == closed
        assert refp.time_window(rows, lo, hi + 1, "[)") == closed
        assert refp.time_window(rows, lo - 1, hi, "(]") == closed
        whole = refp.time_window(rows, -100, 100)
        for key in {r[0] for r in whole}:
            n = sum(1 for m in rows if m[0] == key and m[1] is not None)
            assert all(r[3] == n for r in whole if r[0] == key)


# ----------------------------------------------------------------------------------------------
# Hand-worked cases in Spark: \psi's index windows over 5 messages

FIVE_SQL = "VALUES (30L, 3L), (10L, 1L), (50L, 5L), (20L, 2L), (40L, 4L) AS m(t, v)"


@pytest.mark.smoke
@pytest.mark.parametrize(
    "lo, hi, expected",
    [
        # (anchor time, first time, last time, collect_list(v)); messages 10..50 with v = 1..5.
        # (-2, 0): the last three; full from index 2 on: 3 rows.
        (-2, 0, [(30, 10, 30, (1, 2, 3)), (40, 20, 40, (2, 3, 4)), (50, 30, 50, (3, 4, 5))]),
        # (0, 2): the next three; full up to index 2: 3 rows.
        (0, 2, [(10, 10, 30, (1, 2, 3)), (20, 20, 40, (2, 3, 4)), (30, 30, 50, (3, 4, 5))]),
        # (-1, 2): anchors 1 and 2 only: 2 rows.
        (-1, 2, [(20, 10, 40, (1, 2, 3, 4)), (30, 20, 50, (2, 3, 4, 5))]),
        # (-3, -1): the three before the anchor (anchor excluded): anchors 3, 4.
        (-3, -1, [(40, 10, 30, (1, 2, 3)), (50, 20, 40, (2, 3, 4))]),
        # (1, 3): the three after the anchor: anchors 0, 1.
        (1, 3, [(10, 20, 40, (2, 3, 4)), (20, 30, 50, (3, 4, 5))]),
        # (0, 0): each message alone.
        (0, 0, [(t, t, t, (t // 10,)) for t in (10, 20, 30, 40, 50)]),
        # (NULL, 0): running windows from the first message.
        (
            None,
            0,
            [
                (10, 10, 10, (1,)),
                (20, 10, 20, (1, 2)),
                (30, 10, 30, (1, 2, 3)),
                (40, 10, 40, (1, 2, 3, 4)),
                (50, 10, 50, (1, 2, 3, 4, 5)),
            ],
        ),
        # (NULL, 2): from the first message to two after the anchor: anchors 0..2.
        (
            None,
            2,
            [(10, 10, 30, (1, 2, 3)), (20, 10, 40, (1, 2, 3, 4)), (30, 10, 50, (1, 2, 3, 4, 5))],
        ),
        # (NULL, -2): up to two before the anchor: anchors 2..4.
        (None, -2, [(30, 10, 10, (1,)), (40, 10, 20, (1, 2)), (50, 10, 30, (1, 2, 3))]),
        # Six messages wide: never full over five.
        (-5, 0, []),
        (-2, 3, []),
    ],
)
def test_index_windows_over_five_messages(spark, lo, hi, expected):
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, window.first, window.last, "
        f"collect_list(v) FROM {FIVE_SQL} "
        f"GROUP BY index_window(t, {sql_int(lo)}, {sql_int(hi)}) ORDER BY 1",
    )
    assert got == [(s, s + 1, f, l, vs) for s, f, l, vs in expected]
    assert [(r[1], r[3], r[4], r[9]) for r in refp.index_window(FIVE, lo, hi)] == expected


# ----------------------------------------------------------------------------------------------
# \psi's window statistics as one-liners

# t = 1, 2, 4, 7, 11, 12 with v = 6, 3, NULL, 12, 9, 0 (the NULL is ignored by the aggregates).
STATS_SQL = (
    "VALUES (1L, 6L), (2L, 3L), (4L, CAST(NULL AS BIGINT)), (7L, 12L), (11L, 9L), "
    "(12L, 0L) AS m(t, v)"
)
STATS = "avg(v), sum(v), min(v), max(v), count(v), count(*)"


def stats(spark, call):
    return rows_of(
        spark, f"SELECT window.start, {STATS} FROM {STATS_SQL} GROUP BY {call} ORDER BY 1"
    )


@pytest.mark.smoke
def test_average_of_the_last_three_messages(spark):
    # psi's Average(3) = index_window(t, -2, 0): full windows only, anchors at index 2..5.
    #   t=4:  6, 3, NULL -> avg 9/2 = 4.5, sum 9,  min 3, max 6,  2 values, 3 messages
    #   t=7:  3, NULL, 12 -> 15/2 = 7.5,   sum 15, min 3, max 12, 2, 3
    #   t=11: NULL, 12, 9 -> 21/2 = 10.5,  sum 21, min 9, max 12, 2, 3
    #   t=12: 12, 9, 0    -> 21/3 = 7.0,   sum 21, min 0, max 12, 3, 3
    assert stats(spark, "index_window(t, -2, 0)") == [
        (4, 4.5, 9, 3, 6, 2, 3),
        (7, 7.5, 15, 3, 12, 2, 3),
        (11, 10.5, 21, 9, 12, 2, 3),
        (12, 7.0, 21, 0, 12, 3, 3),
    ]


@pytest.mark.smoke
def test_average_of_the_last_three_ticks(spark):
    # psi's Average(TimeSpan 3) = time_window(t, -3, 0): [t - 3, t], a row per message.
    #   t=1:  [-2, 1]: 6          -> 6.0, 6, 6, 6, 1 value, 1 message
    #   t=2:  [-1, 2]: 6, 3       -> 4.5, 9, 3, 6, 2, 2
    #   t=4:  [1, 4]:  6, 3, NULL -> 4.5, 9, 3, 6, 2, 3
    #   t=7:  [4, 7]:  NULL, 12   -> 12.0, 12, 12, 12, 1, 2
    #   t=11: [8, 11]: 9          -> 9.0, 9, 9, 9, 1, 1
    #   t=12: [9, 12]: 9, 0       -> 4.5, 9, 0, 9, 2, 2
    assert stats(spark, "time_window(t, -3, 0)") == [
        (1, 6.0, 6, 6, 6, 1, 1),
        (2, 4.5, 9, 3, 6, 2, 2),
        (4, 4.5, 9, 3, 6, 2, 3),
        (7, 12.0, 12, 12, 12, 1, 2),
        (11, 9.0, 9, 9, 9, 1, 1),
        (12, 4.5, 9, 0, 9, 2, 2),
    ]


@pytest.mark.smoke
def test_running_statistics(spark):
    # psi's running Average() = index_window(t, NULL, 0): from the first message to the anchor.
    #   t=1: 6 -> 6.0; t=2: 6, 3 -> 4.5; t=4: + NULL -> 4.5; t=7: + 12 -> 21/3 = 7.0;
    #   t=11: + 9 -> 30/4 = 7.5; t=12: + 0 -> 30/5 = 6.0. min 6, 3, 3, 3, 3, 0; max 6, 6, 6, 12...
    assert stats(spark, "index_window(t, NULL, 0)") == [
        (1, 6.0, 6, 6, 6, 1, 1),
        (2, 4.5, 9, 3, 6, 2, 2),
        (4, 4.5, 9, 3, 6, 2, 3),
        (7, 7.0, 21, 3, 12, 3, 4),
        (11, 7.5, 30, 3, 12, 4, 5),
        (12, 6.0, 30, 0, 12, 5, 6),
    ]


def test_statistics_through_the_python_api(spark):
    # The three one-liners above through eventwindows' Python functions (first rows only).
    df = spark.sql(f"SELECT * FROM {STATS_SQL}")
    avg = F.avg("v").alias("avg")
    last3 = df.groupBy(ew.index_window("t", -2, 0)).agg(avg).orderBy("window")
    past3 = df.groupBy(ew.time_window("t", -3, 0)).agg(avg).orderBy("window")
    running = df.groupBy(ew.index_window("t", None, 0)).agg(avg).orderBy("window")
    assert [r.avg for r in last3.collect()] == [4.5, 7.5, 10.5, 7.0]
    assert [r.avg for r in past3.collect()] == [6.0, 4.5, 4.5, 12.0, 9.0, 4.5]
    assert [r.avg for r in running.collect()] == [6.0, 4.5, 4.5, 7.0, 7.5, 6.0]


# ----------------------------------------------------------------------------------------------
# Windows by relative time: bounds, empty windows, ties, TIMESTAMP time

BOUNDS_SQL = "VALUES (0L, 1L), (2L, 2L), (3L, 4L), (5L, 8L) AS m(t, v)"


@pytest.mark.parametrize(
    "bounds, expected",
    [
        # Messages 0, 2, 3, 5 (v = 1, 2, 4, 8), lo = -2, hi = 0: the window of t ends at t - 2, t.
        ("'[]'", [(0, 1, (1,)), (2, 2, (1, 2)), (3, 2, (2, 4)), (5, 2, (4, 8))]),  # [t-2, t]
        ("'[)'", [(0, 0, ()), (2, 1, (1,)), (3, 1, (2,)), (5, 1, (4,))]),  # [t-2, t)
        ("'(]'", [(0, 1, (1,)), (2, 1, (2,)), (3, 2, (2, 4)), (5, 1, (8,))]),  # (t-2, t]
        ("'()'", [(0, 0, ()), (2, 0, ()), (3, 1, (2,)), (5, 0, ())]),  # (t-2, t)
        (None, [(0, 1, (1,)), (2, 2, (1, 2)), (3, 2, (2, 4)), (5, 2, (4, 8))]),  # default '[]'
    ],
)
def test_time_window_bounds(spark, bounds, expected):
    extra = "" if bounds is None else f", {bounds}"
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*), collect_list(v) "
        f"FROM {BOUNDS_SQL} GROUP BY time_window(t, -2, 0{extra}) ORDER BY 1",
    )
    assert got == [(t, t + 1, n, vs) for t, n, vs in expected]


def test_empty_windows_give_count_zero_and_sum_null(spark):
    # time_window(t, -2, -1) over t = 1, 2, 4, 7, 11, 12 (v = 6, 3, NULL, 12, 9, 0):
    #   t=1: [-1, 0] empty; t=2: [0, 1] -> 6; t=4: [2, 3] -> 3; t=7: [5, 6] empty;
    #   t=11: [9, 10] empty; t=12: [10, 11] -> 9.
    got = rows_of(
        spark,
        f"SELECT window.start, count(*), count(v), sum(v), max(v), "
        f"collect_list(v) FROM {STATS_SQL} GROUP BY time_window(t, -2, -1) "
        f"ORDER BY 1",
    )
    assert got == [
        (1, 0, 0, None, None, ()),
        (2, 1, 1, 6, 6, (6,)),
        (4, 1, 1, 3, 3, (3,)),
        (7, 0, 0, None, None, ()),
        (11, 0, 0, None, None, ()),
        (12, 1, 1, 9, 9, (9,)),
    ]
    # A window holding only the NULL value (t=4 alone): one message, sum NULL.
    got = rows_of(
        spark,
        f"SELECT window.start, count(*), sum(v) FROM {STATS_SQL} "
        f"GROUP BY time_window(t, 0, 0) ORDER BY 1",
    )
    assert got == [(1, 1, 6), (2, 1, 3), (4, 1, None), (7, 1, 12), (11, 1, 9), (12, 1, 0)]


def test_one_row_per_message_also_on_ties(spark):
    # Two messages at t=2: each is an anchor, so two identical rows; the window [1, 2] holds
    # 1, 2, 2 in time order, the tie by value (NULL values are not collected).
    got = rows_of(
        spark,
        "SELECT window.start, count(*), collect_list(v) FROM VALUES (2L, 9L), "
        "(1L, 5L), (2L, 4L), (2L, CAST(NULL AS BIGINT)) AS m(t, v) "
        "GROUP BY time_window(t, -1, 0) ORDER BY 1",
    )
    assert got == [(1, 1, (5,))] + [(2, 4, (5, 4, 9))] * 3


def test_index_window_ties_by_order_then_value(spark):
    # t = 1, 1, 1, 2 with (o, v) = (2, 10), (1, 20), (NULL, 30), (0, 40).
    # With order o (NULLs first): 30, 20, 10, 40 -> windows (-1, 0): [30, 20], [20, 10], [10, 40]
    # (anchors 20 and 10 both at t=1, first and last at t=1; the rows below are sorted).
    # Without order, ties by v: 10, 20, 30, 40 -> [10, 20], [20, 30], [30, 40].
    df = spark.createDataFrame(
        [(1, 2, 10), (1, 1, 20), (1, None, 30), (2, 0, 40)], "t bigint, o int, v bigint"
    )
    with_order = df.groupBy(ew.index_window("t", -1, 0, order="o")).agg(
        F.collect_list("v").alias("vs")
    )
    assert sorted(plain(r) for r in with_order.select("window.*", "vs").collect()) == [
        (1, 2, 1, 1, (20, 10)),
        (1, 2, 1, 1, (30, 20)),
        (2, 3, 1, 2, (10, 40)),
    ]
    without = df.groupBy(ew.index_window("t", -1, 0)).agg(F.collect_list("v").alias("vs"))
    assert sorted(plain(r) for r in without.select("window.*", "vs").collect()) == [
        (1, 2, 1, 1, (10, 20)),
        (1, 2, 1, 1, (20, 30)),
        (2, 3, 1, 2, (30, 40)),
    ]


TIMES = [
    "2024-01-01 00:00:00",
    "2024-01-01 00:00:01.5",
    "2024-01-01 00:00:02",
    "2024-01-01 00:00:05",
]


def timestamp_messages(spark, cast="timestamp"):
    return spark.createDataFrame(
        [(t, 2**i) for i, t in enumerate(TIMES)], "ts string, v bigint"
    ).select(F.col("ts").cast(cast).alias("ts"), "v")


@pytest.mark.parametrize(
    "lo, hi, bounds, expected",
    [
        # Messages at 0, 1.5, 2, 5 s (v = 1, 2, 4, 8).
        # [t - 2 s, t]: 0 -> {0}; 1.5 -> {0, 1.5}; 2 -> {0, 1.5, 2}; 5 -> {5}.
        (
            lambda: datetime.timedelta(seconds=-2),
            lambda: "0 seconds",
            None,
            [(1,), (1, 2), (1, 2, 4), (8,)],
        ),
        (
            lambda: "-2 seconds",
            lambda: datetime.timedelta(0),
            "[]",
            [(1,), (1, 2), (1, 2, 4), (8,)],
        ),
        # [t - 2 s, t - 1 s): 0 -> {}; 1.5 -> [-0.5, 0.5) {0}; 2 -> [0, 1) {0}; 5 -> [3, 4) {}.
        (lambda: "-2 seconds", lambda: datetime.timedelta(seconds=-1), "[)", [(), (1,), (1,), ()]),
        # (t - 0.5 s, t + 0.5 s): 0 -> {0}; 1.5 -> (1, 2) {1.5}; 2 -> (1.5, 2.5) {2}; 5 -> {5}.
        (
            lambda: datetime.timedelta(milliseconds=-500),
            lambda: "500 milliseconds",
            "()",
            [(1,), (2,), (4,), (8,)],
        ),
        # Columns: [t, t + 0.5 s]: 0 -> {0}; 1.5 -> {1.5, 2}; 2 -> {2}; 5 -> {5}.
        (
            lambda: F.expr("INTERVAL 0 SECONDS"),
            lambda: F.expr("INTERVAL '0.5' SECOND"),
            "[]",
            [(1,), (2, 4), (4,), (8,)],
        ),
    ],
    ids=["negative-timedelta", "zero-timedelta", "negative-hi", "milliseconds", "columns"],
)
@pytest.mark.parametrize("cast", ["timestamp", "timestamp_ntz"])
def test_time_window_timestamps(spark, lo, hi, bounds, expected, cast):
    result = (
        timestamp_messages(spark, cast)
        .groupBy(ew.time_window("ts", lo(), hi(), bounds=bounds))
        .agg(F.collect_list("v").alias("vs"))
    )
    assert result.schema["window"].dataType.simpleString() == f"struct<start:{cast},end:{cast}>"
    got = sorted(
        plain(r)
        for r in result.select(
            F.col("window.start").cast("string"), F.col("window.end").cast("string"), "vs"
        ).collect()
    )
    assert [(s, e) for s, e, _ in got] == [
        ("2024-01-01 00:00:00", "2024-01-01 00:00:00.000001"),
        ("2024-01-01 00:00:01.5", "2024-01-01 00:00:01.500001"),
        ("2024-01-01 00:00:02", "2024-01-01 00:00:02.000001"),
        ("2024-01-01 00:00:05", "2024-01-01 00:00:05.000001"),
    ]
    assert [vs for _, _, vs in got] == expected


def test_index_window_timestamps(spark):
    # (-1, 1) over the messages at 0, 1.5, 2, 5 s: anchors 1.5 (first 0, last 2) and 2 (1.5, 5).
    result = (
        timestamp_messages(spark)
        .groupBy(ew.index_window("ts", -1, 1))
        .agg(F.sum("v").alias("total"))
    )
    assert result.schema["window"].dataType.simpleString() == (
        "struct<start:timestamp,end:timestamp,first:timestamp,last:timestamp>"
    )
    got = sorted(
        plain(r)
        for r in result.select(
            *[F.col(f"window.{f}").cast("string") for f in INDEX_FIELDS], "total"
        ).collect()
    )
    d = "2024-01-01 00:00:0"
    assert got == [
        (d + "1.5", d + "1.500001", d + "0", d + "2", 7),
        (d + "2", d + "2.000001", d + "1.5", d + "5", 14),
    ]


def test_bigint_python_api_keys_and_null_times(spark):
    # Key 'a': t = 1, 3, NULL (skipped), 6; key NULL: t = 2. index_window(-1, 0): a -> anchors
    # 3 (1, 3) and 6 (3, 6); NULL has one message, no full window. time_window(-3, 0): a row per
    # message with a time: a 1 -> {1}, 3 -> {1, 3}, 6 -> {3, 6}; NULL 2 -> {2}.
    df = spark.createDataFrame(
        [("a", 1, 1), ("a", 3, 2), ("a", None, 100), ("a", 6, 4), (None, 2, 8)],
        "k string, t bigint, v bigint",
    )
    index = df.groupBy("k", ew.index_window("t", -1, 0)).agg(F.sum("v").alias("total"))
    assert sorted(
        (plain(r) for r in index.select("k", "window.*", "total").collect()), key=sort_key
    ) == [("a", 3, 4, 1, 3, 3), ("a", 6, 7, 3, 6, 6)]
    time = df.groupBy("k", ew.time_window("t", -3, 0)).agg(F.sum("v").alias("total"))
    assert sorted(
        (plain(r) for r in time.select("k", "window.*", "total").collect()), key=sort_key
    ) == [(None, 2, 3, 8), ("a", 1, 2, 1), ("a", 3, 4, 3), ("a", 6, 7, 6)]


# At the ends of BIGINT time: messages at MIN, MIN + 1, MAX - 5, MAX - 1 and MAX (v = 8, 16, 4, 1,
# 2). The message at the end of time is a message like any other (its row's end is clipped to
# MAX); a window by relative time holds the messages whose time lies in it, computed exactly: a
# window wholly past the end (or before the start) of time is empty, it does not saturate onto
# the message there.
MAX, MIN = 2**63 - 1, -(2**63)
EDGE = [(None, MIN, 8), (None, MIN + 1, 16), (None, MAX - 5, 4), (None, MAX - 1, 1), (None, MAX, 2)]
EDGE_SQL = (
    "VALUES (CAST(-9223372036854775808 AS BIGINT), 8L), (-9223372036854775807L, 16L), "
    "(9223372036854775802L, 4L), (9223372036854775806L, 1L), (9223372036854775807L, 2L) "
    "AS m(t, v)"
)


@pytest.mark.parametrize(
    "call, expected",
    [
        # [t + 1, t + 3]: MIN -> {MIN + 1}; MIN + 1 -> {}; MAX - 5 -> [MAX - 4, MAX - 2] {};
        # MAX - 1 -> [MAX, MAX + 2] {MAX}; MAX -> [MAX + 1, MAX + 3], past the end: {}.
        ("time_window(t, 1, 3)", [(16,), (), (), (2,), ()]),
        # (t + 1, t + 3]: MIN -> {}; ...; MAX - 1 -> (MAX, MAX + 2] {}; MAX -> {}.
        ("time_window(t, 1, 3, '(]')", [(), (), (), (), ()]),
        # [t - 3, t - 1]: MIN -> [MIN - 3, MIN - 1], before the start: {}; MIN + 1 -> {MIN};
        # MAX - 5 -> {}; MAX - 1 -> [MAX - 4, MAX - 2] {}; MAX -> [MAX - 3, MAX - 1] {MAX - 1}.
        ("time_window(t, -3, -1)", [(), (8,), (), (), (1,)]),
        # [t - 3, t - 1): MIN + 1 -> [MIN - 2, MIN) {}; MAX -> [MAX - 3, MAX - 1) {}.
        ("time_window(t, -3, -1, '[)')", [(), (), (), (), ()]),
        # [t, t]: every message alone, the one at MAX included.
        ("time_window(t, 0, 0)", [(8,), (16,), (4,), (1,), (2,)]),
        # (-1, 0): anchors 1..4; (NULL, 0): all five.
        ("index_window(t, -1, 0)", [(8, 16), (16, 4), (4, 1), (1, 2)]),
        ("index_window(t, NULL, 0)", [(8,), (8, 16), (8, 16, 4), (8, 16, 4, 1), (8, 16, 4, 1, 2)]),
    ],
    ids=[
        "time-1-3",
        "time-1-3-open-low",
        "time-minus3-minus1",
        "time-minus3-minus1-open-high",
        "time-0-0",
        "index-minus1-0",
        "index-running",
    ],
)
def test_ends_of_bigint_time(spark, call, expected):
    anchors = [MIN, MIN + 1, MAX - 5, MAX - 1, MAX][-len(expected) :]
    lifetimes = [(t, min(t + 1, MAX)) for t in anchors]
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, collect_list(v) FROM {EDGE_SQL} "
        f"GROUP BY {call} ORDER BY 1",
    )
    assert got == [lt + (vs,) for lt, vs in zip(lifetimes, expected)]


def test_reference_at_the_ends_of_bigint_time():
    assert [r[-1] for r in refp.time_window(EDGE, 1, 3)] == [(16,), (), (), (2,), ()]
    assert [r[-1] for r in refp.time_window(EDGE, -3, -1)] == [(), (8,), (), (), (1,)]
    assert [r[-1] for r in refp.time_window(EDGE, -3, -1, "[)")] == [()] * 5
    assert [r[1:3] for r in refp.index_window(EDGE, None, 0)][-1] == (MAX, MAX)


# ----------------------------------------------------------------------------------------------
# Randomized comparison with the reference

INDEX_WINDOWS = [
    (-2, 0),
    (0, 2),
    (-1, 2),
    (-3, -1),
    (1, 3),
    (0, 0),
    (-2, -2),
    (4, 6),
    (None, 0),
    (None, -1),
    (None, 3),
    (-9, 0),
    (-30, 30),
    (-1, 40),
]


def test_index_window_random(spark):
    rng = random.Random("index-random")
    rows = random_messages(rng, 40)
    calls = [f"index_window(t, {sql_int(lo)}, {sql_int(hi)})" for lo, hi in INDEX_WINDOWS]
    for (lo, hi), call, actual in zip(
        INDEX_WINDOWS, calls, run_calls(spark, rows, calls, INDEX_FIELDS)
    ):
        assert_same(actual, refp.index_window(messages(rows), lo, hi), rows, call)


def test_index_window_random_with_order(spark):
    rng = random.Random("index-random-order")
    rows = random_messages(rng, 40)
    windows = [(-2, 0), (1, 3), (None, 1), (-1, 1), (-4, -2)]
    calls = [f"index_window(t, {sql_int(lo)}, {sql_int(hi)}, o)" for lo, hi in windows]
    for (lo, hi), call, actual in zip(windows, calls, run_calls(spark, rows, calls, INDEX_FIELDS)):
        assert_same(actual, refp.index_window(messages(rows, order=True), lo, hi), rows, call)


@pytest.mark.parametrize(
    "time", [pytest.param("timestamp", marks=pytest.mark.smoke), "timestamp_ntz"]
)
def test_index_window_random_timestamps(spark, time):
    rng = random.Random(f"index-random-{time}")
    base = micros("1969-12-31 23:59:50")
    rows = [
        (c, k, None if t is None else t + base, o, v)
        for c, k, t, o, v in random_messages(rng, 15, scale=1_000_000, jitter=(-1, 1))
    ]
    windows = [(-2, 0), (None, 0), (0, 3)]
    calls = [f"index_window(t, {sql_int(lo)}, {sql_int(hi)})" for lo, hi in windows]
    for (lo, hi), call, actual in zip(
        windows, calls, run_calls(spark, rows, calls, INDEX_FIELDS, time)
    ):
        expected = refp.index_window(messages(rows), lo, hi, line_max=TIMESTAMP_MAX)
        assert_same(actual, expected, rows, call)


TIME_WINDOWS = [(-3, 0), (0, 3), (-2, 2), (-5, -2), (1, 4), (0, 0), (-1, -1), (-60, 60)]


@pytest.mark.parametrize(
    "bounds", [pytest.param(refp.BOUNDS[0], marks=pytest.mark.smoke), *refp.BOUNDS[1:]]
)
def test_time_window_random(spark, bounds):
    rng = random.Random(f"time-random-{bounds}")
    rows = random_messages(rng, 30)
    calls = [f"time_window(t, {sql_int(lo)}, {sql_int(hi)}, '{bounds}')" for lo, hi in TIME_WINDOWS]
    for (lo, hi), call, actual in zip(
        TIME_WINDOWS, calls, run_calls(spark, rows, calls, TIME_FIELDS)
    ):
        assert_same(actual, refp.time_window(messages(rows), lo, hi, bounds), rows, call)


@pytest.mark.parametrize("time", ["timestamp", "timestamp_ntz"])
def test_time_window_random_timestamps(spark, time):
    rng = random.Random(f"time-random-{time}")
    base = micros("2012-06-28 00:00:00")
    rows = [
        (c, k, None if t is None else t + base, o, v)
        for c, k, t, o, v in random_messages(rng, 15, scale=1_000_000, jitter=(-1, 1))
    ]
    windows = [  # (SQL lo, SQL hi, bounds, lo and hi in microseconds)
        ("'-3 seconds'", "'0 seconds'", "[]", -3_000_000, 0),
        ("INTERVAL -2 SECONDS", "INTERVAL 1 SECOND", "()", -2_000_000, 1_000_000),
        ("'1 second'", "'4 seconds'", "[)", 1_000_000, 4_000_000),
        ("INTERVAL '-1' SECOND", "INTERVAL '-1' SECOND", "[]", -1_000_000, -1_000_000),
        ("'-2 seconds'", "'-1 seconds'", "(]", -2_000_000, -1_000_000),
    ]
    calls = [f"time_window(t, {lo}, {hi}, '{b}')" for lo, hi, b, _, _ in windows]
    for (_, _, b, lo, hi), call, actual in zip(
        windows, calls, run_calls(spark, rows, calls, TIME_FIELDS, time)
    ):
        expected = refp.time_window(messages(rows), lo, hi, b, line_max=TIMESTAMP_MAX)
        assert_same(actual, expected, rows, call)


@pytest.mark.parametrize("side", ["start", "end"])
@pytest.mark.parametrize("time", ["bigint", "timestamp"])
def test_psi_windows_random_at_the_ends_of_the_line(spark, time, side):
    """Messages next to either end of the line, some at its first or last instant: windows by
    relative time reaching past an end (open bounds too) keep the messages there."""
    rng = random.Random(f"psi-ends-{time}-{side}")
    last = LINES[time][1]
    rows = at_an_end(random_messages(rng, 15, jitter=(-1, 1)), 2, None, time, side, 10, last)
    index_calls = [f"index_window(t, {sql_int(lo)}, {sql_int(hi)})" for lo, hi in INDEX_WINDOWS]
    for (lo, hi), call, actual in zip(
        INDEX_WINDOWS, index_calls, run_calls(spark, rows, index_calls, INDEX_FIELDS, time)
    ):
        assert_same(actual, refp.index_window(messages(rows), lo, hi, line_max=last), rows, call)
    windows = [(lo, hi, b) for lo, hi in TIME_WINDOWS for b in refp.BOUNDS]
    # Over timestamps the offsets are microseconds, written as such (an integer is no offset).
    offset = sql_int if time == "bigint" else (lambda n: f"'{n} microseconds'")
    time_calls = [f"time_window(t, {offset(lo)}, {offset(hi)}, '{b}')" for lo, hi, b in windows]
    for (lo, hi, b), call, actual in zip(
        windows, time_calls, run_calls(spark, rows, time_calls, TIME_FIELDS, time)
    ):
        expected = refp.time_window(messages(rows), lo, hi, b, line_max=last)
        assert_same(actual, expected, rows, call)


@pytest.mark.slow  # random inputs against a reference
def test_psi_windows_one_big_key(spark):
    """400 messages in one key, with many ties."""
    rng = random.Random("psi-big")
    rows = [
        (0, 1, rng.randint(-200, 200), rng.randint(0, 2), rng.randint(-1000, 1000))
        for _ in range(400)
    ]
    index_calls = [
        "index_window(t, -20, 0)",
        "index_window(t, NULL, 5)",
        "index_window(t, 3, 50, o)",
    ]
    index = run_calls(spark, rows, index_calls, INDEX_FIELDS)
    assert_same(index[0], refp.index_window(messages(rows), -20, 0), rows, index_calls[0])
    assert_same(index[1], refp.index_window(messages(rows), None, 5), rows, index_calls[1])
    assert_same(
        index[2], refp.index_window(messages(rows, order=True), 3, 50), rows, index_calls[2]
    )
    time = run_calls(spark, rows, ["time_window(t, -30, 10, '[)')"], TIME_FIELDS)
    assert_same(time[0], refp.time_window(messages(rows), -30, 10, "[)"), rows, "time_window")


# ----------------------------------------------------------------------------------------------
# Bad input


def analysis_error(build):
    with pytest.raises(AnalysisException) as info:
        build().schema  # noqa: B018  (analysis is enough)
    return str(info.value)


@pytest.mark.parametrize(
    "build, function, parameters",
    [
        (lambda: ew.index_window("t", 1, 0), "index_window", ["`lo`", "`hi`"]),
        (lambda: ew.index_window("t", None, F.lit(None)), "index_window", ["`hi`"]),
        (lambda: ew.index_window("t", F.lit("a"), 0), "index_window", ["`lo`"]),
        (lambda: ew.index_window("id", -1, 0), "index_window", ["`time`"]),
        (lambda: ew.time_window("t", 2, 1), "time_window", ["`lo`", "`hi`"]),
        (lambda: ew.time_window("t", 0, 1, bounds="[["), "time_window", ["`bounds`"]),
        (lambda: ew.time_window("t", 0, 1, bounds="]["), "time_window", ["`bounds`"]),
        (lambda: ew.time_window("id", 0, 1), "time_window", ["`time`"]),
        (lambda: ew.time_window("t", "-1 second", "0 seconds"), "time_window", ["`lo`"]),  # BIGINT
    ],
    ids=[
        "index-lo-over-hi",
        "index-hi-null",
        "index-string-lo",
        "index-string-time",
        "time-lo-over-hi",
        "time-bounds",
        "time-bounds-reversed",
        "time-string-time",
        "time-interval-offsets-bigint",
    ],
)
def test_bad_parameters_name_the_parameter(spark, build, function, parameters):
    df = spark.createDataFrame([("x", 1)], "id string, t bigint").withColumn(
        "ts", F.timestamp_seconds("t")
    )
    message = analysis_error(lambda: df.groupBy(build()).count())
    assert function in message and any(p in message for p in parameters), message


def test_integer_offsets_over_timestamps_are_an_error_saying_what_to_write(spark):
    """As Python's F.window refuses an integer duration: -2000000 over TIMESTAMP time is no
    offset; '-2000000 microseconds' is -2 seconds."""
    df = spark.createDataFrame([(0, 1), (1, 2), (3, 4)], "t bigint, v bigint").select(
        F.timestamp_seconds("t").alias("ts"), "v"
    )

    def sums(lo, hi):
        return [
            r[1]
            for r in df.groupBy(ew.time_window("ts", lo, hi))
            .agg(F.sum("v"))
            .orderBy("window")
            .select("window.start", "sum(v)")
            .collect()
        ]

    # [t - 2 s, t]: 0 {1}, 1 {1, 2}, 3 {2, 4}.
    assert (
        sums("-2000000 microseconds", "0 seconds") == sums("-2 seconds", "0 seconds") == [1, 3, 6]
    )
    with pytest.raises(
        AnalysisException, match="`lo` must be an interval string .* got the integer -2000000"
    ):
        sums(-2_000_000, "0 seconds")


@pytest.mark.parametrize(
    "call, time, count",
    [
        # (-2^63 - 1, -2^63]: the anchor itself, though -2^63 - 1 lies before the line.
        ("time_window(t, -1, 0, '(]')", "-9223372036854775808", 1),
        ("time_window(t, -1, 0, '[]')", "-9223372036854775808", 1),
        # [2^63 - 1, 2^63 + 4): the anchor itself, though the open end lies past the line.
        ("time_window(t, 0, 5, '[)')", "9223372036854775807", 1),
        ("time_window(t, 1, 5, '[)')", "9223372036854775807", 0),
        ("time_window(t, -5, -1, '(]')", "-9223372036854775808", 0),
    ],
)
def test_time_window_bounds_at_the_ends_of_the_line(spark, call, time, count):
    assert rows_of(
        spark,
        f"SELECT window.start, count(*) FROM "
        f"(SELECT CAST('{time}' AS BIGINT) AS t) GROUP BY {call}",
    ) == [(int(time), count)]
