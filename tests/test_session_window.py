"""Event sessions (issue 22): the SQL window function
``event_session_window(start[, end], gap[, max_duration[, output]])`` and its Python function.

* the reference itself (tests/reference/sessions.py), without Spark: Trill's example, the
  hand-worked cases below, 'changes' derived a second way, the last 'changes' row of each
  session or piece equal to its 'window' row;
* hand-worked cases with the working in comments: Trill's example (points 11, 12, 21, 25, gap 6),
  sessions over intervals (overlapping, touching exactly at E, a gap counted from an interval's
  last tick e - 1, open-ended events, empty lifetimes and NULL starts skipped), max_duration
  pieces (an event spanning several pieces, a piece with no event), the end of the time line
  (sessions saturate there), an end before its start naming the row, an open-ended event in
  too many pieces failing at once (the limit of windows per event);
* random comparisons with the reference over BIGINT, TIMESTAMP and TIMESTAMP_NTZ, outputs
  'window' and 'changes', with and without max_duration, points and intervals, several keys
  with a NULL key among them, one big key, and times next to both ends of the line;
* point events: the sessions of Spark's own ``session_window(ts, gap)``;
* clipped lifetimes under 'window' (sum of clipped lengths, time-weighted sums and averages per
  session or piece against the reference) and their analysis error under 'changes';
* streams (transformWithState), points and intervals (an open-ended event among them), 'window',
  'changes' and pieces: the batch query's rows the watermark closed, over a restart from the
  checkpoint;
* bad parameters (analysis errors naming the function and the parameter), named arguments, the
  Python API.

Random cases run batched: each case has its own id ``c``, grouped by next to the case's key ``k``
(which may be NULL), and the calls of one time type run as one ``UNION ALL`` query
(``harness.grouped_calls``). Bad parameters: ``test_bad_parameters`` below, and every argument
replaced by wrong values in test_bad_input_generated.py.
"""

import datetime
import random

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import functions as F

import eventwindows as ew
from harness import (
    BIGINT_MAX,
    EMPTY,
    LINES,
    ONE_TICK,
    OPEN,
    analysis_error,
    assert_same_cases,
    at_an_end,
    grouped_calls,
    micros,
    one_big_key_rows,
    plain,
    random_interval_rows,
    run_stream,
    second,
    sort_rows,
    source_of,
    temp_view,
    ticks,
    write_batches,
)
from reference import clipped as refc
from reference import sessions as ref

M = BIGINT_MAX
SECOND = 1_000_000
SCHEMA = "c INT, k INT, s BIGINT, e BIGINT, v BIGINT"
AGGREGATES = "count(*), sum(v), min(v), max(v)"


def rows_of(spark, sql):
    return [plain(r) for r in spark.sql(sql).collect()]


# ----------------------------------------------------------------------------------------------
# Hand-worked inputs (used by the reference's own tests and by the Spark tests)

#: Trill's example: points 11, 12, 21, 25 with x = 1, 1, 2, 2, gap 6.
#:   11 keeps its session open until 11 + 6 = 17; 12 <= 17 joins, E = 18; 21 > 18 starts a new
#:   session, E = 27; 25 <= 27 joins, E = 31. Sessions [11, 18) (sum 2) and [21, 31) (sum 4).
#:   'changes' (each point extended to its session's end): [11, 12) {11} = 1, [12, 18) {11, 12}
#:   = 2, [21, 25) {21} = 2, [25, 31) {21, 25} = 4.
TRILL = [(11, 1), (12, 1), (21, 2), (25, 2)]
TRILL_WINDOW = [(11, 18, 2, 2), (21, 31, 2, 4)]
TRILL_CHANGES = [(11, 12, 1, 1), (12, 18, 2, 2), (21, 25, 1, 2), (25, 31, 2, 4)]

#: Intervals, gap 5, (key, s, e, v):
#:   key 'x': a [0, 4) 1 keeps open until 4 - 1 + 5 = 8; b [2, 3) 2 overlaps a (until 7): E = 8;
#:            c [8, 9) 4 starts exactly at E = 8: joins, until 8 + 5 = 13; session [0, 13).
#:            d [14, 20) 8: 14 > 13, a new session, until 19 + 5 = 24 (counted from its last tick
#:            19, not from its end 20); h [25, 26) 128: 25 > 24, a new session [25, 30).
#:            f [40, 40) 32 is an empty lifetime: in no session (no session [40, 44)); the row
#:            with a NULL start (v 64) is skipped.
#:   key 'y': r [-10, -9) 4: session [-10, -5); p [3, open) 1: 3 > -5, a new session that stays
#:            open to the end of time M; q [1000, 1001) 2 joins it: [3, M) holds p, q.
INTERVALS = [
    ("x", 0, 4, 1),
    ("x", 2, 3, 2),
    ("x", 8, 9, 4),
    ("x", 14, 20, 8),
    ("x", 25, 26, 128),
    ("x", 40, 40, 32),
    ("x", None, 50, 64),
    ("y", -10, -9, 4),
    ("y", 3, None, 1),
    ("y", 1000, 1001, 2),
]
INTERVALS_WINDOW = [
    ("x", 0, 13, 3, 7),
    ("x", 14, 24, 1, 8),
    ("x", 25, 30, 1, 128),
    ("y", -10, -5, 1, 4),
    ("y", 3, M, 2, 3),
]
#: 'changes': x [0, 13): a [0, 13), b [2, 13), c [8, 13) -> [0, 2) {a}, [2, 8) {a, b},
#:   [8, 13) {a, b, c}; the other sessions hold one event each, y [3, M) two:
#:   [3, 1000) {p}, [1000, M) {p, q}.
INTERVALS_CHANGES = [
    ("x", 0, 2, 1, 1),
    ("x", 2, 8, 2, 3),
    ("x", 8, 13, 3, 7),
    ("x", 14, 24, 1, 8),
    ("x", 25, 30, 1, 128),
    ("y", -10, -5, 1, 4),
    ("y", 3, 1000, 1, 1),
    ("y", 1000, M, 2, 3),
]

