"""Clipped lifetimes and time-weighted aggregates (SPEC 3.6, issue 21): ``clipped_start()``,
``clipped_end()``, ``time_weighted_sum(v)`` and ``time_weighted_avg(v)`` inside the aggregates of
a GROUP BY over hopping, tumbling ('window' and 'point' output), snapshot and count windows.

Inside a window an event's lifetime is intersected with the window's extent (hopping/tumbling:
the window [a + n*hop, a + n*hop + size), clipped to the time line, under both output policies;
snapshot: the snapshot interval; count windows: [s_i, s_k + 1 tick)). time_weighted_sum(v) is
the sum of v * clipped length over the events with a non-NULL v (seconds for timestamps, ticks for
BIGINT), time_weighted_avg(v) that sum over the summed lengths of those events.

Hand-worked cases with their arithmetic; random comparisons with the brute-force reference
(tests/reference/clipped.py), many cases and calls per query (``grouped_calls``), BIGINT,
TIMESTAMP and TIMESTAMP_NTZ time, times near both ends of the line; the Python API; streams
(Spark's streaming aggregation and transformWithState) against the batch rows; analysis errors.

Doubles are compared with a relative tolerance of 1e-9, relative to the size of the terms of the
sum (sum of |v| * length): a floating-point sum is exact to that, whatever the order in which it
adds, also when the terms cancel (see ``Approx``).
"""

import datetime
import json
import math
import os
import random

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import eventwindows as ew
from harness import (
    BIGINT_MAX,
    BIGINT_MIN,
    LINES,
    ONE_TICK,
    OPEN,
    TIMESTAMP_MAX,
    analysis_error,
    assert_same_cases,
    at_an_end,
    grouped_calls,
    micros,
    plain,
    random_interval_rows,
    source_of,
    sql_int,
    ticks,
)
from reference import clipped as ref
from reference import psi as refp
from reference import streaminsight as refsi

SCHEMA = "c INT, k INT, s BIGINT, e BIGINT, v BIGINT, w DOUBLE"
SECOND = 1_000_000
REL = 1e-9


# ----------------------------------------------------------------------------------------------
# Comparing doubles


class Approx:
    """An expected double: equal to a double within REL of max(|value|, scale) (scale: the sum
    of the terms' sizes, see reference.clipped.time_weighted_scale); NaN equals NaN, infinities
    and None only themselves."""

    def __init__(self, value, scale=0.0):
        self.value, self.scale = value, scale

    def __eq__(self, other):
        if self.value is None or other is None:
            return self.value is None and other is None
        if isinstance(other, Approx):
            other = other.value
        if not isinstance(other, (int, float)) or isinstance(other, bool):
            return False
        if math.isnan(self.value) or math.isnan(other):
            return math.isnan(self.value) and math.isnan(other)
        if math.isinf(self.value) or math.isinf(other):
            return self.value == other
        return abs(other - self.value) <= REL * max(abs(self.value), self.scale)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self):
        return f"~{self.value!r}"


def approx(row):
    """A hand-written expected row with its doubles as Approx."""
    return tuple(Approx(x, abs(x)) if isinstance(x, float) else x for x in row)


def _order(x):
    """Sorts rows holding None, NaN, Approx, tuples and Rows."""
    if isinstance(x, Approx):
        x = x.value
    if x is None:
        return (0, 0)
    if isinstance(x, (tuple, list)):
        return (3, tuple(_order(y) for y in x))
    if isinstance(x, float) and math.isnan(x):
        return (2, 0)
    return (1, x)


def sort_rows(rows):
    return sorted(rows, key=_order)


# ----------------------------------------------------------------------------------------------
# Hand-worked cases


def rows_of(spark, sql):
    """The rows of `sql`, arrays as tuples and structs as plain tuples."""
    return [
        tuple(
            tuple(tuple(y) if isinstance(y, tuple) else y for y in x) if isinstance(x, tuple) else x
            for x in plain(r)
        )
        for r in spark.sql(sql).collect()
    ]


def assert_rows(got, expected):
    expected = [approx(r) for r in expected]
    assert got == expected, "\n".join(
        ["got:", *(f"  {r}" for r in got), "expected:", *(f"  {r}" for r in expected)]
    )


#: a [1, 9) v=3 spans six windows of size 4 / hop 2; b [4, 6) v=10 starts and ends on window
#: boundaries; d [9, 11) v=NULL.
H1 = (
    "VALUES ('a', 1L, 9L, 3L), ('b', 4L, 6L, 10L), ('d', 9L, 11L, CAST(NULL AS BIGINT)) "
    "AS t(id, s, e, v)"
)
H1_SELECT = (
    "count(*), min(clipped_start()), max(clipped_end()), "
    "sum(clipped_end() - clipped_start()), time_weighted_sum(v), time_weighted_avg(v), "
    "count(*) FILTER (WHERE clipped_end() - clipped_start() >= 3), "
    "collect_list(struct(id, clipped_start(), clipped_end()))"
)
#: The windows [2n, 2n + 4) that the events intersect, the members clipped to them:
#: (start, end, count, min clipped start, max clipped end, sum of lengths, time_weighted_sum,
#:  time_weighted_avg, count of members lasting >= 3, (id, clipped start, clipped end)...)
H1_EXPECTED = [
    # [-2, 2): a [1, 2) -> length 1, 3 * 1 = 3, 3 / 1
    (-2, 2, 1, 1, 2, 1, 3.0, 3.0, 0, (("a", 1, 2),)),
    # [0, 4): a [1, 4) -> 3, 3 * 3 = 9, 9 / 3
    (0, 4, 1, 1, 4, 3, 9.0, 3.0, 1, (("a", 1, 4),)),
    # [2, 6): a [2, 6) 4, b [4, 6) 2 -> 6, 3 * 4 + 10 * 2 = 32, 32 / 6
    (2, 6, 2, 2, 6, 6, 32.0, 32 / 6, 1, (("a", 2, 6), ("b", 4, 6))),
    # [4, 8): a [4, 8) 4, b [4, 6) 2 -> 6, 12 + 20 = 32, 32 / 6 (b ends at 6: not in [6, 10))
    (4, 8, 2, 4, 8, 6, 32.0, 32 / 6, 1, (("a", 4, 8), ("b", 4, 6))),
    # [6, 10): a [6, 9) 3, d [9, 10) 1 (NULL) -> 4; 3 * 3 = 9 over a's 3 ticks only: 3
    (6, 10, 2, 6, 10, 4, 9.0, 3.0, 1, (("a", 6, 9), ("d", 9, 10))),
    # [8, 12): a [8, 9) 1, d [9, 11) 2 (NULL) -> 3; 3 * 1 = 3 over 1 tick: 3
    (8, 12, 2, 8, 11, 3, 3.0, 3.0, 0, (("a", 8, 9), ("d", 9, 11))),
    # [10, 14): d [10, 11) alone, its value NULL: count 1, both time-weighted results NULL
    (10, 14, 1, 10, 11, 1, None, None, 0, (("d", 10, 11),)),
]


@pytest.mark.parametrize("output", ["window", "point"])
def test_hopping_bigint_hand_worked(spark, output):
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, {H1_SELECT} FROM {H1} "
        f"GROUP BY hopping_window(s, e, 4L, 2L, 0L, '{output}') ORDER BY 1",
    )
    # 'point' output: a point at each window's end, the lifetimes still clipped to the window.
    expected = [r if output == "window" else (r[1], r[1] + 1) + r[2:] for r in H1_EXPECTED]
    assert_rows(got, expected)


