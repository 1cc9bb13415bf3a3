"""psi's dynamic windows (SPEC.md 3.4; psi's Windowing Operators, section 3):
``dynamic_window(anchors, messages, time, start, end, on, bounds).agg(...)`` and the SQL window
function ``anchor_window``.

Hand-worked cases (\\psi's 0.5 s clock, the four bounds), a randomized comparison with the
brute-force reference (tests/reference/dynamic.py), the plan (a sweep, no join), bad input, and the
hand-worked rows written in the golden SQL input ``anchor_window.sql`` (checked here, so the
comments of that file are known to be right before its ``.out`` is generated).

Random cases run batched: each case has its own id ``c``, used as an ``on`` key next to the case's
key ``k`` (which may be NULL), so one query per parametrization covers many cases.
"""

import functools
import itertools
import os
import random
import re

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import functions as F

from eventwindows.dynamic import dynamic_window
from harness import BIGINT_MAX, BIGINT_MIN, micros, plain
from reference import dynamic as refd

MESSAGES = "c INT, k INT, t BIGINT, v BIGINT"
ANCHORS = "c INT, k INT, id INT, s BIGINT, e BIGINT"
GOLDEN = os.path.join(
    os.path.dirname(__file__),
    os.pardir,
    "jvm",
    "src",
    "test",
    "resources",
    "sql-tests",
    "inputs",
    "anchor_window.sql",
)


def aggregates():
    """The aggregates the reference computes, in its order."""
    return [
        F.count("*").alias("n"),
        F.count("v").alias("nv"),
        F.sum("v").alias("total"),
        F.min("v").alias("lo"),
        F.max("v").alias("hi"),
        F.collect_list("v").alias("vs"),
    ]


AGGREGATE_NAMES = ["n", "nv", "total", "lo", "hi", "vs"]


# ----------------------------------------------------------------------------------------------
# The reference itself (no Spark)


def test_reference_bounds_and_ties():
    assert [refd.contains(t, 2, 5, "[]") for t in (1, 2, 3, 5, 6)] == [0, 1, 1, 1, 0]
    assert [refd.contains(t, 2, 5, "[)") for t in (1, 2, 3, 5, 6)] == [0, 1, 1, 0, 0]
    assert [refd.contains(t, 2, 5, "(]") for t in (1, 2, 3, 5, 6)] == [0, 0, 1, 1, 0]
    assert [refd.contains(t, 2, 5, "()") for t in (1, 2, 3, 5, 6)] == [0, 0, 1, 0, 0]
    assert not any(refd.contains(5, 5, 5, b) for b in ("[)", "(]", "()"))
    assert refd.contains(5, 5, 5, "[]")
    # Time order, ties by value (None first, then dropped by collect_list).
    assert refd.aggregate([(3, 1), (1, 9), (3, None), (1, 4)]) == (4, 3, 14, 1, 9, [4, 9, 1])
    assert refd.aggregate([]) == (0, 0, None, None, None, [])
    assert refd.aggregate([(1, None)]) == (1, 0, None, None, None, [])
    anchors = [("a", 0, 2, ("x",)), ("b", 0, 2, ("y",)), (None, 1, 1, ("z",))]
    messages = [("a", 1, 1), ("a", 2, 2), ("a", None, 4), ("b", 3, 8), (None, 1, 16)]
    assert refd.dynamic_window(anchors, messages, "[)") == [
        ("x", 0, 2, 1, 1, 1, 1, 1, [1]),
        ("y", 0, 2, 0, 0, None, None, None, []),
        ("z", 1, 1, 0, 0, None, None, None, []),
    ]
    with pytest.raises(refd.AnchorError, match="before its start"):
        refd.dynamic_window([("a", 3, 2, ("x",))], messages)
    with pytest.raises(refd.AnchorError, match="NULL"):
        refd.dynamic_window([("a", None, 2, ("x",))], messages)


# ----------------------------------------------------------------------------------------------
# \psi's example: a 0.5 s clock (Generators.Repeat(p, 0, 0.5 s)) anchoring [t - 0.5, t + 0.5]

BASE = "2024-01-01 00:00:00"


@pytest.mark.smoke
def test_psi_clock_example(spark):
    """Messages at irregular times (offsets in seconds from BASE, value a power of two so a sum
    names its set); anchors tick every 0.5 s from 0 to 3.5; windows [t - 0.5 s, t + 0.5 s], both
    ends included (psi's TimeInterval).

        -0.7 -> 256 (before every window)   0.1 -> 1   0.4 -> 2   0.5 -> 4   1.2 -> 8
         1.3 -> 16   2.0 -> 32   2.05 -> 64   2.7 -> 128   NULL -> 512 (skipped)
    """
    base = micros(BASE)
    offsets = [
        (-0.7, 256),
        (0.1, 1),
        (0.4, 2),
        (0.5, 4),
        (1.2, 8),
        (1.3, 16),
        (2.0, 32),
        (2.05, 64),
        (2.7, 128),
    ]
    rows = [(base + round(o * 1_000_000), v) for o, v in offsets] + [(None, 512)]
    messages = spark.createDataFrame(rows, "us BIGINT, v BIGINT").select(
        F.timestamp_micros("us").alias("time"), "v"
    )
    clock = spark.range(8).select(
        F.col("id").alias("tick"),
        F.timestamp_micros(F.lit(base) + F.col("id") * 500_000).alias("t"),
    )
    result = dynamic_window(
        clock,
        messages,
        "time",
        start="t - INTERVAL '0.5' SECOND",
        end=F.col("t") + F.expr("INTERVAL 500 MILLISECONDS"),
    ).agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs"))
    assert result.columns == ["tick", "t", "window", "n", "total", "vs"]
    got = sorted(
        plain(r, list)
        for r in result.select(
            "tick",
            ((F.unix_micros("t") - base) / 1e6).alias("t"),
            ((F.unix_micros("window.start") - base) / 1e6).alias("start"),
            ((F.unix_micros("window.end") - base) / 1e6).alias("end"),
            "n",
            "total",
            "vs",
        ).collect()
    )
    assert got == [
        (0, 0.0, -0.5, 0.5, 3, 7, [1, 2, 4]),
        (1, 0.5, 0.0, 1.0, 3, 7, [1, 2, 4]),
        (2, 1.0, 0.5, 1.5, 3, 28, [4, 8, 16]),  # 0.5 is on both ends of windows
        (3, 1.5, 1.0, 2.0, 3, 56, [8, 16, 32]),
        (4, 2.0, 1.5, 2.5, 2, 96, [32, 64]),
        (5, 2.5, 2.0, 3.0, 3, 224, [32, 64, 128]),
        (6, 3.0, 2.5, 3.5, 1, 128, [128]),
        (7, 3.5, 3.0, 4.0, 0, None, []),  # after the data: a row all the same
    ]


