"""Dynamic windows on streams (issue 33, item 4): `dynamic_window` with the messages as a stream
and the anchors as a static DataFrame or as a stream. An anchor's row is emitted once the
watermark passes its interval's end, equal to the batch query's row over the rows Spark did not
drop as late; a restart from the checkpoint loses and repeats nothing; state keeps only what open
anchors can still need. In update mode every anchor's row is emitted as it changes, open ones
too, a static anchor that no message reaches included. A bad anchor fails the query as on a
batch DataFrame."""

import datetime
import random

import pyspark
import pytest
from pyspark.errors import AnalysisException, StreamingQueryException
from pyspark.sql import functions as F

import eventwindows as ew
from harness import plain, run_stream, write_batches

BASE = datetime.datetime(2024, 1, 1)
DELAY_MS = 1500
LOOKBACK_MS = 2500
"""How long before its own time `t` (a column of the anchors' files) an anchor's interval starts
in the test of a stream of anchors with a lookback."""
MESSAGES = "k string, ts timestamp, v int"
ANCHORS = "id int, k string, s timestamp, e timestamp"


def _at(ms):
    return (BASE + datetime.timedelta(milliseconds=ms)).isoformat()


def _random_batches(seed, anchor_stream, n_batches=6, per_batch=(8, 4), lookback=0):
    """Micro-batches of messages (k, ms, v) and of anchors (id, k, start ms, end ms) on a 100 ms
    grid (ties), each up to 3.5 s behind its batch's second, so that some are late; the late rows
    and Spark's final watermark (ms). A streamed anchor's own time is its start plus `lookback`
    (ms): the time drawn, and what it is late by.

    Spark drops a row at or before the watermark of the batch before its own (the smallest of
    each stream's latest time minus the delay; an anchor's own time), which is the
    watermark of the data before it or, when batches follow each other with no batch without
    data between them, of the data before the previous batch. Rows that one of those would
    drop and the other not are left out, so whether a row is late does not depend on that.
    """
    rng = random.Random(seed)
    messages, anchors, late = [], [], set()
    latest = []  # After each batch, the latest time so far of each stream.

    def watermark(batches_before):
        if batches_before < 1:
            return float("-inf")
        return min(latest[batches_before - 1]) - DELAY_MS

    for b in range(n_batches):
        strict, lax = watermark(b), watermark(b - 1)

        def time():
            while True:
                t = (b * 1000 + rng.randint(-3500, 600)) // 100 * 100
                if t > strict or t <= lax:
                    return t

        messages.append(
            [(rng.choice("ab"), time(), rng.randint(0, 20)) for _ in range(per_batch[0])]
        )
        batch = []
        for _ in range(per_batch[1]):
            s = time() - lookback if anchor_stream else rng.randint(-20, 60) * 100
            batch.append(
                (
                    len(batch) + 100 * b,
                    rng.choice("ab"),
                    s,
                    s + rng.choice([0, 100, 700, 1500, 3000]),
                )
            )
        anchors.append(batch)
        late |= {m for m in messages[-1] if m[1] <= strict}
        if anchor_stream:
            late |= {a for a in batch if a[2] + lookback <= strict}
        top = (max(t for _, t, _ in messages[-1]),) + (
            (max(s + lookback for _, _, s, _ in batch),) if anchor_stream else ()
        )
        latest.append(top if not latest else tuple(map(max, latest[-1], top)))
    return messages, anchors, late, watermark(n_batches)


def _windows(anchors, messages, bounds="[]"):
    return (
        ew.dynamic_window(anchors, messages, "ts", "s", "e", on="k", bounds=bounds)
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs"))
        .select(
            "id",
            "k",
            F.col("window.start").alias("start"),
            F.col("window.end").alias("end"),
            "n",
            "total",
            "vs",
        )
    )


def _closed(rows, watermark_ms, bounds, lookback=0):
    """The rows whose anchor's close time (the later of its own time, its start plus `lookback`
    ms, and its interval's last instant) the final watermark has passed."""
    last = datetime.timedelta(microseconds=0 if bounds.endswith("]") else 1)
    horizon = BASE + datetime.timedelta(milliseconds=watermark_ms)
    own = datetime.timedelta(milliseconds=lookback)
    return [r for r in rows if max(r.start + own, r.end - last) <= horizon]


