"""Temporal, range and ASOF joins on streams (issue 47). A stream joined with a static table:
each micro-batch joined as a batch by the extension's operators, every join type Spark's own
checks allow for stream-static joins, in append and update mode, giving the rows of the batch
join over all input (Spark's own plan of the same SQL, with the RangeJoin rule off), each stream
row's rows in the micro-batch it arrives in; an ASOF join with a stream on its right side
rejected by the project's condition naming the join. Two streams with watermarks: range, temporal
and ASOF joins, each emitted row the batch join's over the accepted rows, once."""

import collections
import datetime
import random
from collections.abc import Callable
from typing import NamedTuple

import pytest
from pyspark.errors import AnalysisException
from test_range_join import BIGINT_MAX, BIGINT_MIN, RULE, random_events

import eventwindows as ew
from harness import run_stream, second, write_batches

SCHEMA = "id int, k int, s bigint, e bigint, v int"


def near_the_ends(rng):
    """Times near both ends of the BIGINT line, and more in the middle."""
    return rng.choice(
        [BIGINT_MIN + rng.randrange(20), BIGINT_MAX - rng.randrange(20)]
        + [rng.randrange(0, 40)] * 3
    )


@pytest.fixture(scope="module")
def event_stream(spark, tmp_path_factory):
    """Random events (id, k, s, e, v) in two micro-batches (one JSON file each, read one per
    trigger), their static table `static_b`, and a function giving a new streaming DataFrame over
    the files (each query its own source) and the batch index of each id."""
    rng = random.Random(47)
    stream_rows = random_events(rng, 60, near_the_ends)
    static_rows = random_events(rng, 50, near_the_ends)
    source = tmp_path_factory.mktemp("stream_joins") / "a"
    batches = [stream_rows[0:30], stream_rows[30:60]]
    columns = ["id", "k", "s", "e", "v"]
    write_batches(source, [[dict(zip(columns, row)) for row in batch] for batch in batches])
    spark.createDataFrame(static_rows, SCHEMA).createOrReplaceTempView("static_b")
    spark.read.schema(SCHEMA).json(str(source)).createOrReplaceTempView("all_a")
    batch_of = {row[0]: i for i, batch in enumerate(batches) for row in batch}

    def stream():
        return spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))

    yield stream, batch_of
    spark.catalog.dropTempView("static_b")
    spark.catalog.dropTempView("all_a")