def test_tumbling_timestamp_seconds_and_horizons(spark):
    """TIMESTAMP time, lengths in seconds. a [5 s, 25 s) v=1.5, b [10 s, 12.5 s) v=4,
    c [18 s, open) v=2, in windows of 10 s (seconds after 2024-01-01 00:00:00)."""
    events = (
        "VALUES (TIMESTAMP '2024-01-01 00:00:05', TIMESTAMP '2024-01-01 00:00:25', 1.5D), "
        "(TIMESTAMP '2024-01-01 00:00:10', TIMESTAMP '2024-01-01 00:00:12.5', 4.0D), "
        "(TIMESTAMP '2024-01-01 00:00:18', CAST(NULL AS TIMESTAMP), 2.0D) AS t(s, e, v)"
    )
    base = micros("2024-01-01 00:00:00")
    select = (
        f"(unix_micros(window.start) - {base}) / 1e6, (unix_micros(window.end) - {base}) "
        f"/ 1e6, count(*), (unix_micros(min(clipped_start())) - {base}) / 1e6, "
        f"(unix_micros(max(clipped_end())) - {base}) / 1e6, "
        f"sum(clipped_end() - clipped_start()), time_weighted_sum(v), "
        f"time_weighted_avg(v), "
        f"sum(v * (unix_micros(clipped_end()) - unix_micros(clipped_start())))"
    )

    def query(call):
        return rows_of(spark, f"SELECT {select} FROM {events} GROUP BY {call} ORDER BY 1")

    s = datetime.timedelta(seconds=1)
    # The default horizon is the latest finite time, 25 s - 1 us: c lasts [18 s, 25 s).
    # [0, 10): a [5, 10) 5 s -> 1.5 * 5 = 7.5, 7.5 / 5 = 1.5
    # [10, 20): a [10, 20) 10 s, b [10, 12.5) 2.5 s, c [18, 20) 2 s -> 14.5 s,
    #           1.5 * 10 + 4 * 2.5 + 2 * 2 = 29, 29 / 14.5 = 2
    # [20, 30): a [20, 25) 5 s, c [20, 25) 5 s -> 10 s, 7.5 + 10 = 17.5, 17.5 / 10 = 1.75
    # The last column is the same sum in microseconds: 10^6 * time_weighted_sum.
    default = [
        (0.0, 10.0, 1, 5.0, 10.0, 5 * s, 7.5, 1.5, 7.5e6),
        (10.0, 20.0, 3, 10.0, 20.0, 14.5 * s, 29.0, 2.0, 29e6),
        (20.0, 30.0, 2, 20.0, 25.0, 10 * s, 17.5, 1.75, 17.5e6),
    ]
    assert_rows(query("tumbling_window(s, e, INTERVAL 10 SECONDS)"), default)
    assert_rows(query("tumbling_window(s, e, '10 seconds', NULL, 'window')"), default)
    # Horizon 00:00:31: c lasts [18 s, 31.000001 s).
    # [20, 30): a [20, 25) 5 s, c [20, 30) 10 s -> 15 s, 7.5 + 2 * 10 = 27.5, 27.5 / 15
    # [30, 40): c [30, 31.000001) 1.000001 s -> 2 * 1.000001 = 2.000002, 2
    horizon = [
        default[0],
        default[1],
        (20.0, 30.0, 2, 20.0, 30.0, 15 * s, 27.5, 27.5 / 15, 27.5e6),
        (
            30.0,
            40.0,
            1,
            30.0,
            31.000001,
            datetime.timedelta(microseconds=1_000_001),
            2.000002,
            2.0,
            2_000_002.0,
        ),
    ]
    assert_rows(
        query(
            "tumbling_window(s, e, INTERVAL 10 SECONDS, NULL, 'window', "
            "TIMESTAMP '2024-01-01 00:00:31')"
        ),
        horizon,
    )
    # 'point' output: the same aggregates at each window's end.
    assert_rows(
        query(
            "tumbling_window(s, e, INTERVAL 10 SECONDS, NULL, 'point', "
            "TIMESTAMP '2024-01-01 00:00:31')"
        ),
        [(r[1], r[1] + 1e-6) + r[2:] for r in horizon],
    )


def test_open_ended_bigint_explicit_and_default_horizon(spark):
    """x [0, open) v=1, y [1, 2) v=5, z [10, open) v=7 in tumbling windows of 4."""
    events = (
        "VALUES (0L, CAST(NULL AS BIGINT), 1L), (1L, 2L, 5L), (10L, CAST(NULL AS BIGINT), "
        "7L) AS t(s, e, v)"
    )
    select = (
        "window.start, window.end, count(*), min(clipped_start()), max(clipped_end()), "
        "sum(clipped_end() - clipped_start()), time_weighted_sum(v), time_weighted_avg(v)"
    )
    # Horizon 5: x lasts [0, 6); z starts after the horizon and lasts its own tick [10, 11).
    # [0, 4): x [0, 4) 4, y [1, 2) 1 -> 5, 1 * 4 + 5 * 1 = 9, 9 / 5
    # [4, 8): x [4, 6) 2 -> 2, 2 / 2
    # [8, 12): z [10, 11) 1 -> 7, 7
    assert_rows(
        rows_of(
            spark,
            f"SELECT {select} FROM {events} GROUP BY "
            f"tumbling_window(s, e, 4L, 0L, 'window', 5L) ORDER BY 1",
        ),
        [
            (0, 4, 2, 0, 4, 5, 9.0, 1.8),
            (4, 8, 1, 4, 6, 2, 2.0, 1.0),
            (8, 12, 1, 10, 11, 1, 7.0, 7.0),
        ],
    )
    # The default horizon: the latest finite time, z's start 10: x lasts [0, 11), z [10, 11).
    # [4, 8): x [4, 8) 4 -> 4, 1;  [8, 12): x [8, 11) 3, z [10, 11) 1 -> 4, 3 + 7 = 10, 10 / 4
    assert_rows(
        rows_of(
            spark, f"SELECT {select} FROM {events} GROUP BY tumbling_window(s, e, 4L) ORDER BY 1"
        ),
        [
            (0, 4, 2, 0, 4, 5, 9.0, 1.8),
            (4, 8, 1, 4, 8, 4, 4.0, 1.0),
            (8, 12, 2, 8, 11, 4, 10.0, 2.5),
        ],
    )


def test_hopping_with_gaps(spark):
    """Windows [5n, 5n + 2): e [3, 11) v=1 crosses the gaps, p [6, 7) v=4."""
    got = rows_of(
        spark,
        "SELECT window.start, window.end, count(*), min(clipped_start()), "
        "max(clipped_end()), sum(clipped_end() - clipped_start()), "
        "time_weighted_sum(v), time_weighted_avg(v) "
        "FROM VALUES (3L, 11L, 1L), (6L, 7L, 4L) AS t(s, e, v) "
        "GROUP BY hopping_window(s, e, 2L, 5L) ORDER BY 1",
    )
    # [5, 7): e [5, 7) 2, p [6, 7) 1 -> 3, 2 + 4 = 6, 6 / 3;  [10, 12): e [10, 11) 1 -> 1, 1
    assert_rows(got, [(5, 7, 2, 5, 7, 3, 6.0, 2.0), (10, 12, 1, 10, 11, 1, 1.0, 1.0)])


def test_point_events(spark):
    """Point events (no end column) last one tick: time_weighted_sum is the sum of the values
    times one tick (a microsecond for timestamps), time_weighted_avg their average."""
    select = (
        "count(*), min(clipped_start()), max(clipped_end()), "
        "time_weighted_sum(v), time_weighted_avg(v)"
    )
    got = rows_of(
        spark,
        f"SELECT window.start, {select} FROM VALUES (1L, 2L), (3L, 4L), "
        f"(12L, CAST(NULL AS BIGINT)), (15L, 6L) AS t(ts, v) "
        f"GROUP BY tumbling_window(ts, 10L) ORDER BY 1",
    )
    # [0, 10): 1 and 3 -> clipped [1, 2), [3, 4): 2 + 4 = 6, 6 / 2;
    # [10, 20): 12 (NULL) and 15 -> 6 over one tick: 6
    assert_rows(got, [(0, 2, 1, 4, 6.0, 3.0), (10, 2, 12, 16, 6.0, 6.0)])
    got = rows_of(
        spark,
        "SELECT unix_micros(window.start), count(*), "
        "unix_micros(min(clipped_start())), unix_micros(max(clipped_end())), "
        "time_weighted_sum(v), time_weighted_avg(v) FROM VALUES "
        "(TIMESTAMP '1970-01-01 00:00:01', 2L), "
        "(TIMESTAMP '1970-01-01 00:00:03', 4L) AS t(ts, v) "
        "GROUP BY tumbling_window(ts, '10 seconds')",
    )
    # One window [0, 10 s): (2 + 4) * 1 us = 6e-6 seconds-weighted, average 3.
    assert_rows(got, [(0, 2, SECOND, 3 * SECOND + 1, 6e-6, 3.0)])
    # Hopping windows with gaps over points: [5n, 5n + 2) hold 1 ([0, 2)) and 15 ([15, 17)).
    got = rows_of(
        spark,
        f"SELECT window.start, {select} FROM VALUES (1L, 2L), (3L, 4L), "
        f"(15L, 6L) AS t(ts, v) GROUP BY hopping_window(ts, 2L, 5L) ORDER BY 1",
    )
    assert_rows(got, [(0, 1, 1, 2, 2.0, 2.0), (15, 1, 15, 16, 6.0, 6.0)])