def _rows(frame):
    return sorted((r.id, r.k, r.start, r.end, r.n, r.total, tuple(r.vs)) for r in frame)


def _static_frame(spark, rows, schema):
    return spark.createDataFrame(
        [
            (
                i,
                k,
                BASE + datetime.timedelta(milliseconds=s),
                BASE + datetime.timedelta(milliseconds=e),
            )
            for i, k, s, e in rows
        ],
        schema,
    )


def _message_frame(spark, rows):
    return spark.createDataFrame(
        [(k, BASE + datetime.timedelta(milliseconds=t), v) for k, t, v in rows], MESSAGES
    )


def _run_in_two_parts(spark, tmp_path, messages, anchors, frame):
    """Writes the first half of the micro-batches, runs the query `frame(sources)` to the end,
    then the rest from the same checkpoint; returns the rows written."""
    _in_two_parts(
        tmp_path,
        messages,
        anchors,
        frame,
        lambda windows: run_stream(windows, tmp_path / "out", tmp_path / "checkpoint"),
    )
    return _rows(spark.read.parquet(str(tmp_path / "out")).collect())


def _in_two_parts(tmp_path, messages, anchors, frame, run):
    """Writes the first half of the micro-batches, calls `run` on the query `frame(sources)`,
    then writes the rest and calls it again (from the same checkpoint)."""
    half = len(messages) // 2
    sources = {"messages": tmp_path / "messages", "anchors": tmp_path / "anchors"}
    for part in (slice(0, half), slice(half, None)):
        first = 1_700_000_000 + (part.start or 0)
        write_batches(
            sources["messages"],
            [[{"k": k, "ts": _at(t), "v": v} for k, t, v in b] for b in messages[part]],
            first_mtime=first,
        )
        if anchors is not None:
            write_batches(
                sources["anchors"],
                [
                    [
                        {"id": i, "k": k, "s": _at(s), "e": _at(e), "t": _at(s + LOOKBACK_MS)}
                        for i, k, s, e in b
                    ]
                    for b in anchors[part]
                ],
                first_mtime=first,
            )
        run(frame(sources))


def _stream(spark, folder, schema, time, delay=f"{DELAY_MS} milliseconds"):
    return (
        spark.readStream.schema(schema)
        .option("maxFilesPerTrigger", 1)
        .json(str(folder))
        .withWatermark(time, delay)
    )


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize(
    "seed,bounds", [pytest.param(1, "[]", marks=pytest.mark.smoke), (2, "[)"), (3, "(]")]
)
def test_a_stream_of_messages_and_static_anchors_give_the_batch_rows(spark, tmp_path, seed, bounds):
    messages, anchor_batches, late, watermark = _random_batches(seed, anchor_stream=False)
    anchors = [a for batch in anchor_batches for a in batch]
    kept = [m for batch in messages for m in batch if m not in late]
    assert late, "no late message"
    static = _static_frame(spark, anchors, ANCHORS)
    if pyspark.__version__.startswith("4.0."):
        # Spark 4.0's transformWithState takes one event-time column only: a clear error early.
        (tmp_path / "messages").mkdir()
        with pytest.raises(
            AnalysisException,
            match="anchor_window: on a streaming DataFrame needs Spark 4.1 or later",
        ):
            _windows(static, _stream(spark, tmp_path / "messages", MESSAGES, "ts"), bounds)
        return

    def query(sources):
        return _windows(static, _stream(spark, sources["messages"], MESSAGES, "ts"), bounds)

    streamed = _run_in_two_parts(spark, tmp_path, messages, None, query)
    batch = _windows(static, _message_frame(spark, kept), bounds).collect()
    expected = _rows(_closed(batch, watermark, bounds))
    assert expected and len(expected) < len(anchors), "every anchor or none closed"
    assert streamed == expected


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("seed", [4])
def test_streams_of_messages_and_of_anchors_give_the_batch_rows(spark, tmp_path, seed):
    messages, anchors, late, watermark = _random_batches(seed, anchor_stream=True)
    kept_messages = [m for batch in messages for m in batch if m not in late]
    kept_anchors = [a for batch in anchors for a in batch if a not in late]
    assert len(kept_anchors) < sum(map(len, anchors)), "no late anchor"

    def query(sources):
        return _windows(
            _stream(spark, sources["anchors"], ANCHORS, "s"),
            _stream(spark, sources["messages"], MESSAGES, "ts"),
        )

    streamed = _run_in_two_parts(spark, tmp_path, messages, anchors, query)
    batch = _windows(
        _static_frame(spark, kept_anchors, ANCHORS), _message_frame(spark, kept_messages)
    ).collect()
    expected = _rows(_closed(batch, watermark, "[]"))
    assert expected and len(expected) < len(kept_anchors), "every anchor or none closed"
    assert streamed == expected


