"""Count windows, ``count_window(start[, end], n[, output])`` (SPEC 3.3, StreamInsight's
count windows).

Hand-worked cases (the two figures of StreamInsight's count windows, open-ended events, empty
lifetimes, n = 1, TIMESTAMP time), a randomized comparison with the brute-force reference
(tests/reference/psi.py), and bad input through the Python API.

Random cases run batched: each case has its own id ``c``, grouped by next to the case's key ``k``
(which may be NULL), so one query covers many cases; the queries of several parameter sets are
one ``UNION ALL``, so one Spark job checks a whole parametrization.
"""

import itertools
import random

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import eventwindows as ew
from harness import (
    EMPTY,
    LINES,
    ONE_TICK,
    OPEN,
    TIMESTAMP_MAX,
    assert_same_cases,
    at_an_end,
    grouped_calls,
    micros,
    one_big_key_rows,
    plain,
    random_interval_rows,
    sort_key,
)
from reference import psi as refp

SCHEMA = "c INT, k INT, s BIGINT, e BIGINT, v BIGINT"
AGGREGATES = "count(*), sum(v), min(v), max(v), collect_list(v)"
FIELDS = ("start", "end", "first", "last")


# ----------------------------------------------------------------------------------------------
# Running many calls in one query, comparing with the reference


def run_calls(spark, rows, calls, time="bigint"):
    """The results of ``GROUP BY c, k, <call>`` for every call, from one UNION ALL query.

    Each result is a sorted list of reference-shaped rows ``((c, k), start, end, first, last,
    count, sum, min, max, values)``. With time="timestamp" (or "timestamp_ntz") the columns s and
    e are timestamps made from the BIGINT microseconds and the window fields come back as
    microseconds.
    """
    if time == "bigint":
        source = "{view}"
        fields = ", ".join(f"window.{f}" for f in FIELDS)
    else:
        cast = "TIMESTAMP" if time == "timestamp" else "TIMESTAMP_NTZ"
        source = (
            f"(SELECT c, k, CAST(timestamp_micros(s) AS {cast}) AS s, "
            f"CAST(timestamp_micros(e) AS {cast}) AS e, v FROM {{view}})"
        )
        fields = ", ".join(f"unix_micros(CAST(window.{f} AS TIMESTAMP))" for f in FIELDS)
    return grouped_calls(spark, rows, SCHEMA, calls, f"{fields}, {AGGREGATES}", source)


def ref_rows(rows):
    """The rows as the reference takes them: key = (case, key)."""
    return [((c, k), s, e, v) for c, k, s, e, v in rows]


def assert_same(actual, expected, rows, call):
    """Compares whole results; on a difference, shows the smallest differing case in full."""
    assert_same_cases(
        actual,
        expected,
        rows,
        [f"call: {call}"],
        "(c, k, s, e, v)",
        "(key, start, end, first, last, count, sum, min, max, values)",
    )


#: Lifetimes: point-like, short, long (spanning many count windows), open-ended and empty (in no
#: window, no start time).
LIFETIMES = [(0.3, ONE_TICK), (0.25, (1, 5)), (0.2, (5, 50)), (0.12, OPEN), (0.13, EMPTY)]


def random_events(rng, n_cases, scale=1, jitter=()):
    """Rows (c, k, s, e, v) (harness.random_interval_rows): ties of starts, LIFETIMES, NULL
    values, NULL keys, rows with a NULL start; some cases empty or with one or two events; values
    in a small range in some cases (ties)."""
    return random_interval_rows(
        rng,
        n_cases,
        LIFETIMES,
        times=[(-25, 25)],
        values=[(-3, 3), (-50, 50)],
        scale=scale,
        jitter=jitter,
        max_events=30,
        null_starts=0.06,
    )


# ----------------------------------------------------------------------------------------------
# The reference itself, on hand-worked cases (no Spark)