def test_snapshot_bigint_hand_worked(spark):
    """a [0, 4) v=1, b [2, 6) v=3, c [5, open) v=2, d [0, 2) v=NULL: snapshot windows between
    the endpoints 0, 2, 4, 5, 6 and the end of the line; every member lasts the whole window."""
    events = (
        "VALUES (0L, 4L, 1L), (2L, 6L, 3L), (5L, CAST(NULL AS BIGINT), 2L), "
        "(0L, 2L, CAST(NULL AS BIGINT)) AS t(s, e, v)"
    )
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*), min(clipped_start()), "
        f"max(clipped_end()), sum(clipped_end() - clipped_start()), "
        f"time_weighted_sum(v), time_weighted_avg(v) FROM {events} "
        f"GROUP BY snapshot_window(s, e) ORDER BY 1",
    )
    m = BIGINT_MAX
    assert_rows(
        got,
        [
            (0, 2, 2, 0, 2, 4, 2.0, 1.0),  # a, d: 2 + 2 ticks; 1 * 2 (d is NULL) over 2 ticks
            (2, 4, 2, 2, 4, 4, 8.0, 2.0),  # a, b: 1 * 2 + 3 * 2 = 8 over 4
            (4, 5, 1, 4, 5, 1, 3.0, 3.0),  # b
            (5, 6, 2, 5, 6, 2, 5.0, 2.5),  # b, c: 3 + 2 = 5 over 2
            # c alone to the end of the line: 2 * (2^63 - 1 - 6)
            (6, m, 1, 6, m, m - 6, float(2 * (m - 6)), 2.0),
        ],
    )


#: The interval events of StreamInsight's count windows and an open-ended one, n = 2: e1 [0, 2)
#: v=1, e2 [2, 8) v=10, e3 [5, 6) v=100, e4 [6, open) v=1; distinct starts 0, 2, 5, 6.
H_COUNT = (
    "VALUES ('e1', 0L, 2L, 1L), ('e2', 2L, 8L, 10L), ('e3', 5L, 6L, 100L), "
    "('e4', 6L, CAST(NULL AS BIGINT), 1L) AS t(id, s, e, v)"
)
H_COUNT_EXPECTED = [
    # [0, 3) (s_i = 0, s_k = 2): e1 [0, 2) 2, e2 [2, 3) 1 -> 3; 1 * 2 + 10 * 1 = 12, 12 / 3
    (0, 3, 2, 0, 3, 3, 12.0, 4.0, (("e1", 0, 2), ("e2", 2, 3))),
    # [2, 6): e2 [2, 6) 4, e3 [5, 6) 1 (e1 ends at 2) -> 5; 40 + 100 = 140, 140 / 5
    (2, 6, 2, 2, 6, 5, 140.0, 28.0, (("e2", 2, 6), ("e3", 5, 6))),
    # [5, 7): e2 [5, 7) 2, e3 [5, 6) 1, e4 [6, 7) 1 (open-ended, clipped at s_k + 1) -> 4;
    #         20 + 100 + 1 = 121, 121 / 4
    (5, 7, 3, 5, 7, 4, 121.0, 30.25, (("e2", 5, 7), ("e3", 5, 6), ("e4", 6, 7))),
]


@pytest.mark.parametrize("output", ["point", "window"])
def test_count_window_hand_worked(spark, output):
    got = rows_of(
        spark,
        f"SELECT window.start, window.end, count(*), min(clipped_start()), "
        f"max(clipped_end()), sum(clipped_end() - clipped_start()), "
        f"time_weighted_sum(v), time_weighted_avg(v), "
        f"collect_list(struct(id, clipped_start(), clipped_end())) "
        f"FROM {H_COUNT} GROUP BY count_window(s, e, 2, '{output}') ORDER BY 1",
    )
    # 'point': a point at s_k; 'window': [s_i, s_k + 1).
    expected = [r if output == "window" else (r[1] - 1, r[1]) + r[2:] for r in H_COUNT_EXPECTED]
    assert_rows(got, expected)


def test_filter_with_the_clipped_lifetime(spark):
    """A FILTER over the clipped lifetime: the members of each window lasting >= 3 ticks in it
    (H1_EXPECTED's column 9), and a time-weighted sum over only those."""
    got = rows_of(
        spark,
        f"SELECT window.start, "
        f"count(*) FILTER (WHERE clipped_end() - clipped_start() >= 3), "
        f"time_weighted_sum(v) FILTER (WHERE clipped_end() - clipped_start() >= 3)"
        f" FROM {H1} GROUP BY hopping_window(s, e, 4L, 2L) ORDER BY 1",
    )
    # Only a ever lasts >= 3 ticks in a window: [0, 4) 3 ticks, [2, 6) and [4, 8) 4, [6, 10) 3.
    assert_rows(
        got,
        [
            (-2, 0, None),
            (0, 1, 9.0),
            (2, 1, 12.0),
            (4, 1, 12.0),
            (6, 1, 9.0),
            (8, 0, None),
            (10, 0, None),
        ],
    )


def test_having_and_order_by_over_the_clipped_lifetime(spark):
    """HAVING and ORDER BY aggregates over the clipped lifetime, which Spark moves into the
    window's aggregate; the clipped lifetime alone in HAVING is an error naming the function."""
    events = "VALUES (1L, 7L, 2.0D), (4L, 5L, 10.0D) AS t(s, e, v)"
    # Tumbling windows of 4: [0, 4) holds [1, 4) of 2 (sum 6, avg 2, first clipped start 1);
    # [4, 8) holds [4, 7) of 2 and [4, 5) of 10 (sum 16, avg 4, first clipped start 4).
    having = rows_of(
        spark,
        f"SELECT window.start FROM {events} GROUP BY tumbling_window(s, e, 4L) "
        f"HAVING time_weighted_avg(v) > 3 AND min(clipped_start()) >= 4",
    )
    assert_rows(having, [(4,)])
    ordered = rows_of(
        spark,
        f"SELECT window.start FROM {events} "
        f"GROUP BY tumbling_window(s, e, 4L) ORDER BY time_weighted_sum(v) DESC",
    )
    assert [r[0] for r in ordered] == [4, 0]
    with pytest.raises(AnalysisException, match="clipped_start: allowed only inside"):
        spark.sql(
            f"SELECT window.start FROM {events} GROUP BY tumbling_window(s, e, 4L) "
            f"HAVING clipped_start() > 1"
        ).collect()


def test_time_weighted_average_of_point_samples(spark):
    """Readings that hold until the next one (end = lead(ts)), the last one open-ended up to a
    horizon, averaged per hour weighted by how long each value held."""
    readings = (
        "VALUES ('a', TIMESTAMP '2024-01-01 00:00:00', 10.0D), "
        "('a', TIMESTAMP '2024-01-01 00:30:00', 20.0D), "
        "('a', TIMESTAMP '2024-01-01 01:15:00', 30.0D), "
        "('b', TIMESTAMP '2024-01-01 00:20:00', 1.0D), "
        "('b', TIMESTAMP '2024-01-01 01:40:00', 3.0D) AS r(k, ts, v)"
    )
    got = rows_of(
        spark,
        f"SELECT k, hour(window.start), count(*), time_weighted_sum(v), "
        f"time_weighted_avg(v) FROM (SELECT k, ts, "
        f"lead(ts) OVER (PARTITION BY k ORDER BY ts) AS te, v FROM {readings}) "
        f"GROUP BY k, tumbling_window(ts, te, INTERVAL 1 HOUR, NULL, 'window', "
        f"TIMESTAMP '2024-01-01 01:59:59.999999') ORDER BY 1, 2",
    )
    # The horizon makes the last readings hold until 02:00.
    # a, hour 0: 10 for 1800 s, 20 for 1800 s -> 54000, 54000 / 3600 = 15
    # a, hour 1: 20 for 900 s (01:00-01:15), 30 for 2700 s -> 18000 + 81000 = 99000, 27.5
    # b, hour 0: 1 for 2400 s (00:20-01:00) -> 2400, 1
    # b, hour 1: 1 for 2400 s, 3 for 1200 s -> 6000, 6000 / 3600
    assert_rows(
        got,
        [
            ("a", 0, 2, 54000.0, 15.0),
            ("a", 1, 2, 99000.0, 27.5),
            ("b", 0, 1, 2400.0, 1.0),
            ("b", 1, 2, 6000.0, 6000 / 3600),
        ],
    )


