"""Randomized comparison of the window operator with the brute-force reference (tests/reference/streaminsight.py).

Many random cases run in one Spark query: every case has its own case id `c`, grouped by next to
the case's key `k` (which may be NULL), so the cases do not mix. Window parameters are constants of
a query, so each query covers one parameter set. The default horizon of per-window output over
open-ended events is the latest finite time of the *whole* input of a query, so the reference is
always given a query's whole input, never one case.

Random inputs have BIGINT time with negative times, ties of starts, point-like, short, long and
open-ended lifetimes, NULL values, NULL keys and rows with a NULL start.
"""

import itertools
import random

import pytest
from pyspark.errors import IllegalArgumentException

from harness import (
    BIGINT_MAX,
    BIGINT_MIN,
    ONE_TICK,
    OPEN,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    assert_same_cases,
    grouped_calls,
    micros,
    one_big_key_rows,
    random_interval_rows,
)
from reference import streaminsight as ref

SCHEMA = "c INT, k INT, s BIGINT, e BIGINT, v BIGINT"


# ----------------------------------------------------------------------------------------------
# Helpers


#: Lifetimes: one tick, short, long and open-ended.
LIFETIMES = [(0.25, ONE_TICK), (0.35, (1, 8)), (0.2, (8, 40)), (0.2, OPEN)]


def random_rows(rng, n_cases, t_lo=-40, t_hi=40, max_events=40, scale=1, jitter=()):
    """Rows (c, k, s, e, v) of n_cases random cases (harness.random_interval_rows), times in
    [t_lo, t_hi] times `scale`, with LIFETIMES; case sizes about uniform in [0, max_events].

    Rows with a NULL start get a NULL end or an end below every start of the input: whether a
    skipped row may move the default horizon is a question of its own
    (test_null_start_row_does_not_move_the_horizon), kept out of the random tests.
    """
    return random_interval_rows(
        rng,
        n_cases,
        LIFETIMES,
        times=[(t_lo, t_hi)],
        values=[(-50, 50)],
        scale=scale,
        jitter=jitter,
        max_events=max_events,
        small_cases=3 / (max_events + 1),
        null_starts=0.06,
    )


def ref_rows(rows):
    """The rows as the reference takes them: key = (case, key)."""
    return [((c, k), s, e, v) for c, k, s, e, v in rows]


def run(spark, rows, call, time="bigint"):
    """Runs `GROUP BY c, k, <call>` over the rows; returns reference-shaped sorted rows.

    `call` uses the columns s and e. With time="timestamp" they are TIMESTAMPs made from the
    BIGINT microseconds by timestamp_micros, and the window bounds come back as microseconds.
    """
    if time == "timestamp":
        source = "(SELECT c, k, timestamp_micros(s) AS s, timestamp_micros(e) AS e, v FROM {view})"
        bounds = "unix_micros(window.start), unix_micros(window.end)"
    else:
        source, bounds = "{view}", "window.start, window.end"
    select = f"{bounds}, count(*), sum(v), min(v), max(v)"
    query = f"SELECT c, k, {select} FROM {source} GROUP BY c, k, {call}"
    return grouped_calls(spark, rows, SCHEMA, [call], select, source)[0], query


def assert_same(actual, expected, rows, query, horizon=None):
    """Compares whole results; on a difference, shows the smallest differing case in full."""
    assert_same_cases(
        actual,
        expected,
        rows,
        [f"query: {query}", f"default horizon of the whole input: {horizon}"],
        "(c, k, s, e, v)",
    )


def sql_ticks(n):
    return f"{n}L" if n >= 0 else f"({n}L)"


# ----------------------------------------------------------------------------------------------
# Hopping windows over interval events (BIGINT)

# (size, hop, alignment): overlapping, tumbling-like, gaps, extreme alignments.
HOPPING = [
    (7, 3, 2),
    (5, 2, -3),
    (4, 6, 1),  # gaps
    (1, 1, 0),
    (10, 1, -17),
    (6, 4, 1000),
    (3, 8, -5),  # wide gaps
    (9, 2, -(2**62) + 3),  # an alignment far before the data
    (7, 3, -(2**63) + 1),  # index * hop overflows where the window start does not
    (3, 10, 2**63 - 1),  # the same, after the data, with gaps
    (5, 5, 7),  # hop == size
]


def _hopping_param_id(p):
    return "size{}-hop{}-align{}".format(*p)


def _valid(params_list, smoke=()):
    """(params, output) pairs; 'changes' needs hop <= size, so gaps go with per-window policies.
    The pairs in `smoke` are in the smoke set."""
    return [
        pytest.param(
            p,
            o,
            id=f"{_hopping_param_id(p)}-{o}",
            marks=pytest.mark.smoke if (p, o) in smoke else (),
        )
        for p in params_list
        for o in ("window", "point", "changes")
        if not (o == "changes" and p[1] > p[0])
    ]