def test_reference_streaminsight_interval_events():
    # e1 [0, 2) v=1, e2 [2, 8) v=10, e3 [5, 6) v=100, n = 2. Distinct starts 0, 2, 5:
    # W = [0, 3): e1 (0 <= 2, 2 > 0), e2 (2 <= 2, 8 > 0); e3 starts after 2.
    # W = [2, 6): e1 ends at 2, not > 2: out; e2 (2 <= 5, 8 > 2); e3 (5 <= 5, 6 > 2).
    rows = [("a", 0, 2, 1), ("a", 2, 8, 10), ("a", 5, 6, 100)]
    assert refp.count_window(rows, 2) == [
        ("a", 2, 3, 0, 2, 2, 11, 1, 10, (1, 10)),
        ("a", 5, 6, 2, 5, 2, 110, 10, 100, (10, 100)),
    ]
    assert [r[1:5] for r in refp.count_window(rows, 2, "window")] == [(0, 3, 0, 2), (2, 6, 2, 5)]


def test_reference_empty_lifetime_is_no_start_time():
    # b [3, 3) is empty: starts are 0, 5, 7 (not 3), so windows [0, 6) and [5, 8).
    rows = [(None, 0, None, 1), (None, 3, 3, 1000), (None, 5, 6, 10), (None, 7, 8, 100)]
    assert [r[1:8] for r in refp.count_window(rows, 2)] == [
        (5, 6, 0, 5, 2, 11, 1),
        (7, 8, 5, 7, 3, 111, 1),
    ]


@pytest.mark.slow  # random inputs against a reference
def test_reference_count_windows_of_distinct_points_are_index_windows():
    """Point events with distinct times: count_window(n) is index_window(-(n - 1), 0)."""
    rng = random.Random("count-vs-index")
    for _ in range(200):
        times = rng.sample(range(-30, 30), rng.randint(0, 12))
        rows = [
            (rng.choice([None, 1]), t, None, rng.choice([None, rng.randint(-9, 9)])) for t in times
        ]
        n = rng.randint(1, 5)
        assert refp.count_window(rows, n, point=True) == refp.index_window(
            [(k, t, v) for k, t, _, v in rows], -(n - 1), 0
        )


# ----------------------------------------------------------------------------------------------
# Hand-worked cases in Spark


def rows_of(spark, sql):
    return [plain(r) for r in spark.sql(sql).collect()]


STREAMINSIGHT_INTERVALS = "VALUES (0L, 2L, 1L), (2L, 8L, 10L), (5L, 6L, 100L) AS t(s, e, v)"


@pytest.mark.smoke
@pytest.mark.parametrize(
    "output, lifetimes",
    [
        (None, [(2, 3), (5, 6)]),  # a point event at the last start of each window
        ("'point'", [(2, 3), (5, 6)]),
        ("'window'", [(0, 3), (2, 6)]),  # [first, last + 1)
    ],
)
def test_streaminsight_interval_events(spark, output, lifetimes):
    # e1 [0, 2) v=1, e2 [2, 8) v=10, e3 [5, 6) v=100, n = 2 (worked in
    # test_reference_streaminsight_interval_events): windows [0, 3) {e1, e2} and [2, 6) {e2, e3}.
    call = "count_window(s, e, 2)" if output is None else f"count_window(s, e, 2, {output})"
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, window.first, window.last, count(*), "
        f"sum(v), collect_list(v) FROM {STREAMINSIGHT_INTERVALS} GROUP BY {call} "
        f"ORDER BY 1",
    )
    assert got == [lifetimes[0] + (0, 2, 2, 11, (1, 10)), lifetimes[1] + (2, 5, 2, 110, (10, 100))]


@pytest.mark.smoke
def test_streaminsight_point_events_two_collocated(spark):
    # Points at 1, 3, 3, 4, 6 with v = 1, 2, 4, 8, 16: the two at 3 count as one start time.
    # n = 2, distinct starts 1, 3, 4, 6:
    #   [1, 4): 1, 3, 3 -> 3 events, sum 7;  [3, 5): 3, 3, 4 -> 3, 14;  [4, 7): 4, 6 -> 2, 24.
    # n = 3: [1, 5): 1, 3, 3, 4 -> 4, 15;  [3, 7): 3, 3, 4, 6 -> 4, 30.
    # collect_list in time order, the tie at 3 by value (2 before 4).
    points = "VALUES (1L, 1L), (3L, 4L), (4L, 8L), (3L, 2L), (6L, 16L) AS t(ts, v)"
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, window.first, window.last, count(*), "
        f"sum(v), collect_list(v) FROM {points} GROUP BY count_window(ts, 2) "
        f"ORDER BY 1",
    )
    assert got == [
        (3, 4, 1, 3, 3, 7, (1, 2, 4)),
        (4, 5, 3, 4, 3, 14, (2, 4, 8)),
        (6, 7, 4, 6, 2, 24, (8, 16)),
    ]
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*), sum(v) FROM {points} "
        f"GROUP BY count_window(ts, 3, 'window') ORDER BY 1",
    )
    assert got == [(1, 5, 4, 15), (3, 7, 4, 30)]