@pytest.mark.skipif(pyspark.__version__.startswith("4.0."), reason="needs Spark 4.1 (see docs)")
def test_a_stream_of_anchors_starting_before_their_time_gives_the_batch_rows(spark, tmp_path):
    # Anchors whose interval starts 2.5 s before their own time t (the column with the watermark),
    # `t - INTERVAL 2.5 SECONDS`: late only when t is, and then every other one gets the batch
    # query's row (issue 43, item 4).
    messages, anchors, late, watermark = _random_batches(
        6, anchor_stream=True, lookback=LOOKBACK_MS
    )
    kept_messages = [m for batch in messages for m in batch if m not in late]
    kept_anchors = [a for batch in anchors for a in batch if a not in late]
    assert len(kept_anchors) < sum(map(len, anchors)), "no late anchor"
    start = F.col("t") - F.expr(f"INTERVAL {LOOKBACK_MS / 1000} SECONDS")

    def windows(anchor_frame, message_frame):
        return (
            ew.dynamic_window(anchor_frame, message_frame, "ts", start, "e", on="k")
            .agg(
                F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs")
            )
            .select(
                "id",
                "k",
                F.col("window.start").alias("start"),
                F.col("window.end").alias("end"),
                "n",
                "total",
                "vs",
            )
        )

    def query(sources):
        return windows(
            _stream(spark, sources["anchors"], ANCHORS + ", t timestamp", "t"),
            _stream(spark, sources["messages"], MESSAGES, "ts"),
        )

    streamed = _run_in_two_parts(spark, tmp_path, messages, anchors, query)
    static = spark.createDataFrame(
        [
            (
                i,
                k,
                BASE + datetime.timedelta(milliseconds=s),
                BASE + datetime.timedelta(milliseconds=e),
                BASE + datetime.timedelta(milliseconds=s + LOOKBACK_MS),
            )
            for i, k, s, e in kept_anchors
        ],
        ANCHORS + ", t timestamp",
    )
    batch = windows(static, _message_frame(spark, kept_messages)).collect()
    expected = _rows(_closed(batch, watermark, "[]", LOOKBACK_MS))
    assert expected and len(expected) < len(kept_anchors), "every anchor or none closed"
    assert streamed == expected