@pytest.mark.parametrize("params, output", _valid(HOPPING, smoke=[((7, 3, 2), "window")]))
def test_hopping_random(spark, params, output):
    size, hop, alignment = params
    rng = random.Random(f"hopping-{size}-{hop}-{alignment}-{output}")
    rows = random_rows(rng, 7)
    call = (
        f"hopping_window(s, e, {sql_ticks(size)}, {sql_ticks(hop)}, {sql_ticks(alignment)}, "
        f"'{output}')"
    )
    actual, query = run(spark, rows, call)
    expected = ref.hopping_window(ref_rows(rows), size, hop, alignment, output)
    assert_same(actual, expected, rows, query, ref.default_horizon(ref_rows(rows)))


# ----------------------------------------------------------------------------------------------
# Tumbling windows (BIGINT)

TUMBLING = [(1, 0), (5, -3), (8, 13), (3, -(2**61)), (4, 2**40 + 1)]


@pytest.mark.parametrize("output", ["window", "point", "changes"])
@pytest.mark.parametrize("params", TUMBLING, ids=lambda p: "size{}-align{}".format(*p))
def test_tumbling_random(spark, params, output):
    size, alignment = params
    rng = random.Random(f"tumbling-{size}-{alignment}-{output}")
    rows = random_rows(rng, 8)
    call = f"tumbling_window(s, e, {sql_ticks(size)}, {sql_ticks(alignment)}, '{output}')"
    actual, query = run(spark, rows, call)
    expected = ref.tumbling_window(ref_rows(rows), size, alignment, output)
    assert_same(actual, expected, rows, query, ref.default_horizon(ref_rows(rows)))


# ----------------------------------------------------------------------------------------------
# Point events: the window functions called without an end column


@pytest.mark.parametrize("params, output", _valid([(7, 3, 2), (4, 6, -1), (5, 5, -2)]))
def test_hopping_point_events_random(spark, params, output):
    size, hop, alignment = params
    rng = random.Random(f"hopping-points-{size}-{hop}-{alignment}-{output}")
    rows = random_rows(rng, 10)
    call = f"hopping_window(s, {size}L, {hop}L, {sql_ticks(alignment)}, '{output}')"
    actual, query = run(spark, rows, call)
    expected = ref.hopping_window(ref_rows(rows), size, hop, alignment, output, point=True)
    assert_same(actual, expected, rows, query)


@pytest.mark.parametrize(
    "output", [pytest.param("window", marks=pytest.mark.smoke), "point", "changes"]
)
def test_tumbling_point_events_random(spark, output):
    rng = random.Random(f"tumbling-points-{output}")
    rows = random_rows(rng, 10)
    actual, query = run(spark, rows, f"tumbling_window(s, 6L, (-4L), '{output}')")
    expected = ref.tumbling_window(ref_rows(rows), 6, -4, output, point=True)
    assert_same(actual, expected, rows, query)


# ----------------------------------------------------------------------------------------------
# Snapshot windows


@pytest.mark.smoke
def test_snapshot_random(spark):
    rng = random.Random("snapshot")
    rows = random_rows(rng, 40)
    actual, query = run(spark, rows, "snapshot_window(s, e)")
    assert_same(actual, ref.snapshot_window(ref_rows(rows)), rows, query)


def test_snapshot_point_events_random(spark):
    rng = random.Random("snapshot-points")
    rows = random_rows(rng, 30)
    actual, query = run(spark, rows, "snapshot_window(s)")
    assert_same(actual, ref.snapshot_window(ref_rows(rows), point=True), rows, query)


# ----------------------------------------------------------------------------------------------
# An explicit horizon for open-ended events under per-window output


@pytest.mark.parametrize("horizon", [25, 0, -60, 200])
@pytest.mark.parametrize("output", ["window", "point"])
def test_hopping_explicit_horizon_random(spark, horizon, output):
    rng = random.Random(f"horizon-{horizon}-{output}")
    rows = random_rows(rng, 6)
    call = f"hopping_window(s, e, 6L, 4L, 1L, '{output}', {sql_ticks(horizon)})"
    actual, query = run(spark, rows, call)
    expected = ref.hopping_window(ref_rows(rows), 6, 4, 1, output, horizon=horizon)
    assert_same(actual, expected, rows, query, horizon)


# ----------------------------------------------------------------------------------------------
# Many events in one key: the sliding aggregate grows and packs


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize(
    "call,expected",
    [
        (
            "hopping_window(s, e, 9L, 2L, 1L, 'window')",
            lambda rows: ref.hopping_window(rows, 9, 2, 1, "window"),
        ),
        (
            "hopping_window(s, e, 9L, 2L, 1L, 'changes')",
            lambda rows: ref.hopping_window(rows, 9, 2, 1, "changes"),
        ),
        ("snapshot_window(s, e)", lambda rows: ref.snapshot_window(rows)),
    ],
    ids=["window", "changes", "snapshot"],
)
def test_one_big_key(spark, call, expected):
    rng = random.Random("big-" + call)
    rows = one_big_key_rows(rng, span=300, open_ended=0.03, one_tick=0.27, max_length=60)
    actual, query = run(spark, rows, call)
    assert_same(actual, expected(ref_rows(rows)), rows, query)


