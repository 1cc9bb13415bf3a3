"""`window_time(window)` over eventwindows results (issue 33, item 1): as for Spark's own
`window()`, the last tick of each row's lifetime (`window.end` - 1 µs), which a second window can
group by, on batch and streaming DataFrames (where it carries the event-time watermark)."""

import datetime

import pyspark
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import eventwindows as ew
from harness import run_stream, write_batches


def _events(spark):
    rows = [
        ("a", "2024-01-01 00:00:01", "2024-01-01 00:00:04", 1),
        ("a", "2024-01-01 00:00:03", "2024-01-01 00:00:09", 2),
        ("a", "2024-01-01 00:00:12", "2024-01-01 00:00:13", 4),
        ("b", "2024-01-01 00:00:02", "2024-01-01 00:00:03", 8),
    ]
    return spark.createDataFrame(rows, "k string, s string, e string, v int").select(
        "k", F.col("s").cast("timestamp").alias("s"), F.col("e").cast("timestamp").alias("e"), "v"
    )


FAMILIES = [
    ("hopping", lambda: ew.hopping_window("s", "4 seconds", "2 seconds", end="e")),
    (
        "changes",
        lambda: ew.hopping_window("s", "4 seconds", "2 seconds", output="changes", end="e"),
    ),
    ("tumbling-points", lambda: ew.tumbling_window("s", "5 seconds")),
    ("snapshot", lambda: ew.snapshot_window("s", end="e")),
    ("count", lambda: ew.count_window("s", 2, output="window", end="e")),
    ("index", lambda: ew.index_window("s", -1, 0)),
    ("sessions", lambda: ew.event_session_window("s", "2 seconds", end="e")),
    ("sliding", lambda: ew.sliding_window("s", ew.spl.count(2))),
    ("calendar", lambda: ew.tumbling_window("s", "1 day", time_zone="Europe/Berlin", end="e")),
    ("cumulate", lambda: ew.cumulate_window("s", "2 seconds", "6 seconds", end="e")),
    ("count-points", lambda: ew.count_window("s", 2)),
    ("relative-time", lambda: ew.time_window("s", "-2 seconds", "1 second", bounds="[)")),
    ("spl-tumbling", lambda: ew.spl_tumbling_window("s", ew.spl.count(2), flush_at_end=True)),
]


@pytest.mark.smoke
@pytest.mark.parametrize("window", [w for _, w in FAMILIES], ids=[n for n, _ in FAMILIES])
def test_window_time_is_the_last_tick_of_each_row(spark, window):
    rows = (
        _events(spark)
        .groupBy("k", window())
        .agg(F.sum("v").alias("total"))
        .select("window", F.window_time("window").alias("t"))
        .collect()
    )
    assert rows
    for row in rows:
        assert row.t == row.window.end - datetime.timedelta(microseconds=1), row


def test_a_second_window_groups_by_window_time(spark):
    # Tumbling 2 s windows, then Spark's 10 s windows over their last ticks: the rows of
    # [0, 2), [2, 4), [4, 6), [8, 10) fall in [0, 10), that of [12, 14) in [10, 20).
    first = (
        _events(spark)
        .groupBy("k", ew.tumbling_window("s", "2 seconds", end="e"))
        .agg(F.sum("v").alias("total"))
    )
    second = (
        first.groupBy("k", F.window(F.window_time("window"), "10 seconds"))
        .agg(F.count("*").alias("windows"), F.sum("total").alias("total"))
        .select("k", F.col("window.start").cast("string").alias("start"), "windows", "total")
    )
    assert sorted(tuple(r) for r in second.collect()) == [
        ("a", "2024-01-01 00:00:00", 5, 1 + 1 + 2 * 4),
        ("a", "2024-01-01 00:00:10", 1, 4),
        ("b", "2024-01-01 00:00:00", 1, 8),
    ]


def _messages(spark):
    seconds = [1, 2, 2, 5, 9, 10, 13]
    return spark.createDataFrame(
        [("a", datetime.datetime(2024, 1, 1, 0, 0, s), s) for s in seconds],
        "k string, ts timestamp, v int",
    )


def _anchors(spark, intervals):
    return spark.createDataFrame(
        [
            (i, "a", datetime.datetime(2024, 1, 1, 0, 0, s), datetime.datetime(2024, 1, 1, 0, 0, e))
            for i, (s, e) in enumerate(intervals)
        ],
        "id int, k string, s timestamp, e timestamp",
    )