def test_open_ended_and_empty_lifetimes(spark):
    # a [0, open) v=1, b [3, 3) v=1000 (empty: in no window and no start time), c [5, 6) v=10,
    # d [7, 8) v=100. n = 2 over the starts 0, 5, 7: [0, 6) holds a, c (sum 11); [5, 8) holds
    # a (open-ended), c (6 > 5), d (sum 111). Had 3 counted, the windows would be [0, 4), ...
    events = (
        "VALUES (0L, CAST(NULL AS BIGINT), 1L), (3L, 3L, 1000L), (5L, 6L, 10L), "
        "(7L, 8L, 100L) AS t(s, e, v)"
    )
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, window.first, window.last, count(*), "
        f"sum(v) FROM {events} GROUP BY count_window(s, e, 2) ORDER BY 1",
    )
    assert got == [(5, 6, 0, 5, 2, 11), (7, 8, 5, 7, 3, 111)]


def test_n_is_one_and_n_larger_than_the_starts(spark):
    # n = 1: a window [s, s + 1) per distinct start s. a [0, 10) v=1, b [2, 3) v=10,
    # c [2, 4) v=100: [0, 1) holds a; [2, 3) holds a, b, c.
    events = "VALUES (0L, 10L, 1L), (2L, 3L, 10L), (2L, 4L, 100L) AS t(s, e, v)"
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, window.first, window.last, count(*), "
        f"sum(v) FROM {events} GROUP BY count_window(s, e, 1) ORDER BY 1",
    )
    assert got == [(0, 1, 0, 0, 1, 1), (2, 3, 2, 2, 3, 111)]
    # Two distinct starts, n = 3: no window at all.
    assert (
        rows_of(
            spark, f"SELECT window.start, count(*) FROM {events} GROUP BY count_window(s, e, 3)"
        )
        == []
    )


def test_null_starts_are_skipped_and_keys_partition(spark):
    # Key 'a': starts 1, 2 (the NULL-start row is no event); key NULL: starts 1, 5.
    # n = 2: a -> [1, 3) {1, 2}; NULL -> [1, 6) {1, 5}. Keys never share a window.
    df = spark.createDataFrame(
        [("a", 1, 1), ("a", 2, 2), ("a", None, 100), (None, 1, 10), (None, 5, 20)],
        "k string, t bigint, v bigint",
    )
    result = df.groupBy("k", ew.count_window("t", 2)).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    assert sorted(
        (
            tuple(r)
            for r in result.select("k", "window.start", "window.first", "n", "total").collect()
        ),
        key=sort_key,
    ) == [(None, 5, 1, 2, 30), ("a", 2, 1, 2, 3)]


def test_timestamp_point_events_python_api(spark):
    # StreamInsight's point events in seconds after 2024-01-01 00:00:00: 1, 3, 3, 4, 6; n = 2 with
    # 'window' output: [1 s, 3 s + 1 us), [3 s, 4 s + 1 us), [4 s, 6 s + 1 us) (as worked in
    # test_streaminsight_point_events_two_collocated).
    df = spark.createDataFrame(
        [(f"2024-01-01 00:00:0{s}", v) for s, v in [(1, 1), (3, 4), (4, 8), (3, 2), (6, 16)]],
        "ts string, v bigint",
    ).select(F.col("ts").cast("timestamp").alias("ts"), "v")
    result = df.groupBy(ew.count_window("ts", 2, output="window")).agg(
        F.sum("v").alias("total"), F.collect_list("v").alias("vs")
    )
    assert result.schema["window"].dataType.simpleString() == (
        "struct<start:timestamp,end:timestamp,first:timestamp,last:timestamp>"
    )
    got = sorted(
        plain(r)
        for r in result.select(
            *[F.col(f"window.{f}").cast("string") for f in FIELDS], "total", "vs"
        ).collect()
    )
    d = "2024-01-01 00:00:0"
    assert got == [
        (d + "1", d + "3.000001", d + "1", d + "3", 7, (1, 2, 4)),
        (d + "3", d + "4.000001", d + "3", d + "4", 14, (2, 4, 8)),
        (d + "4", d + "6.000001", d + "4", d + "6", 24, (8, 16)),
    ]