# ----------------------------------------------------------------------------------------------
# TIMESTAMP time (microseconds; the end of time is 9999-12-31 23:59:59.999999)


TIMESTAMP_CASES = [
    # (base, size, hop, alignment): times are base + whole seconds in [-40, 40], +- a microsecond.
    ("2012-06-28 00:00:00", "5 seconds", 5_000_000, "2 seconds", 2_000_000, "2012-03-15 12:00:00"),
    (
        "1970-01-01 00:00:10",
        "7 seconds",
        7_000_000,
        "3 seconds",
        3_000_000,
        "1969-12-31 23:59:58.5",
    ),
    ("1969-07-20 20:17:40", "4 seconds", 4_000_000, "4 seconds", 4_000_000, "1900-01-01 00:00:01"),
]


@pytest.mark.parametrize("output", ["window", "point", "changes"])
@pytest.mark.parametrize("case", TIMESTAMP_CASES, ids=lambda c: c[0][:4] + "-" + c[1][0])
def test_hopping_timestamp_random(spark, case, output):
    base_text, size_text, size, hop_text, hop, align_text = case
    rng = random.Random(f"timestamp-{base_text}-{output}")
    base = micros(base_text)
    rows = [
        (c, k, None if s is None else s + base, None if e is None else e + base, v)
        for c, k, s, e, v in random_rows(rng, 8, scale=1_000_000, jitter=(-1, 1, 500_000))
    ]
    call = f"hopping_window(s, e, '{size_text}', '{hop_text}', '{align_text}', '{output}')"
    actual, query = run(spark, rows, call, time="timestamp")
    expected = ref.hopping_window(
        ref_rows(rows), size, hop, micros(align_text), output, line_max=TIMESTAMP_MAX
    )
    assert_same(actual, expected, rows, query, ref.default_horizon(ref_rows(rows)))


@pytest.mark.parametrize("output", ["window", "changes"])
def test_hopping_timestamp_point_events_random(spark, output):
    rng = random.Random(f"timestamp-points-{output}")
    base = micros("2012-06-28 00:00:00")
    rows = [
        (c, k, None if s is None else s + base, None, v)
        for c, k, s, e, v in random_rows(rng, 8, scale=1_000_000, jitter=(-1, 1))
    ]
    call = (
        f"hopping_window(s, INTERVAL 5 SECONDS, INTERVAL 2 SECONDS, "
        f"TIMESTAMP '2012-03-15 12:00:00', '{output}')"
    )
    actual, query = run(spark, rows, call, time="timestamp")
    expected = ref.hopping_window(
        ref_rows(rows),
        5_000_000,
        2_000_000,
        micros("2012-03-15 12:00:00"),
        output,
        point=True,
        line_max=TIMESTAMP_MAX,
    )
    assert_same(actual, expected, rows, query)


def test_snapshot_timestamp_random(spark):
    rng = random.Random("timestamp-snapshot")
    base = micros("1969-12-31 23:59:50")
    rows = [
        (c, k, None if s is None else s + base, None if e is None else e + base, v)
        for c, k, s, e, v in random_rows(rng, 12, scale=1_000_000, jitter=(-1, 1))
    ]
    actual, query = run(spark, rows, "snapshot_window(s, e)", time="timestamp")
    expected = ref.snapshot_window(ref_rows(rows), line_max=TIMESTAMP_MAX)
    assert_same(actual, expected, rows, query)


# ----------------------------------------------------------------------------------------------
# The operator agrees with itself: 'changes' expanded into window ends gives the 'point' rows


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize(
    "params", [(7, 3, 2), (5, 5, -3), (10, 1, 4), (6, 4, -11)], ids=_hopping_param_id
)
def test_changes_expand_to_point_rows(spark, params):
    size, hop, alignment = params
    rng = random.Random(f"expansion-{size}-{hop}-{alignment}")
    rows = random_rows(rng, 8)
    common = f"{size}L, {hop}L, {sql_ticks(alignment)}"
    changes, _ = run(spark, rows, f"hopping_window(s, e, {common}, 'changes')")
    point, query = run(spark, rows, f"hopping_window(s, e, {common}, 'point')")
    horizon = ref.default_horizon(ref_rows(rows))
    # Every 'point' row is a window starting at or before the horizon; beyond it, 'changes' goes
    # on with the open-ended events only.
    expanded = ref.expand_changes(changes, hop, size, horizon)
    assert_same(point, expanded, rows, query + "  (expected: expanded 'changes' rows)", horizon)
    # The rows of one key are disjoint intervals.
    for key, group in itertools.groupby(changes, key=lambda r: r[0]):
        group = list(group)
        for a, b in zip(group, group[1:]):
            assert a[2] <= b[1], (key, a, b)