def _dynamic(spark, intervals, bounds, aggregate):
    return ew.dynamic_window(
        _anchors(spark, intervals), _messages(spark), "ts", "s", "e", on="k", bounds=bounds
    ).agg(aggregate.alias("n"))


@pytest.mark.parametrize(
    "aggregate",
    [lambda: F.count("v"), lambda: F.size(F.collect_list("v"))],
    ids=["sliced", "swept"],
)
def test_half_open_dynamic_windows_are_sparks_windows(spark, aggregate):
    # Anchors [2i, 2i + 2) s with bounds '[)' are Spark's window(ts, '2 seconds'): the same
    # windows, counts and window_time (window.end - 1 µs) wherever a message falls.
    dynamic = (
        _dynamic(spark, [(s, s + 2) for s in range(0, 16, 2)], "[)", aggregate())
        .where("n > 0")
        .select("window", F.window_time("window").alias("t"), "n")
    )
    spark_windows = (
        _messages(spark)
        .groupBy(F.window("ts", "2 seconds"))
        .agg(F.count("v").alias("n"))
        .select("window", F.window_time("window").alias("t"), "n")
    )
    assert sorted(map(tuple, dynamic.collect())) == sorted(map(tuple, spark_windows.collect()))


@pytest.mark.parametrize("bounds", ["[]", "[)", "(]", "()"])
def test_window_time_of_dynamic_windows_is_their_last_instant(spark, bounds):
    # An interval's last instant: its end where it includes the end, else the end less 1 µs (as
    # Spark's window_time). Anchor 0 is [8 s, 10 s]: a second window of 10 s over window_time
    # takes it with 10 s and 13 s in [10 s, 20 s) when the end is included, else in [0 s, 10 s).
    intervals = [(8, 10), (3, 5), (10, 13), (4, 4)]
    last = datetime.timedelta(microseconds=0 if bounds.endswith("]") else 1)
    rows = (
        _dynamic(spark, intervals, bounds, F.count("v"))
        .select("id", "window", F.window_time("window").alias("t"))
        .collect()
    )
    assert sorted((r.id, r.t) for r in rows) == [
        (i, datetime.datetime(2024, 1, 1, 0, 0, e) - last) for i, (_, e) in enumerate(intervals)
    ]
    sql_rows = spark.sql(f"""
        SELECT id, window_time(window) AS t FROM dynamic_window(
            TABLE(SELECT * FROM VALUES (0, 'a', TIMESTAMP '2024-01-01 00:00:08',
                                        TIMESTAMP '2024-01-01 00:00:10') AS a(id, k, s, e)),
            TABLE(SELECT 'a' AS k, TIMESTAMP '2024-01-01 00:00:09' AS ts, 1 AS v),
            'ts', 's', 'e', 'count(v) AS n', 'k', '{bounds}')""").collect()
    assert [tuple(r) for r in sql_rows] == [(0, datetime.datetime(2024, 1, 1, 0, 0, 10) - last)]
    second = (
        _dynamic(spark, intervals[:3], bounds, F.count("v"))
        .groupBy(F.window(F.window_time("window"), "10 seconds"))
        .agg(F.sum("n").alias("n"))
        .select(F.col("window.start").cast("string").alias("start"), "n")
    )
    # Messages at 1, 2, 2, 5, 9, 10, 13 s. '[]': [8, 10] holds 9, 10; [3, 5] 5; [10, 13] 10, 13.
    # '[)': 9; none; 10. '(]': 9, 10; 5; 13. '()': 9; none; none. With window_time 10 s, 5 s,
    # 13 s where the end is included, else 1 µs before each.
    counts = {"[]": {0: 1, 10: 4}, "[)": {0: 1, 10: 1}, "(]": {0: 1, 10: 3}, "()": {0: 1, 10: 0}}
    assert sorted(tuple(r) for r in second.collect()) == [
        (f"2024-01-01 00:00:{s:02d}", n) for s, n in sorted(counts[bounds].items())
    ]


def test_bigint_windows_are_no_time_windows(spark):
    events = spark.createDataFrame([(1, 3)], "s bigint, e bigint")
    with pytest.raises(AnalysisException, match="window_time"):
        events.groupBy(ew.tumbling_window("s", 2, end="e")).count().select(
            F.window_time("window")
        ).schema


