"""Streaming DataFrames from PySpark: hopping and tumbling windows run as Spark's own streaming
aggregation, the other families (running index windows too) through Spark's transformWithState,
and give the batch query's rows for the windows the watermark has closed."""

import pytest
from pyspark.sql import functions as F

import eventwindows as ew
from harness import second, write_batches


@pytest.fixture
def stream(spark, tmp_path):
    (tmp_path / "events.json").write_text(
        '{"k": "a", "ts": "2024-01-01 00:00:00", "v": 1}\n'
        '{"k": "a", "ts": "2024-01-01 00:00:03", "v": 2}\n'
    )
    return spark.readStream.schema("k string, ts timestamp, v bigint").json(str(tmp_path))


def write_events(source, batches):
    """Micro-batches of events (k, second of 2024-01-01 00:00, v), a JSON file each."""
    write_batches(
        source, [[{"k": k, "ts": second(t), "v": v} for k, t, v in batch] for batch in batches]
    )


def run_to_end(spark, frame, name, tmp_path):
    """Runs the streaming `frame` in append mode into a memory table `name` over every file the
    source has, and returns that table."""
    query = (
        frame.writeStream.format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    return spark.table(name)


def test_a_running_window_on_a_stream_gives_the_batch_rows_it_closed(spark, tmp_path):
    # One file per micro-batch: two keys, ties (a at 2 s, b at 4 s), messages out of order within
    # the delay (a at 1 s, b at 3 s), a late one (b at 0 s, long behind the watermark: dropped).
    source = tmp_path / "source"
    write_events(
        source,
        [
            [("a", 0, 1), ("b", 1, 2), ("a", 2, 3), ("a", 2, 4)],
            [("a", 1, 5), ("b", 4, 6), ("a", 5, 7)],
            [("b", 3, 8), ("b", 4, 9), ("a", 9, 10)],
            [("b", 0, 11), ("a", 20, 12)],
        ],
    )

    def running(events):
        return (
            events.groupBy("k", ew.index_window("ts", None, 0))
            .agg(
                F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs")
            )
            .selectExpr("k", "string(window.start)", "string(window.first)", "n", "total", "vs")
        )

    schema = "k string, ts timestamp, v bigint"
    streamed = run_to_end(
        spark,
        running(
            spark.readStream.schema(schema)
            .option("maxFilesPerTrigger", 1)
            .json(str(source))
            .withWatermark("ts", "2 seconds")
        ),
        "ew_stream_running",
        tmp_path,
    )
    streamed = sorted(tuple(r) for r in streamed.collect())

    # The batch query over the rows Spark kept; the watermark ends at 00:00:18, so every
    # message but the last (20 s) is closed.
    kept = spark.read.schema(schema).json(str(source)).where("v != 11")
    expected = sorted(tuple(r) for r in running(kept).collect() if r[1] < "2024-01-01 00:00:18")
    assert len(expected) == 10
    assert streamed == expected
    # Each window holds every earlier message of its key, across micro-batches.
    assert expected[-1] == ("b", "2024-01-01 00:00:04", "2024-01-01 00:00:01", 4, 25, [2, 8, 6, 9])


@pytest.mark.smoke
def test_overlapping_hopping_windows_on_a_stream_emit_each_closed_window(spark, stream, tmp_path):
    counted = (
        stream.withWatermark("ts", "1 second")
        .groupBy("k", ew.hopping_window("ts", "5 seconds", "1 second"))
        .count()
    )
    rows = (
        run_to_end(spark, counted, "ew_stream_hopping", tmp_path)
        .selectExpr("k", "string(window.start)", "string(window.end)", "count")
        .orderBy("window")
        .collect()
    )
    # Events at 00:00:00 and 00:00:03; the watermark ends at 00:00:02, so of the windows
    # [n, n + 5) only those ending by then are closed: the first event's [-4, 1) and [-3, 2).
    assert [tuple(r) for r in rows] == [
        ("a", "2023-12-31 23:59:56", "2024-01-01 00:00:01", 1),
        ("a", "2023-12-31 23:59:57", "2024-01-01 00:00:02", 1),
    ]


@pytest.mark.smoke
def test_point_events_in_tumbling_windows_run_as_spark_streaming_aggregation(
    spark, stream, tmp_path
):
    counted = (
        stream.withWatermark("ts", "1 second")
        .groupBy("k", ew.tumbling_window("ts", "2 seconds"))
        .count()
    )
    assert counted.columns == ["k", "window", "count"]
    rows = (
        run_to_end(spark, counted, "ew_stream_tumbling", tmp_path)
        .selectExpr("k", "string(window.start)", "string(window.end)", "count")
        .collect()
    )
    # Events at 00:00:00 and 00:00:03; the watermark ends at 00:00:02, which closes [0 s, 2 s)
    # alone.
    assert [tuple(r) for r in rows] == [("a", "2024-01-01 00:00:00", "2024-01-01 00:00:02", 1)]


@pytest.mark.smoke
def test_relative_time_windows_on_a_stream_of_fixed_width_rows(spark, tmp_path):
    # Every column is fixed-width, so Spark's unsafe rows of them fill their buffers exactly:
    # each event must still be kept on its own in the state store (a shared buffer once made
    # every kept event the last one).
    source = tmp_path / "source"
    write_events(source, [[(1, 0, 1), (1, 1, 2), (1, 2, 3), (1, 3, 4)], [(1, 10, 100)]])
    windowed = (
        spark.readStream.schema("k int, ts timestamp, v bigint")
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
        .withWatermark("ts", "1 second")
        .groupBy("k", ew.time_window("ts", "-2 seconds", "0 seconds"))
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    )
    rows = (
        run_to_end(spark, windowed, "ew_stream_time", tmp_path)
        .selectExpr("k", "second(window.start)", "n", "total")
        .orderBy("window")
        .collect()
    )
    # The watermark ends at 00:00:09: the messages at 0-3 s are closed, each with the messages of
    # the 2 s before it; the one at 10 s is not.
    assert [tuple(r) for r in rows] == [(1, 0, 1, 1), (1, 1, 2, 3), (1, 2, 3, 6), (1, 3, 3, 9)]


def minute(t):
    """Minute `t` (a float) of 2024-01-01 00:00, as a stream's JSON gives a timestamp."""
    return f"2024-01-01 00:{int(t):02d}:{round(t % 1 * 60):02d}"


def test_late_rows_count_in_their_open_windows_whatever_the_aggregates(spark, tmp_path):
    # Windows of 5 minutes every minute, a watermark delay of 1 minute; one file per micro-batch.
    # A micro-batch drops a row for a window that ended by the previous micro-batch's watermark
    # (Spark's late-row watermark): 0 for the first two files, 00:08 for the third (00:09 less
    # the delay), 00:08:30 for the last.
    #  - c at 00:06:30 comes before any row is late: [00:02, 00:07) and [00:03, 00:08), which
    #    that micro-batch closes, count it;
    #  - a at 00:07:30 and d at 00:07:45 (a key seen for the first time) are behind the
    #    watermark of 00:08: [00:03, 00:08) has closed, [00:04, 00:09) to [00:07, 00:12) count
    #    them;
    #  - b at 00:02 lies in closed windows only: it counts nowhere.
    source = tmp_path / "source"
    batches = [
        [("a", 1, 1), ("a", 9, 2), ("b", 9, 3)],
        [("a", 9.5, 4), ("c", 6.5, 5)],
        [("a", 7.5, 6), ("d", 7.75, 7), ("b", 2, 8)],
        [("a", 20, 9)],
    ]
    write_batches(
        source, [[{"k": k, "ts": minute(t), "v": v} for k, t, v in batch] for batch in batches]
    )

    def run(grouped, aggregates, name):
        frame = grouped(
            spark.readStream.schema("k string, ts timestamp, v bigint")
            .option("maxFilesPerTrigger", 1)
            .json(str(source))
            .withWatermark("ts", "1 minute")
        ).agg(*aggregates)
        query = (
            frame.writeStream.format("memory")
            .queryName(name)
            .outputMode("append")
            .option("checkpointLocation", str(tmp_path / name))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        dropped = sum(
            op["numRowsDroppedByWatermark"]
            for p in query.recentProgress
            for op in p["stateOperators"]
        )
        rows = spark.table(name).selectExpr(
            "k", "string(window.start)", "n", "sort_array(vs)" if "vs" in frame.columns else "n"
        )
        return sorted(
            tuple(r)[:3] + ((sorted(r[3]),) if "vs" in frame.columns else ())
            for r in rows.collect()
        ), dropped

    count = [F.count("*").alias("n")]
    listed = count + [F.collect_list("v").alias("vs")]
    spark_window = lambda e: e.groupBy("k", F.window("ts", "5 minutes", "1 minute"))
    ours = lambda e: e.groupBy("k", ew.hopping_window("ts", "5 minutes", "1 minute"))
    # Spark's own window(), then ours as Spark's aggregation (count alone) and through
    # transformWithState (collect_list depends on the order of its input).
    expected, expected_dropped = run(spark_window, listed, "ew_late_spark")
    counted, counted_dropped = run(ours, count, "ew_late_counted")
    collected, collected_dropped = run(ours, listed, "ew_late_collected")

    assert counted == [row[:3] for row in expected]
    assert collected == expected
    # The rows worked out by hand, for the keys with late rows.
    by_key = lambda k: [(r[1][11:16], r[2], r[3]) for r in expected if r[0] == k]
    assert by_key("d") == [(f"00:0{m}", 1, [7]) for m in range(4, 8)]
    assert by_key("c") == [(f"00:0{m}", 1, [5]) for m in range(2, 7)]
    # a's late row (6) came after [00:03, 00:08) closed, which a had no other row in.
    assert [r for r in by_key("a") if r[0] in ("00:03", "00:07")] == [("00:07", 3, [2, 4, 6])]
    assert by_key("b") == [(f"00:0{m}", 1, [3]) for m in range(5, 10)]
    # numRowsDroppedByWatermark: Spark's aggregation counts as window() does, a key's row per
    # window closed before its late rows came (b's five windows, a's and d's [00:03, 00:08));
    # transformWithState counts the events that count in no window (b at 00:02).
    assert counted_dropped == expected_dropped == 7
    assert collected_dropped == 1