#: max_duration, gap 3, (s, e, v): a [0, 1) 1 keeps open until 0 + 3 = 3; b [2, 11) 2 joins
#: (2 <= 3), until 10 + 3 = 13: session [0, 13); d [20, 21) 4: 20 > 13, session [20, 23).
PIECES = [(0, 1, 1), (2, 11, 2), (20, 21, 4)]
#: max_duration 4: [0, 13) is cut into [0, 4), [4, 8), [8, 12), [12, 13). a lies in [0, 4); b in
#: [0, 4), [4, 8) and [8, 12) (it ends at 11 > 8); [12, 13) has no event (b ended at 11): no
#: row. 'changes': [0, 4): a [0, 4), b [2, 4) -> [0, 2) {a}, [2, 4) {a, b}; b carries over into
#: [4, 8) and [8, 12), from their starts.
PIECES_BY_DURATION = {
    None: ([(0, 13, 2, 3), (20, 23, 1, 4)], [(0, 2, 1, 1), (2, 13, 2, 3), (20, 23, 1, 4)]),
    4: (
        [(0, 4, 2, 3), (4, 8, 1, 2), (8, 12, 1, 2), (20, 23, 1, 4)],
        [(0, 2, 1, 1), (2, 4, 2, 3), (4, 8, 1, 2), (8, 12, 1, 2), (20, 23, 1, 4)],
    ),
    # max_duration = gap = 3: [0, 3), [3, 6), [6, 9), [9, 12), [12, 13) (no event, no row).
    3: (
        [(0, 3, 2, 3), (3, 6, 1, 2), (6, 9, 1, 2), (9, 12, 1, 2), (20, 23, 1, 4)],
        [(0, 2, 1, 1), (2, 3, 2, 3), (3, 6, 1, 2), (6, 9, 1, 2), (9, 12, 1, 2), (20, 23, 1, 4)],
    ),
    # max_duration 100 > the session: one piece, the session itself.
    100: ([(0, 13, 2, 3), (20, 23, 1, 4)], [(0, 2, 1, 1), (2, 13, 2, 3), (20, 23, 1, 4)]),
}

#: The end of BIGINT time, gap 10: a [M-25, M-24) 1 keeps open until M-25 + 10 = M-15; b [M-16,
#: M-15) 2 joins, until M-16 + 10 = M-6; c [M-8, M-7) 4 joins, until M-8 + 10, past the end:
#: the session [M-25, M) holds all three (its end saturates at M). max_duration 10: pieces
#: [M-25, M-15) {a, b} (b starts at M-16), [M-15, M-5) {c}, [M-5, M) (no event: no row). 'changes' (the same as
#: points): [M-25, M-16) {a}, [M-16, M-8) {a, b}, [M-8, M) {a, b, c}.
END_OF_TIME = [(M - 25, M - 24, 1), (M - 16, M - 15, 2), (M - 8, M - 7, 4)]
END_OF_TIME_WINDOW = [(M - 25, M, 3, 7)]
END_OF_TIME_PIECES = [(M - 25, M - 15, 2, 3), (M - 15, M - 5, 1, 4)]
END_OF_TIME_CHANGES = [(M - 25, M - 16, 1, 1), (M - 16, M - 8, 2, 3), (M - 8, M, 3, 7)]


# ----------------------------------------------------------------------------------------------
# The reference itself (no Spark)


def test_reference_trill_example():
    rows = [(None, t, None, x) for t, x in TRILL]
    assert [r[1:5] for r in ref.event_session_window(rows, 6, point=True)] == TRILL_WINDOW
    assert [
        r[1:5] for r in ref.event_session_window(rows, 6, output="changes", point=True)
    ] == TRILL_CHANGES


def test_reference_hand_worked_intervals_and_pieces():
    assert [r[:5] for r in ref.event_session_window(INTERVALS, 5)] == INTERVALS_WINDOW
    assert [
        r[:5] for r in ref.event_session_window(INTERVALS, 5, output="changes")
    ] == INTERVALS_CHANGES
    rows = [(None, s, e, v) for s, e, v in PIECES]
    for duration, (window, changes) in PIECES_BY_DURATION.items():
        assert [r[1:5] for r in ref.event_session_window(rows, 3, duration)] == window
        assert [r[1:5] for r in ref.event_session_window(rows, 3, duration, "changes")] == changes
    rows = [(None, s, e, v) for s, e, v in END_OF_TIME]
    assert [r[1:5] for r in ref.event_session_window(rows, 10)] == END_OF_TIME_WINDOW
    assert [r[1:5] for r in ref.event_session_window(rows, 10, 10)] == END_OF_TIME_PIECES
    for point in (False, True):
        assert [
            r[1:5] for r in ref.event_session_window(rows, 10, None, "changes", point)
        ] == END_OF_TIME_CHANGES


def reference_random_rows(rng, n):
    return [
        (
            rng.choice([None, 1]),
            s,
            rng.choice([s, s + 1, s + rng.randint(1, 9), None]),
            rng.choice([None, rng.randint(-5, 5)]),
        )
        for s in (rng.randint(-30, 30) for _ in range(n))
    ]


@pytest.mark.slow  # random inputs against a reference
def test_reference_changes_agree_with_a_running_aggregate():
    """'changes' as a literal snapshot over extended lifetimes equals a running aggregate over
    the distinct clipped starts of each session or piece."""
    rng = random.Random("sessions-self-check")
    for _ in range(400):
        rows = reference_random_rows(rng, rng.randint(0, 10))
        gap = rng.randint(1, 6)
        duration = rng.choice([None, gap, gap + rng.randint(0, 6)])
        # Open-ended events now and then, without max_duration only (see
        # test_random_bigint_max_duration).
        rows = [r for r in rows if r[2] is not None or (duration is None and rng.random() < 0.2)]
        point = rng.random() < 0.3
        assert ref.event_session_window(
            rows, gap, duration, "changes", point=point
        ) == ref.changes_by_running_aggregate(rows, gap, duration, point=point)