def test_bigint_interval_events_python_api_with_column_n(spark):
    # As test_streaminsight_interval_events, through the Python API, n given as a Column (a BIGINT).
    df = spark.createDataFrame([(0, 2, 1), (2, 8, 10), (5, 6, 100)], "s bigint, e bigint, v bigint")
    for n in (2, F.lit(2).cast("bigint")):
        result = df.groupBy(ew.count_window("s", n, end="e")).agg(F.sum("v").alias("total"))
        assert result.columns == ["window", "total"]
        assert sorted(plain(r) for r in result.select("window.*", "total").collect()) == [
            (2, 3, 0, 2, 11),
            (5, 6, 2, 5, 110),
        ]


def test_end_of_bigint_time(spark):
    # M = the end of BIGINT time. a [M-3, M-2) v=4, b [M-2, open) v=16, c [M-1, M) v=1; d [M,
    # open) v=2 and e [M, M) v=32 are empty lifetimes (clipped to the time line): no windows, no
    # start times. Starts M-3, M-2, M-1; n = 2: [M-3, M-1) holds a (M-2 > M-3), b; [M-2, M) holds
    # b, c (a ends at M-2). As point events (no end), the one at M is empty too: the starts are
    # M-3, M-2, M-1 with one event each: the same windows [4, 16], [16, 1].
    m = 2**63 - 1
    events = (
        f"VALUES ({m - 3}L, {m - 2}L, 4L), ({m - 2}L, CAST(NULL AS BIGINT), 16L), "
        f"({m - 1}L, {m}L, 1L), ({m}L, CAST(NULL AS BIGINT), 2L), ({m}L, {m}L, 32L) "
        f"AS t(s, e, v)"
    )
    expected = [(m - 2, m - 1, m - 3, m - 2, (4, 16)), (m - 1, m, m - 2, m - 1, (16, 1))]
    for call in ("count_window(s, e, 2)", "count_window(s, 2)"):
        got = rows_of(
            spark,
            f"SELECT window.start, window.end, window.first, window.last, "
            f"collect_list(v) FROM {events} GROUP BY {call} ORDER BY 1",
        )
        assert got == expected, call
    rows = [
        (None, m - 3, m - 2, 4),
        (None, m - 2, None, 16),
        (None, m - 1, m, 1),
        (None, m, None, 2),
        (None, m, m, 32),
    ]
    assert [r[1:5] + r[-1:] for r in refp.count_window(rows, 2)] == expected
    assert [r[1:5] + r[-1:] for r in refp.count_window(rows, 2, point=True)] == expected


# ----------------------------------------------------------------------------------------------
# Randomized comparison with the reference


def _calls(n_values, outputs, point):
    calls = []
    for n, output in itertools.product(n_values, outputs):
        lifetime = "s" if point else "s, e"
        extra = "" if output is None else f", '{output}'"
        calls.append((f"count_window({lifetime}, {n}{extra})", n, output or "point"))
    return calls


@pytest.mark.parametrize("point", [False, True], ids=["intervals", "points"])
def test_count_window_random(spark, point):
    rng = random.Random(f"count-random-{point}")
    rows = random_events(rng, 40)
    calls = _calls([1, 2, 3, 5, 12, 40], [None, "window"], point)
    results = run_calls(spark, rows, [call for call, _, _ in calls])
    for (call, n, output), actual in zip(calls, results):
        expected = refp.count_window(ref_rows(rows), n, output, point=point)
        assert_same(actual, expected, rows, call)