def test_update_mode_emits_every_anchor_as_it_changes_open_ones_too(spark, tmp_path):
    # Static anchors, one of them of a key that no message has; a restart from the checkpoint.
    messages, anchor_batches, late, watermark = _random_batches(5, anchor_stream=False, n_batches=4)
    anchors = [a for batch in anchor_batches for a in batch] + [(999, "z", 0, 100)]
    kept = [m for batch in messages for m in batch if m not in late]
    assert late, "no late message"
    static = _static_frame(spark, anchors, ANCHORS)
    updates = []

    def run(windows):
        def collect(rows, batch_id):
            updates.extend((batch_id, plain(r)) for r in rows.collect())

        query = (
            windows.writeStream.outputMode("update")
            .foreachBatch(collect)
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()

    _in_two_parts(
        tmp_path,
        messages,
        None,
        lambda sources: _windows(static, _stream(spark, sources["messages"], MESSAGES, "ts")),
        run,
    )
    versions = {}
    for _, row in sorted(updates, key=lambda u: u[0]):
        versions.setdefault(row[0], []).append(row)
    batch = _windows(static, _message_frame(spark, kept)).collect()
    # Every anchor's last version is the batch query's row; the anchor no message reaches too.
    assert sorted(rows[-1] for rows in versions.values()) == _rows(batch)
    assert versions[999][-1][4] == 0
    # Rows are emitted while open: anchors open at the end, and anchors emitted before they
    # changed; each version is a change.
    assert len(_closed(batch, watermark, "[]")) < len(batch)
    assert any(len(rows) > 1 for rows in versions.values())
    assert all(a != b for rows in versions.values() for a, b in zip(rows, rows[1:]))


def test_an_anchor_without_a_start_fails_the_stream_naming_it(spark, tmp_path):
    # Its sort time would be the line's start, which Spark drops as late: it is checked first.
    write_batches(tmp_path / "messages", [[{"k": "a", "ts": _at(1000), "v": 1}]])
    write_batches(
        tmp_path / "anchors",
        [
            [
                {"id": 17, "k": "a", "s": None, "e": _at(2000)},
                {"id": 18, "k": "a", "s": _at(0), "e": _at(2000)},
            ]
        ],
    )
    windows = _windows(
        _stream(spark, tmp_path / "anchors", ANCHORS, "s"),
        _stream(spark, tmp_path / "messages", MESSAGES, "ts"),
    )
    with pytest.raises(StreamingQueryException) as info:
        run_stream(windows, tmp_path / "out", tmp_path / "checkpoint")
    line = next(x for x in str(info.value).splitlines() if "NULL start or end" in x)
    # The batch query's error: the function, the anchor by its own columns.
    assert "anchor_window: the anchor (id=17, k=a, s=null" in line and "__ew_" not in line, line


@pytest.mark.slow  # what the state keeps (memory)
def test_the_state_keeps_only_what_open_anchors_can_still_need(spark, tmp_path):
    # Messages each second from 1 s to 10 s in keys a and b, in two micro-batches; the
    # watermark ends at 9 s. Anchors of a: [2 s, 3 s] (emitted) and [7 s, 20 s] (open); b has
    # none.
    seconds = range(1, 11)
    messages = [
        [(k, t * 1000, t) for k in "ab" for t in seconds if t <= 5],
        [(k, t * 1000, t) for k in "ab" for t in seconds if t > 5],
    ]
    static = _static_frame(spark, [(1, "a", 2000, 3000), (2, "a", 7000, 20000)], ANCHORS)

    def query(sources):
        return _windows(static, _stream(spark, sources["messages"], MESSAGES, "ts", "1 second"))

    rows = _run_in_two_parts(spark, tmp_path, messages, None, query)
    assert [r[:1] + r[4:] for r in rows] == [(1, 2, 5, (2, 3))]
    kept = (
        spark.read.format("statestore")
        .option("path", str(tmp_path / "checkpoint"))
        .option("stateVarName", "events")
        .load()
        .groupBy("key.k")
        .count()
        .collect()
    )
    # a: the open anchor and the messages from its start on (7 s to 10 s); b: its message after
    # the watermark (10 s), which a later firing drops; every other message is gone.
    assert sorted(tuple(r) for r in kept) == [("a", 5), ("b", 1)]


def test_what_stays_unsupported_is_an_analysis_error_naming_the_function(spark, tmp_path):
    write_batches(tmp_path / "messages", [[{"k": "a", "ts": _at(0), "v": 1}]])
    write_batches(tmp_path / "anchors", [[{"id": 1, "k": "a", "s": _at(0), "e": _at(0)}]])
    unwatermarked = spark.readStream.schema(MESSAGES).json(str(tmp_path / "messages"))
    static_anchors = _static_frame(spark, [(1, "a", 0, 0)], ANCHORS)
    with pytest.raises(
        AnalysisException,
        match="anchor_window: on a streaming DataFrame the "
        "messages' time column ts needs an event-time",
    ):
        _windows(static_anchors, unwatermarked)
    anchors = _stream(spark, tmp_path / "anchors", ANCHORS, "s")
    with pytest.raises(
        AnalysisException,
        match="anchor_window: on a streaming DataFrame the messages must be a stream",
    ):
        _windows(anchors, _message_frame(spark, [("a", 0, 1)]))
    # Complete mode: Spark's own error, as for every window on transformWithState. Spark raises
    # it as it resolves the query's write (ResolveWriteToStream), before any rule of ours runs.
    windows = _windows(static_anchors, _stream(spark, tmp_path / "messages", MESSAGES, "ts"))
    with pytest.raises(AnalysisException, match="STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"):
        windows.writeStream.format("memory").queryName("ew_dynamic_complete").outputMode(
            "complete"
        ).start()


def _alarms(seconds, start):
    """Messages each second in 0..seconds-1 (v = the second), and alarms at the odd seconds from
    3 s on, a file a second for each stream; the alarms' columns `id`, `k`, `t` (the alarm's
    time) and `s`, the second `start(t)`. With 2 s of delay, Spark drops the rows at or before
    t - 4 s (or t - 3 s) from the file of second t."""
    messages = [[("a", t * 1000, t)] for t in range(seconds)]
    alarms = [
        [(t, "a", start(t) * 1000, t * 1000)] if t % 2 and t >= 3 else [] for t in range(seconds)
    ]
    return messages, alarms


def _run_alarms(spark, tmp_path, messages, alarms, frame):
    """Writes the files and runs `frame(alarm stream, message stream)` (2 s of watermark delay
    on `t` and `ts`) to the end; returns the query and the rows written."""
    write_batches(
        tmp_path / "messages", [[{"k": k, "ts": _at(t), "v": v} for k, t, v in b] for b in messages]
    )
    write_batches(
        tmp_path / "alarms",
        [[{"id": i, "k": k, "s": _at(s), "t": _at(t)} for i, k, s, t in b] for b in alarms],
    )
    query = run_stream(
        frame(
            _stream(
                spark,
                tmp_path / "alarms",
                "id int, k string, s timestamp, t timestamp",
                "t",
                "2 seconds",
            ),
            _stream(spark, tmp_path / "messages", MESSAGES, "ts", "2 seconds"),
        ),
        tmp_path / "out",
        tmp_path / "checkpoint",
    )
    return query, sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())