@pytest.mark.slow  # random inputs against a reference
def test_reference_last_changes_row_is_the_window_row():
    """The last 'changes' row of each session (piece) ends at its end and has its aggregates."""
    rng = random.Random("sessions-last-change")
    for _ in range(300):
        rows = [r for r in reference_random_rows(rng, rng.randint(1, 10)) if r[2] is not None]
        gap = rng.randint(1, 6)
        duration = rng.choice([None, gap + rng.randint(0, 4)])
        changes = ref.event_session_window(rows, gap, duration, "changes")
        for key, start, end, *aggs in ref.event_session_window(rows, gap, duration):
            inside = [c for c in changes if c[0] == key and start <= c[1] and c[2] <= end]
            assert inside and inside[-1][2:] == (end, *aggs)


@pytest.mark.slow  # random inputs against a reference
def test_reference_points_are_spark_sessions():
    """Over points, the reference's sessions are those of Spark's session_window, computed here
    as Spark documents them: each point opens [t, t + gap), overlapping or touching ones merge."""
    rng = random.Random("sessions-spark")
    for _ in range(300):
        times = sorted(rng.randint(-40, 40) for _ in range(rng.randint(1, 12)))
        gap = rng.randint(1, 8)
        merged = []
        for t in times:
            if merged and t <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], t + gap)
                merged[-1][2] += 1
            else:
                merged.append([t, t + gap, 1])
        rows = [(None, t, None, 1) for t in times]
        assert [r[1:4] for r in ref.event_session_window(rows, gap, point=True)] == [
            tuple(m) for m in merged
        ]


# ----------------------------------------------------------------------------------------------
# Hand-worked cases in Spark


@pytest.mark.smoke
def test_trill_example(spark):
    points = "VALUES " + ", ".join(f"({t}L, {x}L)" for t, x in TRILL) + " AS t(ts, x)"
    for output, expected in (("'window'", TRILL_WINDOW), ("'changes'", TRILL_CHANGES)):
        assert (
            rows_of(
                spark,
                f"SELECT window.start, window.end, count(*), sum(x) FROM {points} "
                f"GROUP BY event_session_window(ts, 6L, NULL, {output}) "
                f"ORDER BY 1",
            )
            == expected
        ), output
    # The default output is 'window'.
    assert (
        rows_of(
            spark,
            f"SELECT window.start, window.end, count(*), sum(x) FROM {points} "
            f"GROUP BY event_session_window(ts, 6L) ORDER BY 1",
        )
        == TRILL_WINDOW
    )


def interval_view(spark, rows, schema="k STRING, s BIGINT, e BIGINT, v BIGINT"):
    return temp_view(spark, rows, schema)


def test_sessions_over_intervals(spark):
    # Worked at INTERVALS above.
    with interval_view(spark, INTERVALS) as view:
        for output, expected in (("window", INTERVALS_WINDOW), ("changes", INTERVALS_CHANGES)):
            got = rows_of(
                spark,
                f"SELECT k, window.start, window.end, count(*), sum(v) "
                f"FROM {view} GROUP BY k, event_session_window(s, e, 5L, "
                f"output => '{output}') ORDER BY 1, 2",
            )
            assert got == expected, output


@pytest.mark.parametrize("duration", list(PIECES_BY_DURATION), ids=lambda d: f"D{d}")
def test_max_duration_pieces(spark, duration):
    # Worked at PIECES above.
    window, changes = PIECES_BY_DURATION[duration]
    with interval_view(spark, [(None, s, e, v) for s, e, v in PIECES]) as view:
        for output, expected in (("window", window), ("changes", changes)):
            got = rows_of(
                spark,
                f"SELECT window.start, window.end, count(*), sum(v) FROM {view} "
                f"GROUP BY event_session_window(s, e, 3L, "
                f"{'NULL' if duration is None else f'{duration}L'}, "
                f"'{output}') ORDER BY 1",
            )
            assert got == expected, output


def test_named_max_duration(spark):
    """``max_duration => ...`` alone and with ``output => ...``, in either order; with an
    INTERVAL for TIMESTAMP time."""
    window, changes = PIECES_BY_DURATION[4]
    with interval_view(spark, [(None, s, e, v) for s, e, v in PIECES]) as view:
        for call, expected in (
            ("event_session_window(s, e, 3L, max_duration => 4L)", window),
            ("event_session_window(s, e, 3L, max_duration => 4L, output => 'changes')", changes),
            ("event_session_window(s, e, 3L, output => 'changes', max_duration => 4L)", changes),
        ):
            got = rows_of(
                spark,
                f"SELECT window.start, window.end, count(*), sum(v) FROM {view} "
                f"GROUP BY {call} ORDER BY 1",
            )
            assert got == expected, call
        # The same in seconds: s, e as seconds after 2024-01-01 00:00:00.
        got = rows_of(
            spark,
            f"SELECT unix_seconds(window.start) - 1704067200, "
            f"unix_seconds(window.end) - 1704067200, count(*), sum(v) FROM "
            f"(SELECT timestamp_seconds(s + 1704067200) AS s, "
            f"timestamp_seconds(e + 1704067200) AS e, v FROM {view}) "
            f"GROUP BY event_session_window(s, e, INTERVAL 3 SECONDS, "
            f"max_duration => INTERVAL 4 SECONDS) ORDER BY 1",
        )
        assert got == window