@pytest.mark.smoke
def test_count_window_random_integral_types(spark):
    """n as TINYINT, SMALLINT, INT and BIGINT constants gives the same windows."""
    rng = random.Random("count-random-types")
    rows = random_events(rng, 15)
    calls = [
        "count_window(s, e, CAST(3 AS TINYINT))",
        "count_window(s, e, CAST(3 AS SMALLINT))",
        "count_window(s, e, 3)",
        "count_window(s, e, 3L, 'point')",
    ]
    expected = refp.count_window(ref_rows(rows), 3)
    for call, actual in zip(calls, run_calls(spark, rows, calls)):
        assert_same(actual, expected, rows, call)


@pytest.mark.parametrize("time", ["timestamp", "timestamp_ntz"])
def test_count_window_random_timestamps(spark, time):
    rng = random.Random(f"count-random-{time}")
    base = micros("1969-12-31 23:59:50")
    rows = [
        (c, k, None if s is None else s + base, None if e is None else e + base, v)
        for c, k, s, e, v in random_events(rng, 15, scale=1_000_000, jitter=(-1, 1))
    ]
    calls = [
        ("count_window(s, e, 2)", 2, "point", False),
        ("count_window(s, e, 4, 'window')", 4, "window", False),
        ("count_window(s, 3, 'window')", 3, "window", True),
    ]
    results = run_calls(spark, rows, [c[0] for c in calls], time=time)
    for (call, n, output, point), actual in zip(calls, results):
        expected = refp.count_window(ref_rows(rows), n, output, point=point, line_max=TIMESTAMP_MAX)
        assert_same(actual, expected, rows, call)


@pytest.mark.slow  # random inputs against a reference
def test_count_window_one_big_key(spark):
    """400 events in one key: long windows over many events, ties, open ends."""
    rng = random.Random("count-big")
    rows = one_big_key_rows(rng, span=300, open_ended=0.03, one_tick=0.27, max_length=60)
    calls = [
        ("count_window(s, e, 1)", 1),
        ("count_window(s, e, 7)", 7),
        ("count_window(s, e, 60)", 60),
    ]
    results = run_calls(spark, rows, [c for c, _ in calls])
    for (call, n), actual in zip(calls, results):
        assert_same(actual, refp.count_window(ref_rows(rows), n), rows, call)


# ----------------------------------------------------------------------------------------------
# Bad input


def analysis_error(build):
    with pytest.raises(AnalysisException) as info:
        build().schema  # noqa: B018  (analysis is enough)
    return str(info.value)


@pytest.mark.parametrize(
    "build, parameter",
    [
        (lambda: ew.count_window("s", 0, end="e"), "`n`"),
        (lambda: ew.count_window("s", -2, end="e"), "`n`"),
        (lambda: ew.count_window("s", 2, output="changes", end="e"), "`output`"),
        (lambda: ew.count_window("id", 2), "`start`"),
        (lambda: ew.count_window("s", 2, end="id"), "`end`"),
        (lambda: ew.count_window("s", F.lit("2"), end="e"), "`n`"),
    ],
    ids=["n-zero", "n-negative", "output-changes", "string-start", "string-end", "string-n"],
)
def test_bad_parameters_name_the_parameter(spark, build, parameter):
    events = spark.createDataFrame([("x", 1, 2)], "id string, s bigint, e bigint")
    message = analysis_error(lambda: events.groupBy(build()).count())
    assert parameter in message and "count_window" in message, message


@pytest.mark.parametrize("side", ["start", "end"])
@pytest.mark.parametrize("time", ["bigint", "timestamp"])
def test_count_window_random_at_the_ends_of_the_line(spark, time, side):
    """Times next to either end of the line (many of them tied at it): windows are clipped to
    the line and keep their events."""
    rng = random.Random(f"count-ends-{time}-{side}")
    rows = at_an_end(random_events(rng, 12, jitter=(-1, 1)), 2, 3, time, side, 20)
    calls = [c + (False,) for c in _calls([1, 2, 3, 5], [None, "window"], False)] + [
        c + (True,) for c in _calls([1, 3], ["window"], True)
    ]
    results = run_calls(spark, rows, [c[0] for c in calls], time=time)
    for (call, n, output, point), actual in zip(calls, results):
        expected = refp.count_window(
            ref_rows(rows), n, output, point=point, line_max=LINES[time][1]
        )
        assert_same(actual, expected, rows, call)