@pytest.mark.slow  # random inputs against a reference
def test_reference_changes_agree_with_window_sets():
    """The reference checks itself: 'changes' as a snapshot of snapped lifetimes equals runs of
    hopping windows with the same set of events, and expands into the reference's 'point' rows."""
    rng = random.Random("self-check")
    for _ in range(300):
        size = rng.randint(1, 9)
        hop = rng.randint(1, size)
        alignment = rng.randint(-20, 20)
        point = rng.random() < 0.2
        rows = ref_rows(random_rows(rng, 1, t_lo=-15, t_hi=15, max_events=8))
        changes = ref.hopping_changes(rows, size, hop, alignment, point=point)
        assert changes == ref.changes_from_window_sets(rows, size, hop, alignment, point=point)
        horizon = ref.default_horizon(rows, point)
        if horizon is not None:
            assert ref.expand_changes(changes, hop, size, horizon) == ref.hopping_window(
                rows, size, hop, alignment, "point", point=point
            )


# ----------------------------------------------------------------------------------------------
# The scalar helpers, time by time


def boundary(t, period, alignment):
    """snap_to_boundary(t, alignment, period): the start of the window holding t among the
    tumbling windows of size `period` (the reference's windows, found by testing)."""
    starts = [
        ref.window_bounds(n, period, period, alignment)[0]
        for n in ref.candidate_windows(t, t + 1, period, period, alignment)
    ]
    return max(s for s in starts if s <= t)


@pytest.mark.smoke
def test_scalar_helpers_random(spark):
    """adjust_start_time and adjust_end_time give the reference's snapped start and end (the
    "Taming Hopping Windows" post's SnapToWindowIntervals), snap_to_boundary the start of the
    tumbling window holding the time, for random times and the windows of HOPPING with
    hop <= size; a NULL time gives NULL, and adjust_end_time of a NULL (an open end) the end of
    time."""
    rng = random.Random("scalar-helpers")
    times = [rng.randint(-40, 40) for _ in range(60)] + [None]
    params = [p for p in HOPPING if p[1] <= p[0]]
    calls = []
    for size, hop, alignment in params:
        common = f"{sql_ticks(size)}, {sql_ticks(hop)}, {sql_ticks(alignment)}"
        calls += [
            f"adjust_start_time(t, {common})",
            f"adjust_end_time(t, {common})",
            f"snap_to_boundary(t, {sql_ticks(alignment)}, {sql_ticks(hop)})",
        ]

    def expected(t):
        if t is None:
            return [x for _ in params for x in (None, BIGINT_MAX, None)]
        return [
            x
            for size, hop, alignment in params
            for x in (
                ref.snapped_start(t, size, hop, alignment),
                ref.snapped_end(t, size, hop, alignment),
                boundary(t, hop, alignment),
            )
        ]

    rows = (
        spark.createDataFrame([(t,) for t in times], "t BIGINT").selectExpr("t", *calls).collect()
    )
    assert len(rows) == len(times)
    wrong = [
        (call, t, got, want)
        for t, *values in rows
        for call, got, want in zip(calls, values, expected(t))
        if got != want
    ]
    assert not wrong, "\n".join(
        f"{call} at t = {t}: {got}, reference {want}" for call, t, got, want in wrong[:20]
    )


# ----------------------------------------------------------------------------------------------
# Hand-worked cases with exact rows

END = ref.BIGINT_MAX


def rows_of(spark, sql):
    return [tuple(r) for r in spark.sql(sql).collect()]


@pytest.mark.smoke
def test_taming_hopping_windows_bigint(spark):
    """The "Taming Hopping Windows" post's example in ticks of a second since 2012-06-28 00:00:00
    (the alignment 2012-03-15 12:00:00 is an even number of seconds before): e0 [0, open),
    e1 [1, 2), e2 [3, 10), e3 [9, 10)."""
    events = "VALUES (0L, CAST(NULL AS BIGINT)), (1L, 2L), (3L, 10L), (9L, 10L) AS t(s, e)"
    adjusted = rows_of(
        spark,
        f"SELECT adjust_start_time(s, 5L, 2L, 0L), "
        f"adjust_end_time(e, 5L, 2L, 0L) FROM {events} ORDER BY s",
    )
    assert adjusted == [(1, END), (3, 7), (5, 15), (11, 15)]
    query = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*) FROM {events} "
        f"GROUP BY hopping_window(s, e, 5L, 2L, 0L, 'changes') ORDER BY 1",
    )
    assert query == [(1, 3, 1), (3, 5, 2), (5, 7, 3), (7, 11, 2), (11, 15, 3), (15, END, 1)]
    rows = [(None, 0, None, 1), (None, 1, 2, 1), (None, 3, 10, 1), (None, 9, 10, 1)]
    assert [r[1:4] for r in ref.hopping_changes(rows, 5, 2, 0)] == query