def test_nan_and_infinity_affect_only_their_windows(spark):
    """A NaN or infinite value gives the plain sum of v * length of the windows it is in (NaN,
    +-Infinity); the other windows keep their finite results."""
    events = (
        "VALUES (0L, 4L, CAST('NaN' AS DOUBLE)), (2L, 3L, CAST('Infinity' AS DOUBLE)), "
        "(5L, 6L, 1.0D), (6L, 8L, CAST('-Infinity' AS DOUBLE)), "
        "(9L, 10L, CAST('Infinity' AS DOUBLE)), (10L, 11L, 2.5D), "
        "(12L, 13L, CAST('Infinity' AS DOUBLE)), (12L, 14L, 3.0D) AS t(s, e, w)"
    )
    nan, inf = math.nan, math.inf

    def query(call):
        return rows_of(
            spark,
            f"SELECT window.start, time_weighted_sum(w), time_weighted_avg(w) "
            f"FROM {events} GROUP BY {call} ORDER BY 1",
        )

    # Tumbling windows of 2: [0, 2) NaN; [2, 4) NaN + inf = NaN; [4, 6) 1 * 1; [6, 8) -inf;
    # [8, 10) inf; [10, 12) 2.5 * 1; [12, 14) inf + 3 * 2 = inf.
    assert_rows(
        query("tumbling_window(s, e, 2L)"),
        [
            (0, nan, nan),
            (2, nan, nan),
            (4, 1.0, 1.0),
            (6, -inf, -inf),
            (8, inf, inf),
            (10, 2.5, 2.5),
            (12, inf, inf),
        ],
    )
    # Windows of 4 every 2: [-2, 2) NaN; [0, 4) NaN; [2, 6) NaN; [4, 8) 1 - inf = -inf;
    # [6, 10) -inf + inf = NaN; [8, 12) inf; [10, 14) inf; [12, 16) inf.
    assert_rows(
        query("hopping_window(s, e, 4L, 2L)"),
        [
            (-2, nan, nan),
            (0, nan, nan),
            (2, nan, nan),
            (4, -inf, -inf),
            (6, nan, nan),
            (8, inf, inf),
            (10, inf, inf),
            (12, inf, inf),
        ],
    )


def test_inputs_resolved_in_a_later_analyzer_pass(spark):
    """A GROUP BY whose input or other aggregates resolve only in a later pass of the analyzer (a
    computed column of a subquery; the DataFrame API's count("*")) is still a windowed GROUP BY.
    Event [1, 3) in tumbling windows of 2: clipped [1, 2) and [2, 3)."""
    events = "VALUES (1L, 3L, 1L) AS t(s, e, v)"
    for source in (
        f"(SELECT s + 0 AS s, e, v FROM {events})",
        f"(SELECT timestamp_micros(s) AS s, timestamp_micros(e) AS e, v FROM {events})",
    ):
        bigint = "s + 0" in source
        time = "min(clipped_start())" if bigint else "unix_micros(min(clipped_start()))"
        size = "2L" if bigint else "'2 microseconds'"
        assert rows_of(
            spark,
            f"SELECT {time}, count(*) FROM {source} "
            f"GROUP BY tumbling_window(s, e, {size}) ORDER BY 1",
        ) == [(1, 1), (2, 1)]
    frame = spark.sql(f"SELECT * FROM {events}")
    got = (
        frame.groupBy(ew.tumbling_window("s", 2, end="e"))
        .agg(F.count("*").alias("n"), F.min(ew.clipped_start()).alias("cs"))
        .select("cs", "n")
    )
    assert sorted(tuple(r) for r in got.collect()) == [(1, 1), (2, 1)]


@pytest.mark.parametrize(
    "time, type_name",
    [("bigint", "bigint"), ("timestamp", "timestamp"), ("timestamp_ntz", "timestamp_ntz")],
)
def test_result_types(spark, time, type_name):
    """clipped_start() and clipped_end() are of the window's time type, the time-weighted
    aggregates DOUBLE for any numeric v."""
    cast = "" if time == "bigint" else f"CAST(timestamp_micros(s) AS {type_name}) AS "
    source = (
        f"(SELECT {cast}s, {cast.replace('(s)', '(e)')}e, v, d FROM "
        f"VALUES (1L, 2L, CAST(3 AS INT), 1.5BD) AS t(s, e, v, d))"
    )
    for call in (
        "tumbling_window(s, e, 2L)" if time == "bigint" else "tumbling_window(s, e, '2 seconds')",
        "snapshot_window(s, e)",
        "count_window(s, e, 1)",
    ):
        frame = spark.sql(
            f"SELECT min(clipped_start()) AS a, max(clipped_end()) AS b, "
            f"time_weighted_sum(v) AS c, time_weighted_avg(d) AS d "
            f"FROM {source} GROUP BY {call}"
        )
        assert [f.dataType.simpleString() for f in frame.schema.fields] == [
            type_name,
            type_name,
            "double",
            "double",
        ], call


# ----------------------------------------------------------------------------------------------
# The Python API


def test_python_api_gives_the_sql_rows(spark):
    events = spark.sql(f"SELECT * FROM {H1}")
    length = ew.clipped_end() - ew.clipped_start()
    aggregates = [
        column.alias(f"a{i}")
        for i, column in enumerate(
            [
                F.count("*"),
                F.min(ew.clipped_start()),
                F.max(ew.clipped_end()),
                F.sum(length),
                ew.time_weighted_sum("v"),
                ew.time_weighted_avg(F.col("v")),
                F.count(F.when(length >= 3, 1)),
                F.collect_list(F.struct("id", ew.clipped_start(), ew.clipped_end())),
            ]
        )
    ]
    names = [f"a{i}" for i in range(len(aggregates))]

    def collected(frame):
        return sort_rows(
            tuple(tuple(tuple(y) for y in x) if isinstance(x, tuple) else x for x in plain(r))
            for r in frame.collect()
        )

    for window, sql_window in [
        (ew.hopping_window("s", 4, 2, end="e"), "hopping_window(s, e, 4L, 2L)"),
        (
            ew.tumbling_window("s", 3, output="point", end="e"),
            "tumbling_window(s, e, 3L, 0L, 'point')",
        ),
        (ew.snapshot_window("s", end="e"), "snapshot_window(s, e)"),
        (ew.count_window("s", 2, output="window", end="e"), "count_window(s, e, 2, 'window')"),
    ]:
        got = collected(
            events.groupBy(window).agg(*aggregates).select("window.start", "window.end", *names)
        )
        expected = rows_of(
            spark,
            f"SELECT window.start, window.end, {H1_SELECT} FROM {H1} "
            f"GROUP BY {sql_window} ORDER BY 1, 2",
        )
        assert len(got) == len(expected) > 0, sql_window
        assert_rows(got, expected)
    # The hand-worked rows themselves, once.
    assert_rows(
        collected(
            events.groupBy(ew.hopping_window("s", 4, 2, end="e"))
            .agg(*aggregates)
            .select("window.start", "window.end", *names)
        ),
        H1_EXPECTED,
    )


def test_python_api_timestamps(spark):
    """TIMESTAMP events through the Python API: the seconds-weighted sum."""
    events = spark.createDataFrame(
        [
            ("2024-01-01 00:00:05", "2024-01-01 00:00:25", 1.5),
            ("2024-01-01 00:00:10", "2024-01-01 00:00:12.5", 4.0),
        ],
        "s string, e string, v double",
    ).select(F.col("s").cast("timestamp").alias("s"), F.col("e").cast("timestamp").alias("e"), "v")
    result = events.groupBy(ew.tumbling_window("s", "10 seconds", end="e")).agg(
        ew.time_weighted_sum("v").alias("tws"),
        ew.time_weighted_avg("v").alias("twa"),
        F.min(ew.clipped_start()).alias("cs"),
    )
    got = sorted(
        (r["second"], r["tws"], r["twa"])
        for r in result.select(F.second("window.start").alias("second"), "tws", "twa").collect()
    )
    # [0, 10): a 5 s -> 7.5, 1.5; [10, 20): a 10 s, b 2.5 s -> 25, 2; [20, 30): a 5 s -> 7.5
    assert_rows(got, [(0, 7.5, 1.5), (10, 25.0, 2.0), (20, 7.5, 1.5)])


# ----------------------------------------------------------------------------------------------
# Analysis errors

EVENTS = (
    "SELECT * FROM VALUES ('x', 1L, 2L, 3L, TIMESTAMP '2024-01-01 00:00:01'), "
    "('y', 4L, 6L, 5L, TIMESTAMP '2024-01-01 00:00:04') AS ev(id, s, e, v, t)"
)

#: Words of the reasons: what the functions need.
FAMILIES = ("hopping_window", "tumbling_window", "snapshot_window", "count_window", "GROUP BY")


