"""Cumulating windows (cumulate_window, Flink's CUMULATE): Flink's documented example, hand-worked
calendar months cumulated daily across a daylight saving change, random events against the
brute-force reference (tests/reference/cumulate.py) on every output with exact durations and on
the calendar of Europe/Berlin, clipped lifetimes, streams on both routes, and bad parameters."""

import datetime
import random

import pytest

import eventwindows as ew
from harness import (
    ONE_TICK,
    OPEN,
    TIMESTAMP_MAX,
    analysis_error,
    grouped_calls,
    random_interval_rows,
    run_stream,
    source_of,
    write_batches,
)
from reference.calendar import local_micros
from reference.cumulate import CalendarBuckets, ExactBuckets, cumulate_window

AGGREGATES = "{start}, {end}, count(*), sum(v), min(v), max(v)"

d = datetime.datetime


def rows_of(spark, sql):
    return [tuple(r) for r in spark.sql(sql).collect()]


# ----------------------------------------------------------------------------------------------
# Flink's documented example

BID = """VALUES (TIMESTAMP '2020-04-15 08:05:00', 4.00, 'C'), (TIMESTAMP '2020-04-15 08:07:00', 2.00, 'A'),
    (TIMESTAMP '2020-04-15 08:09:00', 5.00, 'D'), (TIMESTAMP '2020-04-15 08:11:00', 3.00, 'B'),
    (TIMESTAMP '2020-04-15 08:13:00', 1.00, 'E'), (TIMESTAMP '2020-04-15 08:17:00', 6.00, 'F')
    AS Bid(bidtime, price, item)"""


@pytest.mark.smoke
def test_flinks_documented_cumulate_example(spark):
    # Flink's "Windowing TVF" page, CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2'
    # MINUTES, INTERVAL '10' MINUTES) with SUM(price) by window_start, window_end.
    got = rows_of(
        spark,
        f"""
        SELECT window.start, window.end, sum(price) FROM {BID}
        GROUP BY cumulate_window(bidtime, INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)
        ORDER BY 1, 2""",
    )
    t = lambda hh, mm: d(2020, 4, 15, hh, mm)  # noqa: E731
    assert [(s, e, float(p)) for s, e, p in got] == [
        (t(8, 0), t(8, 6), 4.0),
        (t(8, 0), t(8, 8), 6.0),
        (t(8, 0), t(8, 10), 11.0),
        (t(8, 10), t(8, 12), 3.0),
        (t(8, 10), t(8, 14), 4.0),
        (t(8, 10), t(8, 16), 4.0),
        (t(8, 10), t(8, 18), 10.0),
        (t(8, 10), t(8, 20), 10.0),
    ]
    # 'changes': a row only when the cumulated sum changes, lasting until the next window's end
    # at which it changes; the sum of [08:10, 08:14) holds through 08:16.
    got = rows_of(
        spark,
        f"""
        SELECT window.start, window.end, sum(price) FROM {BID}
        GROUP BY cumulate_window(bidtime, INTERVAL '2' MINUTES, INTERVAL '10' MINUTES,
                                 output => 'changes') ORDER BY 1""",
    )
    assert [(s, e, float(p)) for s, e, p in got] == [
        (t(8, 6), t(8, 8), 4.0),
        (t(8, 8), t(8, 10), 6.0),
        (t(8, 10), t(8, 12), 11.0),
        (t(8, 12), t(8, 14), 3.0),
        (t(8, 14), t(8, 18), 4.0),
        (t(8, 18), t(8, 22), 10.0),
    ]


def test_python_function_gives_the_sql_rows(spark):
    bids = spark.sql(f"SELECT * FROM {BID}")
    got = sorted(
        tuple(r)
        for r in bids.groupBy(ew.cumulate_window("bidtime", "2 minutes", "10 minutes"))
        .count()
        .select("window.start", "window.end", "count")
        .collect()
    )
    assert got[:3] == [
        (d(2020, 4, 15, 8, 0), d(2020, 4, 15, 8, 6), 1),
        (d(2020, 4, 15, 8, 0), d(2020, 4, 15, 8, 8), 2),
        (d(2020, 4, 15, 8, 0), d(2020, 4, 15, 8, 10), 3),
    ]