@pytest.mark.smoke
def test_taming_hopping_windows_timestamp(spark):
    events = (
        "VALUES (TIMESTAMP '2012-06-28 00:00:00', CAST(NULL AS TIMESTAMP)), "
        "(TIMESTAMP '2012-06-28 00:00:01', TIMESTAMP '2012-06-28 00:00:02'), "
        "(TIMESTAMP '2012-06-28 00:00:03', TIMESTAMP '2012-06-28 00:00:10'), "
        "(TIMESTAMP '2012-06-28 00:00:09', TIMESTAMP '2012-06-28 00:00:10') AS t(s, e)"
    )
    got = rows_of(
        spark,
        f"SELECT date_format(window.start, 'yyyy-MM-dd HH:mm:ss.SSSSSS'), "
        f"date_format(window.end, 'yyyy-MM-dd HH:mm:ss.SSSSSS'), count(*) "
        f"FROM {events} GROUP BY hopping_window(s, e, INTERVAL 5 SECONDS, "
        f"INTERVAL 2 SECONDS, TIMESTAMP '2012-03-15 12:00:00', 'changes') "
        f"ORDER BY 1",
    )
    d = "2012-06-28 00:00:"
    assert got == [
        (d + "01.000000", d + "03.000000", 1),
        (d + "03.000000", d + "05.000000", 2),
        (d + "05.000000", d + "07.000000", 3),
        (d + "07.000000", d + "11.000000", 2),
        (d + "11.000000", d + "15.000000", 3),
        (d + "15.000000", "9999-12-31 23:59:59.999999", 1),
    ]


@pytest.mark.smoke
def test_documented_examples(spark):
    assert rows_of(
        spark,
        "SELECT window.start, window.end, count(*) FROM VALUES (1L), (3L) "
        "AS t(ts) GROUP BY hopping_window(ts, 4L, 2L) ORDER BY 1",
    ) == [(-2, 2, 1), (0, 4, 2), (2, 6, 1)]
    # The tumbling_window docs show "0 1 / 2 2" here, but 4 lies in [4, 6), not in [2, 4): the
    # documented output is wrong, the operator right.
    assert rows_of(
        spark,
        "SELECT window.start, count(*) FROM VALUES (1L), (3L), (4L) AS t(ts) "
        "GROUP BY tumbling_window(ts, 2L) ORDER BY 1",
    ) == [(0, 1), (2, 1), (4, 1)]
    assert rows_of(
        spark,
        "SELECT window.start, window.end, count(*) FROM VALUES (0L, 4L), "
        "(2L, 6L) AS t(s, e) GROUP BY snapshot_window(s, e) ORDER BY 1",
    ) == [(0, 2, 1), (2, 4, 2), (4, 6, 1)]


def test_floor_rounding_before_the_alignment(spark):
    """Tumbling windows of 5 from 0: -1 and -5 are in [-5, 0), 0 in [0, 5), -6 in [-10, -5)."""
    got = rows_of(
        spark,
        "SELECT window.start, window.end, collect_list(ts) FROM VALUES (-1L), "
        "(-5L), (0L), (-6L) AS t(ts) GROUP BY tumbling_window(ts, 5L) "
        "ORDER BY 1",
    )
    assert [(s, e, sorted(l)) for s, e, l in got] == [
        (-10, -5, [-6]),
        (-5, 0, [-5, -1]),
        (0, 5, [0]),
    ]


def test_gaps(spark):
    """size 2, hop 5, alignment 0: windows [5n, 5n + 2); a point at 3 is in none."""
    got = rows_of(
        spark,
        "SELECT window.start, window.end, count(*) FROM VALUES (3L), (5L), "
        "(6L), (-4L) AS t(ts) GROUP BY hopping_window(ts, 2L, 5L) ORDER BY 1",
    )
    assert got == [(-5, -3, 1), (5, 7, 2)]
    # An interval [3, 11) spans the gap: windows [5, 7) and [10, 12).
    got = rows_of(
        spark,
        "SELECT window.start, window.end, count(*) FROM VALUES (3L, 11L) "
        "AS t(s, e) GROUP BY hopping_window(s, e, 2L, 5L) ORDER BY 1",
    )
    assert got == [(5, 7, 1), (10, 12, 1)]


def test_open_ended_default_horizon(spark):
    """Events [0, open) and [2, 5): the horizon is 4, so the open event covers [0, 5)."""
    events = "VALUES (0L, CAST(NULL AS BIGINT)), (2L, 5L) AS t(s, e)"
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*) FROM {events} "
        f"GROUP BY tumbling_window(s, e, 2L) ORDER BY 1",
    )
    assert got == [(0, 2, 1), (2, 4, 2), (4, 6, 2)]
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*) FROM {events} "
        f"GROUP BY tumbling_window(s, e, 2L, 0L, 'point') ORDER BY 1",
    )
    assert got == [(2, 3, 1), (4, 5, 2), (6, 7, 2)]
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*) FROM {events} "
        f"GROUP BY tumbling_window(s, e, 2L, 0L, 'changes') ORDER BY 1",
    )
    # [2, 5) is in the windows ending at 4 and 6: snapped to [4, 8), i.e. the 'point' rows at 4, 6.
    assert got == [(2, 4, 1), (4, 8, 2), (8, END, 1)]
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*) FROM {events} "
        f"GROUP BY snapshot_window(s, e) ORDER BY 1",
    )
    assert got == [(0, 2, 1), (2, 5, 2), (5, END, 1)]