# ----------------------------------------------------------------------------------------------
# The four bounds, on a case where they all differ

BOUNDS_MESSAGES = [(0, 1), (2, 2), (3, 4), (5, 8), (9, 16)]
BOUNDS_ANCHORS = [("a", 2, 5), ("b", 5, 5), ("c", 4, 4), ("d", 0, 9)]
# id -> (count, sum, collect_list)
BOUNDS_EXPECTED = {
    "[]": {
        "a": (3, 14, [2, 4, 8]),
        "b": (1, 8, [8]),
        "c": (0, None, []),
        "d": (5, 31, [1, 2, 4, 8, 16]),
    },
    "[)": {"a": (2, 6, [2, 4]), "b": (0, None, []), "c": (0, None, []), "d": (4, 15, [1, 2, 4, 8])},
    "(]": {
        "a": (2, 12, [4, 8]),
        "b": (0, None, []),
        "c": (0, None, []),
        "d": (4, 30, [2, 4, 8, 16]),
    },
    "()": {"a": (1, 4, [4]), "b": (0, None, []), "c": (0, None, []), "d": (3, 14, [2, 4, 8])},
}


def test_bounds_by_hand(spark):
    """The four bounds in one job: a union of the four results, told apart by a column b."""
    messages = spark.createDataFrame(BOUNDS_MESSAGES, "ts BIGINT, v BIGINT")
    anchors = spark.createDataFrame(BOUNDS_ANCHORS, "id STRING, s BIGINT, e BIGINT")
    results = []
    for bounds in refd.BOUNDS:
        window = (
            dynamic_window(anchors, messages, "ts", "s", "e")
            if bounds == "[]"
            else dynamic_window(anchors, messages, "ts", "s", "e", bounds=bounds)
        )
        results.append(
            window.agg(
                F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs")
            ).select(F.lit(bounds).alias("b"), "id", "n", "total", "vs")
        )
    got = {b: {} for b in refd.BOUNDS}
    for r in functools.reduce(lambda x, y: x.unionByName(y), results).collect():
        got[r[0]][r[1]] = (r[2], r[3], list(r[4]))
    assert got == BOUNDS_EXPECTED
    for bounds in refd.BOUNDS:
        expected = refd.dynamic_window(
            [(None, s, e, (i,)) for i, s, e in BOUNDS_ANCHORS],
            [(None, t, v) for t, v in BOUNDS_MESSAGES],
            bounds,
        )
        assert {r[0]: (r[3], r[5], r[8]) for r in expected} == BOUNDS_EXPECTED[bounds]


def test_the_four_bounds_differ():
    assert len({repr(BOUNDS_EXPECTED[b]["a"]) for b in refd.BOUNDS}) == 4


# ----------------------------------------------------------------------------------------------
# Random comparison with the reference