@pytest.fixture(scope="module")
def error_events(spark):
    spark.sql(EVENTS).createOrReplaceTempView("clip_ev")
    yield "clip_ev"
    spark.catalog.dropTempView("clip_ev")


ANCHORS = (
    "(SELECT s AS mt, CAST(NULL AS BIGINT) AS a_s, CAST(NULL AS BIGINT) AS a_e, "
    "CAST(NULL AS STRUCT<id: STRING>) AS anchor, v FROM clip_ev UNION ALL "
    "SELECT CAST(NULL AS BIGINT), 0L, 10L, named_struct('id', 'z'), CAST(NULL AS BIGINT))"
)

#: (query with {f} for the function call, words of the reason (any one)).
OTHER_WINDOWS = [
    ("SELECT {agg} FROM clip_ev GROUP BY index_window(s, -1, 0)", ("index_window",) + FAMILIES),
    ("SELECT {agg} FROM clip_ev GROUP BY time_window(s, -2L, 0L)", ("time_window",) + FAMILIES),
    (
        "SELECT {agg} FROM clip_ev GROUP BY sliding_window(s, 'count(2)')",
        ("sliding_window",) + FAMILIES,
    ),
    (
        f"SELECT {{agg}} FROM {ANCHORS} GROUP BY anchor_window(mt, a_s, a_e, anchor)",
        ("anchor_window",) + FAMILIES,
    ),
    ("SELECT {agg} FROM clip_ev GROUP BY window(t, '10 seconds')", ("window",) + FAMILIES),
    ("SELECT {agg} FROM clip_ev", FAMILIES),
    ("SELECT id, {agg} FROM clip_ev GROUP BY id", FAMILIES),
    (
        "SELECT {agg} FROM clip_ev GROUP BY hopping_window(s, e, 4L, 2L, 0L, 'changes')",
        ("changes",),
    ),
    ("SELECT {agg} FROM clip_ev GROUP BY tumbling_window(s, e, 4L, 0L, 'changes')", ("changes",)),
]
OTHER_WINDOW_IDS = [
    "index_window",
    "time_window",
    "sliding_window",
    "anchor_window",
    "spark-window",
    "no-group-by",
    "group-by-column",
    "hopping-changes",
    "tumbling-changes",
]


@pytest.mark.parametrize("query, reasons", OTHER_WINDOWS, ids=OTHER_WINDOW_IDS)
@pytest.mark.parametrize(
    "name, agg",
    [
        ("clipped_start", "min(clipped_start())"),
        ("clipped_end", "max(clipped_end())"),
        ("time_weighted_sum", "time_weighted_sum(v)"),
        ("time_weighted_avg", "time_weighted_avg(v)"),
    ],
)
def test_not_over_these_windows(spark, error_events, name, agg, query, reasons):
    message = analysis_error(spark, query.format(agg=agg))
    assert name in message, message
    assert any(word in message for word in reasons), message


@pytest.mark.parametrize("name", ["clipped_start", "clipped_end"])
@pytest.mark.parametrize(
    "query, reasons",
    [
        ("SELECT {f}, count(*) FROM clip_ev GROUP BY tumbling_window(s, e, 2L)", ("aggregate",)),
        (
            "SELECT window.start, {f} + 1, count(*) FROM clip_ev GROUP BY snapshot_window(s, e)",
            ("aggregate",),
        ),
        (
            "SELECT count(*) FROM clip_ev WHERE {f} > 1 GROUP BY tumbling_window(s, e, 2L)",
            ("aggregate", "WHERE"),
        ),
        ("SELECT {f} FROM clip_ev", ("aggregate",) + FAMILIES),
        ("SELECT count(*) FROM clip_ev WHERE {f} > 1", ("aggregate", "WHERE") + FAMILIES),
    ],
    ids=["select-list", "select-list-expression", "where", "no-window", "where-no-window"],
)
def test_clipped_lifetime_outside_an_aggregate(spark, error_events, name, query, reasons):
    message = analysis_error(spark, query.format(f=f"{name}()"))
    assert name in message, message
    assert any(word in message for word in reasons), message


def test_dynamic_window_aggregates(spark, error_events):
    message = analysis_error(
        spark,
        "SELECT * FROM dynamic_window(TABLE(clip_ev), TABLE(clip_ev), "
        "'s', 's', 'e', 'time_weighted_sum(v) AS x')",
    )
    assert "time_weighted_sum" in message, message


def test_python_api_outside_a_windowed_group_by(spark):
    events = spark.sql(EVENTS)
    for column, name in [
        (ew.time_weighted_avg("v"), "time_weighted_avg"),
        (F.min(ew.clipped_start()), "clipped_start"),
    ]:
        with pytest.raises(AnalysisException) as info:
            events.select(column).schema  # noqa: B018
        assert name in str(info.value), str(info.value)
        with pytest.raises(AnalysisException) as info:
            events.groupBy(ew.hopping_window("s", 4, 2, output="changes", end="e")).agg(
                column
            ).schema  # noqa: B018
        assert name in str(info.value) and "changes" in str(info.value), str(info.value)


# ----------------------------------------------------------------------------------------------
# Random comparisons with the reference


#: Lifetimes: point-like (one tick), short, long (over many windows) and open-ended.
LIFETIMES = [(0.25, ONE_TICK), (0.3, (1, 6)), (0.25, (6, 40)), (0.2, OPEN)]


def random_events(rng, n_cases, scale=1, jitter=(), max_events=25, specials=False):
    """Rows (c, k, s, e, v, w): harness.random_interval_rows' (c, k, s, e, v) with LIFETIMES, v
    BIGINT, and w DOUBLE (eighths: exact in binary); with `specials`, w is now and then NaN or an
    infinity."""
    rows = random_interval_rows(
        rng, n_cases, LIFETIMES, scale=scale, jitter=jitter, max_events=max_events, null_values=0.12
    )
    return [row + (random_weight(rng, specials),) for row in rows]


def random_weight(rng, specials):
    """A random w: NULL now and then, NaN or an infinity with `specials`, else eighths."""
    if rng.random() < 0.12:
        return None
    if specials and rng.random() < 0.12:
        return rng.choice([math.nan, math.inf, -math.inf])
    return rng.randint(-400, 400) / 8


def ref_rows(rows):
    """The rows as the reference takes them: key = (case, key), values v and w."""
    return [((c, k), s, e, v, w) for c, k, s, e, v, w in rows]


def summary_select(time, min_length):
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
            f"count(*) FILTER (WHERE {length} >= {min_length})",
            "time_weighted_sum(v)",
            "time_weighted_avg(v)",
            "time_weighted_sum(w)",
            "time_weighted_avg(w)",
        ]
    )


SUMMARY_COLUMNS = (
    "(key, window.start, window.end, count, min clipped start, max clipped end, "
    "sum of lengths, count lasting >= min_length, time_weighted_sum(v), "
    "time_weighted_avg(v), time_weighted_sum(w), time_weighted_avg(w))"
)


def expected_summaries(windows, unit, min_length):
    out = []
    for window in windows:
        row = (
            window.key,
            window.start,
            window.end,
            len(window.members),
            ref.min_clipped_start(window),
            ref.max_clipped_end(window),
            ref.sum_of_lengths(window),
            ref.count_at_least(window, min_length),
        )
        for value in (0, 1):
            row += (
                Approx(
                    ref.time_weighted_sum(window, value, unit),
                    ref.time_weighted_scale(window, value, unit),
                ),
                Approx(
                    ref.time_weighted_avg(window, value),
                    ref.time_weighted_scale(window, value, unit, avg=True),
                ),
            )
        out.append(row)
    return sort_rows(out)


class Call:
    """A window call in SQL and the reference's windows for it (a function of the rows)."""

    def __init__(self, sql, windows):
        self.sql, self.windows = sql, windows

    def __repr__(self):
        return self.sql


def compare_summaries(spark, rows, calls, time, min_length, unit):
    """Runs every call over the rows in one query and compares each with the reference."""
    results = grouped_calls(
        spark,
        rows,
        SCHEMA,
        [c.sql for c in calls],
        summary_select(time, min_length),
        source_of(time, "v, w"),
    )
    horizon = ref.default_horizon(ref_rows(rows))
    for call, actual in zip(calls, results):
        expected = expected_summaries(call.windows(ref_rows(rows)), unit, min_length)
        assert_same_cases(
            sort_rows(actual),
            expected,
            rows,
            [f"call: {call.sql} ({time})", f"default horizon of the whole input: {horizon}"],
            "(c, k, s, e, v, w)",
            SUMMARY_COLUMNS,
        )