# ----------------------------------------------------------------------------------------------
# A month cumulated daily in Berlin


def test_a_berlin_month_cumulated_daily(spark):
    # Session time zone UTC: Berlin's local midnight is 23:00 UTC in winter, 22:00 from March 31.
    got = rows_of(
        spark,
        """
        SELECT window.start, window.end, count(*)
        FROM VALUES (TIMESTAMP '2024-02-29 22:59:59'), (TIMESTAMP '2024-03-30 22:30:00'),
                    (TIMESTAMP '2024-03-31 21:59:59') AS t(ts)
        GROUP BY cumulate_window(ts, '1 day', '1 month', time_zone => 'Europe/Berlin')
        ORDER BY 1, 2""",
    )
    feb, mar = d(2024, 1, 31, 23), d(2024, 2, 29, 23)
    # The last window of February 2024 (its 29th) is the whole month; March's last day, the 31st,
    # is 23 hours long.
    assert got == [
        (feb, d(2024, 2, 29, 23), 1),
        (mar, d(2024, 3, 30, 23), 1),
        (mar, d(2024, 3, 31, 22), 2),
    ]
    days = rows_of(
        spark,
        """
        SELECT count(*) FROM (SELECT window.end FROM range(0, 60 * 86400, 3600) AS t
            GROUP BY cumulate_window(timestamp_seconds(id + 1706742000), '1 day', '1 month',
                                     time_zone => 'Europe/Berlin'))""",
    )
    # Every day of February and March 2024, none twice; the last hour, on April 1 in Berlin, lies in
    # all 30 windows of April.
    assert days == [(29 + 31 + 30,)]


# ----------------------------------------------------------------------------------------------
# Against the reference on random events

EXACT = [
    # (step, size, alignment, outputs)
    (2, 6, 0, ["window", "point", "changes"]),
    (3, 3, 1, ["window", "changes"]),
    (1, 5, -2, ["window", "changes"]),
    (4, 12, 5, ["point", "changes"]),
]


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("time", ["bigint", "timestamp"])
def test_exact_durations_match_the_reference(spark, time):
    rng = random.Random(f"cumulate exact {time}")
    rows = random_interval_rows(
        rng,
        20,
        [(0.3, (1, 3)), (0.3, (1, 15)), (0.2, (5, 40)), (0.1, ONE_TICK), (0.1, OPEN)],
        times=((-40, 40),),
    )
    calls, expected = [], []
    for step, size, alignment, outputs in EXACT:
        for output in outputs:
            for point in (False, True):
                lifetime = "s" if point else "s, e"
                # Over timestamps the durations are microseconds, written as such.
                d = (lambda x: x) if time == "bigint" else (lambda x: f"'{x} microseconds'")
                calls.append(
                    f"cumulate_window({lifetime}, {d(step)}, {d(size)}, {alignment}, '{output}')"
                )
                reference = cumulate_window(
                    [((c, k), s, e, v) for c, k, s, e, v in rows],
                    ExactBuckets(step, size, alignment),
                    output,
                    point=point,
                )
                if time == "timestamp" and output == "changes":
                    reference = [
                        r if r[2] != 2**63 - 1 else r[:2] + (TIMESTAMP_MAX,) + r[3:]
                        for r in reference
                    ]
                expected.append(reference)
    start, end = (
        ("window.start", "window.end")
        if time == "bigint"
        else ("unix_micros(window.start)", "unix_micros(window.end)")
    )
    actual = grouped_calls(
        spark,
        rows,
        "c int, k int, s bigint, e bigint, v int",
        calls,
        AGGREGATES.format(start=start, end=end),
        source=source_of(time),
    )
    for call, got, want in zip(calls, actual, expected):
        assert got == want, call