def random_cases(rng, n_cases, t_lo=0, t_hi=25, scale=1, extremes=True):
    """Messages (c, k, t, v) and anchors (c, k, id, s, e) of n_cases random cases.

    Message times have ties (values differ, so collect_list's tie order shows) and NULLs; values
    NULLs. Keys are drawn from [NULL, 0, 1, 2] separately for each side, so some keys have only
    messages or only anchors. Anchors: ordinary, long, nested in an earlier anchor, a copy of an
    earlier interval, adjacent to one (sharing an end), degenerate [t, t] (empty for every bounds
    but '[]'), ends on message times, wholly before or after the data, and (BIGINT) the whole line.
    """
    messages, anchors, ids = [], [], itertools.count()
    for c in range(n_cases):
        keys = rng.sample([None, 0, 1, 2], rng.randint(1, 4))
        message_keys = [k for k in keys if len(keys) < 3 or k != keys[0]]  # keys[0]: anchors only
        anchor_keys = [k for k in keys if len(keys) < 4 or k != keys[1]]  # keys[1]: messages only
        times = []
        n_messages = rng.choice([0, rng.randint(1, 10), rng.randint(10, 60), rng.randint(20, 60)])
        for _ in range(n_messages):
            if rng.random() < 0.05:
                t = None
            elif times and rng.random() < 0.3:
                t = rng.choice(times)
            else:
                t = rng.randint(t_lo, t_hi) * scale
                times.append(t)
            v = None if rng.random() < 0.15 else rng.randint(-50, 50)
            messages.append((c, rng.choice(message_keys), t, v))

        def point():
            if times and rng.random() < 0.5:
                return rng.choice(times)
            return rng.randint(t_lo - 5, t_hi + 5) * scale

        intervals = []
        for _ in range(rng.randint(1, 12)):
            r = rng.random()
            if r < 0.25:
                s = point()
                e = s + rng.randint(0, 10) * scale
            elif r < 0.35:
                s = point()
                e = s + rng.randint(10, 50) * scale
            elif r < 0.5 and intervals:
                s0, e0 = rng.choice(intervals)
                s = rng.randint(s0 // scale, e0 // scale) * scale
                e = rng.randint(s // scale, e0 // scale) * scale
            elif r < 0.58 and intervals:
                s, e = rng.choice(intervals)
            elif r < 0.68 and intervals:
                s0, e0 = rng.choice(intervals)
                s, e = (
                    (e0, e0 + rng.randint(0, 8) * scale)
                    if rng.random() < 0.5
                    else (s0 - rng.randint(0, 8) * scale, s0)
                )
            elif r < 0.78:
                s = e = point()
            elif r < 0.86:
                e = (t_lo - rng.randint(1, 10)) * scale
                s = e - rng.randint(0, 10) * scale
            elif r < 0.94:
                s = (t_hi + rng.randint(1, 10)) * scale
                e = s + rng.randint(0, 10) * scale
            elif extremes:
                s, e = rng.choice(
                    [(BIGINT_MIN, BIGINT_MAX), (BIGINT_MIN, point()), (point(), BIGINT_MAX)]
                )
            else:
                s = point()
                e = s + scale
            if BIGINT_MIN < s and e < BIGINT_MAX:  # nested and adjacent ones stay in range
                intervals.append((s, e))
            anchors.append((c, rng.choice(anchor_keys), next(ids), s, e))
    rng.shuffle(messages)
    rng.shuffle(anchors)
    return messages, anchors


def reference_of(messages, anchors, bounds, on=True):
    """The reference's rows: (c, k, id, s, e, window start, window end, n, nv, total, lo, hi, vs)."""

    def key(c, k):
        return (c, k) if on else ()

    return refd.dynamic_window(
        [(key(c, k), s, e, (c, k, i, s, e)) for c, k, i, s, e in anchors],
        [(key(c, k), t, v) for c, k, t, v in messages],
        bounds,
    )


def run_random(
    spark,
    messages,
    anchors,
    bounds,
    time="bigint",
    on=("c", "k"),
    names=AGGREGATE_NAMES,
    anchors_as="list",
):
    """dynamic_window over the random rows, with the aggregates of `names` (a prefix of
    AGGREGATE_NAMES); rows shaped as reference_of's (without the aggregates left out), times in
    ticks. The anchors are, by `anchors_as`: "list", a Python list (Spark cannot size it);
    "cached", cached and counted first, so that Spark knows their size (small enough to
    broadcast); "unbroadcast", a list with broadcasts turned off (see test_random_sliced)."""
    m = spark.createDataFrame(messages, MESSAGES)
    a = spark.createDataFrame(anchors, ANCHORS)
    if time == "bigint":

        def ticks(col):
            return F.col(col)
    else:

        def to_time(col):
            ts = F.timestamp_micros(col)
            return (ts if time == "timestamp" else ts.cast("timestamp_ntz")).alias(col)

        m = m.select("c", "k", to_time("t"), "v")
        a = a.select("c", "k", "id", to_time("s"), to_time("e"))

        def ticks(col):
            return F.unix_micros(F.col(col).cast("timestamp"))

    if anchors_as == "cached":
        a = a.cache()
        a.count()
    result = dynamic_window(a, m, "t", "s", "e", on=list(on) if on else None, bounds=bounds).agg(
        *aggregates()[: len(names)]
    )
    assert result.columns == ["c", "k", "id", "s", "e", "window", *names]
    threshold = "spark.sql.autoBroadcastJoinThreshold"
    if anchors_as == "unbroadcast":
        spark.conf.set(threshold, "-1")
    try:
        rows = result.select(
            "c",
            "k",
            "id",
            ticks("s"),
            ticks("e"),
            ticks("window.start"),
            ticks("window.end"),
            *names,
        ).collect()
    finally:
        if anchors_as == "unbroadcast":
            spark.conf.unset(threshold)
    if anchors_as == "cached":
        a.unpersist()
    return refd.sort_rows(plain(r, list) for r in rows)


def assert_same(actual, expected, messages, anchors):
    """Compares whole results; on a difference, shows the smallest differing case in full."""
    if actual == expected:
        return
    by_id = {}
    for r in actual:
        by_id.setdefault(r[2], [None, None])[0] = r
    for r in expected:
        by_id.setdefault(r[2], [None, None])[1] = r
    bad_cases = {r[0] for r in actual + expected if by_id[r[2]][0] != by_id[r[2]][1]}
    sizes = {
        c: sum(1 for m in messages if m[0] == c) + sum(1 for a in anchors if a[0] == c)
        for c in bad_cases
    }
    c = min(bad_cases, key=lambda x: (sizes[x], x)) if bad_cases else None
    lines = [
        f"{len(actual)} rows, reference {len(expected)}; cases differing: {sorted(bad_cases)}; "
        f"smallest is case {c}.",
        f"messages (c, k, t, v) of case {c}:",
        *(f"  {m}" for m in refd.sort_rows(m for m in messages if m[0] == c)),
        f"anchors (c, k, id, s, e) of case {c}:",
        *(f"  {a}" for a in refd.sort_rows(a for a in anchors if a[0] == c)),
        "differing rows (c, k, id, s, e, start, end, n, nv, sum, min, max, list):",
    ]
    for a in refd.sort_rows(a for a in anchors if a[0] == c):
        got, want = by_id.get(a[2], [None, None])
        if got != want:
            lines += [f"  expected {want}", f"  actual   {got}"]
    pytest.fail("\n".join(lines))


def coverage(expected):
    """The random input must reach the interesting cases, or the comparison proves little."""
    assert any(r[7] == 0 for r in expected), "no anchor without messages"
    assert any(r[7] > 0 for r in expected), "no anchor with messages"
    assert any(r[7] > r[8] for r in expected), "no window holding a NULL value"


@pytest.mark.parametrize(
    "bounds", [pytest.param(refd.BOUNDS[0], marks=pytest.mark.smoke), *refd.BOUNDS[1:]]
)
def test_random_bigint(spark, bounds):
    rng = random.Random(f"dynamic-bigint-{bounds}")
    messages, anchors = random_cases(rng, 24)
    expected = reference_of(messages, anchors, bounds)
    coverage(expected)
    actual = run_random(spark, messages, anchors, bounds)
    assert_same(actual, expected, messages, anchors)


@pytest.mark.parametrize(
    "time, bounds", [("timestamp", "[]"), ("timestamp", "(]"), ("timestamp_ntz", "[)")]
)
def test_random_timestamp(spark, time, bounds):
    """TIMESTAMP (and TIMESTAMP_NTZ) time: whole seconds around 1969-12-31 23:59:50 (negative
    microseconds too), so ends land on message times."""
    rng = random.Random(f"dynamic-{time}-{bounds}")
    base = micros("1969-12-31 23:59:50")
    messages, anchors = random_cases(rng, 16, scale=1_000_000, extremes=False)
    messages = [(c, k, None if t is None else t + base, v) for c, k, t, v in messages]
    anchors = [(c, k, i, s + base, e + base) for c, k, i, s, e in anchors]
    expected = reference_of(messages, anchors, bounds)
    coverage(expected)
    actual = run_random(spark, messages, anchors, bounds, time=time)
    assert_same(actual, expected, messages, anchors)


@pytest.mark.parametrize("bounds", refd.BOUNDS)
@pytest.mark.parametrize(
    "anchors_as",
    ["cached", "list", "unbroadcast"],
    ids=["broadcast-slices", "measured", "time-slices"],
)
def test_random_sliced(spark, bounds, anchors_as):
    """Order-insensitive aggregates (no collect_list) fold the messages into slices before the
    shuffle: between the anchors' interval ends when the anchors are small enough to broadcast
    them (cached here, so Spark knows their size; or a Python list, measured by adaptive
    execution first), else one slice per message time. All give the reference's rows
    (test_plan_of_slices shows which plan each takes)."""
    rng = random.Random(f"dynamic-sliced-{bounds}")
    messages, anchors = random_cases(rng, 24)
    names = AGGREGATE_NAMES[:-1]
    expected = refd.sort_rows(r[:-1] for r in reference_of(messages, anchors, bounds))
    coverage(expected)
    actual = run_random(spark, messages, anchors, bounds, names=names, anchors_as=anchors_as)
    assert_same(actual, expected, messages, anchors)


@pytest.mark.parametrize("side", ["start", "end"])
@pytest.mark.parametrize("bounds", refd.BOUNDS)
def test_random_at_the_ends_of_the_line(spark, bounds, side):
    """Messages and anchors next to either end of the BIGINT line, many at its first or last
    instant, through the sweep over every message, the sweep over slices and the broadcast
    plan: open bounds at an end of the line keep the messages there."""
    rng = random.Random(f"dynamic-ends-{bounds}-{side}")
    messages, anchors = random_cases(rng, 16, extremes=False)

    def moved(t):
        return min(
            max(t + (BIGINT_MIN + 10 if side == "start" else BIGINT_MAX - 20), BIGINT_MIN),
            BIGINT_MAX,
        )

    messages = [(c, k, None if t is None else moved(t), v) for c, k, t, v in messages]
    anchors = [(c, k, i, moved(s), moved(e)) for c, k, i, s, e in anchors]
    expected = reference_of(messages, anchors, bounds)
    assert_same(run_random(spark, messages, anchors, bounds), expected, messages, anchors)
    names = AGGREGATE_NAMES[:-1]
    expected = refd.sort_rows(r[:-1] for r in expected)
    for anchors_as in ("unbroadcast", "cached"):
        actual = run_random(spark, messages, anchors, bounds, names=names, anchors_as=anchors_as)
        assert_same(actual, expected, messages, anchors)


@pytest.mark.parametrize("sliced", [False, True], ids=["sweep", "broadcast-slices"])
def test_random_without_on_keys(spark, sliced):
    """Without `on`, every message is a candidate for every anchor (c and k are plain columns of
    both sides, not keys); also with the messages folded into slices of the one key group."""
    rng = random.Random("dynamic-no-keys")
    messages, anchors = random_cases(rng, 4)
    expected = reference_of(messages, anchors, "[]", on=False)
    names = AGGREGATE_NAMES[:-1] if sliced else AGGREGATE_NAMES
    expected = refd.sort_rows(r[: len(r) - len(AGGREGATE_NAMES) + len(names)] for r in expected)
    coverage(expected)
    actual = run_random(
        spark,
        messages,
        anchors,
        "[]",
        on=None,
        names=names,
        anchors_as="cached" if sliced else "list",
    )
    assert_same(actual, expected, messages, anchors)


# ----------------------------------------------------------------------------------------------
# Corners the random cases do not reach


def test_identical_anchor_rows_each_get_a_row(spark):
    """One row per anchor *row*: equal anchors (same columns, same interval) are not merged."""
    messages = spark.createDataFrame([(1, 1), (2, 2)], "ts BIGINT, v BIGINT")
    anchors = spark.createDataFrame(
        [("x", 0, 2), ("x", 0, 2), ("x", 0, 2), ("y", 5, 6)], "id STRING, s BIGINT, e BIGINT"
    )
    got = sorted(
        plain(r, list)
        for r in dynamic_window(anchors, messages, "ts", "s", "e")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .select("id", "n", "total")
        .collect()
    )
    assert got == [("x", 2, 3), ("x", 2, 3), ("x", 2, 3), ("y", 0, None)]


def test_near_extreme_bigint_times(spark):
    """Messages and interval ends next to the ends of BIGINT time (the ends themselves: below),
    the four bounds in one job."""
    message_rows = [
        (BIGINT_MIN, 1),
        (BIGINT_MIN + 1, 2),
        (0, 4),
        (BIGINT_MAX - 2, 8),
        (BIGINT_MAX - 1, 16),
    ]
    anchor_rows = [
        (1, BIGINT_MIN, BIGINT_MAX),
        (2, BIGINT_MIN, BIGINT_MIN + 1),
        (3, BIGINT_MAX - 2, BIGINT_MAX),
        (4, BIGINT_MIN, 0),
        (5, 0, BIGINT_MAX),
        (6, BIGINT_MAX - 1, BIGINT_MAX - 1),
        (7, BIGINT_MIN + 1, BIGINT_MIN + 1),
        (8, BIGINT_MAX - 2, BIGINT_MAX - 1),
        (9, BIGINT_MAX - 1, BIGINT_MAX),
        (10, BIGINT_MIN, BIGINT_MIN),
    ]  # with '[)': see below
    messages = spark.createDataFrame(message_rows, "ts BIGINT, v BIGINT")
    results, expected = [], []
    for bounds in refd.BOUNDS:
        rows = [a for a in anchor_rows if bounds != "[)" or a[0] != 10]
        anchors = spark.createDataFrame(rows, "id INT, s BIGINT, e BIGINT")
        results.append(
            dynamic_window(anchors, messages, "ts", "s", "e", bounds=bounds)
            .agg(*aggregates())
            .select(
                F.lit(bounds).alias("b"),
                "id",
                "s",
                "e",
                "window.start",
                "window.end",
                *AGGREGATE_NAMES,
            )
        )
        expected += [
            (bounds,) + r
            for r in refd.dynamic_window(
                [(None, s, e, (i, s, e)) for i, s, e in rows],
                [(None, t, v) for t, v in message_rows],
                bounds,
            )
        ]
    got = refd.sort_rows(
        plain(r, list) for r in functools.reduce(lambda x, y: x.unionByName(y), results).collect()
    )
    expected = refd.sort_rows(expected)
    assert got == expected, "\n".join(
        ["bounds, id, s, e, start, end, n, nv, sum, min, max, list: actual, then expected"]
        + [f"{a}\n{b}\n" for a, b in itertools.zip_longest(got, expected)]
    )


def one_anchor(spark, message_rows, s, e, bounds="[]"):
    """(count(*), sum(v)) of every output row of one anchor [s, e] over (ts, v) messages."""
    messages = spark.createDataFrame(message_rows, "ts BIGINT, v BIGINT")
    anchors = spark.createDataFrame([("x", s, e)], "id STRING, s BIGINT, e BIGINT")
    return [
        plain(r, list)
        for r in dynamic_window(anchors, messages, "ts", "s", "e", bounds=bounds)
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .select("n", "total")
        .collect()
    ]


def test_message_at_bigint_max(spark):
    assert one_anchor(spark, [(0, 1), (BIGINT_MAX, 2)], 0, BIGINT_MAX) == [(2, 3)]


def test_anchor_starting_at_bigint_max(spark):
    assert one_anchor(spark, [(0, 1)], BIGINT_MAX, BIGINT_MAX) == [(0, None)]


def test_exclusive_end_at_bigint_min(spark):
    assert one_anchor(spark, [(BIGINT_MIN, 1)], BIGINT_MIN, BIGINT_MIN, "[)") == [(0, None)]


FIRST_MICRO, LAST_MICRO = micros("0001-01-01 00:00:00"), micros("9999-12-31 23:59:59.999999")


def timestamp_rows(spark, message_rows, anchor_rows):
    """(id, count(*), sum(v)) of TIMESTAMP anchors (id, s, e) over messages (t, v), in micros."""
    messages = spark.createDataFrame(message_rows, "us BIGINT, v BIGINT").select(
        F.timestamp_micros("us").alias("ts"), "v"
    )
    anchors = spark.createDataFrame(anchor_rows, "id INT, s BIGINT, e BIGINT").select(
        "id", F.timestamp_micros("s").alias("s"), F.timestamp_micros("e").alias("e")
    )
    return sorted(
        plain(r, list)
        for r in dynamic_window(anchors, messages, "ts", "s", "e")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .select("id", "n", "total")
        .collect()
    )


def test_timestamp_near_the_ends_of_the_line(spark):
    """TIMESTAMP messages and anchors at 0001-01-01 00:00:00 and just before
    9999-12-31 23:59:59.999999 (that last microsecond itself: below)."""
    first, last = FIRST_MICRO, LAST_MICRO - 1
    message_rows = [(first, 1), (first + 1, 2), (last - 1, 4), (last, 8)]
    anchor_rows = [(1, first, last), (2, last, last), (3, first, first), (4, last - 1, last)]
    assert timestamp_rows(spark, message_rows, anchor_rows) == [
        (1, 4, 15),
        (2, 1, 8),
        (3, 1, 1),
        (4, 2, 12),
    ]


def test_timestamp_at_the_last_microsecond(spark):
    message_rows = [(LAST_MICRO - 1, 4), (LAST_MICRO, 8)]
    anchor_rows = [(1, LAST_MICRO - 1, LAST_MICRO), (2, LAST_MICRO, LAST_MICRO)]
    assert timestamp_rows(spark, message_rows, anchor_rows) == [(1, 2, 12), (2, 1, 8)]


def test_empty_anchors_or_messages(spark):
    messages = spark.createDataFrame([(1, 1)], "ts BIGINT, v BIGINT")
    anchors = spark.createDataFrame([("x", 0, 2)], "id STRING, s BIGINT, e BIGINT")
    none_m = messages.limit(0)
    none_a = anchors.limit(0)
    assert (
        dynamic_window(none_a, messages, "ts", "s", "e").agg(F.count("*").alias("n")).collect()
        == []
    )
    got = [
        plain(r, list)
        for r in dynamic_window(anchors, none_m, "ts", "s", "e")
        .agg(F.count("*").alias("n"), F.collect_list("v").alias("vs"))
        .select("id", "n", "vs")
        .collect()
    ]
    assert got == [("x", 0, [])]


def test_filtered_and_other_aggregates(spark):
    """Aggregates other than the plain ones: FILTER, avg, collect_set."""
    messages = spark.createDataFrame(
        [(1, 1), (2, 1), (3, 2), (4, None), (5, 3), (9, 7)], "ts BIGINT, v BIGINT"
    )
    anchors = spark.createDataFrame(
        [("x", 1, 5), ("y", 6, 8), ("z", 3, 9)], "id STRING, s BIGINT, e BIGINT"
    )
    result = dynamic_window(anchors, messages, "ts", "s", "e").agg(
        F.expr("count(*) FILTER (WHERE v > 1)").alias("big"),
        F.avg("v").alias("mean"),
        F.sort_array(F.collect_set("v")).alias("set"),
    )
    got = sorted(plain(r, list) for r in result.select("id", "big", "mean", "set").collect())
    assert got == [("x", 2, 7 / 4, [1, 2, 3]), ("y", 0, None, []), ("z", 3, 4.0, [2, 3, 7])]


def test_distinct_aggregates_work_or_are_refused_clearly(spark):
    messages = spark.createDataFrame(
        [(1, 1), (2, 1), (3, 2), (4, None), (5, 3), (9, 7)], "ts BIGINT, v BIGINT"
    )
    anchors = spark.createDataFrame(
        [("x", 1, 5), ("y", 6, 8), ("z", 3, 9)], "id STRING, s BIGINT, e BIGINT"
    )
    try:
        result = dynamic_window(anchors, messages, "ts", "s", "e").agg(
            F.count_distinct("v").alias("dv")
        )
    except AnalysisException as e:
        assert "DISTINCT" in str(e) and "count(DISTINCT v)" in str(e)
        return
    got = sorted(plain(r, list) for r in result.select("id", "dv").collect())
    assert got == [("x", 3), ("y", 0), ("z", 3)]


def test_anchor_column_names_needing_quotes(spark):
    messages = spark.createDataFrame([(1, 1), (2, 2)], "ts BIGINT, v BIGINT")
    anchors = spark.createDataFrame([("x", 0, 1)], "`a.b` STRING, `my start` BIGINT, e BIGINT")
    result = dynamic_window(anchors, messages, "ts", "`my start`", "e").agg(
        F.sum("v").alias("total")
    )
    assert result.columns == ["a.b", "my start", "e", "window", "total"]
    assert [plain(r, list) for r in result.select("`a.b`", "`my start`", "total").collect()] == [
        ("x", 0, 1)
    ]


# ----------------------------------------------------------------------------------------------
# start / end as Columns and as SQL strings over the anchors' columns


# (name, start, end, their values in Python); lambdas, as Columns need the session.
STARTS_AND_ENDS = [
    ("column-string", lambda: (F.col("t") - 5, "t + 5"), lambda t, w: (t - 5, t + 5)),
    ("string-columns", lambda: ("t - w", F.col("t") + F.col("w")), lambda t, w: (t - w, t + w)),
    ("degenerate", lambda: ("t", F.col("t")), lambda t, w: (t, t)),
    (
        "functions",
        lambda: (F.least("t", F.lit(7)), "greatest(t, 7L)"),
        lambda t, w: (min(t, 7), max(t, 7)),
    ),
]


def test_start_and_end_expressions(spark):
    """start/end as Columns and SQL strings (one job: a union of the four forms). The messages have
    columns t and w too: start/end see the anchors' t and w, the aggregates the messages'
    (sum(w) of the messages is told apart by w = 1000 * v)."""
    message_rows = [(t, t % 7, 1000 * (t % 7)) for t in range(0, 21)] + [(4, None, 0)]
    anchor_rows = [("p", 0, 1), ("q", 4, 2), ("r", 10, 5), ("s", 18, 0), ("u", 30, 3)]
    messages = spark.createDataFrame(message_rows, "t BIGINT, v BIGINT, w BIGINT")
    anchors = spark.createDataFrame(anchor_rows, "id STRING, t BIGINT, w BIGINT")
    results = []
    for name, start_end, _ in STARTS_AND_ENDS:
        start, end = start_end()
        result = dynamic_window(anchors, messages, "t", start, end).agg(
            F.count("*").alias("n"),
            F.sum("v").alias("total"),
            F.sum("w").alias("mw"),
            F.collect_list("v").alias("vs"),
        )
        assert result.columns == ["id", "t", "w", "window", "n", "total", "mw", "vs"]
        results.append(
            result.select(
                F.lit(name).alias("form"),
                "id",
                "t",
                "w",
                "window.start",
                "window.end",
                "n",
                "total",
                "mw",
                "vs",
            )
        )
    got = sorted(
        plain(r, list) for r in functools.reduce(lambda x, y: x.unionByName(y), results).collect()
    )

    def sums(members):
        n, _, total, _, _, vs = refd.aggregate([(t, v) for t, v, _ in members])
        return n, total, sum(w for _, _, w in members) if members else None, vs

    expected = []
    for name, _, interval in STARTS_AND_ENDS:
        for i, t, w in anchor_rows:
            s, e = interval(t, w)
            members = [m for m in message_rows if s <= m[0] <= e]
            expected.append((name, i, t, w, s, e) + sums(members))
    assert got == sorted(expected)


# ----------------------------------------------------------------------------------------------
# The plan: a sweep, no join


FORBIDDEN_IN_PLAN = ("Join", "CartesianProduct", "BroadcastNestedLoop")


def test_plan_is_a_sweep_without_join(spark, capsys):
    messages = spark.createDataFrame(
        [(1, 1, 1), (1, 2, 2), (2, 5, 4)], "k INT, ts BIGINT, v BIGINT"
    )
    anchors = spark.createDataFrame(
        [(1, "x", 0, 2), (2, "y", 3, 5)], "k INT, id STRING, s BIGINT, e BIGINT"
    )
    result = dynamic_window(anchors, messages, "ts", "s", "e", on="k").agg(F.sum("v").alias("sv"))
    capsys.readouterr()
    result.explain(mode="extended")
    before = capsys.readouterr().out
    assert sorted(tuple(r) for r in result.select("id", "sv").collect()) == [("x", 3), ("y", 4)]
    result.explain()  # the final adaptive plan, after the run
    after = capsys.readouterr().out
    for plan in (before, after):
        assert "EventWindowAggregate anchor_window" in plan, plan
        for word in FORBIDDEN_IN_PLAN:
            assert word not in plan, plan


def test_plan_of_slices(spark):
    """Which plan the aggregates and the anchors' size choose, as test_random_sliced runs them:
    order-insensitive aggregates fold the messages before the shuffle. With anchors small enough
    to broadcast (cached, so Spark knows their size) each task folds them into one partial
    aggregate per anchor (AnchorSliceAggregate) and Spark's final aggregate merges those by anchor.
    Anchors from a Python list, which Spark cannot size, are first planned as the sweep over
    slices behind an exchange of their own; once that stage has run, adaptive execution
    broadcasts them. With broadcasts off each message time is a slice of Spark's partial
    aggregate, whose buffers the window operator merges; collect_list keeps the sweep over every
    message."""
    messages = spark.createDataFrame([(1, 1, 1), (1, 2, 2)], "k INT, ts BIGINT, v BIGINT")
    anchors = spark.createDataFrame([(1, "x", 0, 2)], "k INT, id STRING, s BIGINT, e BIGINT")

    def plan(frame, *columns, run=True):
        """The plan adaptive execution ran (or, with run=False, the one it starts from)."""
        df = dynamic_window(frame, messages, "ts", "s", "e", on="k").agg(*columns)
        if run:  # this DataFrame's own execution, whose final plan its explain() shows
            assert [(r.id, r.sv) for r in df.collect()] == [("x", 3)]
        return df._jdf.queryExecution().executedPlan().toString()

    listed = plan(anchors, F.sum("v").alias("sv"), run=False)
    assert "merging partial buffers" in listed and "partial_sum" in listed, listed
    assert "REPARTITION_BY_COL" in listed and "BroadcastExchange" not in listed, listed
    measured = plan(anchors, F.sum("v").alias("sv"))
    for word in ("AnchorSliceAggregate", "BroadcastExchange", "REPARTITION_BY_COL"):
        assert word in measured, measured
    assert "EventWindowAggregate" not in measured.split("Initial Plan")[0], measured
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        uncached = plan(anchors, F.sum("v").alias("sv"))
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    assert "merging partial buffers" in uncached and "partial_sum" in uncached, uncached
    assert "BroadcastExchange" not in uncached and "REPARTITION" not in uncached, uncached
    assert "EventWindowAggregate anchor_window" in uncached, uncached
    cached = anchors.cache()
    cached.count()
    try:
        broadcast = plan(cached, F.sum("v").alias("sv"))
        for word in (
            "AnchorWindowResults anchor_window",
            "AnchorSliceAggregate",
            "BroadcastExchange",
            "HashAggregate(keys=[anchor",
        ):
            assert word in broadcast, broadcast
        assert "partial_sum" not in broadcast and "EventWindowAggregate" not in broadcast, broadcast
        assert "REPARTITION" not in broadcast, broadcast
        sweep = plan(cached, F.sum("v").alias("sv"), F.collect_list("v").alias("vs"))
        assert "merging" not in sweep and "partial_sum" not in sweep, sweep
        assert "EventWindowAggregate anchor_window" in sweep, sweep
    finally:
        cached.unpersist()
    for text in (listed, measured, uncached, broadcast, sweep):
        for word in FORBIDDEN_IN_PLAN:
            assert word not in text, text


# ----------------------------------------------------------------------------------------------
# The query proposed for tests/test_local_cluster.py's queries(), checked here in local mode


def test_local_cluster_candidate_query(spark):
    """test_local_cluster's events (2000 rows, 10 keys, 7 partitions) as messages at s, and 300
    anchors of all 10 keys (3 partitions) with overlapping and nested intervals
    [t - aid % 50, t + 20 * (aid % 7)), one of them empty: the query proposed for that file."""
    keys, n_rows = 10, 2000
    df = (
        spark.range(n_rows)
        .select(
            (F.col("id") % keys).alias("k"),
            (F.col("id") * 7919 % 5000).alias("s"),
            (F.col("id") * 7919 % 5000 + 1 + F.col("id") % 97).alias("e"),
            F.col("id").alias("v"),
        )
        .repartition(7)
    )
    anchors = (
        spark.range(300)
        .select(
            (F.col("id") % keys).alias("k"),
            F.col("id").alias("aid"),
            (F.col("id") * 4099 % 5000).alias("t"),
        )
        .repartition(3)
    )
    result = dynamic_window(
        anchors,
        df.select("k", "s", "v"),
        "s",
        "t - aid % 50",
        "t + 20 * (aid % 7)",
        on="k",
        bounds="[)",
    ).agg(
        F.count("*").alias("n"), F.sum("v"), F.min("v"), F.max("v"), F.collect_list("v").alias("vs")
    )
    got = sorted(
        list(r)
        for r in result.select(
            "k", F.col("window.start"), F.col("window.end"), "n", "sum(v)", "min(v)", "max(v)", "vs"
        ).collect()
    )
    messages = [(i % keys, i * 7919 % 5000, i) for i in range(n_rows)]
    expected = refd.dynamic_window(
        [
            (a % keys, a * 4099 % 5000 - a % 50, a * 4099 % 5000 + 20 * (a % 7), (a % keys,))
            for a in range(300)
        ],
        messages,
        "[)",
    )
    assert got == sorted(list(r[:3] + r[3:4] + r[5:8] + r[8:9]) for r in expected)
    assert {r[0] for r in got} == set(range(keys))
    assert sum(r[3] for r in got) > 900  # the windows hold many messages (948)


# ----------------------------------------------------------------------------------------------
# Bad input


@pytest.fixture(scope="module")
def frames(spark):
    messages = spark.createDataFrame(
        [(0, 1, 1), (0, 3, 2), (1, 2, 4)], "k INT, ts BIGINT, v BIGINT"
    )
    anchors = spark.createDataFrame([(0, "ok", 0, 5)], "k INT, id STRING, s BIGINT, e BIGINT")
    return messages, anchors


def bad_anchor(spark, k, s, e):
    """A valid anchor, then the bad one, named by its id 'anchor-17'."""
    return spark.createDataFrame(
        [(0, "ok", 0, 5), (k, "anchor-17", s, e)], "k INT, id STRING, s BIGINT, e BIGINT"
    )


def error_text(spark, messages, anchors):
    with pytest.raises(IllegalArgumentException) as info:
        dynamic_window(anchors, messages, "ts", "s", "e", on="k").agg(
            F.count("*").alias("n")
        ).collect()
    return str(info.value)


@pytest.mark.parametrize("k", [0, 9], ids=["key-with-messages", "key-without-messages"])
def test_end_before_start_fails_the_query(spark, frames, k):
    text = error_text(spark, frames[0], bad_anchor(spark, k, 5, 4))
    assert "end before its start" in text
    assert "anchor_window" in text
    assert "5" in text and "4" in text


@pytest.mark.parametrize("s, e", [(None, 4), (4, None)], ids=["null-start", "null-end"])
def test_null_start_or_end_fails_the_query(spark, frames, s, e):
    text = error_text(spark, frames[0], bad_anchor(spark, 0, s, e))
    assert "NULL start or end" in text


def test_end_before_start_error_names_the_anchor_columns(spark, frames):
    text = error_text(spark, frames[0], bad_anchor(spark, 0, 5, 4))
    line = next(x for x in text.splitlines() if "end before its start" in x)
    assert "anchor-17" in line and "__ew_" not in line, line


@pytest.mark.parametrize(
    "s, e, what",
    [(5, 4, "end before its start"), (None, 4, "NULL start or end")],
    ids=["end-before-start", "null-start"],
)
def test_bad_anchor_fails_the_query_when_the_anchors_are_broadcast(spark, frames, s, e, what):
    """Cached anchors are small enough to broadcast: with order-insensitive aggregates the
    anchors are checked where the broadcast is built, with the same error naming the row."""
    anchors = bad_anchor(spark, 0, s, e).cache()
    anchors.count()
    try:
        result = dynamic_window(anchors, frames[0], "ts", "s", "e", on="k").agg(
            F.count("*").alias("n")
        )
        assert "AnchorWindowResults" in result._jdf.queryExecution().executedPlan().toString()
        with pytest.raises(IllegalArgumentException) as info:
            result.collect()
    finally:
        anchors.unpersist()
    line = next(x for x in str(info.value).splitlines() if what in x)
    assert "anchor_window" in line and "anchor-17" in line and "__ew_" not in line, line


def test_wrong_python_types(spark, frames):
    messages, anchors = frames
    with pytest.raises(TypeError, match="`anchors`"):
        dynamic_window([(0, 1)], messages, "ts", "s", "e")
    with pytest.raises(TypeError, match="`messages`"):
        dynamic_window(anchors, "messages", "ts", "s", "e")
    with pytest.raises(TypeError, match="`time`"):
        dynamic_window(anchors, messages, 3, "s", "e")
    with pytest.raises(TypeError, match="`start`"):
        dynamic_window(anchors, messages, "ts", 0, "e")
    with pytest.raises(TypeError, match="`end`"):
        dynamic_window(anchors, messages, "ts", "s", None)
    with pytest.raises(TypeError, match="`on`"):
        dynamic_window(anchors, messages, "ts", "s", "e", on=[F.col("k")])
    with pytest.raises(TypeError, match="Column"):
        dynamic_window(anchors, messages, "ts", "s", "e").agg("v")
    with pytest.raises(ValueError, match="at least one"):
        dynamic_window(anchors, messages, "ts", "s", "e").agg()


def test_on_of_a_wrong_scalar_type_is_a_type_error(spark, frames):
    messages, anchors = frames
    with pytest.raises(TypeError):
        dynamic_window(anchors, messages, "ts", "s", "e", on=1)


def test_on_of_a_wrong_scalar_type_names_on(spark, frames):
    messages, anchors = frames
    with pytest.raises(TypeError) as info:
        dynamic_window(anchors, messages, "ts", "s", "e", on=1)
    assert "`on`" in str(info.value)


@pytest.mark.parametrize("bounds", ["[[", "[ ]", "", "(]x", "closed"])
def test_unknown_bounds(spark, frames, bounds):
    messages, anchors = frames
    with pytest.raises(ValueError, match="`bounds`"):
        dynamic_window(anchors, messages, "ts", "s", "e", bounds=bounds)


def test_on_key_missing_from_one_side(spark, frames):
    messages, anchors = frames
    with pytest.raises(ValueError, match="'id'.*messages"):
        dynamic_window(anchors, messages, "ts", "s", "e", on="id")
    with pytest.raises(ValueError, match="'v'.*anchors"):
        dynamic_window(anchors, messages, "ts", "s", "e", on=["k", "v"])


@pytest.mark.parametrize("name", ["id", "s", "k", "window"])
def test_aggregate_name_clashing_with_an_anchor_column(spark, frames, name):
    messages, anchors = frames
    with pytest.raises(ValueError, match=f"'{name}'"):
        dynamic_window(anchors, messages, "ts", "s", "e", on="k").agg(
            F.count("*").alias("n"), F.sum("v").alias(name)
        )


def test_time_of_the_wrong_type(spark, frames):
    _, anchors = frames
    messages = spark.createDataFrame([(0, "1", 1)], "k INT, ts STRING, v BIGINT")
    with pytest.raises(AnalysisException, match="`time`"):
        dynamic_window(anchors, messages, "ts", "s", "e", on="k").agg(F.count("*").alias("n"))


def test_start_of_another_type_than_time(spark, frames):
    """BIGINT anchor ends with TIMESTAMP message time: an analysis error, not a silent cast."""
    messages, anchors = frames
    stamped = messages.select("k", F.timestamp_seconds("ts").alias("ts"), "v")
    with pytest.raises(AnalysisException, match="anchor_start|anchor_end|`start`|`end`"):
        dynamic_window(anchors, stamped, "ts", "s", "e", on="k").agg(F.count("*").alias("n"))


def test_anchor_column_named_window(spark):
    """An anchor column named `window` would clash with the output's `window`: refused, or kept
    apart so that the output's `window` is still the interval."""
    messages = spark.createDataFrame([(1, 1)], "ts BIGINT, v BIGINT")
    anchors = spark.createDataFrame([("x", 0, 2)], "window STRING, s BIGINT, e BIGINT")
    try:
        result = dynamic_window(anchors, messages, "ts", "s", "e").agg(F.sum("v").alias("sv"))
    except ValueError as e:
        assert "window" in str(e)
        return
    assert result.columns.count("window") == 1, result.columns


def test_sql_bad_bounds_and_types(spark):
    union = (
        "SELECT ts, v, CAST(NULL AS BIGINT) AS s, CAST(NULL AS BIGINT) AS e, "
        "CAST(NULL AS STRUCT<id: STRING>) AS a FROM VALUES (1L, 1L) AS m(ts, v) "
        "UNION ALL SELECT NULL, NULL, 0L, 2L, named_struct('id', 'x')"
    )
    with pytest.raises(AnalysisException, match="bounds"):
        spark.sql(f"SELECT count(*) FROM ({union}) GROUP BY anchor_window(ts, s, e, a, '[[')")
    with pytest.raises(AnalysisException, match="anchor_start|anchor_end"):
        spark.sql(
            f"SELECT count(*) FROM ({union}) GROUP BY anchor_window(ts, CAST(s AS STRING), e, a)"
        )


@pytest.mark.smoke
def test_describe_example(spark):
    got = [
        tuple(r)
        for r in spark.sql(
            "SELECT window.anchor.id, window.start, window.end, count(v), sum(v) FROM (SELECT ts, v, "
            "NULL AS s, NULL AS e, NULL AS a FROM VALUES (1L, 1), (2L, 2), (5L, 4) AS m(ts, v) "
            "UNION ALL SELECT NULL, NULL, s, e, named_struct('id', id) FROM VALUES ('x', 0L, 2L), "
            "('y', 3L, 4L) AS q(id, s, e)) GROUP BY anchor_window(ts, s, e, a) ORDER BY 1"
        ).collect()
    ]
    assert got == [("x", 0, 2, 2, 3), ("y", 3, 4, 0, None)]


# ----------------------------------------------------------------------------------------------
# The golden SQL input: its hand-worked rows (comment lines "-- | a | b | ...") are the rows of
# the query below them, every column cast to STRING as GoldenSqlSuite renders them.


def golden_queries():
    with open(GOLDEN, encoding="utf-8") as f:
        text = f.read()
    chunks = [q.strip() for q in re.split(r";\s*\n", text)]
    return [
        q
        for q in chunks
        if any(line.strip() and not line.strip().startswith("--") for line in q.splitlines())
    ]


def test_golden_sql_hand_worked_rows(spark):
    queries = golden_queries()
    assert 3 <= sum(1 for q in queries if "anchor_window(" in q) <= 5
    checked = 0
    for query in queries:
        expected = [
            tuple(cell.strip() for cell in line.strip()[len("-- |") :].split("|"))
            for line in query.splitlines()
            if line.strip().startswith("-- |")
        ]
        df = spark.sql(query)
        if not expected:
            continue
        named = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
        got = [
            tuple("NULL" if x is None else x for x in r)
            for r in named.selectExpr(*[f"CAST({c} AS STRING)" for c in named.columns]).collect()
        ]
        assert got == expected, query
        checked += 1
    assert checked == sum(
        1 for q in queries if q.lstrip("-").strip() and "SELECT" in q and "CREATE" not in q
    )
    for view in ("aw_msgs", "aw_anchors", "aw_union"):
        spark.catalog.dropTempView(view)