def test_end_of_bigint_time(spark):
    # Worked at END_OF_TIME above: the session's end saturates at M.
    with interval_view(spark, [(None, s, e, v) for s, e, v in END_OF_TIME]) as view:
        for call, expected in (
            ("s, e, 10L", END_OF_TIME_WINDOW),
            ("s, e, 10L, 10L", END_OF_TIME_PIECES),
            ("s, e, 10L, NULL, 'changes'", END_OF_TIME_CHANGES),
            ("s, 10L, NULL, 'changes'", END_OF_TIME_CHANGES),
            ("s, 10L", END_OF_TIME_WINDOW),
        ):
            got = rows_of(
                spark,
                f"SELECT window.start, window.end, count(*), sum(v) FROM {view} "
                f"GROUP BY event_session_window({call}) ORDER BY 1",
            )
            assert got == expected, call


def test_end_of_timestamp_time(spark):
    """A point at 9999-12-31 23:59:59.99999 with a gap of one minute: the session ends at the
    end of TIMESTAMP time, 9999-12-31 23:59:59.999999 (Spark's session_window would end past
    it); also for TIMESTAMP_NTZ."""
    end = micros("9999-12-31 23:59:59.999999")
    for kind in ("TIMESTAMP", "TIMESTAMP_NTZ"):
        got = rows_of(
            spark,
            f"SELECT unix_micros(CAST(window.start AS TIMESTAMP)), "
            f"unix_micros(CAST(window.end AS TIMESTAMP)), count(*) FROM VALUES "
            f"({kind} '9999-12-31 23:59:59.99999') AS t(ts) "
            f"GROUP BY event_session_window(ts, '1 minute')",
        )
        assert got == [(end - 9, end, 1)], kind


def test_window_column_types(spark):
    for kind, gap in (
        ("TIMESTAMP", "'5 seconds'"),
        ("TIMESTAMP_NTZ", "'5 seconds'"),
        ("BIGINT", "5L"),
    ):
        df = spark.sql(
            f"SELECT window, count(*) FROM VALUES (CAST(NULL AS {kind})) AS t(ts) "
            f"GROUP BY event_session_window(ts, {gap})"
        )
        fields = {f.name: f.dataType.simpleString() for f in df.schema["window"].dataType.fields}
        assert fields == {"start": kind.lower(), "end": kind.lower()}, kind
        # The only row has a NULL start: skipped, no session.
        assert df.collect() == [], kind


def test_an_open_ended_event_in_too_many_pieces_fails_at_once(spark):
    """An open-ended event at 6 keeps its session [6, M) open to the end of time: with
    max_duration 8 it lies in ceil((M - 6) / 8) = 2^60 pieces, each a row; the query fails at
    once naming the event and the limit (as an event in too many hopping windows does), for both
    outputs. With max_duration 2^62 it lies in two pieces: [6, 6 + 2^62) and [6 + 2^62, M)."""
    events = "VALUES (6L, CAST(NULL AS BIGINT), 1L) AS t(s, e, v)"
    assert (M - 6 + 7) // 8 == 2**60
    for output in ("window", "changes"):
        with pytest.raises(IllegalArgumentException) as info:
            spark.sql(
                f"SELECT count(*) FROM {events} "
                f"GROUP BY event_session_window(s, e, 4L, 8L, '{output}')"
            ).collect()
        message = str(info.value)
        assert "event_session_window" in message and str(2**60) in message, message
        assert "spark.eventwindows.maxWindowsPerEvent" in message, message
    assert rows_of(
        spark,
        f"SELECT window.start, window.end, count(*) FROM {events} "
        f"GROUP BY event_session_window(s, e, 4L, {2**62}L) ORDER BY 1",
    ) == [(6, 6 + 2**62, 1), (6 + 2**62, M, 1)]


# ----------------------------------------------------------------------------------------------
# Randomized comparison with the reference


#: Lifetimes: one-tick, short, long, open-ended, empty (in no session) and short again.
LIFETIMES = [
    (0.3, ONE_TICK),
    (0.3, (1, 4)),
    (0.15, (5, 20)),
    (0.1, OPEN),
    (0.07, EMPTY),
    (0.08, (1, 3)),
]


def random_events(rng, n_cases, scale=1, jitter=(), open_ended=True):
    """Rows (c, k, s, e, v) (harness.random_interval_rows): ties of starts, LIFETIMES (without
    `open_ended`, empty ones instead of open-ended ones), NULL values, NULL keys, rows with a NULL
    start; dense and sparse cases (sessions that merge and that break)."""
    lifetimes = (
        LIFETIMES
        if open_ended
        else [(share, EMPTY if length == OPEN else length) for share, length in LIFETIMES]
    )
    return random_interval_rows(
        rng,
        n_cases,
        lifetimes,
        times=[(-15, 15), (-30, 30), (-100, 100)],
        scale=scale,
        jitter=jitter,
    )


def ref_rows(rows):
    """The rows as the reference takes them: key = (case, key)."""
    return [((c, k), s, e, v) for c, k, s, e, v in rows]


def duration(t, time, ticks_only=False):
    """A duration parameter: BIGINT ticks, or for timestamps (by the value, for variety) an
    interval string, an INTERVAL literal or an interval of microseconds (an integer is no
    duration over timestamps)."""
    if time == "bigint":
        return f"{t}L"
    if ticks_only or t % SECOND:
        return f"'{t} microseconds'"
    n = t // SECOND
    return f"'{n} seconds'" if n % 2 else f"INTERVAL {n} SECONDS"


class Call:
    """A call of event_session_window and its parameters for the reference."""

    def __init__(self, time, gap, max_duration=None, output=None, point=False, ticks_only=False):
        self.gap, self.max_duration, self.point = gap, max_duration, point
        self.output = output or "window"
        args = ["s" if point else "s, e", duration(gap, time, ticks_only)]
        if max_duration is not None:
            args.append(duration(max_duration, time, ticks_only))
        if output is not None:
            args.append(
                f"output => '{output}'"
                if max_duration is None and gap % 2
                else ("NULL, " if max_duration is None else "") + f"'{output}'"
            )
        self.sql = f"event_session_window({', '.join(args)})"

    def expected(self, rows, line_max):
        return ref.event_session_window(
            ref_rows(rows),
            self.gap,
            self.max_duration,
            self.output,
            point=self.point,
            line_max=line_max,
        )

    def __repr__(self):
        return self.sql