def test_window_time_on_a_stream_feeds_a_second_window(spark, tmp_path):
    # Stage 1: hopping windows of 4 s every 2 s (Spark's streaming aggregation); stage 2: Spark's
    # 10 s windows over their window_time. In append mode both emit what the watermark closed.
    source = tmp_path / "in"
    base = datetime.datetime(2024, 1, 1)
    batches = [
        [
            {"k": "a", "ts": (base + datetime.timedelta(seconds=s)).isoformat(), "v": s}
            for s in range(lo, lo + 10)
        ]
        for lo in (0, 10, 20, 30, 40)
    ]
    write_batches(source, batches)
    stream = (
        spark.readStream.schema("k string, ts timestamp, v int")
        .json(str(source))
        .withWatermark("ts", "1 second")
    )
    first = stream.groupBy("k", ew.hopping_window("ts", "4 seconds", "2 seconds")).agg(
        F.sum("v").alias("total")
    )
    second = first.groupBy("k", F.window(F.window_time("window"), "10 seconds")).agg(
        F.sum("total").alias("total")
    )
    run_stream(
        second.select("k", F.col("window.start").alias("start"), "total"),
        tmp_path / "out",
        tmp_path / "checkpoint",
    )
    out = spark.read.parquet(str(tmp_path / "out")).collect()
    batch = spark.read.schema("k string, ts timestamp, v int").json(str(source))
    expected = (
        batch.groupBy("k", ew.hopping_window("ts", "4 seconds", "2 seconds"))
        .agg(F.sum("v").alias("total"))
        .groupBy("k", F.window(F.window_time("window"), "10 seconds"))
        .agg(F.sum("total").alias("total"))
        .select("k", F.col("window.start").alias("start"), "total")
    )
    emitted = sorted(tuple(r) for r in out)
    assert emitted, "the second stage emitted nothing"
    # Every emitted row is the batch composition's; the last ones stay open at the end.
    assert set(emitted) <= set(tuple(r) for r in expected.collect())
    assert len(emitted) >= 3


@pytest.mark.parametrize(
    "second_window",
    [
        lambda: F.window(F.window_time("window"), "10 seconds"),
        lambda: ew.tumbling_window(F.window_time("window"), "10 seconds"),
    ],
    ids=["spark-window", "eventwindows-tumbling"],
)
def test_a_transform_with_state_stage_feeds_a_second_window(spark, tmp_path, second_window):
    # Stage 1: count windows of 3 starts (transformWithState); stage 2 over their window_time,
    # one file per micro-batch. Points at every second 0..49, v = the second: window [s-2, s+1)
    # sums 3s - 3 and has window_time s. The second stage's windows the watermark (48 s) closed
    # are those of [0, 10) .. [30, 40): each once, none dropped as late.
    source = tmp_path / "in"
    base = datetime.datetime(2024, 1, 1)
    write_batches(
        source,
        [
            [
                {"k": "a", "ts": (base + datetime.timedelta(seconds=s)).isoformat(), "v": s}
                for s in range(lo, lo + 10)
            ]
            for lo in (0, 10, 20, 30, 40)
        ],
    )
    stream = (
        spark.readStream.schema("k string, ts timestamp, v int")
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
        .withWatermark("ts", "1 second")
    )
    first = stream.groupBy("k", ew.count_window("ts", 3, output="window")).agg(
        F.sum("v").alias("total")
    )
    second = first.groupBy("k", second_window()).agg(F.sum("total").alias("total"))
    query = run_stream(
        second.select("k", F.col("window.start").cast("string").alias("start"), "total"),
        tmp_path / "out",
        tmp_path / "checkpoint",
    )
    rows = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert rows == [
        ("a", f"2024-01-01 00:00:{lo:02d}", sum(3 * s - 3 for s in range(max(lo, 2), lo + 10)))
        for lo in (0, 10, 20, 30)
    ]
    assert all(
        op["numRowsDroppedByWatermark"] == 0
        for p in query.recentProgress
        for op in p["stateOperators"]
    )