def berlin_rows(rng, n_cases=10):
    """Events around Berlin's 2024 changes and the leap day: minutes to weeks long, open-ended."""
    hour = 3_600_000_000
    nears = [1711846800 * 1_000_000, 1729990800 * 1_000_000, 1709208000 * 1_000_000]
    rows = []
    for c in range(n_cases):
        near = rng.choice(nears)
        for _ in range(rng.randint(1, 6)):
            s = near + rng.randint(-72, 72) * hour + rng.choice([0, 1, rng.randint(0, hour)])
            kind = rng.random()
            e = (
                None
                if kind < 0.1
                else s + 1
                if kind < 0.4
                else s + rng.randint(1, 30) * hour
                if kind < 0.8
                else s + rng.randint(1, 40) * 24 * hour
            )
            rows.append((c, rng.choice([None, "a"]), s, e, rng.randint(-9, 9)))
    return rows


CALENDAR = [
    # (step, size, alignment as a local time or None, outputs)
    ((0, 1, 0), (1, 0, 0), None, ["window", "point", "changes"]),
    ((0, 0, 6 * 3_600_000_000), (0, 1, 0), None, ["window", "changes"]),
    ((0, 7, 0), (1, 0, 0), "2024-01-15 06:00:00", ["window", "changes"]),
    ((1, 0, 0), (3, 0, 0), None, ["window", "changes"]),
]


def interval(step):
    months, days, us = step
    return f"'{months} months {days} days {us} microseconds'"


@pytest.mark.slow  # random inputs against a reference
def test_calendar_units_in_berlin_match_the_reference(spark):
    zone = "Europe/Berlin"
    rows = berlin_rows(random.Random("cumulate berlin"))
    calls, expected = [], []
    for step, size, alignment, outputs in CALENDAR:
        local = local_micros(d.fromisoformat(alignment)) if alignment else 0
        buckets = CalendarBuckets(step, size, local, zone)
        for output in outputs:
            calls.append(
                f"cumulate_window(s, e, {interval(step)}, {interval(size)}, "
                f"{repr(alignment) if alignment else 'NULL'}, '{output}', "
                f"time_zone => '{zone}')"
            )
            expected.append(
                cumulate_window(
                    [((c, k), s, e, v) for c, k, s, e, v in rows],
                    buckets,
                    output,
                    line_max=TIMESTAMP_MAX,
                )
            )
    actual = grouped_calls(
        spark,
        rows,
        "c int, k string, s bigint, e bigint, v int",
        calls,
        AGGREGATES.format(start="unix_micros(window.start)", end="unix_micros(window.end)"),
        source=source_of("timestamp"),
    )
    for call, got, want in zip(calls, actual, expected):
        assert got == want, call


# ----------------------------------------------------------------------------------------------
# Clipped lifetimes, streams


def test_clipped_lifetimes_and_time_weighted_aggregates(spark):
    # One event from 1 to 9 with value 2, and one from 4 to 5 with value 10: buckets of 6 ticks
    # cumulated by 2.
    got = rows_of(
        spark,
        """
        SELECT window.start, window.end, sum(clipped_end() - clipped_start()),
               time_weighted_sum(v)
        FROM VALUES (1L, 9L, 2), (4L, 5L, 10) AS t(s, e, v)
        GROUP BY cumulate_window(s, e, 2, 6) ORDER BY 1, 2""",
    )
    assert [(s, e, n, float(w)) for s, e, n, w in got] == [
        (0, 2, 1, 2.0),
        (0, 4, 3, 6.0),
        (0, 6, 6, 20.0),
        (6, 8, 2, 4.0),
        (6, 10, 3, 6.0),
        (6, 12, 3, 6.0),
    ]