def test_explicit_horizon_before_the_start(spark):
    """An open event starting after the horizon still covers its own start tick."""
    got = rows_of(
        spark,
        "SELECT window.start, window.end, count(*) FROM VALUES "
        "(10L, CAST(NULL AS BIGINT)) AS t(s, e) "
        "GROUP BY tumbling_window(s, e, 5L, 0L, 'window', 3L) ORDER BY 1",
    )
    assert got == [(10, 15, 1)]
    got = rows_of(
        spark,
        "SELECT window.start, window.end, count(*) FROM VALUES "
        "(10L, CAST(NULL AS BIGINT)), (1L, 2L) AS t(s, e) "
        "GROUP BY tumbling_window(s, e, 5L, 0L, 'window', 7L) ORDER BY 1",
    )
    assert got == [(0, 5, 1), (10, 15, 1)]


def test_null_start_row_does_not_move_the_horizon(spark):
    """A row with a NULL start is skipped: it is no event, so its end is no "finite time in the
    input" and must not stretch open-ended events (SPEC 1 and 3.1; the function docs say rows
    with a NULL start are skipped). Here the only event is [0, open): horizon 0, one window."""
    rows = [(0, 1, 0, None, 1), (0, 1, None, 100, 2)]
    actual, query = run(spark, rows, "tumbling_window(s, e, 10L, 0L, 'window')")
    expected = ref.tumbling_window(ref_rows(rows), 10, 0, "window")
    assert expected == [((0, 1), 0, 10, 1, 1, 1, 1)]
    assert_same(actual, expected, rows, query, ref.default_horizon(ref_rows(rows)))


def test_null_start_rows_are_skipped(spark):
    got = rows_of(
        spark,
        "SELECT window.start, window.end, count(*), sum(v) FROM VALUES "
        "(CAST(NULL AS BIGINT), 3L, 5L), (1L, 2L, 7L), "
        "(CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), 11L) AS t(s, e, v) "
        "GROUP BY snapshot_window(s, e) ORDER BY 1",
    )
    assert got == [(1, 2, 1, 7)]


def test_changes_near_the_end_of_time_does_not_fail(spark):
    """A valid event two seconds before the end of time: its window [23:59:55, 00:00:00 of year
    10000) saturates to end at the end of time ('window' output gives [23:59:55, end of time)).
    SPEC 1: time arithmetic saturates, it never fails; the input row is valid, so 'changes' must
    give a result rather than reject a snapped lifetime [end of time, end of time) that the user
    never wrote."""
    events = "VALUES (TIMESTAMP '9999-12-31 23:59:58') AS t(ts)"
    window = rows_of(
        spark,
        f"SELECT unix_micros(window.start), unix_micros(window.end), count(*) "
        f"FROM {events} GROUP BY tumbling_window(ts, '5 seconds', "
        f"'2012-01-01 00:00:00', 'window')",
    )
    assert window == [(TIMESTAMP_MAX - 4_999_999, TIMESTAMP_MAX, 1)]
    rows_of(
        spark,
        f"SELECT unix_micros(window.start), unix_micros(window.end), count(*) "
        f"FROM {events} GROUP BY tumbling_window(ts, '5 seconds', "
        f"'2012-01-01 00:00:00', 'changes')",
    )


# ----------------------------------------------------------------------------------------------
# The ends of the time line: windows reaching past an end are clipped there and keep their events

#: (time type, first instant, last instant, tick scale) of each time line.
LINES = {
    "bigint": (BIGINT_MIN, BIGINT_MAX, 1),
    "timestamp": (TIMESTAMP_MIN, TIMESTAMP_MAX, 1_000_000),
}

#: (size, hop, alignment) in ticks of the scale: overlapping, gaps, hop == size, a window longer
#: than the data's span, hops longer than the line before the epoch (windows far apart).
END_WINDOWS = [
    (7, 3, 2),
    (4, 6, 1),
    (5, 5, 0),
    (10, 2, -17),
    (1000, 7, 3),
    (3, 200_000_000_000, 5),
    (100_000_000_000, 200_000_000_000, -7),
]