def run_batches(query_frame, mode, checkpoint):
    """Runs a streaming DataFrame over every file to the end in `mode`, collecting each
    micro-batch's rows apart: a list of (batch id, row tuple)."""
    out = []
    query = (
        query_frame.writeStream.outputMode(mode)
        .foreachBatch(lambda df, batch_id: out.extend((batch_id, tuple(r)) for r in df.collect()))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    return out, query


# Stream-static range joins as users write them: the stream `a` on the side Spark allows for each
# join type (a stream's unmatched rows can be kept, a static side's cannot), with and without
# keys, overlap and point-in-interval conditions; `{a}` is the stream (or, for the batch
# answer, the table of all its rows). Each row: (case, a.id, b.id).
STREAM_STATIC = [
    ("{a} a INNER JOIN static_b b", "a.k = b.k AND a.s < b.e AND b.s < a.e"),
    ("{a} a LEFT JOIN static_b b", "a.k = b.k AND a.s <= b.e AND b.s < a.e AND a.v >= b.v"),
    ("{a} a LEFT SEMI JOIN static_b b", "b.s <= a.s AND a.s < b.e"),
    ("{a} a LEFT ANTI JOIN static_b b", "a.k = b.k AND a.s BETWEEN b.s AND b.e"),
    ("static_b b RIGHT JOIN {a} a", "b.s <= a.s AND a.s < b.e"),
    ("{a} a LEFT JOIN static_b b", "b.s < a.e AND a.s < b.e"),
]


def stream_static_sql(a, cases):
    def b_id(join):
        return "NULL" if "SEMI" in join or "ANTI" in join else "b.id"

    return " UNION ALL ".join(
        f"SELECT {i} AS c, a.id AS a_id, {b_id(join)} AS b_id FROM {join.format(a=a)} ON {on}"
        for i, (join, on) in enumerate(cases)
    )


# Update mode (which a stateless query runs as append) with a stream on each side; in the smoke
# set, run on every Spark line.
@pytest.mark.parametrize(
    "mode, cases",
    [
        ("append", STREAM_STATIC),
        pytest.param("update", [STREAM_STATIC[1], STREAM_STATIC[4]], marks=pytest.mark.smoke),
    ],
)
def test_stream_static_range_joins_give_the_batch_rows_per_micro_batch(
    spark, event_stream, tmp_path, mode, cases
):
    stream, batch_of = event_stream
    stream().createOrReplaceTempView("stream_a")
    try:
        rows, query = run_batches(spark.sql(stream_static_sql("stream_a", cases)), mode, tmp_path)
        plan = query._jsq.explainInternal(False)
    finally:
        spark.catalog.dropTempView("stream_a")
    assert plan.count("RangeJoin ") >= len(cases), plan
    spark.conf.set(RULE, "false")
    try:
        batch = spark.sql(stream_static_sql("all_a", cases))
        assert "RangeJoin" not in batch._jdf.queryExecution().executedPlan().toString()
        expected = collections.Counter(tuple(r) for r in batch.collect())
    finally:
        spark.conf.unset(RULE)
    assert collections.Counter(row for _, row in rows) == expected
    assert all(sum(1 for c, a_id, _ in expected if c == i) > 0 for i in range(len(cases)))
    # Each stream row's rows in the micro-batch that read it.
    assert all(batch_id == batch_of[a_id] for batch_id, (_, a_id, _) in rows)


def test_temporal_and_asof_joins_of_a_stream_and_a_static_table(spark, event_stream, tmp_path):
    """`ew.temporal_join` (left, stream on the left) and `ew.asof_join` (backward with a
    tolerance) of the stream with the static table: the batch joins' rows over all input, which
    test_temporal_join and test_asof_join check against references."""
    stream, batch_of = event_stream
    static_b = spark.table("static_b").withColumnRenamed("id", "b_id").withColumnRenamed("v", "w")
    # Lifetimes ending before they start fail a temporal join (test_temporal_join): left out.
    ordered = "e IS NULL OR s IS NULL OR s <= e"

    def temporal(a):
        return ew.temporal_join(
            a.where(ordered),
            static_b.where(ordered),
            "k",
            "left",
            left_lifetime=("s", "e"),
            right_lifetime=("s", "e"),
        ).select("id", "b_id", "lifetime")

    def asof(a):
        return ew.asof_join(
            a, static_b.select("k", "b_id", "w", static_b.s.alias("t")), "k", "s", "t", tolerance=5
        ).select("id", "b_id", "t")

    for i, join in enumerate([temporal, asof]):
        rows, _ = run_batches(join(stream()), "append", tmp_path / str(i))
        expected = collections.Counter(tuple(r) for r in join(spark.table("all_a")).collect())
        assert collections.Counter(row for _, row in rows) == expected, join.__name__
        assert sum(1 for r in expected if r[1] is not None) > 10, join.__name__
        assert all(batch_id == batch_of[row[0]] for batch_id, row in rows)


def test_an_asof_join_with_a_stream_on_the_right_is_rejected(spark, event_stream):
    """A static left side and a streaming right one: rejected, saying what runs."""
    stream, _ = event_stream
    with pytest.raises(AnalysisException) as info:
        ew.asof_join(spark.table("all_a"), stream(), "k", "s", "s")
    assert info.value.getCondition() == "EVENTWINDOWS_UNSUPPORTED"
    assert "asof_join: the right side is a stream" in str(info.value)
    assert "with the stream on the left and a static table" in str(info.value)


# ---------------------------------------------------------------------------------------------
# Two streams, each with a watermark on its start: Spark's late-row rule (an event at or behind
# the watermark of the micro-batch before is dropped and counted), every pair of accepted events
# once, an outer join's unmatched row once the watermark has passed its end.

EPOCH = datetime.datetime(2024, 1, 1)
DELAYS = {"a": 5, "b": 3}
SIDE_SCHEMA = {
    "a": "id int, k int, s timestamp, e timestamp",
    "b": "bid int, k int, bs timestamp, be timestamp",
}


def random_side(rng, side, n_batches, per_batch):
    """Micro-batches of events (id, k, start second, end second or None): starts around
    20 s x batch, out of order by up to 8 s, some far behind (late), lifetimes of 0 to 30 s,
    a few open-ended."""
    batches, next_id = [], 1000 * (side == "b")
    for i in range(n_batches):
        rows = []
        for _ in range(per_batch):
            start = 20 * i + rng.randrange(-8, 12)
            if rng.random() < 0.1:
                start -= rng.randrange(15, 40)  # behind the watermark
            end = None if rng.random() < 0.05 else start + rng.choice([0, 1, 2, 5, 9, 15, 30])
            rows.append((next_id, rng.randrange(5), start, end))
            next_id += 1
        batches.append(rows)
    return batches


def accepted_and_watermark(batches, runs):
    """What Spark accepts of each side, how many it drops, and the final watermark (s), for the
    micro-batches `runs` (ranges of batch indexes) read by one query started once per run.

    Spark's watermark is the minimum of both sides', each the side's latest start less its delay,
    over the micro-batches before; an operator drops a row at or behind the watermark of the
    micro-batch before its own (so that a chain of operators sees the rows the one before emitted).
    A run ends with a micro-batch without data that moves the watermark on (firing its timers)."""
    used, before, latest = float("-inf"), float("-inf"), {}
    accepted, late = {"a": [], "b": []}, 0
    for run in runs:
        for i in list(run) + [None]:  # None: the micro-batch without data at the end of a run
            for side in ("a", "b") if i is not None else ():
                for row in batches[side][i]:
                    if row[2] > before:
                        accepted[side].append(row)
                    else:
                        late += 1
            before = used
            if i is not None:
                for side in ("a", "b"):
                    latest[side] = max(
                        [latest.get(side, float("-inf"))] + [row[2] for row in batches[side][i]]
                    )
                used = max(used, min(latest[s] - DELAYS[s] for s in ("a", "b")))
    return accepted, used, late


def at(second):
    return None if second is None else EPOCH + datetime.timedelta(seconds=second)


def timed(rows):
    """Events (id, k, start, end) with their seconds as timestamps."""
    return [(i, k, at(s), at(e)) for i, k, s, e in rows]


def side_streams(spark, sources, watermarks=("s", "bs"), delays=DELAYS):
    """The sides `a` and `b` as streams over the directories `sources[side]` (a file a
    micro-batch), with a watermark (`delays`, in seconds) on each column of `watermarks`."""
    streams = []
    for side, start in (("a", "s"), ("b", "bs")):
        stream = (
            spark.readStream.schema(SIDE_SCHEMA[side])
            .option("maxFilesPerTrigger", 1)
            .json(str(sources[side]))
        )
        if start in watermarks:
            stream = stream.withWatermark(start, f"{delays[side]} seconds")
        streams.append(stream)
    return streams


def side_records(side, rows):
    """Events as a side's JSON records."""
    names = SIDE_SCHEMA[side].replace(" int", "").replace(" timestamp", "").split(", ")
    return [
        dict(zip(names, (i, k, str(s), None if e is None else str(e))))
        for i, k, s, e in timed(rows)
    ]


# Random streams against the batch join over the accepted events, one set-up for every join of
# two streams: a case is the join (of two streams, or of two DataFrames of the accepted events)
# and which of the batch join's rows the stream has emitted by the final watermark.


def emitted_once_closed(row, watermark, accepted):
    """Temporal joins: every pair; an unmatched row once the watermark has passed its end
    (`lifetime.end`; NULL, open-ended: never)."""
    if row.id is not None and row.bid is not None:
        return True
    return row.lifetime.end is not None and row.lifetime.end <= at(watermark)


def emitted_once_past(left_end, right_end):
    """Range joins as written: every pair; an unmatched row once the watermark has reached its
    upper bound in the condition, the column `left_end` or `right_end` (NULL: at once, since it
    meets nothing)."""

    def emitted(row, watermark, accepted):
        if row.id is not None and row.bid is not None:
            return True
        end = row[left_end] if row.bid is None else row[right_end]
        return end is None or end <= at(watermark)

    return emitted


def asof_is_final(direction, tolerance, allow_exact):
    """ASOF joins: whether the stream has emitted the left row at `t` by the final `watermark`,
    all its key's accepted right times given (the rule of StreamingAsofJoinProcessor, worked out
    apart from the join's answer, which the batch join gives): backward once the watermark
    reaches `t`; forward once it reaches the first right time from `t` or `t` + tolerance;
    nearest once it reaches `t` and the first of those or `t` + the backward row's distance."""
    tol = float("inf") if tolerance is None else tolerance

    def emitted(row, watermark, accepted):
        t = next(s for i, _, s, _ in accepted["a"] if i == row.id)
        right_times = [s for _, k, s, _ in accepted["b"] if k == row.k]
        forward = min(
            (r for r in right_times if r > t or (allow_exact and r == t)), default=float("inf")
        )
        if direction == "backward":
            return t <= watermark
        if direction == "forward":
            return min(forward, t + tol) <= watermark
        before = max((r for r in right_times if r < t or (allow_exact and r == t)), default=None)
        distance = float("inf") if before is None or t - before > tol else t - before
        return max(t, min(forward, t + distance, t + tol)) <= watermark

    return emitted


def temporal(how):
    def join(a, b):
        return ew.temporal_join(
            a, b, "k", how, left_lifetime=("s", "e"), right_lifetime=("bs", "be")
        )

    return join


OVERLAP = "a.s < b.be AND b.bs < a.e"


def in_sql(join, on, columns="a.id, a.k, a.s, a.e, b.bid, b.bs, b.be"):
    """A join of the sides written in SQL: `a <join> JOIN b ON <on>`."""

    def sql(a, b):
        query = f"SELECT {columns} FROM {{a}} a {join} JOIN {{b}} b ON {on}"
        return a.sparkSession.sql(query, a=a, b=b)

    return sql


def points_in_intervals(a, b):
    """A left join in the DataFrame API, without keys: each start of `a` in the closed intervals
    of `b`."""
    return a.join(b, a.s.between(b.bs, b.be), "left").select(a.id, a.k, a.s, b.bid, b.bs, b.be)


def asof(direction, tolerance, allow_exact):
    seconds = tolerance and datetime.timedelta(seconds=tolerance)

    def join(a, b):
        return ew.asof_join(a, b, "k", "s", "bs", direction, seconds, allow_exact)

    return join


class RandomStreamJoin(NamedTuple):
    join: Callable  # (a, b) -> the join of the two sides, streams or DataFrames
    emitted: Callable  # (batch row, final watermark, accepted events) -> whether emitted by then
    unmatched: str  # the sides ("a", "b") whose unmatched rows the final watermark has closed
    waits: bool  # whether some of the batch join's rows are still waiting at the end


RANDOM_STREAM_JOINS = {
    "temporal inner": RandomStreamJoin(temporal("inner"), emitted_once_closed, "", False),
    "temporal full": RandomStreamJoin(temporal("full"), emitted_once_closed, "ab", True),
    "sql full overlap": RandomStreamJoin(
        in_sql("FULL", f"a.k = b.k AND {OVERLAP}"), emitted_once_past("e", "be"), "ab", True
    ),
    "dataframe left point": RandomStreamJoin(
        points_in_intervals, emitted_once_past("s", "be"), "a", False
    ),
    **{
        f"asof {d} {t} {x}": RandomStreamJoin(asof(d, t, x), asof_is_final(d, t, x), u, True)
        # Without a tolerance a left row with no right row after it (forward), or none at all
        # (nearest), waits for one: no NULLs out.
        for d, t, x, u in [
            ("backward", None, True, "a"),
            ("backward", 4, False, "a"),
            ("forward", None, True, ""),
            ("forward", 4, True, "a"),
            ("nearest", None, False, ""),
            ("nearest", 4, True, "a"),
        ]
    },
}


SMOKE = {"temporal full", "asof backward 4 False"}
"""The cases in the smoke set, run on every Spark line: a temporal and an ASOF join of two
streams."""


@pytest.mark.parametrize(
    "case", [pytest.param(c, marks=[pytest.mark.smoke] * (c in SMOKE)) for c in RANDOM_STREAM_JOINS]
)
def test_random_streams_restarted_give_the_batch_join_of_the_accepted_events(spark, tmp_path, case):
    """A random stream per side (out of order, late rows on both) in two micro-batches, then a
    restart from the checkpoint and two more: the join's rows (Parquet sink, append mode) are the
    batch join's over the accepted events that the final watermark has closed (the case's rule),
    each once; the late rows are counted as dropped. (Inner: the pairs; outer and ASOF: the
    unmatched rows the watermark has closed too, while others still wait at the end.) The joins:
    `temporal_join`, range joins written in SQL (with keys) and in the DataFrame API (without),
    `asof_join`; the batch join is Spark's own plan (the RangeJoin rule off) where it can be."""
    join, emitted, unmatched, waits = RANDOM_STREAM_JOINS[case]
    rng = random.Random(4747)  # the same streams for each case
    batches = {side: random_side(rng, side, 4, 12) for side in ("a", "b")}
    runs = (range(0, 2), range(2, 4))  # a restart from the checkpoint after two
    accepted, watermark, late = accepted_and_watermark(batches, runs)

    sources = {side: tmp_path / side for side in ("a", "b")}
    out, checkpoint, dropped = tmp_path / "out", tmp_path / "checkpoint", 0
    for run in runs:
        for side in ("a", "b"):
            write_batches(
                sources[side],
                [side_records(side, batches[side][i]) for i in run],
                first_mtime=1_700_000_000 + run.start,
            )
        query = run_stream(join(*side_streams(spark, sources)), out, checkpoint)
        assert query.lastProgress["stateOperators"][0]["operatorName"] == "transformWithStateExec"
        dropped += sum(
            p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in query.recentProgress
        )
    streamed = collections.Counter(tuple(r) for r in spark.read.parquet(str(out)).collect())

    spark.conf.set(RULE, "false")  # the batch join as Spark's own plan runs it
    try:
        batch = join(
            *[spark.createDataFrame(timed(accepted[s]), SIDE_SCHEMA[s]) for s in ("a", "b")]
        ).collect()
    finally:
        spark.conf.unset(RULE)
    expected = [r for r in batch if emitted(r, watermark, accepted)]
    assert streamed == collections.Counter(tuple(r) for r in expected)
    assert late >= 2 and dropped == late
    assert sum(1 for r in expected if None not in (r.id, r.bid)) > 5  # pairs
    for side, other in (("a", "bid"), ("b", "id")):
        assert (side in unmatched) == any(r[other] is None for r in expected), side
    assert waits == (len(expected) < len(batch))  # rows the watermark has not closed yet


def test_a_point_in_interval_join_of_two_streams_written_in_sql(spark, tmp_path):
    """A right join written in SQL, points of `a` in intervals of `b`, with watermarks on `a.t`
    and `b.s` (1 second each), worked by hand: in the first micro-batch the point at 1 s meets
    [0, 5); then the watermark is 3 s (b's latest start 4 s less 1), and in the second the point
    at 3 s, which met nothing, is emitted with NULLs, while [7, 9) and [25, 40) meet the points
    at 8 and 30 s as they arrive. (The extra bound is one Spark's optimizer rewrites before
    evaluating it: the operator evaluates it as Spark does.) Without the watermarks Spark's own
    join cannot bound this outer join either: an analysis error naming the start to put one on."""
    write_batches(
        tmp_path / "a",
        [
            [{"k": 1, "t": second(1)}, {"k": 1, "t": second(8)}, {"k": 2, "t": second(3)}],
            [{"k": 1, "t": second(30)}],
        ],
    )
    write_batches(
        tmp_path / "b",
        [
            [{"k": 1, "s": second(0), "e": second(5)}, {"k": 2, "s": second(4), "e": second(6)}],
            [{"k": 1, "s": second(7), "e": second(9)}, {"k": 1, "s": second(25), "e": second(40)}],
        ],
    )
    a = (
        spark.readStream.schema("k int, t timestamp")
        .option("maxFilesPerTrigger", 1)
        .json(str(tmp_path / "a"))
    )
    b = (
        spark.readStream.schema("k int, s timestamp, e timestamp")
        .option("maxFilesPerTrigger", 1)
        .json(str(tmp_path / "b"))
    )
    sql = (
        "SELECT a.k, second(a.t) AS t, second(b.s) AS s FROM {b} b RIGHT JOIN {a} a "
        "ON a.k = b.k AND b.s <= a.t AND a.t < b.e AND a.t > b.s - INTERVAL 1 HOUR"
    )
    joined = spark.sql(sql, a=a.withWatermark("t", "1 second"), b=b.withWatermark("s", "1 second"))
    query = run_stream(joined, tmp_path / "out", tmp_path / "checkpoint")
    assert query.lastProgress["stateOperators"][0]["operatorName"] == "transformWithStateExec"
    assert sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect()) == [
        (1, 1, 0),
        (1, 8, 7),
        (1, 30, 25),
        (2, 3, None),
    ]
    with pytest.raises(AnalysisException) as info:
        spark.sql(sql, a=a, b=b)
    assert info.value.getCondition() == "EVENTWINDOWS_STREAM_JOIN_WITHOUT_WATERMARK"
    assert (
        "RIGHT OUTER range join of two streams: the left side's start b.s is not a column with "
        "an event-time watermark"
    ) in str(info.value)


