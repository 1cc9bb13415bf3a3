"""Update mode on streams: the windows whose rows are known while open (hopping and tumbling
windows on either route, relative-time windows) emit, in each micro-batch, the current version of
every row whose result it changed, open rows too, and the last version of each row is append
mode's row and the batch query's; the families whose rows exist only once they close emit append
mode's rows. Random streams with late rows, across a restart from the checkpoint."""

import random
from collections import Counter, defaultdict
from datetime import datetime

import pytest
from pyspark.sql import functions as F

import eventwindows as ew
from harness import plain, second, write_batches

SCHEMA = "k string, ts timestamp, v bigint"
DELAY = 2
"""The watermark's delay, in seconds."""


def random_stream(rng, batches=4, events=5, reach=5):
    """Micro-batches of events (k, second, v), one file each: the on-time events after the
    batch's watermark (the latest second of the earlier batches minus DELAY), distinct per key;
    from the third batch on, late ones at least `reach` seconds behind the previous batch's
    watermark, in no window still open, which both routes drop. Returns the batches and the
    on-time events of each."""
    files, on_time, used = [], [], set()
    latest, marks = None, []
    for b in range(batches):
        mark = None if latest is None else latest - DELAY
        marks.append(mark)
        lo = 0 if mark is None else mark + 1
        kept = []
        for _ in range(events):
            k, t = rng.choice("ab"), rng.randint(lo, lo + 7)
            if (k, t) not in used:
                used.add((k, t))
                kept.append((k, t, rng.randint(1, 99)))
        late = []
        if b >= 2 and marks[b - 1] - reach - 1 >= 0:
            late = [(rng.choice("ab"), rng.randint(0, marks[b - 1] - reach - 1), -1)]
        files.append(kept + late)
        on_time.append(kept)
        latest = max([t for _, t, _ in kept] + ([] if latest is None else [latest]))
    return files, on_time


def write_events(source, batches, first_mtime=1_700_000_000):
    """Micro-batches of events (k, second of 2024-01-01 00:00, v), a JSON file each."""
    write_batches(
        source,
        [[{"k": k, "ts": second(t), "v": v} for k, t, v in batch] for batch in batches],
        first_mtime,
    )