def duration(ticks_, time):
    """A duration parameter: BIGINT ticks, or an interval string for timestamps."""
    if time == "bigint":
        return sql_int(ticks_) + "L" if ticks_ >= 0 else f"({ticks_}L)"
    if ticks_ % SECOND == 0:
        return f"'{ticks_ // SECOND} seconds'"
    return f"'{ticks_} microseconds'"


def ts_text(t):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=t)
    return (
        f"{d.year:04d}-{d.month:02d}-{d.day:02d} {d.hour:02d}:{d.minute:02d}:"
        f"{d.second:02d}.{d.microsecond:06d}"
    )


def instant(t, time):
    """A time parameter (alignment, horizon): BIGINT ticks or a timestamp literal."""
    if time == "bigint":
        return f"{t}L" if t >= 0 else f"({t}L)"
    return f"{'TIMESTAMP' if time == 'timestamp' else 'TIMESTAMP_NTZ'} '{ts_text(t)}'"


def hopping(
    time, size, hop, alignment, output, point=False, horizon=None, line=None, ticks_only=False
):
    """A hopping_window call (tumbling_window when hop is None) and its reference. With
    `ticks_only`, durations and the alignment are ticks (durations in microseconds for timestamps,
    the alignment an integer offset from the epoch), as at the ends of the line."""
    first, last = LINES[line or time]
    lifetime = "s" if point else "s, e"

    def d(x):
        if not ticks_only:
            return duration(x, time)
        # Over timestamps an integer is no duration: microseconds are written as such.
        return f"{x}L" if (line or time) == "bigint" else f"'{x} microseconds'"

    def i(x):
        return (f"{x}L" if x >= 0 else f"({x}L)") if ticks_only else instant(x, time)

    extra = "" if horizon is None else f", {i(horizon)}"
    if hop is None:
        sql = f"tumbling_window({lifetime}, {d(size)}, {i(alignment)}, '{output}'{extra})"
        hop = size
    else:
        sql = f"hopping_window({lifetime}, {d(size)}, {d(hop)}, {i(alignment)}, '{output}'{extra})"
    return Call(
        sql,
        lambda rows: ref.hopping_window(
            rows, size, hop, alignment, output, horizon, point, line_min=first, line_max=last
        ),
    )


def snapshot(time, point=False):
    last = LINES[time][1]
    return Call(
        f"snapshot_window({'s' if point else 's, e'})",
        lambda rows: ref.snapshot_window(rows, point, line_max=last),
    )


def count(time, n, output, point=False):
    last = LINES[time][1]
    return Call(
        f"count_window({'s' if point else 's, e'}, {n}, '{output}')",
        lambda rows: ref.count_window(rows, n, output, point, line_max=last),
    )


def family_calls(family, time, base=0):
    """The calls of a family for random cases in the middle of the line: BIGINT ticks, or
    seconds (with microsecond jitter) for timestamps; `base` is where the data lies (ticks)."""
    bigint = time == "bigint"
    u = 1 if bigint else SECOND
    if family == "hopping":
        if bigint:
            params = [(7, 3, 2), (5, 2, -3), (4, 6, 1), (3, 8, -5), (10, 1, -17)]
        else:
            params = [
                (5 * u, 2 * u, micros("2012-03-15 12:00:00")),
                (4 * u, 6 * u, micros("1969-12-31 23:59:58.5")),
                (7 * u, 3 * u, micros("1900-01-01 00:00:01") + 1),
            ]
        calls = [
            hopping(time, size, hop, a, output)
            for size, hop, a in params
            for output in ("window", "point")
            if output == "window" or (size, hop) in ((7, 3), (5 * u, 2 * u))
        ]
        size, hop, a = params[0]
        calls += [
            hopping(time, size, hop, a, "window", point=True),  # points, overlapping windows
            hopping(time, 4 * u, 6 * u, a, "point", point=True),  # points, gaps: hash route
            hopping(time, 6 * u, None, -4 * u + base, "window"),  # tumbling
            hopping(time, 6 * u, None, -4 * u + base, "point", point=True),
            hopping(time, 6 * u, 4 * u, u + base, "window", horizon=base + 25 * u),
            hopping(time, 6 * u, 4 * u, u + base, "point", horizon=base - 60 * u),
        ]
        return calls
    if family == "snapshot":
        return [snapshot(time), snapshot(time, point=True)]
    assert family == "count"
    return [
        count(time, 1, "point"),
        count(time, 2, "window"),
        count(time, 3, "point"),
        count(time, 4, "window"),
    ] + [count(time, 1, "window", point=True), count(time, 3, "point", point=True)]