# ---------------------------------------------------------------------------------------------
# What runs neither as the extension's join of two streams nor as Spark's own stream-stream join:
# an analysis error naming the join and what to use; what Spark's own runs (an inner join on
# keys, without watermarks) stays Spark's.

KEYED_OVERLAP = f"a.k = b.k AND {OVERLAP}"
NOT_WATERMARKED = "EVENTWINDOWS_STREAM_JOIN_WITHOUT_WATERMARK"
NOT_ON_STREAMS = "EVENTWINDOWS_STREAM_JOIN_TYPE"
WATERMARK_MESSAGE = (
    "{join} of two streams: the {side} side's {column} is not a column with an event-time "
    "watermark; put one on it (withWatermark, or WATERMARK in SQL): {reason}"
)

# Each case: the watermarks of the two streams, the join, the condition, the message.
NOT_RUNNING = {
    "sql left join, no watermark on b": (
        ("s",),
        in_sql("LEFT", KEYED_OVERLAP),
        NOT_WATERMARKED,
        WATERMARK_MESSAGE.format(
            join="LEFT OUTER range join",
            side="right",
            column="start b.bs",
            reason="the join pairs each event as it arrives and forgets it (an outer join's "
            "unmatched row out) once the watermark passes its end; without it, Spark's own "
            "stream-stream join does not run this join either (it needs, for an outer join, a "
            "watermark on a join key or a condition that bounds the state",
        ),
    ),
    "sql inner join without keys or watermarks": (
        (),
        in_sql("INNER", OVERLAP),
        NOT_WATERMARKED,
        "INNER range join of two streams: the left side's start a.s is not a column with an "
        "event-time watermark",
    ),
    "sql anti join": (
        ("s", "bs"),
        in_sql("LEFT ANTI", KEYED_OVERLAP, "a.id"),
        NOT_ON_STREAMS,
        "LEFT ANTI range join of two streams: a LEFT ANTI join does not run on two streams: an "
        "anti join's row is known only once no event to come can match it; write it as a left "
        "outer join (a watermark on each side's start) and keep its rows without a match",
    ),
    "sql semi join": (
        ("s", "bs"),
        in_sql("LEFT SEMI", KEYED_OVERLAP, "a.id"),
        NOT_ON_STREAMS,
        "LEFT SEMI range join of two streams: a LEFT SEMI join does not run on two streams",
    ),
    "temporal_join without watermarks": (
        (),
        temporal("inner"),
        NOT_WATERMARKED,
        WATERMARK_MESSAGE.format(
            join="temporal_join",
            side="left",
            column="start `s`",
            reason="the join pairs each event as it arrives and forgets it (an outer join's "
            "unmatched row out) once the watermark passes its end",
        ),
    ),
    "temporal_join left_semi": (
        ("s", "bs"),
        temporal("left_semi"),
        NOT_ON_STREAMS,
        "temporal_join of two streams: a LEFT SEMI join does not run on two streams: the "
        "stream-stream range joins are inner, left, right and full outer; write it as an inner "
        "join (a row per match, a watermark on each side's start), and keep each left row once "
        "with dropDuplicatesWithinWatermark",
    ),
    "asof_join, no watermark on b": (
        ("s",),
        asof("backward", None, True),
        NOT_WATERMARKED,
        WATERMARK_MESSAGE.format(
            join="asof_join",
            side="right",
            column="time column `bs`",
            reason="a left row is emitted once the watermark shows that no nearer right row can "
            "still arrive",
        ),
    ),
}