def _alarm_windows(anchors, messages, start, **options):
    return (
        ew.dynamic_window(anchors, messages, "ts", start, "t", on="k", **options)
        .agg(F.count("*").alias("n"), F.collect_list("v").alias("vs"))
        .select("id", F.col("window.start").alias("start"), "n", "vs")
    )


@pytest.mark.skipif(pyspark.__version__.startswith("4.0."), reason="needs Spark 4.1 (see docs)")
def test_anchors_asking_for_the_time_before_them_are_not_late(spark, tmp_path):
    # Alarms at t asking for [t - 5 s, t] (issue 43, item 4): with 2 s of watermark delay each
    # arrives when the watermark is t - 4 s, after its interval's start, but before its own time,
    # so it is on time; the lookback, 5 s, is derived from the start. The final watermark is 7 s
    # (the last message at 9 s): every alarm up to 7 s gets the batch query's row.
    messages, alarms = _alarms(10, lambda t: t - 5)
    start = F.col("t") - F.expr("INTERVAL 5 SECONDS")
    query, rows = _run_alarms(
        spark, tmp_path, messages, alarms, lambda a, m: _alarm_windows(a, m, start)
    )
    frames = (
        _static_frame(spark, [a for b in alarms for a in b], ANCHORS.replace(" e ", " t ")),
        _message_frame(spark, [m for b in messages for m in b]),
    )
    batch = sorted(tuple(r) for r in _alarm_windows(*frames, start).collect())
    assert [r[0] for r in batch] == [3, 5, 7, 9]
    assert rows == batch[:-1]
    assert all(
        op["numRowsDroppedByWatermark"] == 0
        for p in query.recentProgress
        for op in p["stateOperators"]
    )
    # The state: what an alarm still to come (after 7 s) can ask for, the messages after
    # 7 s - 5 s (3 s to 9 s), and the open alarm at 9 s.
    kept = (
        spark.read.format("statestore")
        .option("path", str(tmp_path / "checkpoint"))
        .option("stateVarName", "events")
        .load()
        .count()
    )
    assert kept == 7 + 1