def check_random(spark, rows, calls, time):
    """Runs every call over the rows in one query and compares each with the reference."""
    fields = f"{ticks('window.start', time)}, {ticks('window.end', time)}"
    results = grouped_calls(
        spark, rows, SCHEMA, [c.sql for c in calls], f"{fields}, {AGGREGATES}", source_of(time)
    )
    for call, actual in zip(calls, results):
        assert_same_cases(
            actual,
            call.expected(rows, LINES[time][1]),
            rows,
            [f"call: {call.sql} ({time})"],
            "(c, k, s, e, v)",
            "((c, k), start, end, count, sum, min, max)",
        )


def calls_of(time, parameters, ticks_only=False):
    """Calls for every (gap, max_duration) x output, over intervals and over points."""
    out = []
    for gap, max_duration in parameters:
        for output in (None, "window", "changes"):
            if output is None and max_duration is not None:
                continue
            out.append(Call(time, gap, max_duration, output, ticks_only=ticks_only))
        out.append(
            Call(
                time,
                gap,
                max_duration,
                "changes" if gap % 2 else None,
                point=True,
                ticks_only=ticks_only,
            )
        )
    return out


#: (gap, max_duration) in ticks (BIGINT) and in seconds (timestamps, times a million).
BIGINT_PARAMETERS = [(1, None), (2, None), (3, None), (5, None), (9, None), (40, None)]
BIGINT_PIECES = [(1, 1), (2, 3), (3, 3), (3, 7), (5, 6), (2, 20)]


def test_random_bigint(spark):
    rng = random.Random("sessions-bigint")
    check_random(spark, random_events(rng, 40), calls_of("bigint", BIGINT_PARAMETERS), "bigint")


def test_random_bigint_max_duration(spark):
    """Pieces need finite sessions: no open-ended events here (one in the middle of the line
    would lie in about 2^63 / max_duration pieces)."""
    rng = random.Random("sessions-bigint-pieces")
    check_random(
        spark, random_events(rng, 40, open_ended=False), calls_of("bigint", BIGINT_PIECES), "bigint"
    )


@pytest.mark.smoke
def test_random_one_big_key(spark):
    """400 events in one key: long sessions of many events (gap 6), short ones (gap 1), pieces
    over many events; open-ended events without max_duration only."""
    rng = random.Random("sessions-big")
    rows = one_big_key_rows(rng, span=600, open_ended=0.01, one_tick=0.49, max_length=12)
    finite = [r for r in rows if r[3] is not None]
    check_random(
        spark,
        rows,
        [
            Call("bigint", 1, None, "window"),
            Call("bigint", 6),
            Call("bigint", 6, None, "changes"),
            Call("bigint", 3, None, "changes", point=True),
        ],
        "bigint",
    )
    check_random(
        spark,
        finite,
        [
            Call("bigint", 6, 10, "window"),
            Call("bigint", 2, 7, "changes"),
            Call("bigint", 6, 6, "changes", point=True),
        ],
        "bigint",
    )