@pytest.mark.parametrize("aggregate", ["count(*) AS n", "collect_list(v) AS n"])
@pytest.mark.parametrize("output", ["window", "changes"])
def test_a_stream_equals_the_batch_query(spark, tmp_path, aggregate, output):
    # count under 'window' runs as Spark's streaming aggregation, collect_list (order-sensitive)
    # and 'changes' on transformWithState; both emit a window once the watermark passes its end.
    batches = [[0, 7], [12, 3, 25], [31, 44], [65, 90]]
    write_batches(
        tmp_path / "in",
        [
            [{"ts": f"2024-01-01 00:{t // 60:02d}:{t % 60:02d}", "v": t} for t in batch]
            for batch in batches
        ],
    )
    stream = (
        spark.readStream.schema("ts timestamp, v int")
        .json(str(tmp_path / "in"))
        .withWatermark("ts", "10 seconds")
    )
    query = (
        f"SELECT window.start, window.end, {aggregate} FROM {{}} GROUP BY "
        f"cumulate_window(ts, '5 seconds', '20 seconds', output => '{output}')"
    )
    stream.createOrReplaceTempView("cumulate_stream")
    run_stream(spark.sql(query.format("cumulate_stream")), tmp_path / "out", tmp_path / "cp")
    got = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    batch = spark.read.schema("ts timestamp, v int").json(str(tmp_path / "in"))
    batch.createOrReplaceTempView("cumulate_batch")
    # The last watermark is 01:30 - 10 s: windows (and changes) ending by then are closed.
    want = sorted(
        tuple(r)
        for r in spark.sql(query.format("cumulate_batch")).collect()
        if r[1] <= d(2024, 1, 1, 0, 1, 20)
    )
    assert got, "the stream emitted nothing"
    assert [r[:2] for r in got] == [r[:2] for r in want]
    assert [sorted(r[2]) if isinstance(r[2], list) else r[2] for r in got] == [
        sorted(r[2]) if isinstance(r[2], list) else r[2] for r in want
    ]


# ----------------------------------------------------------------------------------------------
# Bad parameters

TS = "VALUES (TIMESTAMP '2024-01-01 00:00:00') AS t(ts)"


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "SELECT count(*) FROM range(3) GROUP BY cumulate_window(id, 4, 10)",
            "cumulate_window: `size` must be a multiple of `step` (as Flink's CUMULATE requires), got "
            "step 4, size 10",
        ),
        (
            "SELECT count(*) FROM range(3) GROUP BY cumulate_window(id, 0, 10)",
            "cumulate_window: `step` must be positive",
        ),
        (
            "SELECT count(*) FROM range(3) GROUP BY cumulate_window(id, '1 day', '1 month')",
            "cumulate_window: `step` must be an integer number of ticks for BIGINT time",
        ),
        (
            "SELECT count(*) FROM range(3) GROUP BY cumulate_window(id, 1, 5, time_zone => 'UTC')",
            "cumulate_window: `time_zone` needs TIMESTAMP time, got BIGINT",
        ),
        (
            f"SELECT count(*) FROM {TS} GROUP BY cumulate_window(ts, '1 month', '40 days')",
            "cumulate_window: `size` must have months when `step` has them",
        ),
        (
            f"SELECT count(*) FROM {TS} GROUP BY cumulate_window(ts, '2 days', '1 day', "
            "time_zone => 'UTC')",
            "cumulate_window: `step` must not be longer than `size`",
        ),
        (
            f"SELECT count(*) FROM {TS} GROUP BY cumulate_window(ts, '1 microsecond', '1 month')",
            "cumulate_window: `step` 0.000001 seconds cuts `size` 1 months into up to",
        ),
        (
            f"SELECT count(*) FROM {TS} GROUP BY cumulate_window(ts, '1 day', '1 month', 'sideways')",
            "cumulate_window: `alignment` is not a valid",
        ),
        (
            f"SELECT count(*) FROM {TS} GROUP BY cumulate_window(ts, '1 day', '1 month', "
            "output => 'all')",
            "cumulate_window: `output` must be one of 'window', 'point', 'changes'",
        ),
        (
            f"SELECT count(*) FROM {TS} GROUP BY cumulate_window(ts, '1 minute')",
            "cumulate_window: takes at least 2 parameters after the lifetime columns",
        ),
        (
            "SELECT count(*) FROM range(3) GROUP BY cumulate_window(id, 1, 2, 0, 'changes') "
            "HAVING max(clipped_end()) > 0",
            "not with cumulate_window output 'changes'",
        ),
    ],
)
def test_bad_parameters_fail_naming_the_function_and_parameter(spark, sql, message):
    assert message in analysis_error(spark, sql)


def test_bad_python_values_name_the_parameter():
    with pytest.raises(TypeError, match="`step`"):
        ew.cumulate_window("ts", 1.5, "1 day")