def rows_at_an_end(rng, n_cases, line, end):
    """random_rows moved next to one `end` of the time `line` and clipped to it: starts in
    [first, last - 1 tick], ends in (start, last]; many lifetimes reach past the end."""
    first, last, scale = LINES[line]
    base = first + 20 * scale if end == "start" else last - 20 * scale
    rows = []
    for c, k, s, e, v in random_rows(rng, n_cases, scale=scale, jitter=(-1, 1)):
        if s is None:
            rows.append((c, k, None, None if e is None else first, v))
            continue
        start = min(max(s + base, first), last - 1)
        rows.append((c, k, start, None if e is None else min(max(e + base, start + 1), last), v))
    return rows


def run_at_an_end(spark, rows, calls, line):
    """grouped_calls over the rows, with TIMESTAMP columns for line="timestamp"; the window
    bounds come back as ticks."""
    select = "window.start, window.end, count(*), sum(v), min(v), max(v)"
    if line == "bigint":
        return grouped_calls(spark, rows, SCHEMA, calls, select)
    return grouped_calls(
        spark,
        rows,
        SCHEMA,
        calls,
        select.replace("window.start", "unix_micros(window.start)").replace(
            "window.end", "unix_micros(window.end)"
        ),
        "(SELECT c, k, timestamp_micros(s) AS s, timestamp_micros(e) AS e, v FROM {view})",
    )


@pytest.mark.parametrize("point", [False, True], ids=["intervals", "points"])
@pytest.mark.parametrize("end", ["start", "end"])
@pytest.mark.parametrize("line", ["bigint", "timestamp"])
def test_hopping_at_the_ends_of_the_line_random(spark, line, end, point):
    first, last, scale = LINES[line]
    rng = random.Random(f"ends-{line}-{end}-{point}")
    rows = rows_at_an_end(rng, 8, line, end)
    cases = [
        (size * scale, hop * scale, alignment * scale + jitter, output)
        for (size, hop, alignment), jitter in zip(END_WINDOWS, (0, 1, -1, 0, 3, 0, 2))
        for output in ("window", "point", "changes")
        if not (output == "changes" and hop > size)
    ]
    lifetime = "s" if point else "s, e"
    # Over timestamps durations are microseconds written as such; the alignment may be an integer.
    span = sql_ticks if line == "bigint" else (lambda n: f"'{n} microseconds'")
    calls = [
        f"hopping_window({lifetime}, {span(size)}, {span(hop)}, {sql_ticks(alignment)}, '{output}')"
        for size, hop, alignment, output in cases
    ]
    calls.append(f"snapshot_window({lifetime})")
    actual = run_at_an_end(spark, rows, calls, line)
    for (size, hop, alignment, output), call, got in zip(cases, calls, actual):
        expected = ref.hopping_window(
            ref_rows(rows), size, hop, alignment, output, point=point, line_min=first, line_max=last
        )
        assert_same(got, expected, rows, call, ref.default_horizon(ref_rows(rows), point))
    assert_same(
        actual[-1], ref.snapshot_window(ref_rows(rows), point=point, line_max=last), rows, calls[-1]
    )