@pytest.mark.skipif(pyspark.__version__.startswith("4.0."), reason="needs Spark 4.1 (see docs)")
def test_a_declared_lookback_keeps_the_messages_of_anchors_to_come(spark, tmp_path):
    # Alarms whose start is a column of their own (t - 4 s), with a watermark on t: the lookback
    # cannot be derived from `s`, so it is declared (5 s); without it the query is refused.
    messages, alarms = _alarms(10, lambda t: t - 4)

    def frame(anchors, stream):
        return _alarm_windows(anchors, stream, "s", lookback="5 seconds")

    with pytest.raises(
        AnalysisException,
        match="anchor_window: on a stream of anchors, an anchor"
        " is late once the watermark has passed its own",
    ):
        (tmp_path / "none").mkdir()
        _alarm_windows(
            _stream(spark, tmp_path / "none", "id int, k string, s timestamp, t timestamp", "t"),
            _stream(spark, tmp_path / "none", MESSAGES, "ts"),
            "s",
        ).schema
    query, rows = _run_alarms(spark, tmp_path, messages, alarms, frame)
    anchors = spark.createDataFrame(
        [
            (
                i,
                k,
                BASE + datetime.timedelta(milliseconds=s),
                BASE + datetime.timedelta(milliseconds=t),
            )
            for b in alarms
            for i, k, s, t in b
        ],
        "id int, k string, s timestamp, t timestamp",
    )
    batch = sorted(
        tuple(r)
        for r in frame(anchors, _message_frame(spark, [m for b in messages for m in b])).collect()
    )
    # An alarm's row closes at the later of its start plus the lookback and its end: t + 1 s;
    # the final watermark is 7 s.
    assert rows == [r for r in batch if r[0] + 1 <= 7] and len(rows) == 2
    assert all(
        op["numRowsDroppedByWatermark"] == 0
        for p in query.recentProgress
        for op in p["stateOperators"]
    )
    # An alarm starting more than the lookback before its time would be dropped as late while on
    # time: it fails the query, named.
    write_batches(
        tmp_path / "alarms",
        [[{"id": 99, "k": "a", "s": _at(6000), "t": _at(14000)}]],
        first_mtime=1_800_000_000,
    )
    with pytest.raises(StreamingQueryException) as info:
        _run_alarms(spark, tmp_path, [], [], frame)
    assert "anchor_window: the anchor (id=99, k=a, s=2024-01-01 00:00:06" in str(info.value)
    assert "more than its `lookback` (INTERVAL '0 00:00:05' DAY TO SECOND)" in str(info.value)


def test_a_lookback_is_a_duration_of_at_least_zero_and_nothing_on_a_batch(spark):
    anchors = _static_frame(spark, [(1, "a", 0, 2000)], ANCHORS)
    messages = _message_frame(spark, [("a", 1000, 5), ("a", 3000, 7)])
    with pytest.raises(AnalysisException, match="anchor_window: `lookback` must not be negative"):
        _windows_with(anchors, messages, lookback="-1 second").schema
    # On a batch DataFrame (and with static anchors) there is no anchor still to come.
    assert (
        _windows_with(anchors, messages, lookback="5 seconds").collect()
        == _windows_with(anchors, messages).collect()
    )
    anchors.createOrReplaceTempView("ew_lookback_anchors")
    messages.createOrReplaceTempView("ew_lookback_messages")
    rows = spark.sql("""SELECT id, n FROM dynamic_window(TABLE(ew_lookback_anchors),
        TABLE(ew_lookback_messages), 'ts', 's', 'e', 'count(v) AS n', 'k', '[]',
        INTERVAL 5 SECONDS)""").collect()
    assert [tuple(r) for r in rows] == [(1, 1)]


def _windows_with(anchors, messages, **options):
    return ew.dynamic_window(anchors, messages, "ts", "s", "e", on="k", **options).agg(
        F.count("v").alias("n")
    )