def timestamp_rows(rng, n_cases, base_text, specials=False):
    base = micros(base_text)
    return [
        (c, k, None if s is None else s + base, None if e is None else e + base, v, w)
        for c, k, s, e, v, w in random_events(
            rng, n_cases, scale=SECOND, jitter=(-1, 1, SECOND // 2), specials=specials
        )
    ]


@pytest.mark.parametrize(
    "family", ["hopping", pytest.param("snapshot", marks=pytest.mark.smoke), "count"]
)
def test_random_bigint(spark, family):
    rng = random.Random(f"clipped-bigint-{family}")
    rows = random_events(rng, 12)
    compare_summaries(spark, rows, family_calls(family, "bigint"), "bigint", 3, 1)


@pytest.mark.parametrize(
    "time, base", [("timestamp", "2012-06-28 00:00:00"), ("timestamp_ntz", "1969-12-31 23:59:50")]
)
def test_random_timestamps(spark, time, base):
    """Seconds with microsecond jitter, before and after 1970; lengths in seconds."""
    rng = random.Random(f"clipped-{time}")
    rows = timestamp_rows(rng, 8, base)
    base = micros(base)
    if time == "timestamp":
        calls = [
            call
            for family in ("hopping", "snapshot", "count")
            for call in family_calls(family, time, base)
        ]
    else:  # fewer calls: the same code with another type
        u, a = SECOND, micros("2012-03-15 12:00:00")
        calls = [
            hopping(time, 5 * u, 2 * u, a, "window"),
            hopping(time, 5 * u, 2 * u, a, "point"),
            hopping(time, 6 * u, 4 * u, base + u, "window", horizon=base + 25 * u),
            hopping(time, 4 * u, 6 * u, a, "point", point=True),
            snapshot(time),
            count(time, 2, "window"),
            count(time, 3, "point", point=True),
        ]
    compare_summaries(spark, rows, calls, time, 3 * SECOND, SECOND)


def test_random_nan_and_infinity(spark):
    """NaN and infinite values: each window gets what the plain sum of v * length gives, only
    the windows those events are in."""
    rng = random.Random("clipped-specials")
    rows = random_events(rng, 12, specials=True)
    calls = [
        hopping("bigint", 5, 2, -3, "window"),
        hopping("bigint", 4, 6, 1, "point"),
        hopping("bigint", 5, None, 0, "window"),
        hopping("bigint", 3, 1, 0, "window"),
        snapshot("bigint"),
        count("bigint", 2, "point"),
        count("bigint", 3, "window"),
    ]
    compare_summaries(spark, rows, calls, "bigint", 3, 1)


#: (size, hop, alignment) in ticks at the ends of the line: overlapping, gaps, hop == size, a
#: window longer than the data's span, windows far apart.
END_WINDOWS = [
    (7, 3, 2),
    (4, 6, 1),
    (1000, 7, 3),
    (3, 200_000_000_000, 5),
    (100_000_000_000, 200_000_000_000, -7),
]


@pytest.mark.parametrize("side", ["start", "end"])
@pytest.mark.parametrize("line", ["bigint", "timestamp"])
def test_random_at_the_ends_of_the_line(spark, line, side):
    """Times next to one end of the line, many of them tied at it; windows reaching past it are
    clipped there, and so are the lifetimes in them; open-ended events under snapshot windows
    last to the end of the line (lengths beyond BIGINT: the sums are DECIMAL)."""
    rng = random.Random(f"clipped-ends-{line}-{side}")
    rows = at_an_end(random_events(rng, 8, jitter=(-1, 1)), 2, 3, line, side, 20)
    calls = [
        hopping(line, size, hop, alignment, "window", ticks_only=True)
        for size, hop, alignment in END_WINDOWS
    ]
    calls += [
        hopping(line, 7, 3, 2, "point", ticks_only=True),
        hopping(line, 5, None, 0, "point", point=True, ticks_only=True),
        snapshot(line),
        snapshot(line, point=True),
        count(line, 1, "point"),
        count(line, 3, "window"),
        count(line, 2, "window", True),
    ]
    compare_summaries(spark, rows, calls, line, 3, 1 if line == "bigint" else SECOND)


@pytest.mark.parametrize("time, side", [("bigint", None), ("timestamp", "end")])
def test_random_clipped_lifetimes_of_the_members(spark, time, side):
    """Every member's clipped lifetime, as a sorted array of (clipped_start(), clipped_end())
    (collect_list: the window operator's sweep for every family)."""
    rng = random.Random(f"clipped-members-{time}-{side}")
    rows = random_events(rng, 8, jitter=(-1, 1))
    if side is not None:
        rows = at_an_end(rows, 2, 3, time, side, 20)
    t = ticks
    select = (
        f"{t('window.start', time)}, {t('window.end', time)}, array_sort(collect_list("
        f"struct({t('clipped_start()', time)}, {t('clipped_end()', time)})))"
    )
    calls = [
        hopping(time, 7, 3, 2, "window", ticks_only=True),
        hopping(time, 7, 3, 2, "point", ticks_only=True),
        hopping(time, 4, 6, 1, "window", ticks_only=True),
        hopping(time, 4, 6, 1, "window", point=True, ticks_only=True),
        hopping(time, 5, None, -1, "window", horizon=None, ticks_only=True),
        snapshot(time),
        count(time, 2, "window"),
        count(time, 3, "point", point=True),
    ]
    if side is None:
        calls.append(hopping(time, 6, 4, 1, "window", horizon=25, ticks_only=True))
    results = grouped_calls(
        spark, rows, SCHEMA, [c.sql for c in calls], select, source_of(time, "v, w")
    )
    for call, actual in zip(calls, results):
        actual = [r[:3] + (tuple(tuple(x) for x in r[3]),) for r in actual]
        expected = sorted(
            (
                (w.key, w.start, w.end, ref.clipped_lifetimes(w))
                for w in call.windows(ref_rows(rows))
            ),
            key=_order,
        )
        assert_same_cases(
            sort_rows(actual),
            expected,
            rows,
            [f"call: {call.sql} ({time})"],
            "(c, k, s, e, v, w)",
            "(key, start, end, clipped lifetimes)",
        )


# ----------------------------------------------------------------------------------------------
# Streams


def write_interval_batches(source, batches):
    """One JSON file of interval events (k, start second, end second or None, v) of 2024-01-01
    00:00 per micro-batch, in order of modification time (the order a file stream reads)."""
    source.mkdir()

    def ts(t):
        return None if t is None else f"2024-01-01 00:{t // 60:02d}:{t % 60:02d}"

    for mtime, events in enumerate(batches, start=1_700_000_000):
        path = source / f"{mtime}.json"
        path.write_text(
            "".join(
                json.dumps({"k": k, "ts": ts(s), "te": ts(e), "v": v}) + "\n"
                for k, s, e, v in events
            )
        )
        os.utime(path, (mtime, mtime))


#: Interval events over three micro-batches, one out of order within the watermark's delay
#: (a at 1 s after a at 2 s), a NULL value; the last batch's event at 40 s moves the watermark
#: (delay 5 s) to 35 s, which closes every row of the events before it and none of its own.
STREAM_BATCHES = [
    [("a", 0, 7, 1.0), ("a", 2, 3, 4.0), ("b", 1, 12, 2.0)],
    [
        ("a", 5, 6, 3.0),
        ("b", 4, 5, None),
        ("a", 1, 9, 5.0),
        ("b", 9, 15, 1.0),
        ("a", 11, 13, 2.0),
        ("b", 9, 10, 6.0),
    ],
    [("a", 40, 41, 1.0)],
]
STREAM_SCHEMA = "k string, ts timestamp, te timestamp, v double"
WATERMARK = "2024-01-01 00:00:35"


def stream_rows(spark, tmp_path, name, query):
    """Runs query(events) over the batches as a stream (append mode, watermark 5 s on ts) and
    as a batch query; returns the streamed rows, the batch rows of the windows the final
    watermark closed (window.end <= 35 s) and the streaming query's plan."""
    source = tmp_path / "source"
    write_interval_batches(source, STREAM_BATCHES)
    streaming = (
        spark.readStream.schema(STREAM_SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
        .withWatermark("ts", "5 seconds")
    )
    running = (
        query(streaming)
        .writeStream.format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    running.awaitTermination()
    plan = running._jsq.explainInternal(False)
    streamed = sort_rows(plain(r) for r in spark.table(name).collect())
    batch = query(spark.read.schema(STREAM_SCHEMA).json(str(source)))
    closed = sort_rows(plain(r) for r in batch.collect() if r[2] <= WATERMARK)
    return streamed, closed, plan


def windowed(window):
    def query(events):
        return (
            events.groupBy("k", window)
            .agg(
                F.expr("count(*)").alias("n"),
                F.expr("sum(clipped_end() - clipped_start())").alias("length"),
                F.expr("time_weighted_sum(v)").alias("tws"),
                F.expr("time_weighted_avg(v)").alias("twa"),
            )
            .selectExpr(
                "k",
                "string(window.start) AS ws",
                "string(window.end) AS we",
                "n",
                "length",
                "tws",
                "twa",
            )
        )

    return query


def assert_streamed(streamed, closed):
    assert len(closed) > 5
    expected = [approx(r) for r in closed]
    assert streamed == expected, "\n".join(
        ["streamed:", *(f"  {r}" for r in streamed), "batch:", *(f"  {r}" for r in closed)]
    )


def test_hopping_on_a_stream_runs_as_spark_aggregation(spark, tmp_path):
    streamed, closed, plan = stream_rows(
        spark,
        tmp_path,
        "ew_clipped_hopping",
        windowed(F.expr("hopping_window(ts, te, '6 seconds', '4 seconds')")),
    )
    assert_streamed(streamed, closed)
    # Order-insensitive aggregates over per-window output: Spark's streaming aggregation.
    assert "StateStoreSave" in plan, plan


def test_snapshot_windows_on_a_stream_run_through_transform_with_state(spark, tmp_path):
    streamed, closed, plan = stream_rows(
        spark, tmp_path, "ew_clipped_snapshot", windowed(F.expr("snapshot_window(ts, te)"))
    )
    assert_streamed(streamed, closed)
    assert "TransformWithState" in plan, plan


# ----------------------------------------------------------------------------------------------
# The reference itself (no Spark)


def test_reference_hand_worked_hopping():
    rows = [("x", 1, 9, "a", 3), ("x", 4, 6, "b", 10), ("x", 9, 11, "d", None)]
    for output in ("window", "point"):
        windows = ref.hopping_window(rows, 4, 2, 0, output)
        got = [
            (w.start, w.end)
            + ref.summary(w, (1,), 1, 3)
            + (tuple((m.event.values[0], m.start, m.end) for m in w.members),)
            for w in windows
        ]
        # summary: count, min, max, sum of lengths, count >= 3, tws, twa; H1_EXPECTED has the
        # count >= 3 after the time-weighted results.
        expected = [(r[0], r[1]) if output == "window" else (r[1], r[1] + 1) for r in H1_EXPECTED]
        expected = [e + r[2:6] + (r[8], r[6], r[7], r[9]) for e, r in zip(expected, H1_EXPECTED)]
        assert got == [approx(r) for r in expected]


def test_reference_hand_worked_snapshot_and_count():
    m = BIGINT_MAX
    rows = [(None, 0, 4, 1), (None, 2, 6, 3), (None, 5, None, 2), (None, 0, 2, None)]
    got = [
        (w.start, w.end) + ref.summary(w)[:4] + ref.summary(w)[5:]
        for w in ref.snapshot_window(rows)
    ]
    assert got == [
        approx(r)
        for r in [
            (0, 2, 2, 0, 2, 4, 2.0, 1.0),
            (2, 4, 2, 2, 4, 4, 8.0, 2.0),
            (4, 5, 1, 4, 5, 1, 3.0, 3.0),
            (5, 6, 2, 5, 6, 2, 5.0, 2.5),
            (6, m, 1, 6, m, m - 6, float(2 * (m - 6)), 2.0),
        ]
    ]
    rows = [
        (None, 0, 2, "e1", 1),
        (None, 2, 8, "e2", 10),
        (None, 5, 6, "e3", 100),
        (None, 6, None, "e4", 1),
    ]
    got = [
        (w.extent[0], w.extent[1])
        + ref.summary(w, (1,))[:4]
        + ref.summary(w, (1,))[5:]
        + (tuple((m.event.values[0], m.start, m.end) for m in w.members),)
        for w in ref.count_window(rows, 2)
    ]
    assert got == [approx(r) for r in H_COUNT_EXPECTED]
    assert [(w.start, w.end) for w in ref.count_window(rows, 2)] == [(2, 3), (5, 6), (6, 7)]


def test_reference_time_weighted_results():
    rows = [
        (None, 0, 4, math.nan),
        (None, 2, 3, math.inf),
        (None, 5, 6, 1.0),
        (None, 6, 8, -math.inf),
        (None, 9, 10, math.inf),
        (None, 10, 11, 2.5),
        (None, 12, 13, math.inf),
        (None, 12, 14, 3.0),
    ]
    got = [
        (w.start, ref.time_weighted_sum(w), ref.time_weighted_avg(w))
        for w in ref.tumbling_window(rows, 2)
    ]
    nan, inf = math.nan, math.inf
    assert [approx(r) for r in got] == [
        (0, nan, nan),
        (2, nan, nan),
        (4, 1.0, 1.0),
        (6, -inf, -inf),
        (8, inf, inf),
        (10, 2.5, 2.5),
        (12, inf, inf),
    ]
    got = [
        (w.start, ref.time_weighted_sum(w), ref.time_weighted_avg(w))
        for w in ref.hopping_window(rows, 4, 2)
    ]
    assert [approx(r) for r in got] == [
        (-2, nan, nan),
        (0, nan, nan),
        (2, nan, nan),
        (4, -inf, -inf),
        (6, nan, nan),
        (8, inf, inf),
        (10, inf, inf),
        (12, inf, inf),
    ]
    # Seconds for timestamps: 1.5 over 5 s and 4 over 2.5 s in [0, 10 s).
    rows = [
        (None, 5 * SECOND, 25 * SECOND, 1.5),
        (None, 0, 2_500_000, 4.0),
        (None, 3 * SECOND, None, None),
    ]
    window = ref.tumbling_window(rows, 10 * SECOND, horizon=4 * SECOND)[0]
    assert ref.time_weighted_sum(window, 0, SECOND) == 17.5
    assert ref.time_weighted_avg(window) == 17.5 / 7.5
    # The open-ended one (NULL value) lasts through the horizon: [3 s, 4 s + 1 us).
    assert ref.sum_of_lengths(window) == 5 * SECOND + 2_500_000 + SECOND + 1
    assert [(m.start, m.end) for m in window.members if m.event.values[0] is None] == [
        (3 * SECOND, 4 * SECOND + 1)
    ]
    # The cancelling terms' tolerance scale: |1| * 2 + |-1| * 2.
    window = ref.tumbling_window([(None, 0, 2, 1), (None, 0, 2, -1)], 4)[0]
    assert ref.time_weighted_sum(window) == 0.0 and ref.time_weighted_scale(window) == 4.0
    # A window with only NULL values.
    window = ref.snapshot_window([(None, 0, 2, None)])[0]
    assert ref.time_weighted_sum(window) is None and ref.time_weighted_avg(window) is None


def _random_reference_rows(rng):
    return ref_rows(random_events(rng, 1, max_events=10))


@pytest.mark.slow  # random inputs against a reference
def test_reference_windows_are_the_other_references_windows():
    """The windows and their counts and sums are those of reference.streaminsight and
    reference.psi; constant values weigh the clipped lengths."""
    rng = random.Random("clipped-reference-windows")
    for _ in range(300):
        rows = _random_reference_rows(rng)
        vrows = [(k, s, e, v) for k, s, e, v, _ in rows]
        point = rng.random() < 0.3
        size = rng.randint(1, 8)
        hop = rng.randint(1, 10)
        alignment = rng.randint(-10, 10)
        output = rng.choice(["window", "point"])
        horizon = rng.choice([None, rng.randint(-40, 40)])

        def summary(windows):
            return [
                (w.key, w.start, w.end, len(w.members))
                + (
                    sum(x for x in (m.event.values[0] for m in w.members) if x is not None)
                    if any(m.event.values[0] is not None for m in w.members)
                    else None,
                )
                for w in windows
            ]

        got = summary(ref.hopping_window(rows, size, hop, alignment, output, horizon, point))
        assert got == [
            r[:5] for r in refsi.hopping_window(vrows, size, hop, alignment, output, horizon, point)
        ]
        got = summary(ref.snapshot_window(rows, point))
        assert got == [r[:5] for r in refsi.snapshot_window(vrows, point)]
        n = rng.randint(1, 4)
        got = summary(ref.count_window(rows, n, output="window", point=point))
        assert got == [r[:3] + r[5:7] for r in refp.count_window(vrows, n, "window", point)]


@pytest.mark.slow  # random inputs against a reference
def test_reference_lengths_add_up():
    """Tumbling and snapshot windows partition time: each event's clipped lengths add up to
    its lifetime (open-ended: through the horizon, or to the end of the line); hopping windows
    of size = 3 hops cover every tick three times."""
    rng = random.Random("clipped-reference-lengths")
    for _ in range(200):
        rows = _random_reference_rows(rng)
        horizon = ref.default_horizon(rows)
        if horizon is None:
            continue
        events = ref.events_of(rows)

        def lengths(windows):
            total = {}
            for w in windows:
                for m in w.members:
                    total[id(m.event.row)] = total.get(id(m.event.row), 0) + m.length
            return total

        size = rng.randint(1, 9)
        alignment = rng.randint(-9, 9)
        hopping_end = {id(e.row): (max(horizon, e.start) + 1 if e.open else e.end) for e in events}
        assert lengths(ref.tumbling_window(rows, size, alignment)) == {
            id(e.row): hopping_end[id(e.row)] - e.start for e in events
        }
        assert lengths(ref.hopping_window(rows, 3 * size, size, alignment)) == {
            id(e.row): 3 * (hopping_end[id(e.row)] - e.start) for e in events
        }
        assert lengths(ref.snapshot_window(rows)) == {
            id(e.row): (BIGINT_MAX if e.open else e.end) - e.start for e in events
        }
        # time_weighted_sum of v = 1 is the sum of lengths; its average 1.
        ones = [r[:3] + (1, 1.0) for r in rows]
        for w in ref.hopping_window(ones, size + 1, size, alignment):
            assert ref.time_weighted_sum(w) == ref.sum_of_lengths(w)
            assert ref.time_weighted_avg(w, 1) == 1.0


def test_reference_windows_are_clipped_at_the_ends_of_the_line():
    m = BIGINT_MAX
    # Windows of 10 aligned at 3 (mod 10) near the end: [m - 4, m + 6) is clipped to
    # [m - 4, m], so is the open-ended event (horizon m - 1: lasting to m).
    windows = ref.tumbling_window(
        [(None, m - 6, None, 2), (None, m - 2, m, 1)], 10, alignment=m - 4
    )
    assert [(w.start, w.end, ref.summary(w)[:4]) for w in windows] == [
        (m - 14, m - 4, (1, m - 6, m - 4, 2)),
        (m - 4, m, (2, m - 4, m, 6)),
    ]
    assert ref.time_weighted_sum(windows[1]) == 2 * 4 + 1 * 2
    # 'point' output: the point at the end of a window past the line is clipped to it.
    windows = ref.tumbling_window([(None, m - 2, m, 1)], 10, alignment=m - 4, output="point")
    assert [(w.start, w.end) for w in windows] == [(m, m)]
    # The first tick: a window [-2^63 - 5, -2^63 + 5) is clipped to start at -2^63.
    windows = ref.tumbling_window(
        [(None, BIGINT_MIN, BIGINT_MIN + 2, 1)], 10, alignment=BIGINT_MIN + 5
    )
    assert [(w.start, w.end, ref.min_clipped_start(w)) for w in windows] == [
        (BIGINT_MIN, BIGINT_MIN + 5, BIGINT_MIN)
    ]
    # Count windows end at s_k + 1, at most at the end of the line; snapshot windows of
    # open-ended events end there.
    windows = ref.count_window([(None, m - 1, None, 1), (None, m - 3, m - 2, 1)], 2)
    assert [(w.extent, ref.clipped_lifetimes(w)) for w in windows] == [
        ((m - 3, m), ((m - 3, m - 2), (m - 1, m)))
    ]
    windows = ref.count_window(
        [(None, TIMESTAMP_MAX - 1, None, 1)], 1, point=True, line_max=TIMESTAMP_MAX
    )
    assert [ref.clipped_lifetimes(w) for w in windows] == [((TIMESTAMP_MAX - 1, TIMESTAMP_MAX),)]