@pytest.mark.parametrize("time", ["timestamp", "timestamp_ntz"])
def test_random_timestamps(spark, time):
    """Seconds with +- 1 microsecond jitter (gaps met exactly and missed by one microsecond),
    gaps of whole and fractional seconds; max_duration calls over the events without an open
    end (see test_random_bigint_max_duration)."""
    rng = random.Random(f"sessions-{time}")
    base = micros("2024-02-29 23:59:00")
    rows = [
        (c, k, None if s is None else s + base, None if e is None else e + base, v)
        for c, k, s, e, v in random_events(rng, 25, scale=SECOND, jitter=(-1, 1))
    ]
    s = SECOND
    calls = calls_of(time, [(s, None), (2 * s, None), (5 * s // 2, None), (7 * s, None)])
    pieces = [
        Call(time, g, d, o)
        for g, d in [(2 * s, 3 * s), (5 * s // 2, 5 * s // 2), (3 * s, 10 * s)]
        for o in ("window", "changes")
    ]
    finite = [r for r in rows if r[3] is not None or r[2] is None]
    check_random(spark, rows, calls, time)
    check_random(spark, finite, pieces, time)


@pytest.mark.parametrize("side", ["start", "end"])
@pytest.mark.parametrize("time", ["bigint", "timestamp"])
def test_random_at_the_ends_of_the_line(spark, time, side):
    """Times next to either end of the line (many tied at it): at the end, sessions saturate
    there (also with gaps longer than the distance to it), and open-ended events' sessions are
    short enough to cut into pieces; at the start, pieces run over events without an open end."""
    rng = random.Random(f"sessions-ends-{time}-{side}")
    rows = at_an_end(random_events(rng, 16, jitter=(-1, 1)), 2, 3, time, side, 30)
    params = [(1, None), (3, None), (7, None), (50, None), (3, 4), (7, 100), (2, 2)]
    calls = calls_of(time, params, ticks_only=True)
    if side == "end":
        check_random(spark, rows, calls, time)
    else:
        check_random(spark, rows, [c for c in calls if c.max_duration is None], time)
        finite = [r for r in rows if r[3] is not None or r[2] is None]
        check_random(spark, finite, [c for c in calls if c.max_duration is not None], time)


# ----------------------------------------------------------------------------------------------
# Point events: Spark's own session_window


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("time", ["timestamp", "timestamp_ntz"])
def test_points_are_spark_session_windows(spark, time):
    """GROUP BY c, k, event_session_window(ts, gap) gives the sessions (start, end, count, sum)
    of GROUP BY c, k, session_window(ts, gap), for several gaps, on random points (ties, NULL
    times and keys, seconds with microsecond jitter)."""
    rng = random.Random(f"sessions-spark-{time}")
    base = micros("2023-06-30 12:00:00")
    rows = [
        (c, k, None if s is None else s + base, None, v)
        for c, k, s, _, v in random_events(rng, 40, scale=SECOND, jitter=(-1, 1))
    ]
    # (ours, Spark's): Spark's session_window takes no day-time interval.
    gaps = [
        ("'1 second'",) * 2,
        ("'2500 milliseconds'", "'2500 milliseconds'"),
        ("'4000000 microseconds'", "'4 seconds'"),
        ("INTERVAL 9 SECONDS", "'9 seconds'"),
    ]
    select = f"{ticks('window.start', time)}, {ticks('window.end', time)}, count(*), sum(v)"
    ours = grouped_calls(
        spark,
        rows,
        SCHEMA,
        [f"event_session_window(s, {g})" for g, _ in gaps],
        select,
        source_of(time),
    )
    spark_select = select.replace("window.", "session_window.")
    for (_, gap), actual in zip(gaps, ours):
        theirs = grouped_calls(
            spark, rows, SCHEMA, [f"session_window(s, {gap})"], spark_select, source_of(time)
        )[0]
        assert_same_cases(
            actual,
            theirs,
            rows,
            [f"gap {gap} ({time})"],
            "(c, k, s, e, v)",
            "((c, k), start, end, count, sum)",
        )


# ----------------------------------------------------------------------------------------------
# Clipped lifetimes under 'window'


class Approx:
    """An expected double, equal to a double within 1e-9 of max(|value|, scale) (scale: the sum
    of the terms' sizes, reference.clipped.time_weighted_scale)."""

    def __init__(self, value, scale=0.0):
        self.value, self.scale = value, scale

    def __eq__(self, other):
        if self.value is None or other is None:
            return self.value is None and other is None
        return abs(other - self.value) <= 1e-9 * max(abs(self.value), self.scale)

    def __repr__(self):
        return f"~{self.value!r}"


def test_clipped_lifetimes_hand_worked(spark):
    # PIECES, gap 3: session [0, 13) holds a [0, 1) v=1 and b [2, 11) v=2; clipped to it they
    # last 1 and 9 ticks: sum 10; time_weighted_sum(v) = 1*1 + 2*9 = 19, avg 19 / 10 = 1.9.
    # max_duration 4: [0, 4): a 1 tick, b [2, 4) 2: sum 3, tws 1 + 4 = 5; [4, 8): b 4 ticks,
    # tws 8; [8, 12): b [8, 11) 3 ticks, tws 6. [20, 23): d [20, 21) v=4: 1 tick, tws 4.
    select = (
        "window.start, min(clipped_start()), max(clipped_end()), "
        "sum(clipped_end() - clipped_start()), time_weighted_sum(v), time_weighted_avg(v)"
    )
    with interval_view(spark, [(None, s, e, v) for s, e, v in PIECES]) as view:
        for call, expected in (
            (
                "event_session_window(s, e, 3L)",
                [(0, 0, 11, 10, 19.0, 1.9), (20, 20, 21, 1, 4.0, 4.0)],
            ),
            (
                "event_session_window(s, e, 3L, 4L, 'window')",
                [
                    (0, 0, 4, 3, 5.0, 5 / 3),
                    (4, 4, 8, 4, 8.0, 2.0),
                    (8, 8, 11, 3, 6.0, 2.0),
                    (20, 20, 21, 1, 4.0, 4.0),
                ],
            ),
        ):
            got = rows_of(spark, f"SELECT {select} FROM {view} GROUP BY {call} ORDER BY 1")
            assert len(got) == len(expected), (call, got)
            for row, want in zip(got, expected):
                assert row == pytest.approx(want, rel=1e-12), (call, got)


def clipped_select(time):
    length = (
        f"CAST({ticks('clipped_end()', time)} AS DECIMAL(20, 0)) - "
        f"CAST({ticks('clipped_start()', time)} AS DECIMAL(20, 0))"
    )
    return ", ".join(
        [
            ticks("window.start", time),
            ticks("window.end", time),
            "count(*)",
            ticks("min(clipped_start())", time),
            ticks("max(clipped_end())", time),
            f"sum({length})",
            "time_weighted_sum(v)",
            "time_weighted_avg(v)",
        ]
    )


@pytest.mark.parametrize("time", ["bigint", "timestamp"])
def test_random_clipped_lifetimes(spark, time):
    """sum(clipped_end() - clipped_start()), min/max of the clipped lifetime and
    time_weighted_sum/avg(v) per session and per piece against the reference (lengths in ticks;
    time-weighted sums in ticks for BIGINT, seconds for timestamps)."""
    rng = random.Random(f"sessions-clipped-{time}")
    scale = 1 if time == "bigint" else SECOND
    base = 0 if time == "bigint" else micros("2024-01-01 00:00:00")
    unit = 1 if time == "bigint" else SECOND
    rows = [
        (c, k, None if s is None else s + base, None if e is None else e + base, v)
        for c, k, s, e, v in random_events(rng, 30, scale=scale, jitter=(-1, 1))
    ]
    finite = [r for r in rows if r[3] is not None or r[2] is None]
    line_max = LINES[time][1]
    for data, params in ((rows, [(3, None), (8, None)]), (finite, [(2, 3), (4, 4), (3, 12)])):
        calls = [
            Call(time, g * scale, None if d is None else d * scale, "window") for g, d in params
        ] + [
            Call(
                time,
                params[0][0] * scale,
                None if params[0][1] is None else params[0][1] * scale,
                point=True,
            )
        ]
        results = grouped_calls(
            spark, data, SCHEMA, [c.sql for c in calls], clipped_select(time), source_of(time)
        )
        for call, actual in zip(calls, results):
            expected = []
            for w in ref.session_windows(
                ref_rows(data), call.gap, call.max_duration, call.point, line_max
            ):
                expected.append(
                    (
                        w.key,
                        w.start,
                        w.end,
                        len(w.members),
                        refc.min_clipped_start(w),
                        refc.max_clipped_end(w),
                        refc.sum_of_lengths(w),
                        Approx(
                            refc.time_weighted_sum(w, 0, unit), refc.time_weighted_scale(w, 0, unit)
                        ),
                        Approx(
                            refc.time_weighted_avg(w, 0),
                            refc.time_weighted_scale(w, 0, unit, avg=True),
                        ),
                    )
                )
            actual = [r[:6] + (int(r[6]),) + r[7:] for r in actual]
            assert_same_cases(
                actual,
                sort_rows(expected),
                data,
                [f"call: {call.sql} ({time})"],
                "(c, k, s, e, v)",
                "((c, k), start, end, count, min clipped start, max clipped end, "
                "sum of lengths, time_weighted_sum(v), time_weighted_avg(v))",
            )


@pytest.mark.parametrize(
    "name, agg",
    [
        ("clipped_start", "min(clipped_start())"),
        ("clipped_end", "max(clipped_end())"),
        ("time_weighted_sum", "time_weighted_sum(v)"),
        ("time_weighted_avg", "time_weighted_avg(v)"),
    ],
)
def test_clipped_lifetimes_not_under_changes(spark, name, agg):
    for call in (
        "event_session_window(s, e, 3L, NULL, 'changes')",
        "event_session_window(s, e, 3L, 4L, 'changes')",
        "event_session_window(s, 3L, output => 'changes')",
    ):
        with pytest.raises(AnalysisException) as info:
            spark.sql(f"SELECT {agg} FROM VALUES (1L, 2L, 3L) AS t(s, e, v) GROUP BY {call}").schema  # noqa: B018  (analysis is enough)
        message = str(info.value)
        assert name in message and "changes" in message, message
        assert "XX000" not in message and "INTERNAL_ERROR" not in message, message


# ----------------------------------------------------------------------------------------------
# Streams


def records(batches):
    """The JSON records of micro-batches of interval events (k, start second, end second or
    None: open-ended, v) of 2024-01-01 00:00."""
    return [
        [{"k": k, "ts": second(s), "te": second(e), "v": v} for k, s, e, v in batch]
        for batch in batches
    ]


STREAM_SCHEMA = "k string, ts timestamp, te timestamp, v bigint"

#: Interval events (k, start, end, v), two keys; out of order within the watermark's delay (2 s
#: on the start): a at 2 s after a at 3 s, b at 9 s after b at 10 s; a session that later
#: batches extend (a from 0 s through batch 2), ties (a at 3 s twice), an open-ended event (b at
#: 31 s: its session never closes). The last batch (a at 40 s) moves the watermark to 38 s.
#: Gap 3 s: as intervals, a [0, 8), [12, 16), [20, 23), b [2, 7), [9, 16) close, b [31, end of
#: time) and a [40, 43) do not ('changes': b's [31, 33) closes, [33, end of time) does not); as
#: points (the starts), a [0, 8), [12, 15), [20, 23), b [2, 5), [9, 16), [31, 36) close. With
#: max_duration (over the events with an end: an open-ended one would lie in some 6 * 10^10
#: pieces), b [33, 36) closes. No row of any query ends at 38 s.
STREAM_BATCHES = [
    [("a", 0, 1, 1), ("a", 3, 4, 2), ("b", 2, 5, 4), ("a", 3, 6, 8)],
    [("a", 2, 3, 16), ("a", 5, 6, 32), ("b", 10, 11, 64)],
    [
        ("b", 9, 10, 128),
        ("a", 12, 14, 256),
        ("b", 13, 14, 512),
        ("a", 20, 21, 1024),
        ("b", 31, None, 4096),
        ("b", 33, 34, 8192),
    ],
    [("a", 40, 41, 2048)],
]
CLOSED_BY = "2024-01-01 00:00:38"


def session_query(window, finite=False):
    def query(events):
        if finite:
            events = events.where("te IS NOT NULL")
        return (
            events.groupBy("k", F.expr(window))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
            .selectExpr("k", "string(window.start) AS ws", "string(window.end) AS we", "n", "total")
        )

    return query


SESSION_QUERIES = {
    "points": ("event_session_window(ts, '3 seconds')", False),
    "intervals-changes": ("event_session_window(ts, te, '3 seconds', output => 'changes')", False),
    "intervals-pieces": ("event_session_window(ts, te, '3 seconds', '4 seconds')", True),
}


@pytest.mark.parametrize(
    "output",
    [pytest.param(o, marks=pytest.mark.smoke) if o == "points" else o for o in SESSION_QUERIES],
)
def test_sessions_on_a_stream(spark, tmp_path, output):
    """A stream over batches 1 and 2, stopped; batches 3 and 4 written; the stream restarted
    from its checkpoint: together the rows are the batch query's rows whose end the final
    watermark (38 s) has passed, without loss or repetition. The route: transformWithState."""
    query = session_query(*SESSION_QUERIES[output])
    source, out, checkpoint = tmp_path / "source", tmp_path / "out", tmp_path / "checkpoint"
    write_batches(source, records(STREAM_BATCHES[:2]))
    stream = (
        spark.readStream.schema(STREAM_SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
        .withWatermark("ts", "2 seconds")
    )
    run_stream(query(stream), out, checkpoint)
    first = [plain(r) for r in spark.read.parquet(str(out)).collect()]
    write_batches(source, records(STREAM_BATCHES[2:]), first_mtime=1_700_000_100)
    restarted = run_stream(query(stream), out, checkpoint)
    streamed = sort_rows(plain(r) for r in spark.read.parquet(str(out)).collect())

    batch = query(spark.read.schema(STREAM_SCHEMA).json(str(source)))
    closed = sort_rows(plain(r) for r in batch.collect() if r[2] <= CLOSED_BY)
    assert len(closed) >= 5, closed
    assert streamed == closed
    assert 0 < len(first) < len(streamed)  # both runs gave rows
    assert "TransformWithState" in restarted._jsq.explainInternal(False)


# ----------------------------------------------------------------------------------------------
# Bad parameters


BAD = (
    "(SELECT s, e, v, timestamp_seconds(s) AS ts, timestamp_seconds(e) AS te FROM "
    "VALUES (1L, 2L, 3L) AS t(s, e, v))"
)


@pytest.mark.parametrize(
    "call, parameter, text",
    [
        ("s, e, 0L", "gap", ""),
        ("s, e, -1L", "gap", ""),
        ("s, 0L", "gap", ""),
        ("ts, te, '0 seconds'", "gap", ""),
        ("ts, INTERVAL -5 SECONDS", "gap", ""),
        ("s, e, 5L, 4L", "max_duration", ""),
        ("s, e, 5L, 0L", "max_duration", ""),
        ("ts, te, '5 seconds', '4999 milliseconds'", "max_duration", ""),
        ("s, e, 5L, max_duration => 2L", "max_duration", ""),
        ("s, e, 5L, NULL, 'bogus'", "output", "bogus"),
        ("s, e, 5L, NULL, 'point'", "output", "point"),
        ("s, e, 5L, output => 'sessions'", "output", "sessions"),
        ("s, e, v", "gap", ""),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_bad_parameters(spark, call, parameter, text):
    message = analysis_error(
        spark, f"SELECT count(*) FROM {BAD} GROUP BY event_session_window({call})"
    )
    assert "event_session_window" in message and f"`{parameter}`" in message, message
    assert text in message, message


def test_null_max_duration_is_none(spark):
    """max_duration NULL (positional or named) means no maximum: the sessions of PIECES."""
    with interval_view(spark, [(None, s, e, v) for s, e, v in PIECES]) as view:
        for call in (
            "event_session_window(s, e, 3L, NULL)",
            "event_session_window(s, e, 3L, max_duration => NULL)",
            "event_session_window(s, e, 3L, NULL, NULL)",
        ):
            got = rows_of(
                spark,
                f"SELECT window.start, window.end, count(*), sum(v) FROM {view} "
                f"GROUP BY {call} ORDER BY 1",
            )
            assert got == PIECES_BY_DURATION[None][0], call


# ----------------------------------------------------------------------------------------------
# The Python API


def test_python_api_gives_the_sql_rows(spark):
    # PIECES through the Python API, as worked above.
    df = spark.createDataFrame([(s, e, v) for s, e, v in PIECES], "s bigint, e bigint, v bigint")

    def rows(window):
        return sorted(
            plain(r)
            for r in df.groupBy(window)
            .agg(F.count("*"), F.sum("v"))
            .select("window.start", "window.end", "count(1)", "sum(v)")
            .collect()
        )

    assert rows(ew.event_session_window("s", 3, end="e")) == PIECES_BY_DURATION[None][0]
    assert (
        rows(ew.event_session_window("s", 3, max_duration=4, end="e")) == PIECES_BY_DURATION[4][0]
    )
    assert rows(ew.event_session_window("s", 3, 4, "changes", end="e")) == PIECES_BY_DURATION[4][1]
    assert (
        rows(ew.event_session_window("s", 3, output="changes", end="e"))
        == PIECES_BY_DURATION[None][1]
    )
    assert (
        rows(
            ew.event_session_window(
                F.col("s"),
                F.lit(3).cast("bigint"),
                max_duration=F.lit(4).cast("bigint"),
                output=F.lit("window"),
                end=F.col("e"),
            )
        )
        == PIECES_BY_DURATION[4][0]
    )


def test_python_timestamps(spark):
    # Points at 1 s, 3 s and 9 s, gap 5 s: 3 <= 1 + 5 joins, E = 8; 9 > 8: a new session
    # [9, 14). max_duration 5 s: [1, 6) holds 1 and 3; [6, 8) no event, no row; [9, 14) is one
    # piece.
    df = spark.createDataFrame(
        [(f"2024-01-01 00:00:0{t}", t) for t in (1, 3, 9)], "ts string, v bigint"
    ).selectExpr("CAST(ts AS TIMESTAMP) AS ts", "v")
    d = "2024-01-01 00:00:"

    def rows(window):
        return sorted(
            plain(r)
            for r in df.groupBy(window)
            .agg(F.sum("v").alias("total"))
            .select(
                F.col("window.start").cast("string"), F.col("window.end").cast("string"), "total"
            )
            .collect()
        )

    assert rows(ew.event_session_window("ts", "5 seconds")) == [
        (d + "01", d + "08", 4),
        (d + "09", d + "14", 9),
    ]
    assert rows(ew.event_session_window("ts", "5 seconds", max_duration="5 seconds")) == [
        (d + "01", d + "06", 4),
        (d + "09", d + "14", 9),
    ]
    assert rows(ew.event_session_window("ts", datetime.timedelta(seconds=5), output="changes")) == [
        (d + "01", d + "03", 1),
        (d + "03", d + "08", 4),
        (d + "09", d + "14", 9),
    ]


def test_python_bad_parameters_name_the_parameter(spark):
    df = spark.createDataFrame([(1, 2)], "s bigint, e bigint")
    for build, parameter in (
        (lambda: ew.event_session_window("s", 0, end="e"), "`gap`"),
        (lambda: ew.event_session_window("s", 5, 2, end="e"), "`max_duration`"),
        (lambda: ew.event_session_window("s", 5, output="point", end="e"), "`output`"),
    ):
        with pytest.raises(AnalysisException) as info:
            df.groupBy(build()).count().schema  # noqa: B018
        assert parameter in str(info.value) and "event_session_window" in str(info.value)