def test_three_stages_across_a_restart(spark, tmp_path):
    # Stage 1: hopping 4 s / 2 s (Spark's streaming aggregation); stage 2: sessions over its
    # window_time (transformWithState, which keeps the watermark on its own time column alone);
    # stage 3: Spark's 20 s windows over theirs. The query stops after three files and restarts
    # from its checkpoint for the other three; what the final watermark closed equals the batch
    # composition of the same stages, each row once.
    source = tmp_path / "in"
    base = datetime.datetime(2024, 1, 1)
    seconds = [s for s in range(0, 60) if s % 7 not in (3, 4)]  # gaps: sessions of a few rows
    files = [
        [
            {"k": "a", "ts": (base + datetime.timedelta(seconds=s)).isoformat(), "v": s}
            for s in seconds
            if lo <= s < lo + 10
        ]
        for lo in range(0, 60, 10)
    ]

    def stages(events):
        first = events.groupBy("k", ew.hopping_window("ts", "4 seconds", "2 seconds")).agg(
            F.sum("v").alias("v")
        )
        second = first.groupBy(
            "k", ew.event_session_window(F.window_time("window"), "1 second")
        ).agg(F.sum("v").alias("v"))
        return (
            second.groupBy("k", F.window(F.window_time("window"), "20 seconds"))
            .agg(F.sum("v").alias("v"), F.count("*").alias("sessions"))
            .select("k", F.col("window.start").cast("string").alias("start"), "v", "sessions")
        )

    def run():
        stream = (
            spark.readStream.schema("k string, ts timestamp, v int")
            .option("maxFilesPerTrigger", 1)
            .json(str(source))
            .withWatermark("ts", "1 second")
        )
        run_stream(stages(stream), tmp_path / "out", tmp_path / "checkpoint")

    write_batches(source, files[:3])
    run()
    write_batches(source, files[3:], first_mtime=1_700_000_003)
    run()
    emitted = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    batch = spark.read.schema("k string, ts timestamp, v int").json(str(source))
    expected = sorted(tuple(r) for r in stages(batch).collect())
    # The watermark ends below 58 s (the last event at 59 s, 1 s of delay, passed on by each
    # stage): the 20 s windows ending by then are closed and emitted, the later two are open.
    assert emitted == expected[:2] and len(expected) == 4, (emitted, expected)


@pytest.mark.skipif(
    pyspark.__version__.startswith("4.0."), reason="dynamic windows on streams need Spark 4.1"
)
def test_window_time_of_dynamic_windows_on_a_stream_feeds_a_second_window(spark, tmp_path):
    # Stage 1: static anchors [2i s, 2i + 2 s] over a stream of a message a second (issue 43,
    # item 3); stage 2: Spark's 4 s windows over their window_time, the intervals' ends. The
    # watermark ends at 18 s (the last message at 19 s, 1 s of delay): the second stage's windows
    # ending by then are emitted, each once, as the batch composition gives them.
    source = tmp_path / "in"
    base = datetime.datetime(2024, 1, 1)
    write_batches(
        source,
        [
            [
                {"k": "a", "ts": (base + datetime.timedelta(seconds=s)).isoformat(), "v": s}
                for s in range(lo, lo + 5)
            ]
            for lo in range(0, 20, 5)
        ],
    )
    anchors = spark.createDataFrame(
        [
            (
                i,
                "a",
                base + datetime.timedelta(seconds=2 * i),
                base + datetime.timedelta(seconds=2 * i + 2),
            )
            for i in range(10)
        ],
        "id int, k string, s timestamp, e timestamp",
    )

    def stages(messages):
        first = ew.dynamic_window(anchors, messages, "ts", "s", "e", on="k").agg(
            F.sum("v").alias("v")
        )
        return (
            first.groupBy("k", F.window(F.window_time("window"), "4 seconds"))
            .agg(F.sum("v").alias("v"), F.count("*").alias("anchors"))
            .select("k", F.col("window.start").alias("start"), "v", "anchors")
        )

    stream = (
        spark.readStream.schema("k string, ts timestamp, v int")
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
        .withWatermark("ts", "1 second")
    )
    query = run_stream(stages(stream), tmp_path / "out", tmp_path / "checkpoint")
    emitted = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    batch = spark.read.schema("k string, ts timestamp, v int").json(str(source))
    expected = sorted(tuple(r) for r in stages(batch).collect())
    # The anchors' window_time is their end, 2 s to 20 s: [0 s, 4 s) holds the anchor ending at
    # 2 s, [4 s, 8 s) those ending at 4 s and 6 s, and so on to [20 s, 24 s).
    assert [(r[1].second, r[3]) for r in expected] == [
        (0, 1),
        (4, 2),
        (8, 2),
        (12, 2),
        (16, 2),
        (20, 1),
    ]
    assert emitted == [r for r in expected if r[1].second + 4 <= 18]
    assert all(
        op["numRowsDroppedByWatermark"] == 0
        for p in query.recentProgress
        for op in p["stateOperators"]
    )