def empty_sources(tmp_path):
    sources = {side: tmp_path / side for side in ("a", "b")}
    for source in sources.values():
        source.mkdir()
    return sources


@pytest.mark.parametrize("case", NOT_RUNNING)
def test_joins_of_two_streams_that_run_nowhere_fail_at_analysis(spark, tmp_path, case):
    watermarks, join, condition, message = NOT_RUNNING[case]
    with pytest.raises(AnalysisException) as info:
        join(*side_streams(spark, empty_sources(tmp_path), watermarks))
    assert info.value.getCondition() == condition
    assert message in str(info.value)


def start(frame, mode, checkpoint):
    return (
        frame.writeStream.format("memory")
        .queryName("never_started")
        .outputMode(mode)
        .option("checkpointLocation", str(checkpoint))
        .start()
    )


def test_joins_of_two_streams_run_in_append_mode_only(spark, event_stream, tmp_path):
    """Complete or update mode on a join of two streams: the project's condition naming the join,
    when the query starts, before Spark's own checks (which would let update mode through, and
    complete mode with an aggregation after the join). A stream joined with a static table in
    complete mode without an aggregation: Spark's own error, as for any such query."""
    a, b = side_streams(spark, empty_sources(tmp_path))
    for frame, mode, join in [
        (temporal("inner")(a, b), "complete", "temporal_join"),
        (asof("nearest", 4, True)(a, b), "update", "asof_join"),
        (in_sql("FULL", KEYED_OVERLAP)(a, b).groupBy("k").count(), "complete", "FULL OUTER"),
    ]:
        with pytest.raises(AnalysisException) as info:
            start(frame, mode, tmp_path / "checkpoint")
        assert info.value.getCondition() == "EVENTWINDOWS_STREAM_JOIN_OUTPUT_MODE"
        assert (
            f"{join}{' range join' * (join == 'FULL OUTER')} of two streams runs in Append output "
            f"mode only, not {mode.capitalize()}: each of its rows is emitted once, final"
        ) in str(info.value)
    stream, _ = event_stream
    stream().createOrReplaceTempView("stream_a")
    try:
        with pytest.raises(AnalysisException) as info:
            start(spark.sql(stream_static_sql("stream_a", STREAM_STATIC[:1])), "complete", tmp_path)
    finally:
        spark.catalog.dropTempView("stream_a")
    assert info.value.getCondition() == "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"
    assert "no streaming aggregations" in str(info.value)