def hopping(events):
    return events.groupBy("k", ew.hopping_window("ts", "4 seconds", "2 seconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )


def tumbling_in_order(events):
    # Order-sensitive aggregates: transformWithState.
    return events.groupBy("k", ew.tumbling_window("ts", "3 seconds")).agg(
        F.count("*").alias("n"), F.collect_list("v").alias("vs")
    )


def relative(events):
    return events.groupBy("k", ew.time_window("ts", "-2 seconds", "1 second")).agg(
        F.count("*").alias("n"), F.collect_list("v").alias("vs")
    )


def seconds(text):
    """The whole seconds from 2024-01-01 00:00 to a timestamp as a string, rounded down."""
    return (datetime.fromisoformat(text) - datetime(2024, 1, 1)) // datetime.resolution // 10**6


# Each case: the query, whether it runs on transformWithState, and whether its window (start and
# end in seconds) holds an event at second t (a relative-time window: the anchor's messages in
# [start - 2 s, start + 1 s]).
CASES = {
    "hopping, Spark's aggregation": (hopping, False, lambda s, e, t: s <= t < e),
    "tumbling, transformWithState": (tumbling_in_order, True, lambda s, e, t: s <= t < e),
    "relative time, transformWithState": (relative, True, lambda s, e, t: s - 2 <= t <= s + 1),
}


def rows_of(frame):
    """The rows of a windowed frame as (k, window start, window end, aggregates...)."""
    return frame.selectExpr(
        "k", "string(window.start) AS start", "string(window.end) AS end", *frame.columns[2:]
    )


def run(windowed, checkpoint, mode, emitted):
    """Runs the streaming frame in `mode` over every file its source has, appending each
    micro-batch's rows to `emitted` as (batch, row)."""

    def collect(batch, batch_id):
        emitted.extend((batch_id, plain(r)) for r in batch.collect())

    query = (
        rows_of(windowed)
        .writeStream.outputMode(mode)
        .foreachBatch(collect)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()


def stream_of(spark, source, window):
    return window(
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
        .withWatermark("ts", f"{DELAY} seconds")
    )


def batch_answer(spark, window, events):
    frame = spark.createDataFrame(
        [(k, second(t), v) for k, t, v in events], "k string, ts string, v bigint"
    ).selectExpr("k", "timestamp(ts) AS ts", "v")
    return {r[:3]: plain(r) for r in rows_of(window(frame)).collect()}


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("case", CASES)
def test_update_mode_emits_open_rows_whose_result_changed(spark, tmp_path, case):
    window, on_transform_with_state, holds = CASES[case]
    files, on_time = random_stream(random.Random(f"update-{case}"))
    source = tmp_path / "source"
    write_events(source, files[:3])
    plan = stream_of(spark, source, window)
    # The route is the one the case names.
    assert (
        "TransformWithState" in plan._jdf.queryExecution().analyzed().toString()
    ) == on_transform_with_state

    # Update mode, stopped after three micro-batches and restarted from the checkpoint; the late
    # rows come after the restart.
    updates = []
    run(plan, tmp_path / "update", "update", updates)
    write_events(source, files[3:], first_mtime=1_700_000_003)
    run(stream_of(spark, source, window), tmp_path / "update", "update", updates)
    appended = []
    run(stream_of(spark, source, window), tmp_path / "append", "append", appended)

    versions = defaultdict(list)
    for _, row in sorted(updates, key=lambda u: u[0]):
        versions[row[:3]].append(row)
    last = {identity: rows[-1] for identity, rows in versions.items()}
    expected = batch_answer(spark, window, [e for batch in on_time for e in batch])
    # The last version of every row is the batch query's over the on-time events, and append
    # mode's for the rows it emitted (those the watermark closed).
    assert last == expected
    closed = {row[:3]: row for _, row in appended}
    assert closed and all(last[identity] == row for identity, row in closed.items())
    # Rows still open at the end were emitted too.
    assert set(last) - set(closed)
    # A row is emitted only in a micro-batch that brought it an event, with a new result.
    for identity, rows in versions.items():
        k, s, e = identity[0], seconds(identity[1]), seconds(identity[2])
        brought = sum(any(ek == k and holds(s, e, t) for ek, t, _ in batch) for batch in on_time)
        assert len(rows) <= brought, (identity, rows)
        assert all(a != b for a, b in zip(rows, rows[1:])), (identity, rows)


@pytest.mark.smoke
def test_update_mode_in_a_memory_table_emits_open_rows(spark, tmp_path):
    # The memory sink is one of Spark's DSv2 sinks, foreachBatch a DSv1 one: both tell the
    # windows the query's output mode.
    source = tmp_path / "source"
    write_events(source, [[("a", t, t) for t in (0, 1, 5)]])
    query = (
        rows_of(stream_of(spark, source, relative))
        .writeStream.outputMode("update")
        .format("memory")
        .queryName("ew_update_relative")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    rows = spark.table("ew_update_relative").selectExpr("substr(start, 18)", "n", "vs").collect()
    # The watermark ends at 00:00:03: the window of the message at 5 s is open, yet emitted.
    assert sorted(tuple(r) for r in rows) == [("00", 2, [0, 1]), ("01", 2, [0, 1]), ("05", 1, [5])]


def test_a_family_whose_rows_exist_once_closed_emits_append_rows_in_update_mode(spark, tmp_path):
    files, _ = random_stream(random.Random(3))
    source = tmp_path / "source"
    write_events(source, files)

    def sessions(events):
        return events.groupBy("k", ew.event_session_window("ts", "2 seconds")).agg(
            F.count("*").alias("n"), F.collect_list("v").alias("vs")
        )

    emitted = {}
    for mode in ("update", "append"):
        rows = []
        run(stream_of(spark, source, sessions), tmp_path / mode, mode, rows)
        emitted[mode] = Counter(row for _, row in rows)
    assert emitted["update"] and emitted["update"] == emitted["append"]