def test_windows_at_the_first_tick_of_the_bigint_line(spark):
    # Tumbling windows of 4 ticks are aligned at 0, and -2^63 is a multiple of 4: the window
    # [-2^63, -2^63 + 4) holds the event at -2^63 + 2.
    assert [
        tuple(r)
        for r in spark.sql(
            "SELECT window.start, window.end, count(*) FROM VALUES (-9223372036854775806L) AS ev(t) "
            "GROUP BY tumbling_window(t, 4)"
        ).collect()
    ] == [(BIGINT_MIN, BIGINT_MIN + 4, 1)]
    # Windows of 1000 aligned at 0: the one holding -2^63 starts at -9223372036854776000, before
    # the line, so it is clipped to [-2^63, -9223372036854775000) and keeps both of its events.
    times = [BIGINT_MIN, BIGINT_MIN + 5, BIGINT_MIN + 1500, 0]
    values = ", ".join(f"({t}L)" if t >= 0 else f"(CAST('{t}' AS BIGINT))" for t in times)
    assert sorted(
        tuple(r)
        for r in spark.sql(
            f"SELECT window.start, window.end, count(*) FROM VALUES {values} AS ev(t) "
            f"GROUP BY tumbling_window(t, 1000)"
        ).collect()
    ) == [
        (BIGINT_MIN, -9223372036854775000, 2),
        (-9223372036854775000, -9223372036854774000, 1),
        (0, 1000, 1),
    ]
    # hopping_window(t, te, 100, 7) over the same times as [t, t + 1): every window [7n, 7n + 100)
    # that holds one of them, found by testing each n near them, clipped to the line.
    rows = spark.sql(
        f"SELECT window.start, window.end, count(*) FROM "
        f"(SELECT t, t + 1 AS te FROM VALUES {values} AS ev(t)) "
        f"GROUP BY hopping_window(t, te, 100, 7)"
    ).collect()
    expected = {}
    for t in times:
        for n in range(t // 7 - 20, t // 7 + 20):
            if 7 * n <= t < 7 * n + 100:
                window = (max(7 * n, BIGINT_MIN), 7 * n + 100)
                expected[window] = expected.get(window, 0) + 1
    assert len(expected) == 45
    assert sorted(tuple(r) for r in rows) == sorted((s, e, n) for (s, e), n in expected.items())


@pytest.mark.parametrize("output", ["window", "changes"])
def test_windows_at_the_first_tick_of_the_bigint_line_match_the_reference(spark, output):
    # The reference enumerates every window between a key's first and last event: the event at 0
    # has a key of its own.
    times = [BIGINT_MIN, BIGINT_MIN + 5, BIGINT_MIN + 1500, 0]
    rows = [(0, int(t == 0), t, t + 1, i) for i, t in enumerate(times)]
    actual, query = run(spark, rows, f"hopping_window(s, e, 100L, 7L, 0L, '{output}')")
    assert_same(actual, ref.hopping_window(ref_rows(rows), 100, 7, 0, output), rows, query)
    if output == "changes":
        # A row [a, b) stands for the windows ending in it. -2^63 = 6 (mod 7): the windows
        # holding -2^63 start at -2^63 - 97 + 7j (j = 0..13, clipped to the line); the first ends
        # at -2^63 + 3 and holds it alone, those ending at -2^63 + 10 to -2^63 + 94 hold
        # -2^63 + 5 too, and the next one (starting at -2^63 + 1) holds -2^63 + 5 alone.
        assert [r[1:4] for r in actual][:3] == [
            (BIGINT_MIN + 3, BIGINT_MIN + 10, 1),
            (BIGINT_MIN + 10, BIGINT_MIN + 101, 2),
            (BIGINT_MIN + 101, BIGINT_MIN + 108, 1),
        ]


def test_windows_at_the_first_day_of_the_timestamp_line(spark):
    """0001-01-01 is a Monday; windows of 7 days are aligned at the epoch, a Thursday. Spark's
    window() gives the same windows, unclipped (its first starts in the year 0)."""
    events = "VALUES (TIMESTAMP'0001-01-01 00:00:00'), (TIMESTAMP'0001-01-02 00:00:00') AS ev(ts)"

    def rows(call):
        return sorted(
            tuple(r)
            for r in spark.sql(
                f"SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*) "
                f"FROM {events} GROUP BY {call}"
            ).collect()
        )

    assert rows("tumbling_window(ts, '7 days')") == [
        ("0001-01-01 00:00:00", "0001-01-04 00:00:00", 2)
    ]
    hopping = rows("hopping_window(ts, '7 days', '1 day')")
    assert hopping == [
        ("0001-01-01 00:00:00", f"0001-01-0{d} 00:00:00", 1 if d == 2 else 2) for d in range(2, 9)
    ] + [("0001-01-02 00:00:00", "0001-01-09 00:00:00", 1)]
    # Spark's window(): the same ends and counts.
    assert [(e, n) for _, e, n in rows("window(ts, '7 days', '1 day')")] == [
        (e, n) for _, e, n in hopping
    ]


def test_windows_whose_first_one_starts_after_the_timestamp_line_begins(spark):
    """A hop of 1,000,000 days (2738 years) is longer than the TIMESTAMP line before the epoch: the
    window [epoch, epoch + 1 s) is the first reaching into the line, and it is numbered 0 (once the
    numbering wrapped and put this window at the line's first tick, empty)."""
    assert [
        tuple(r)
        for r in spark.sql(
            "SELECT unix_micros(window.start), unix_micros(window.end), count(*) FROM VALUES "
            "(TIMESTAMP'1970-01-01 00:00:00'), (TIMESTAMP'1969-12-31 23:59:59') AS ev(ts) "
            "GROUP BY hopping_window(ts, '1 second', '1000000 days')"
        ).collect()
    ] == [(0, 1_000_000, 1)]


def test_a_hop_of_one_tick_near_the_end_of_the_bigint_line(spark):
    """More than 2^64 windows of hop 1 and size 10 reach into the BIGINT line: the last 8 ticks'
    windows cannot be numbered, and an event in one fails the query naming it; at the first tick
    of the line every window is a row (10 windows hold -2^63, 9 of them clipped)."""
    with pytest.raises(
        IllegalArgumentException,
        match=r"hopping_window: the event starting at "
        r"9223372036854775800 .*hop 1 tick, size 10 ticks",
    ):
        spark.sql(
            "SELECT count(*) FROM (SELECT CAST('9223372036854775800' AS BIGINT) AS t) "
            "GROUP BY hopping_window(t, 10, 1)"
        ).collect()
    rows = spark.sql(
        "SELECT window.start, window.end FROM (SELECT CAST('-9223372036854775808' "
        "AS BIGINT) AS t) GROUP BY hopping_window(t, 10, 1)"
    ).collect()
    assert sorted(tuple(r) for r in rows) == [(BIGINT_MIN, BIGINT_MIN + d) for d in range(1, 11)]