def test_an_inner_range_join_of_two_streams_without_watermarks_is_sparks(spark, tmp_path):
    """An inner range join on keys of two streams without watermarks runs as Spark's own
    stream-stream join (whose state keeps every event): each pair of the batch join over all the
    input (Spark's own plan) once, none dropped."""
    rng = random.Random(7)
    batches = {side: random_side(rng, side, 2, 12) for side in ("a", "b")}
    sources = {side: tmp_path / side for side in ("a", "b")}
    for side in ("a", "b"):
        write_batches(sources[side], [side_records(side, rows) for rows in batches[side]])
    join = in_sql("INNER", KEYED_OVERLAP)
    query = run_stream(join(*side_streams(spark, sources, ())), tmp_path / "out", tmp_path / "c")
    assert query.lastProgress["stateOperators"][0]["operatorName"] == "symmetricHashJoin"
    streamed = collections.Counter(
        tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect()
    )
    spark.conf.set(RULE, "false")
    try:
        every = [
            spark.createDataFrame(timed(sum(batches[side], [])), SIDE_SCHEMA[side])
            for side in ("a", "b")
        ]
        expected = collections.Counter(tuple(r) for r in join(*every).collect())
    finally:
        spark.conf.unset(RULE)
    assert streamed == expected and sum(expected.values()) > 10


def test_the_state_stays_flat_on_a_long_stream_restarted(spark, tmp_path):
    """A steady stream per side, 24 micro-batches of 4 events in 2 keys each (starts advancing
    10 s a micro-batch, lifetimes up to 12 s), a restart half way: the state's entries (events
    and timers) stay as many as a few micro-batches hold, however long the stream."""
    rng = random.Random(4)
    n_batches, half = 24, 12
    batches = {
        side: [
            [(100 * n + i, rng.randrange(2), 10 * n + rng.randrange(10), None) for i in range(4)]
            for n in range(n_batches)
        ]
        for side in ("a", "b")
    }
    for side in batches:
        batches[side] = [
            [(i, k, s, s + rng.randrange(1, 13)) for i, k, s, _ in rows] for rows in batches[side]
        ]
    sources = {side: tmp_path / side for side in ("a", "b")}
    entries = []
    for run in (range(0, half), range(half, n_batches)):
        for side in ("a", "b"):
            write_batches(
                sources[side],
                [side_records(side, batches[side][i]) for i in run],
                first_mtime=1_700_000_000 + run.start,
            )
        a, b = side_streams(spark, sources, delays={"a": 2, "b": 2})
        joined = ew.temporal_join(
            a, b, "k", "full", left_lifetime=("s", "e"), right_lifetime=("bs", "be")
        )
        query = run_stream(joined, tmp_path / "out", tmp_path / "checkpoint")
        entries += [
            p["stateOperators"][0]["numRowsTotal"]
            for p in query.recentProgress
            if p["numInputRows"] > 0
        ]
    assert len(entries) == n_batches
    # Events live at most 12 s + the watermark's lag (the delay and a micro-batch, 10 s):
    # a few micro-batches' worth, whether the stream has run 6 or 24 micro-batches.
    assert max(entries[n_batches // 4 :]) <= 2 * max(entries[: n_batches // 4]), entries
    assert max(entries) < 8 * 4 * 2, entries
    assert len(spark.read.parquet(str(tmp_path / "out")).collect()) > n_batches * 4


def test_an_asof_join_restarted_from_the_checkpoint_of_another_fails(spark, tmp_path):
    """A backward ASOF join leaves a left row waiting (at 20 s, the watermark at 8 s); restarted
    from its checkpoint as a forward join, the query fails with the project's condition where it
    finds that key's state, rather than emit rows of a mixed join."""
    sources = {side: tmp_path / side for side in ("a", "b")}
    write_batches(sources["a"], [[{"k": 1, "s": second(20)}]])
    write_batches(sources["b"], [[{"k": 1, "bs": second(10)}]])

    def join(direction):
        a, b = [
            spark.readStream.schema(f"k int, {time} timestamp")
            .option("maxFilesPerTrigger", 1)
            .json(str(sources[side]))
            .withWatermark(time, "2 seconds")
            for side, time in (("a", "s"), ("b", "bs"))
        ]
        return ew.asof_join(a, b, "k", "s", "bs", direction)

    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    run_stream(join("backward"), out, checkpoint)
    assert spark.read.parquet(str(out)).count() == 0  # the row at 20 s waits
    for side, time in (("a", "s"), ("b", "bs")):
        write_batches(sources[side], [[{"k": 1, time: second(30)}]], first_mtime=1_700_000_001)
    with pytest.raises(Exception) as info:
        run_stream(join("forward"), out, checkpoint)
    assert "[EVENTWINDOWS_CHECKPOINT_MISMATCH]" in str(info.value)
    assert (
        "asof_join: the checkpoint holds the state of another join [asof_join backward "
        "tolerance=none exact=true input=struct<"
    ) in str(info.value)


# A range join of two streams sweeps each key's kept events again with a micro-batch's new ones
# (the batch join's sweep, replayed): many events per key, whose lifetimes span micro-batches.


def long_lived_side(rng, side, n_batches, per_batch):
    """random_side's micro-batches in two keys, each lifetime ten times as long (up to 300 s,
    fifteen micro-batches), so that a key keeps tens of events of each side."""
    return [
        [(i, k % 2, s, None if e is None else s + 10 * (e - s)) for i, k, s, e in rows]
        for rows in random_side(rng, side, n_batches, per_batch)
    ]


def test_many_long_lived_events_per_key_give_the_batch_temporal_join(spark, tmp_path):
    """Two keys, 20 events a side per micro-batch lasting up to 300 s, out of order, with late
    rows, in three micro-batches, then a restart from the checkpoint and two more: each key keeps
    tens of events, which each micro-batch's new events are swept with; the full outer temporal
    join's rows are the batch join's over the accepted events, but the unmatched rows the
    watermark has not closed, each once."""
    rng = random.Random(4748)
    batches = {side: long_lived_side(rng, side, 5, 20) for side in ("a", "b")}
    runs = (range(0, 3), range(3, 5))
    accepted, watermark, late = accepted_and_watermark(batches, runs)

    def join(a, b):
        return ew.temporal_join(
            a, b, "k", "full", left_lifetime=("s", "e"), right_lifetime=("bs", "be")
        )

    sources = {side: tmp_path / side for side in ("a", "b")}
    out, checkpoint, dropped = tmp_path / "out", tmp_path / "checkpoint", 0
    for run in runs:
        for side in ("a", "b"):
            write_batches(
                sources[side],
                [side_records(side, batches[side][i]) for i in run],
                first_mtime=1_700_000_000 + run.start,
            )
        a, b = side_streams(spark, sources)
        query = run_stream(join(a, b), out, checkpoint)
        dropped += sum(
            p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in query.recentProgress
        )
    streamed = collections.Counter(tuple(r) for r in spark.read.parquet(str(out)).collect())

    batch = join(
        *[spark.createDataFrame(timed(accepted[side]), SIDE_SCHEMA[side]) for side in ("a", "b")]
    ).collect()
    closed = at(watermark)
    expected = collections.Counter(
        tuple(r)
        for r in batch
        if (r.id is not None and r.bid is not None)
        or (r.lifetime.end is not None and r.lifetime.end <= closed)
    )
    assert streamed == expected
    assert late >= 2 and dropped == late
    # Tens of events of one key and side live across a micro-batch (20 s): kept, swept again.
    assert sum(1 for _, k, s, e in accepted["a"] if k == 0 and s <= 80 and (e or 999) > 100) >= 20
    assert sum(1 for r in expected if None not in (r[1], r[4])) > 200  # pairs
    assert all(any(r[i] is None for r in expected) for i in (1, 4))  # unmatched, both sides


def test_a_range_join_restarted_from_the_checkpoint_of_another_join_fails(spark, tmp_path):
    """An inner temporal join of two streams keeps key 1's events (the watermark at 8 s, their
    ends at 40 and 50 s); restarted from its checkpoint as a left join, it fails with the
    project's condition where it finds that key's state, rather than emit rows of a mixed join.
    So does a range join restarted from the checkpoint of an ASOF join with a left row of key 1
    waiting (at 20 s)."""

    def streams(root, a_schema):
        return [
            spark.readStream.schema(schema)
            .option("maxFilesPerTrigger", 1)
            .json(str(root / side))
            .withWatermark(time, "2 seconds")
            for side, schema, time in (
                ("a", a_schema, "s"),
                ("b", "k int, bs timestamp, be timestamp", "bs"),
            )
        ]

    def temporal(root, how, end="e"):
        a, b = streams(root, "k int, s timestamp" + (f", {end} timestamp" if end else ""))
        return ew.temporal_join(
            a, b, "k", how, left_lifetime=("s", end), right_lifetime=("bs", "be")
        )

    def run_then_restart(root, first, restarted, a_record):
        """Runs `first` over a micro-batch, then `restarted` from its checkpoint over a second:
        the first's row count and the second's error."""
        root.mkdir()
        for mtime, (s, e) in enumerate([(10, 40), (30, 31)], start=1_700_000_000):
            write_batches(root / "a", [[a_record(s + 10, e + 10)]], first_mtime=mtime)
            write_batches(root / "b", [[{"k": 1, "bs": second(s), "be": second(e)}]], mtime)
            if mtime == 1_700_000_000:
                run_stream(first(), root / "out", root / "checkpoint")
                count = spark.read.parquet(str(root / "out")).count()
        with pytest.raises(Exception) as info:
            run_stream(restarted(), root / "out", root / "checkpoint")
        assert "[EVENTWINDOWS_CHECKPOINT_MISMATCH]" in str(info.value)
        return count, str(info.value)

    root = tmp_path / "range"
    count, error = run_then_restart(
        root,
        lambda: temporal(root, "inner"),
        lambda: temporal(root, "left"),
        lambda s, e: {"k": 1, "s": second(s), "e": second(e)},
    )
    assert count == 1  # the pair; both events kept
    assert (
        "stream-stream range join: the checkpoint holds the state of another join [range_join "
        "INNER condition="
    ) in error
    assert "not of this query's [range_join LEFT OUTER condition=" in error

    root = tmp_path / "asof"
    count, error = run_then_restart(
        root,
        lambda: ew.asof_join(*streams(root, "k int, s timestamp"), "k", "s", "bs"),
        lambda: temporal(root, "inner", end=None),
        lambda s, _: {"k": 1, "s": second(s)},
    )
    assert count == 0  # the left row at 20 s waits
    assert "the checkpoint holds the state of another join [asof_join backward " in error
    assert "not of this query's [range_join INNER condition=" in error


@pytest.mark.parametrize(
    "direction, tolerance, allow_exact", [("forward", None, True), ("nearest", 6, False)]
)
def test_many_waiting_left_rows_per_key_are_each_emitted_in_the_micro_batch_that_decides_them(
    spark, tmp_path, direction, tolerance, allow_exact
):
    """Two keys, 30 left rows per micro-batch and few right rows (out of order, late rows on both
    sides), so that dozens of left rows of a key wait together for a right row or the watermark:
    each row of the batch `asof_join` over the accepted rows whose right row the last watermark
    shows final is emitted once, in the first micro-batch whose watermark (Spark's, from the
    query's progress) shows it final (asof_is_final), and no other row."""
    rng = random.Random(4757)
    batches = {
        side: [[(i, k % 2, s, e) for i, k, s, e in rows] for rows in random_side(rng, side, 5, n)]
        for side, n in (("a", 30), ("b", 4))
    }
    accepted, _, late = accepted_and_watermark(batches, [range(5)])
    sources = {side: tmp_path / side for side in ("a", "b")}
    for side in ("a", "b"):
        write_batches(sources[side], [side_records(side, rows) for rows in batches[side]])
    a, b = side_streams(spark, sources)
    seconds = tolerance and datetime.timedelta(seconds=tolerance)
    join = ew.asof_join(a, b, "k", "s", "bs", direction, seconds, allow_exact)
    emitted, query = run_batches(join, "append", tmp_path / "checkpoint")
    watermarks = {  # each micro-batch's watermark, in seconds since EPOCH
        p["batchId"]: (
            datetime.datetime.fromisoformat(p["eventTime"]["watermark"].rstrip("Z")) - EPOCH
        ).total_seconds()
        for p in query.recentProgress
        if "watermark" in p["eventTime"]
    }

    batch = ew.asof_join(
        *[spark.createDataFrame(timed(accepted[side]), SIDE_SCHEMA[side]) for side in ("a", "b")],
        "k",
        "s",
        "bs",
        direction,
        seconds,
        allow_exact,
    ).collect()
    is_final = asof_is_final(direction, tolerance, allow_exact)

    def deciding_batch(row):
        """The first micro-batch whose watermark shows the row's right row final, or None."""
        return next(
            (
                batch_id
                for batch_id, watermark in sorted(watermarks.items())
                if is_final(row, watermark, accepted)
            ),
            None,
        )

    expected = collections.Counter(
        (deciding_batch(r), tuple(r)) for r in batch if deciding_batch(r) is not None
    )
    assert collections.Counter(emitted) == expected
    together = collections.Counter((b, row[1]) for b, row in expected.elements())
    assert max(together.values()) >= 10  # a key's left rows that waited, emitted together
    registered = [
        p["stateOperators"][0]["customMetrics"]["numRegisteredTimers"] for p in query.recentProgress
    ]
    assert max(registered) <= 4  # one timer per key, moved on input and set again as it fires
    assert late >= 2 and len(batch) == len(accepted["a"])
