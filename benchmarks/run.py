"""eventwindows against Spark's best built-in way to get the same answer, in the same session.

    .venv/bin/python benchmarks/run.py            # the sizes of the README table
    .venv/bin/python benchmarks/run.py --quick    # a tenth of the events, to try it out

Each case builds the input once, caches it, then times both queries (the best of at least
``--repeat`` runs lasting at least ``--min-time`` seconds together, each written to Spark's
``noop`` sink so every row is computed and none is collected, after untimed runs for ``--warmup``
seconds, as Spark's own ``Benchmark`` warms each case up so that the JIT has compiled the code it
runs and times it for a minimum time), checks that
the two answers are the same rows (an order-independent checksum and a row count, computed
outside the timings), and prints the time ratio built-in / ours. Not a test: nothing here asserts
a time.

(a) hopping 60 s every 1 s over point events, count + sum, against
    ``groupBy(k, window(ts, '60 seconds', '1 second'))``.
(b) hopping 60 min every 1 min, 'changes' output, over interval events lasting 100 hops on
    average, against the way to write it with Spark alone: every window of every event with
    ``sequence`` + ``explode``, then ``groupBy``. The answers match after expanding each of our
    rows into the windows it stands for (windows ending at start, start + hop, ... < end).
    Then the same with 5 min windows: fewer windows per event, so less work for Spark.
(c) tumbling 60 s over the events of (a), against ``groupBy(k, window(ts, '60 seconds'))``.
(d) index windows of 1000 messages, avg + max over the events of (a), against Spark's sliding
    ``ROWS BETWEEN 999 PRECEDING AND CURRENT ROW`` keeping only full windows; then the same with
    10 messages, to show that our time does not grow with the window length (Spark's does).
(e) relative-time windows of the last 60 s, avg + max, a row per message, against Spark's
    ``RANGE BETWEEN INTERVAL 60 SECONDS PRECEDING AND CURRENT ROW`` (over the microseconds).
(f) count windows of 100 distinct start times, avg + max, against ``dense_rank`` over ts and a
    ``RANGE`` frame of 99 preceding over that rank, one row per distinct time.
(g) memory: one key with 5,000,000 messages, index windows of 1000, in a separate process whose
    driver (and so executor) has 512 MiB: it completes because only the window's contents are
    held, not the key's messages.
(h) SPL sliding windows, count(1) trigger: count(1000) and count(10) eviction against Spark's ROWS
    frame of 999 (9) preceding, and time(60 seconds) eviction against the RANGE frame of 60 s,
    avg + max, over 2,000,000 tuples with distinct times in 100 keys.
(i) dynamic windows: 10,000 anchors with intervals of random length (up to 10 minutes) over the
    events of (a), count + avg + max, against the range join (left outer) + groupBy; both also
    over the aggregate of the messages by key alone, the least a plan reading them all does.
(j) streaming: the events of (a) as 20 Parquet files of 3 minutes each, read as a stream one file
    per micro-batch with a 10 s watermark, hopping 60 s every 1 s, count + sum, append mode into
    the memory sink, against Spark's own streaming ``window()``; best of two runs each, alternated
    (a fresh checkpoint per run), events per second printed. The closed windows of both must be the same rows.
(k) streaming: hopping 5 min every 1 min, 'changes' output, over 200,000 interval events as 20
    micro-batches, against the streaming ``sequence`` + ``explode`` + ``groupBy``.
(l) time-weighted average: hopping 5 s every 1 s over 1,000,000 interval events lasting 80 to
    120 s (about 100 hops), ``time_weighted_avg(v)`` + count, against ``sequence`` + ``explode``
    of each event's windows, its clipped length ``least(e, w + 5 s) - greatest(s, w)`` and
    ``groupBy`` with ``sum(v * length) / sum(length)``: about 10,000,000 windows. The averages
    are compared to 9 significant digits (the two sides add in different orders).
(m) sessions over point events: ``event_session_window(ts, '30 seconds')``, count + sum,
    over 2,000,000 point events in 100 keys over 300,000 s (15 s apart on average in a key, so
    about one in seven gaps closes a session), against Spark's own
    ``groupBy(k, session_window(ts, '30 seconds'))``.
(n) sessions over interval events: ``event_session_window(s, e, '30 seconds')``, count + sum,
    over 1,000,000 interval events in 100 keys lasting 1 s to 119 s (60 s on average), 120 s
    apart on average in a key, against the sessionization of intervals with Spark's window
    functions: the running max of ``end - 1 tick + gap`` over the previous rows, a new-session
    flag where the start is beyond it, the running sum of the flags as the session's number,
    then ``groupBy(k, session)``.
(s) calendar windows: ``tumbling_window(ts, '1 day', time_zone => 'Europe/Berlin')``, count +
    sum, over 2,000,000 point events in 100 keys over 400 days (two changes of daylight saving
    time), against what a Spark user writes today: the local day ``date_trunc('day',
    from_utc_timestamp(ts, zone))`` and ``groupBy``, the window's bounds back in UTC with
    ``to_utc_timestamp``; then the same with months.
(t) cumulating windows: ``cumulate_window(ts, '1 minute', '1 hour')`` (the hour so far, every
    minute), count + sum, over the events of (a), against every cumulative window of each event
    with ``sequence`` + ``explode``, then ``groupBy``; and beside hopping windows with as many
    windows per event (1 hour every 2 minutes), whose cost it should have.
(o) SPL tumbling windows: ``spl_tumbling_window(ts, count(1000))``, avg + max, over the tuples of
    (h), against ``row_number()`` per key in time order, batches ``(rn - 1) div 1000`` and
    ``groupBy(k, batch)`` keeping full batches, flushed at the batch's last time.
(w) the ASOF join, in benchmarks/asof.py.
(u), (v), (x) temporal joins, in benchmarks/joins.py: the overlap join and the point-in-interval
    join without keys, the same SQL planned by eventwindows and by Spark alone, and in DuckDB;
    the overlap join's growth from 1/8 to all of its input.
(z) the floor: what any sort-based window operator must do, shuffle the rows by key and sort each
    key's rows by time (``repartition(k).sortWithinPartitions(k, time)``), over the events of (a)
    and of (b). Every case over one of the batch inputs also prints its time over that input's
    floor (timed once per input, in the same run), and the table ends with that ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

import asof
import joins
import timing
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from timing import best_time, checksum, side_by_side, timed_runs

import eventwindows as ew

MICROS_PER_SECOND = 1_000_000
#: The first instant of the generated data (2024-01-01 00:00:00 UTC), in microseconds.
ORIGIN = 1_704_067_200 * MICROS_PER_SECOND
#: Lines printed again under the final table (ratios between cases).
NOTES: list = []


def session(driver_memory: str) -> SparkSession:
    # Python UDFs run in workers of this interpreter (its pandas), as in the tests.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        ew.builder()
        .master("local[2]")
        .appName("eventwindows-benchmarks")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def point_events(spark: SparkSession, n: int, keys: int, span_seconds: int) -> DataFrame:
    """n point events (k, ts, v) at random microseconds over span_seconds, in `keys` keys."""
    span = span_seconds * MICROS_PER_SECOND
    return spark.range(n, numPartitions=4).select(
        (F.col("id") % keys).cast("int").alias("k"),
        F.timestamp_micros(F.lit(ORIGIN) + (F.rand(1) * span).cast("long")).alias("ts"),
        (F.rand(2) * 1000).cast("long").alias("v"),
    )


def interval_events(
    spark: SparkSession, n: int, keys: int, span_seconds: int, mean_seconds: int
) -> DataFrame:
    """n interval events (k, s, e, v): random starts over span_seconds, durations uniform in
    [1 s, 2 * mean_seconds - 1 s], so mean_seconds on average."""
    span = span_seconds * MICROS_PER_SECOND
    duration = (F.lit(1) + (F.rand(4) * (2 * mean_seconds - 2)).cast("long")) * MICROS_PER_SECOND
    start = F.lit(ORIGIN) + (F.rand(3) * span).cast("long")
    return spark.range(n, numPartitions=4).select(
        (F.col("id") % keys).cast("int").alias("k"),
        F.timestamp_micros(start).alias("s"),
        F.timestamp_micros(start + duration).alias("e"),
        (F.rand(5) * 1000).cast("long").alias("v"),
    )


#: The floor's time of each input, by the input's name (see floor_time).
FLOORS: dict = {}


def floor_time(name: str, events: DataFrame, time_column: str, repeat: int) -> float:
    """The time to shuffle the events by key and sort each key's rows by time (the work no
    sort-based window operator avoids), timed once per input as the cases are."""
    if name not in FLOORS:
        floor = events.repartition("k").sortWithinPartitions("k", time_column)
        FLOORS[name] = best_time(floor, repeat)
        print(f"(z) floor, shuffle + sort of {name}: {FLOORS[name]:.2f} s", flush=True)
    return FLOORS[name]


def per_window(df: DataFrame) -> DataFrame:
    """The comparable form of a per-window answer: key, window start and end, count, sum."""
    return df.select(
        "k", F.col("window.start").alias("ws"), F.col("window.end").alias("we"), "n", "total"
    )


def expand_changes(df: DataFrame, size_us: int, hop_us: int) -> DataFrame:
    """Our 'changes' rows as per-window rows: a row [S, E) stands for the windows ending at
    S, S + hop, ... < E (E - S is a whole number of hops)."""
    s, e = F.unix_micros("window.start"), F.unix_micros("window.end")
    ends = F.explode(F.sequence(s, e - hop_us, F.lit(hop_us)))
    return df.select("k", ends.alias("we_us"), "n", "total").select(
        "k",
        F.timestamp_micros(F.col("we_us") - size_us).alias("ws"),
        F.timestamp_micros("we_us").alias("we"),
        "n",
        "total",
    )


def compare(
    name: str,
    ours: DataFrame,
    builtin: DataFrame,
    ours_check: DataFrame,
    builtin_check: DataFrame,
    repeat: int,
    same_rows=None,
) -> dict:
    """Times builtin and ours after checking that ours_check and builtin_check hold the same rows
    (count and hash sum). When the hashes differ, same_rows(), if given, compares the rows one by
    one and says whether the answers are the same after all (printing how they differ)."""
    ours_sum, builtin_sum = checksum(ours_check), checksum(builtin_check)
    if ours_sum != builtin_sum and (same_rows is None or not same_rows()):
        raise AssertionError(f"{name}: different answers: ours {ours_sum}, built-in {builtin_sum}")
    t_builtin = best_time(builtin, repeat)
    t_ours = best_time(ours, repeat)
    result = side_by_side(name, t_builtin, t_ours, builtin_sum[0], ours.count())
    print(
        f"{name}: built-in {t_builtin:.2f} s, eventwindows {t_ours:.2f} s, "
        f"ratio {result['ratio']:.1f}x; rows: ours {result['ours_rows']:,}, "
        f"built-in {result['builtin_rows']:,}; same answer: {ours_sum[0]:,} windows",
        flush=True,
    )
    return result


def per_anchor(df: DataFrame) -> DataFrame:
    """The comparable form of our per-message answers: key, anchor (output) time, avg, max."""
    return df.select("k", F.col("window.start").alias("t"), "a", "m")


def index_points(events: DataFrame, repeat: int) -> list:
    """(d) index_window(ts, lo, 0) for windows of 1000 and of 10 messages, against Spark's
    sliding ROWS frame, which evaluates each row's frame from scratch (O(window) per row)."""
    results = []
    for lo in (-999, -9):
        ours = events.groupBy("k", F.expr(f"index_window(ts, {lo}, 0)")).agg(
            F.avg("v").alias("a"), F.max("v").alias("m")
        )
        # Our tie rule orders equal times by the aggregated column (v) ascending; rows equal in
        # (ts, v) are interchangeable. Only full windows give a row: the anchor's index is at
        # least -lo, i.e. row_number >= 1 - lo (row_number shares the frame's sort).
        by_time = Window.partitionBy("k").orderBy("ts", "v")
        frame = by_time.rowsBetween(lo, 0)
        builtin = (
            events.select(
                "k",
                "ts",
                F.avg("v").over(frame).alias("a"),
                F.max("v").over(frame).alias("m"),
                F.row_number().over(by_time).alias("i"),
            )
            .where(F.col("i") >= 1 - lo)
            .select("k", F.col("ts").alias("t"), "a", "m")
        )
        results.append(
            compare(
                f"(d) index_window(ts, {lo}, 0), {1 - lo} messages, avg + max",
                ours,
                builtin,
                per_anchor(ours),
                builtin,
                repeat,
            )
        )
    long_window, short_window = results
    note = (
        f"(d) eventwindows time for 1000 / for 10 messages: "
        f"{long_window['ours_s'] / short_window['ours_s']:.2f} (target at most 1.3); "
        f"built-in / eventwindows for 1000: {long_window['ratio']:.1f}x (target at least 5x); "
        f"built-in time for 1000 / for 10: "
        f"{long_window['builtin_s'] / short_window['builtin_s']:.1f}"
    )
    print(note, flush=True)
    NOTES.append(note)
    return results


def relative_time_points(events: DataFrame, repeat: int) -> dict:
    """(e) time_window(ts, -60 s, 0 s): a row per message, against Spark's RANGE frame of
    60,000,000 µs preceding over the times' microseconds (RANGE BETWEEN INTERVAL 60 SECONDS
    PRECEDING AND CURRENT ROW; ordering by the timestamp with the interval was about 15 % slower).
    Both ends are inclusive on both sides, and messages tied with the anchor are in its window on
    both sides (a RANGE frame includes the current row's peers)."""
    ours = events.groupBy(
        "k", F.expr("time_window(ts, INTERVAL -60 SECONDS, INTERVAL 0 SECONDS)")
    ).agg(F.avg("v").alias("a"), F.max("v").alias("m"))
    frame = (
        Window.partitionBy("k")
        .orderBy(F.unix_micros("ts"))
        .rangeBetween(-60 * MICROS_PER_SECOND, 0)
    )
    builtin = events.select(
        "k",
        F.col("ts").alias("t"),
        F.avg("v").over(frame).alias("a"),
        F.max("v").over(frame).alias("m"),
    )
    return compare(
        "(e) time_window(ts, -60 s, 0 s), avg + max",
        ours,
        builtin,
        per_anchor(ours),
        builtin,
        repeat,
    )


def count_points(events: DataFrame, repeat: int) -> dict:
    """(f) count_window(ts, 100): windows of 100 consecutive distinct times per key, a point at
    the last one.

    Spark alone: number the distinct times of each key with dense_rank over ts (messages at one
    time share the rank), then avg and max over a RANGE frame of 99 preceding over that rank: the
    frame is exactly the messages at the last 100 distinct times, every message at one time
    counted. All messages at one time get the same frame, so keep one of them (the last of its
    rank, found with lead over the same order, so no extra sort), and only ranks >= 100 (full
    windows). v is a small integer, so the double sums behind avg are exact and equal ours
    whatever the order of addition. The other exact way, partial aggregates (sum, count, max) per
    distinct (k, ts) merged over a ROWS frame of 99 preceding with row_number >= 100, costs a hash
    aggregate of 2,000,000 groups instead of the second sort and was no faster (5.7 to 6.6 s
    against 5.2 to 5.8 s here, on 2,000,000 messages).
    """
    ours = events.groupBy("k", F.expr("count_window(ts, 100)")).agg(
        F.avg("v").alias("a"), F.max("v").alias("m")
    )
    by_rank = Window.partitionBy("k").orderBy("r")
    frame = by_rank.rangeBetween(-99, 0)
    builtin = (
        events.withColumn("r", F.dense_rank().over(Window.partitionBy("k").orderBy("ts")))
        .select(
            "k",
            "ts",
            "r",
            F.avg("v").over(frame).alias("a"),
            F.max("v").over(frame).alias("m"),
            F.lead("r").over(by_rank).alias("next_r"),
        )
        .where((F.col("r") >= 100) & (F.col("next_r").isNull() | (F.col("next_r") != F.col("r"))))
        .select("k", F.col("ts").alias("t"), "a", "m")
    )
    return compare(
        "(f) count_window(ts, 100), avg + max", ours, builtin, per_anchor(ours), builtin, repeat
    )


def memory_case(spark: SparkSession, n: int, repeat: int, with_builtin: bool) -> dict:
    """(g), run in its own process (see main): n messages in ONE key, index windows of 1000."""
    jvm = spark.sparkContext._jvm
    # One key, 5.6 messages per second as in (a); generated, not cached (the cache would need
    # the memory this case is about).
    events = spark.range(n, numPartitions=4).select(
        F.lit(0).alias("k"),
        F.timestamp_micros(
            F.lit(ORIGIN) + (F.rand(1) * (n / 5.6 * MICROS_PER_SECOND)).cast("long")
        ).alias("ts"),
        (F.rand(2) * 1000).cast("long").alias("v"),
    )
    ours = events.groupBy("k", F.expr("index_window(ts, -999, 0)")).agg(
        F.avg("v").alias("a"), F.max("v").alias("m")
    )
    collectors = jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
    t_input = best_time(events, repeat)
    gc_before = sum(c.getCollectionTime() for c in collectors)
    runs = timed_runs(ours, repeat)
    t_ours = min(runs)
    gc_ms = (sum(c.getCollectionTime() for c in collectors) - gc_before) / len(runs)
    result = {
        "case": f"(g) one key of {n:,} messages, index_window(ts, -999, 0), avg + max, "
        f"{spark.conf.get('spark.driver.memory')} driver",
        "builtin_s": None,
        "ours_s": t_ours,
        "ratio": None,
        "ours_rows": ours.count(),
        "builtin_rows": None,
        "input_s": t_input,
        "max_heap_mib": jvm.java.lang.Runtime.getRuntime().maxMemory() / 2**20,
        "gc_s": gc_ms / 1000,
    }
    if with_builtin:
        by_time = Window.partitionBy("k").orderBy("ts", "v")
        frame = by_time.rowsBetween(-999, 0)
        builtin = (
            events.select(
                "k",
                "ts",
                F.avg("v").over(frame).alias("a"),
                F.max("v").over(frame).alias("m"),
                F.row_number().over(by_time).alias("i"),
            )
            .where(F.col("i") >= 1000)
            .select("k", F.col("ts").alias("t"), "a", "m")
        )
        ours_sum, builtin_sum = checksum(per_anchor(ours)), checksum(builtin)
        if ours_sum != builtin_sum:
            raise AssertionError(f"(g): different answers: ours {ours_sum}, built-in {builtin_sum}")
        result["builtin_s"] = best_time(builtin, repeat)
        result["ratio"] = result["builtin_s"] / t_ours
        result["builtin_rows"] = builtin_sum[0]
    return result


def memory_subprocess(n: int, repeat: int, driver_memory: str, with_builtin: bool) -> dict:
    """(g) in a fresh process: the driver's memory is fixed when its JVM starts."""
    command = [
        sys.executable,
        __file__,
        "--memory-case",
        str(n),
        "--repeat",
        str(repeat),
        "--driver-memory",
        driver_memory,
        "--warmup",
        str(timing.WARMUP_SECONDS),
        "--min-time",
        str(timing.MIN_TIME_SECONDS),
    ]
    command += ["--memory-builtin"] if with_builtin else []
    out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    builtin = (
        f"built-in (ROWS frame) {result['builtin_s']:.2f} s, ratio {result['ratio']:.1f}x, "
        if result["builtin_s"] is not None
        else ""
    )
    print(
        f"{result['case']}: {builtin}eventwindows {result['ours_s']:.2f} s (generating the "
        f"input alone {result['input_s']:.2f} s, garbage collection {result['gc_s']:.2f} s per "
        f"run); rows {result['ours_rows']:,}; JVM max heap {result['max_heap_mib']:.0f} MiB",
        flush=True,
    )
    return result


def distinct_points(spark: SparkSession, n: int, keys: int, span_seconds: int) -> DataFrame:
    """n point events (k, ts, v) like point_events, but with distinct times (the i-th event at
    about i * span / n, jittered), for comparisons whose built-in frame treats equal times as
    peers."""
    step = span_seconds * MICROS_PER_SECOND // n
    return spark.range(n, numPartitions=4).select(
        (F.col("id") % keys).cast("int").alias("k"),
        F.timestamp_micros(
            F.lit(ORIGIN) + F.col("id") * step + (F.rand(1) * (step - 1)).cast("long")
        ).alias("ts"),
        (F.rand(2) * 1000).cast("long").alias("v"),
    )


def sliding_points(events: DataFrame, repeat: int) -> list:
    """(h) SPL sliding windows with count(1) trigger: count(1000) and count(10) eviction against
    Spark's ROWS frame of 999 (9) preceding (every row: SPL fires from the first tuple on, as the
    frame holds partial windows too), and time(60 seconds) eviction against the RANGE frame of 60
    s preceding (distinct times, so the frame's peers are the row alone)."""
    by_time = Window.partitionBy("k").orderBy("ts", "v")
    results = []
    for n in (1000, 10):
        ours = events.groupBy("k", ew.sliding_window("ts", ew.spl.count(n))).agg(
            F.avg("v").alias("a"), F.max("v").alias("m")
        )
        frame = by_time.rowsBetween(1 - n, 0)
        builtin = events.select(
            "k",
            F.col("ts").alias("t"),
            F.avg("v").over(frame).alias("a"),
            F.max("v").over(frame).alias("m"),
        )
        results.append(
            compare(
                f"(h) sliding_window(ts, count({n})), avg + max",
                ours,
                builtin,
                per_anchor(ours),
                builtin,
                repeat,
            )
        )
    long_window, short_window = results
    note = (
        f"(h) eventwindows time for count(1000) / for count(10): "
        f"{long_window['ours_s'] / short_window['ours_s']:.2f} (target at most 1.3); "
        f"built-in / eventwindows for count(1000): {long_window['ratio']:.1f}x "
        f"(target at least 5x)"
    )
    print(note, flush=True)
    NOTES.append(note)
    ours = events.groupBy("k", ew.sliding_window("ts", ew.spl.time("60 seconds"))).agg(
        F.avg("v").alias("a"), F.max("v").alias("m")
    )
    frame = (
        Window.partitionBy("k")
        .orderBy(F.unix_micros("ts"))
        .rangeBetween(-60 * MICROS_PER_SECOND, 0)
    )
    builtin = events.select(
        "k",
        F.col("ts").alias("t"),
        F.avg("v").over(frame).alias("a"),
        F.max("v").over(frame).alias("m"),
    )
    results.append(
        compare(
            "(h) sliding_window(ts, time(60 seconds)), avg + max",
            ours,
            builtin,
            per_anchor(ours),
            builtin,
            repeat,
        )
    )
    return results


def dynamic_points(spark: SparkSession, events: DataFrame, repeat: int) -> list:
    """(i) dynamic windows: 10,000 anchors in the 100 keys, each an interval of random length
    (0 to 10 minutes) starting anywhere in the hour, count + avg + max over the messages of (a),
    against the range join a Spark user writes (a left outer join, so anchors without messages
    keep their row) and a groupBy per anchor; then the same without slices, with anchors of up to
    30 minutes, and with the anchors made from a Python list (which Spark cannot size). Each is
    also set against the aggregate of the messages by key alone (count + avg + max), the least a
    plan that reads every message does."""

    def anchors_of(seconds: int) -> DataFrame:
        return (
            spark.range(10_000, numPartitions=4)
            .select(
                F.col("id").alias("aid"),
                (F.col("id") % 100).cast("int").alias("k"),
                F.timestamp_micros(
                    F.lit(ORIGIN) + (F.rand(7) * 3600 * MICROS_PER_SECOND).cast("long")
                ).alias("s"),
            )
            .withColumn("e", F.col("s") + F.make_dt_interval(secs=F.rand(8) * seconds))
            .cache()
        )

    def queries(anchors: DataFrame) -> tuple:
        ours = ew.dynamic_window(anchors, events, "ts", "s", "e", on="k").agg(
            F.count("v").alias("n"), F.avg("v").alias("a"), F.max("v").alias("m")
        )
        m, a = events.alias("m"), anchors.alias("a")
        builtin = (
            a.join(
                m,
                (F.col("a.k") == F.col("m.k"))
                & (F.col("m.ts") >= F.col("a.s"))
                & (F.col("m.ts") <= F.col("a.e")),
                "left",
            )
            .groupBy("a.aid", "a.k", "a.s", "a.e")
            .agg(F.count("m.v").alias("n"), F.avg("m.v").alias("a"), F.max("m.v").alias("m"))
        )
        columns = ["aid", "k", "s", "e", "n", "a", "m"]
        return ours, builtin, ours.select(*columns), builtin.select(*columns)

    anchors = anchors_of(600)
    results = [
        compare(
            "(i) dynamic_window, 10,000 anchors over the events of (a), count + avg + max",
            *queries(anchors),
            repeat,
        )
    ]
    # The sweep over every message, which order-sensitive aggregates (first, collect_list) take.
    spark.conf.set("spark.eventwindows.sliceDynamicWindows", "false")
    try:
        results.append(
            compare(
                "(i) the same without slices (the sweep over every message)",
                *queries(anchors),
                repeat,
            )
        )
    finally:
        spark.conf.unset("spark.eventwindows.sliceDynamicWindows")
    long_anchors = anchors_of(1800)
    results.append(
        compare("(i) the same with anchors of up to 30 minutes", *queries(long_anchors), repeat)
    )
    listed = spark.createDataFrame(long_anchors.collect(), long_anchors.schema)
    results.append(
        compare(
            "(i) anchors of up to 30 minutes from a Python list (no size known)",
            *queries(listed),
            repeat,
        )
    )
    # What any plan must do that reads every message: scan them and fold each into a buffer of
    # its key. The built-in's time over this is the most any such plan could gain on it.
    least = best_time(events.groupBy("k").agg(F.count("v"), F.avg("v"), F.max("v")), repeat)
    for r in results:
        note = (
            f"{r['case']}: built-in / aggregate by key {r['builtin_s'] / least:.1f}x (the most "
            f"a plan reading every message could gain), eventwindows / aggregate by key "
            f"{r['ours_s'] / least:.2f}x (aggregate by key {least:.2f} s)"
        )
        print(note, flush=True)
        NOTES.append(note)
    return results


def hopping_points(events: DataFrame, repeat: int) -> dict:
    ours = events.groupBy("k", ew.hopping_window("ts", "60 seconds", "1 second")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    builtin = events.groupBy("k", F.window("ts", "60 seconds", "1 second")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    return compare(
        "(a) hopping 60 s / 1 s, point events",
        ours,
        builtin,
        per_window(ours),
        per_window(builtin),
        repeat,
    )


def tumbling_points(events: DataFrame, repeat: int) -> dict:
    ours = events.groupBy("k", ew.tumbling_window("ts", "60 seconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    builtin = events.groupBy("k", F.window("ts", "60 seconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    return compare(
        "(c) tumbling 60 s, point events",
        ours,
        builtin,
        per_window(ours),
        per_window(builtin),
        repeat,
    )


def hopping_changes(events: DataFrame, label: str, size_minutes: int, repeat: int) -> dict:
    size_us, hop_us = size_minutes * 60 * MICROS_PER_SECOND, 60 * MICROS_PER_SECOND
    ours = events.groupBy(
        "k",
        ew.hopping_window("s", f"{size_minutes} minutes", "1 minute", output="changes", end="e"),
    ).agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    # Spark alone: window starts w = n * hop with s - size < w < e, i.e. from the first multiple
    # of hop above s - size to the last multiple of hop below e.
    s, e = F.unix_micros("s"), F.unix_micros("e")
    first = (s - size_us) - F.pmod(s - size_us, F.lit(hop_us)) + hop_us
    last = (e - 1) - F.pmod(e - 1, F.lit(hop_us))
    builtin = (
        events.select("k", "v", F.explode(F.sequence(first, last, F.lit(hop_us))).alias("ws_us"))
        .groupBy("k", "ws_us")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .select(
            "k",
            F.timestamp_micros("ws_us").alias("ws"),
            F.timestamp_micros(F.col("ws_us") + size_us).alias("we"),
            "n",
            "total",
        )
    )
    name = f"({label}) hopping {size_minutes} min / 1 min 'changes', events of 100 hops"
    return compare(name, ours, builtin, expand_changes(ours, size_us, hop_us), builtin, repeat)


def cumulate_points(events: DataFrame, repeat: int) -> dict:
    """(t) cumulate_window(ts, 1 minute, 1 hour): the hour so far, every minute (a point in 30
    windows on average), against Spark alone: each event exploded into the ends of the windows of
    its hour that end after it (sequence + explode), grouped by key and window."""
    step_us, size_us = 60 * MICROS_PER_SECOND, 3600 * MICROS_PER_SECOND
    ours = events.groupBy("k", ew.cumulate_window("ts", "1 minute", "1 hour")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    t = F.unix_micros("ts")
    bucket = t - F.pmod(t, F.lit(size_us))
    first_end = t - F.pmod(t, F.lit(step_us)) + step_us
    builtin = (
        events.select(
            "k",
            "v",
            bucket.alias("bucket_us"),
            F.explode(F.sequence(first_end, bucket + size_us, F.lit(step_us))).alias("we_us"),
        )
        .groupBy("k", "bucket_us", "we_us")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .select(
            "k",
            F.timestamp_micros("bucket_us").alias("ws"),
            F.timestamp_micros("we_us").alias("we"),
            "n",
            "total",
        )
    )
    result = compare(
        "(t) cumulate 1 min / 1 hour, point events",
        ours,
        builtin,
        per_window(ours),
        builtin,
        repeat,
    )
    # Hopping windows with as many windows per event (30): what cumulating windows should cost.
    hopping = events.groupBy("k", ew.hopping_window("ts", "1 hour", "2 minutes")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    t_hopping = best_time(hopping, repeat)
    NOTES.append(
        f"(t) cumulate 1 min / 1 hour {result['ours_s']:.2f} s against hopping 1 hour / "
        f"2 min (30 windows per event too) {t_hopping:.2f} s: "
        f"{result['ours_s'] / t_hopping:.2f}x"
    )
    return result


def weighted_events(spark: SparkSession, n: int, keys: int, span_seconds: int) -> DataFrame:
    """n interval events (k, s, e, v): random microsecond starts over span_seconds, durations
    uniform in [80 s, 120 s] (about 100 hops of 1 s), v a DOUBLE in [0, 1000), NULL for 1 %."""
    span = span_seconds * MICROS_PER_SECOND
    start = F.lit(ORIGIN) + (F.rand(11) * span).cast("long")
    duration = ((F.lit(80) + F.rand(12) * 40) * MICROS_PER_SECOND).cast("long")
    return spark.range(n, numPartitions=4).select(
        (F.col("id") % keys).cast("int").alias("k"),
        F.timestamp_micros(start).alias("s"),
        F.timestamp_micros(start + duration).alias("e"),
        F.when(F.rand(13) >= 0.01, F.rand(14) * 1000).alias("v"),
    )


#: Significant digits to which case (l) compares the averages of both sides.
AVERAGE_DIGITS = 9


def time_weighted(events: DataFrame, repeat: int) -> dict:
    """(l) time_weighted_avg(v) + count over hopping 5 s / 1 s windows of interval events lasting
    80 to 120 s, against what a Spark user writes today: every window start w of every event
    with sequence + explode (as in (b)), the event's length clipped to the window,
    least(e, w + 5 s) - greatest(s, w), in seconds, and groupBy(k, w) with
    sum(v * length) / sum(length of the events with non-NULL v) (NULL when every v is NULL, as
    time_weighted_avg gives) and count(*)."""
    size_us, hop_us = 5 * MICROS_PER_SECOND, MICROS_PER_SECOND
    ours = events.groupBy("k", ew.hopping_window("s", "5 seconds", "1 second", end="e")).agg(
        F.count("*").alias("n"), ew.time_weighted_avg("v").alias("a")
    )
    # Window starts w = n * hop with s - size < w < e (the windows [w, w + size) the event's
    # lifetime [s, e) intersects), as in (b).
    s, e = F.unix_micros("s"), F.unix_micros("e")
    first = (s - size_us) - F.pmod(s - size_us, F.lit(hop_us)) + hop_us
    last = (e - 1) - F.pmod(e - 1, F.lit(hop_us))
    w = F.col("w")
    length = (F.least(e, w + size_us) - F.greatest(s, w)) / MICROS_PER_SECOND
    builtin = (
        events.select(
            "k", "s", "e", "v", F.explode(F.sequence(first, last, F.lit(hop_us))).alias("w")
        )
        .groupBy("k", "w")
        .agg(
            F.count("*").alias("n"),
            (F.sum(F.col("v") * length) / F.sum(F.when(F.col("v").isNotNull(), length))).alias("a"),
        )
        .select(
            "k",
            F.timestamp_micros("w").alias("ws"),
            F.timestamp_micros(w + size_us).alias("we"),
            "n",
            "a",
        )
    )
    ours_rows = ours.select(
        "k", F.col("window.start").alias("ws"), F.col("window.end").alias("we"), "n", "a"
    )

    # The two sides add v * length in different orders (ours through a running integral), so
    # their doubles differ in the last bits: both reductions hash the average rounded to
    # AVERAGE_DIGITS significant digits ('%.8e'), not the double itself. Two doubles a few bits
    # apart still round apart when a rounding boundary lies between them (a row or two in ten
    # million); so when the hashes differ, same_averages matches the rows by window and accepts
    # them only if every window is on both sides with the same count and averages within
    # 10^-AVERAGE_DIGITS of each other (relative), printing a few rows of any other difference.
    def rounded(df: DataFrame) -> DataFrame:
        return df.select(
            "k", "ws", "we", "n", F.format_string(f"%.{AVERAGE_DIGITS - 1}e", "a").alias("a")
        )

    def same_rows() -> bool:
        return same_averages("(l)", ours_rows, builtin)

    result = compare(
        "(l) hopping 5 s / 1 s, time_weighted_avg + count, events of 100 hops",
        ours,
        builtin,
        rounded(ours_rows),
        rounded(builtin),
        repeat,
        same_rows,
    )
    note = f"(l) built-in / eventwindows: {result['ratio']:.1f}x (target at least 10x)"
    print(note, flush=True)
    NOTES.append(note)
    return result


def same_averages(name: str, ours: DataFrame, builtin: DataFrame) -> bool:
    """Rows (k, ws, we, n, a) of both sides matched by (k, ws, we): True when every window is on
    both sides with the same count and averages equal to AVERAGE_DIGITS significant digits
    (relative difference at most 10^-AVERAGE_DIGITS, or both NULL); otherwise prints how they
    differ, with a few rows of each kind, and returns False."""
    o, b = ours.alias("o"), builtin.alias("b")
    joined = o.join(b, ["k", "ws", "we"], "full_outer").select(
        "k",
        "ws",
        "we",
        F.col("o.n").alias("ours_n"),
        F.col("b.n").alias("builtin_n"),
        F.col("o.a").alias("ours_a"),
        F.col("b.a").alias("builtin_a"),
    )
    relative = F.when(F.col("ours_a") == F.col("builtin_a"), F.lit(0.0)).otherwise(
        F.abs(F.col("ours_a") - F.col("builtin_a"))
        / F.greatest(F.abs("ours_a"), F.abs("builtin_a"))
    )
    joined = joined.withColumn("relative", relative).cache()
    kinds = {
        "only in ours": F.col("builtin_n").isNull(),
        "only in built-in": F.col("ours_n").isNull(),
        "different counts": F.col("ours_n") != F.col("builtin_n"),
        "NULL average on one side only": F.col("ours_n").isNotNull()
        & F.col("builtin_n").isNotNull()
        & (F.col("ours_a").isNull() != F.col("builtin_a").isNull()),
        f"averages different in {AVERAGE_DIGITS} significant digits": F.col("relative")
        > 10.0**-AVERAGE_DIGITS,
    }
    same = True
    for kind, condition in kinds.items():
        rows = joined.filter(condition)
        count = rows.count()
        if count:
            same = False
            print(f"{name}: {count:,} windows {kind}, for example:", flush=True)
            rows.orderBy("k", "ws").show(5, truncate=False)
    if same:
        worst = joined.agg(F.max("relative"), F.count(F.when(F.col("relative") > 0, 1))).first()
        print(
            f"{name}: the hashes of the rounded averages differ, but every window agrees in "
            f"count and in the average to {AVERAGE_DIGITS} significant digits ({worst[1]:,} "
            f"averages differ in their last bits, at most {worst[0]:.1e} relative)",
            flush=True,
        )
    joined.unpersist()
    return same


def session_points(events: DataFrame, repeat: int) -> dict:
    """(m) event_session_window over point events with a 30 s gap, count + sum, against Spark's
    own session windows, groupBy(k, session_window(ts, '30 seconds')): for point events both are
    the same sessions [first t, last t + gap)."""
    ours = events.groupBy("k", ew.event_session_window("ts", "30 seconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    builtin = (
        events.groupBy("k", F.session_window("ts", "30 seconds"))
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .withColumnRenamed("session_window", "window")
    )
    return compare(
        "(m) event_session_window(ts, 30 s), point events, count + sum",
        ours,
        builtin,
        per_window(ours),
        per_window(builtin),
        repeat,
    )


def session_intervals(events: DataFrame, repeat: int) -> dict:
    """(n) event_session_window over interval events with a 30 s gap, count + sum, against the
    way to sessionize intervals with Spark alone (its session_window takes points only): per
    key, in start order, a window function computes the running max of end - 1 tick + gap over
    the previous rows (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING); a row whose start is
    beyond it (or the key's first row) starts a session; the running sum of those flags numbers
    the sessions; then groupBy(k, session) with min(start), max(end - 1 tick + gap), count, sum.
    Events with equal starts are in one session whatever their order (each keeps the session
    open past its own start), so the ROWS frame's order among them does not matter."""
    gap_us = 30 * MICROS_PER_SECOND
    ours = events.groupBy("k", ew.event_session_window("s", "30 seconds", end="e")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    by_start = Window.partitionBy("k").orderBy("s_us")
    reach = F.max("reach").over(by_start.rowsBetween(Window.unboundedPreceding, -1))
    starts = F.when(reach.isNull() | (F.col("s_us") > reach), 1).otherwise(0)
    builtin = (
        events.select(
            "k",
            "v",
            F.unix_micros("s").alias("s_us"),
            (F.unix_micros("e") - 1 + gap_us).alias("reach"),
        )
        .withColumn("new", starts)
        .withColumn(
            "session",
            F.sum("new").over(by_start.rowsBetween(Window.unboundedPreceding, Window.currentRow)),
        )
        .groupBy("k", "session")
        .agg(
            F.min("s_us").alias("ws_us"),
            F.max("reach").alias("we_us"),
            F.count("*").alias("n"),
            F.sum("v").alias("total"),
        )
        .select(
            "k",
            F.timestamp_micros("ws_us").alias("ws"),
            F.timestamp_micros("we_us").alias("we"),
            "n",
            "total",
        )
    )
    return compare(
        "(n) event_session_window(s, e, 30 s), interval events, count + sum",
        ours,
        builtin,
        per_window(ours),
        builtin,
        repeat,
    )


def spl_tumbling_points(events: DataFrame, repeat: int) -> dict:
    """(o) spl_tumbling_window(ts, count(1000)), avg + max, over tuples with distinct times,
    against numbering each key's tuples with row_number() in time order, batch (rn - 1) div
    1000, and groupBy(k, batch) keeping the full batches (count 1000: SPL flushes a window only
    once it holds 1000; the rest stays open), the flush time being the batch's last (max) ts."""
    n = 1000
    ours = events.groupBy("k", ew.spl_tumbling_window("ts", ew.spl.count(n))).agg(
        F.avg("v").alias("a"), F.max("v").alias("m")
    )
    builtin = (
        events.withColumn(
            "batch", F.floor((F.row_number().over(Window.partitionBy("k").orderBy("ts")) - 1) / n)
        )
        .groupBy("k", "batch")
        .agg(
            F.count("*").alias("c"),
            F.max("ts").alias("t"),
            F.avg("v").alias("a"),
            F.max("v").alias("m"),
        )
        .where(F.col("c") == n)
        .select("k", "t", "a", "m")
    )
    return compare(
        f"(o) spl_tumbling_window(ts, count({n})), avg + max",
        ours,
        builtin,
        per_anchor(ours),
        builtin,
        repeat,
    )


def calendar_points(events: DataFrame, repeat: int) -> list:
    """(s) calendar days and months in Europe/Berlin against date_trunc in the zone + groupBy."""
    zone = "Europe/Berlin"
    results = []
    for unit, size in [("day", "1 day"), ("month", "1 month")]:
        ours = events.groupBy("k", ew.tumbling_window("ts", size, time_zone=zone)).agg(
            F.count("*").alias("n"), F.sum("v").alias("total")
        )
        local = F.date_trunc(unit, F.from_utc_timestamp("ts", zone))
        builtin = (
            events.groupBy("k", local.alias("local"))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
            .select(
                "k",
                F.struct(
                    F.to_utc_timestamp("local", zone).alias("start"),
                    F.to_utc_timestamp(
                        F.col("local") + F.expr(f"INTERVAL 1 {unit.upper()}"), zone
                    ).alias("end"),
                ).alias("window"),
                "n",
                "total",
            )
        )
        results.append(
            compare(
                f"(s) calendar {unit}s in {zone}, point events",
                ours,
                builtin,
                per_window(ours),
                per_window(builtin),
                repeat,
            )
        )
    return results


def streaming_hopping(spark: SparkSession, events: DataFrame, repeat: int) -> dict:
    """(j) hopping 60 s / 1 s over a stream of files, ours against Spark's streaming window()."""

    def query(window):
        return lambda stream: (
            stream.withWatermark("ts", "10 seconds")
            .groupBy("k", window)
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        )

    return compare_streams(
        "(j) streaming hopping 60 s / 1 s, 20 micro-batches",
        spark,
        events,
        write_stream_files(events, "ts", 3600),
        builtin=query(F.window("ts", "60 seconds", "1 second")),
        ours=query(ew.hopping_window("ts", "60 seconds", "1 second")),
        comparable=lambda builtin, ours: (per_window(builtin), per_window(ours)),
        repeat=repeat,
    )


def streaming_two_stages(spark: SparkSession, events: DataFrame, repeat: int) -> dict:
    """(r) windows over windows on a stream: hopping 60 s / 10 s, then hopping 5 min / 1 min
    over the first stage's window_time, ours at both stages against Spark's window() at both;
    the closed windows of the second stage compared."""

    def query(first, second):
        def build(stream):
            windows = (
                stream.withWatermark("ts", "10 seconds")
                .groupBy("k", first)
                .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
            )
            return windows.groupBy("k", second(F.window_time("window"))).agg(
                F.sum("n").alias("n"), F.sum("total").alias("total")
            )

        return build

    return compare_streams(
        "(r) streaming hopping 5 min / 1 min over hopping 60 s / 10 s (window_time), 20 "
        "micro-batches",
        spark,
        events,
        write_stream_files(events, "ts", 3600),
        builtin=query(
            F.window("ts", "60 seconds", "10 seconds"),
            lambda t: F.window(t, "5 minutes", "1 minute"),
        ),
        ours=query(
            ew.hopping_window("ts", "60 seconds", "10 seconds"),
            lambda t: ew.hopping_window(t, "5 minutes", "1 minute"),
        ),
        comparable=lambda builtin, ours: (per_window(builtin), per_window(ours)),
        repeat=repeat,
    )


def write_stream_files(
    events: DataFrame, time_column: str, span_seconds: int, slices: int = 20
) -> str:
    """events as `slices` Parquet files in time order (one per micro-batch when read with
    maxFilesPerTrigger 1); returns their folder."""
    source = tempfile.mkdtemp(prefix="eventwindows-stream-")
    slice_of = F.floor(
        (F.unix_micros(time_column) - ORIGIN) * slices / (span_seconds * MICROS_PER_SECOND)
    )
    for i in range(slices):
        events.filter(slice_of == i).coalesce(1).write.mode("append").parquet(source)
    return source


def run_stream(spark: SparkSession, source: str, schema, build) -> tuple:
    """(seconds, result table) of build(stream) run to the end of source in append mode."""
    name = f"eventwindows_bench_{uuid.uuid4().hex}"
    stream = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(source)
    query = (
        build(stream)
        .writeStream.format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", tempfile.mkdtemp(prefix="eventwindows-checkpoint-"))
        .trigger(availableNow=True)
        .start()
    )
    t0 = time.perf_counter()
    query.awaitTermination()
    return time.perf_counter() - t0, spark.table(name)


def compare_streams(
    name: str,
    spark: SparkSession,
    events: DataFrame,
    source: str,
    builtin,
    ours,
    comparable,
    repeat: int,
) -> dict:
    """Times the streaming queries builtin(stream) and ours(stream) over the files of `events`
    in `source` (best of `repeat` runs, alternated so that neither side alone pays for the
    warm-up), checks that comparable(builtin rows, ours rows) gives the same rows, and prints
    the ratio and the events per second."""
    builtin_runs, ours_runs = [], []
    for _ in range(repeat):
        builtin_runs.append(run_stream(spark, source, events.schema, builtin))
        ours_runs.append(run_stream(spark, source, events.schema, ours))
    t_builtin, builtin_rows = min(builtin_runs, key=lambda r: r[0])
    t_ours, ours_rows = min(ours_runs, key=lambda r: r[0])
    builtin_check, ours_check = comparable(builtin_rows, ours_rows)
    ours_sum, builtin_sum = checksum(ours_check), checksum(builtin_check)
    if ours_sum != builtin_sum:
        raise AssertionError(f"{name}: different answers: ours {ours_sum}, built-in {builtin_sum}")
    n = events.count()
    print(
        f"{name}: built-in {t_builtin:.2f} s ({n / t_builtin:,.0f} events/s), eventwindows "
        f"{t_ours:.2f} s ({n / t_ours:,.0f} events/s), ratio {t_builtin / t_ours:.2f}x; same "
        f"answer on {ours_sum[0]:,} closed windows",
        flush=True,
    )
    NOTES.append(
        f"{name.split()[0]} events per second: built-in {n / t_builtin:,.0f}, "
        f"eventwindows {n / t_ours:,.0f}"
    )
    return side_by_side(name, t_builtin, t_ours, builtin_rows.count(), ours_rows.count())


def streaming_changes(spark: SparkSession, repeat: int) -> dict:
    """(k) 'changes' over interval events on a stream, against the streaming explode."""
    week = 7 * 86400
    events = interval_events(spark, 200_000, 100, week, 10 * 60)
    size_us, hop_us = 5 * 60 * MICROS_PER_SECOND, 60 * MICROS_PER_SECOND

    def ours(stream: DataFrame) -> DataFrame:
        return (
            stream.withWatermark("s", "10 seconds")
            .groupBy(
                "k", ew.hopping_window("s", "5 minutes", "1 minute", output="changes", end="e")
            )
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        )

    def builtin(stream: DataFrame) -> DataFrame:
        s, e = F.unix_micros("s"), F.unix_micros("e")
        first = (s - size_us) - F.pmod(s - size_us, F.lit(hop_us)) + hop_us
        last = (e - 1) - F.pmod(e - 1, F.lit(hop_us))
        return (
            stream.select(
                "k", "v", F.explode(F.sequence(first, last, F.lit(hop_us))).alias("ws_us")
            )
            .withColumn("ws", F.timestamp_micros("ws_us"))
            .withWatermark("ws", "30 minutes")  # > 20 min events + 5 min windows + 10 s
            .groupBy("k", "ws")
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
            .select(
                "k", "ws", (F.col("ws") + F.expr("INTERVAL 5 MINUTES")).alias("we"), "n", "total"
            )
        )

    # Both have closed the windows ending a day before the last event.
    cutoff = F.timestamp_micros(F.lit(ORIGIN + (week - 86400) * MICROS_PER_SECOND))
    return compare_streams(
        "(k) streaming hopping 5 min / 1 min 'changes', interval events, 20 micro-batches",
        spark,
        events,
        write_stream_files(events, "s", week),
        builtin=builtin,
        ours=ours,
        comparable=lambda builtin_rows, ours_rows: (
            builtin_rows.filter(F.col("we") <= cutoff),
            expand_changes(ours_rows, size_us, hop_us).filter(F.col("we") <= cutoff),
        ),
        repeat=repeat,
    )


def pandas_median():
    """A grouped-aggregate pandas UDF: the median of a window's values (order-insensitive, so
    both sides give the same doubles)."""
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    def median(v):
        return float(v.median())

    # As objects, not the strings this module's annotations are: pandas_udf reads its kind there.
    median.__annotations__ = {"v": pd.Series, "return": float}
    return pandas_udf("double")(median)


def pandas_hopping(events: DataFrame, repeat: int) -> dict:
    """(p) A pandas UDF (median) over hopping windows of 60 min every 30 min of interval events,
    against what a user writes today: each event's window starts (`sequence`), exploded,
    `groupBy(k, window start)` and the same UDF. Both hand the UDF the same values per window."""
    median = pandas_median()
    size_us, hop_us = 3600 * MICROS_PER_SECOND, 1800 * MICROS_PER_SECOND
    ours = (
        events.groupBy("k", ew.hopping_window("s", "60 minutes", "30 minutes", end="e"))
        .agg(median("v").alias("median"))
        .select("k", F.col("window.start").alias("ws"), "median")
    )
    s, e = F.unix_micros("s"), F.unix_micros("e")
    # The windows [ws, ws + size) the event [s, e) intersects, ws a multiple of the hop.
    first = (F.floor((s - size_us) / hop_us) + 1) * hop_us
    last = F.floor((e - 1) / hop_us) * hop_us
    builtin = (
        events.select("k", "v", F.explode(F.sequence(first, last, F.lit(hop_us))).alias("w"))
        .groupBy("k", "w")
        .agg(median("v").alias("median"))
        .select("k", F.timestamp_micros("w").alias("ws"), "median")
    )
    return compare(
        "(p) pandas UDF (median) over hopping 60 min / 30 min, interval events: vs "
        "explode of window starts + groupBy + the same UDF",
        ours,
        builtin,
        ours,
        builtin,
        repeat,
    )


def pandas_index(events: DataFrame, repeat: int) -> dict:
    """(q) A pandas UDF (median) over index windows of 10 messages, against a self-join of each
    message with its 9 predecessors (numbered by row_number in our tie order: time, then the
    value), `groupBy(k, anchor)` and the same UDF; full windows only, as index_window gives."""
    median = pandas_median()
    ours = (
        events.groupBy("k", ew.index_window("ts", -9, 0))
        .agg(median("v").alias("median"))
        .select("k", F.col("window.start").alias("t"), "median")
    )
    numbered = events.select(
        "k", "ts", "v", F.row_number().over(Window.partitionBy("k").orderBy("ts", "v")).alias("i")
    )
    anchors = numbered.where(F.col("i") >= 10).select(
        "k", F.col("ts").alias("t"), F.col("i").alias("anchor")
    )
    members = numbered.select(F.col("k").alias("mk"), F.col("i").alias("mi"), "v")
    builtin = (
        anchors.join(
            members,
            (F.col("k") == F.col("mk")) & F.col("mi").between(F.col("anchor") - 9, F.col("anchor")),
        )
        .groupBy("k", "anchor", "t")
        .agg(median("v").alias("median"))
        .select("k", "t", "median")
    )
    return compare(
        "(q) pandas UDF (median) over index_window(ts, -9, 0): vs a self-join of the "
        "last 10 messages + groupBy + the same UDF",
        ours,
        builtin,
        ours,
        builtin,
        repeat,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the events")
    parser.add_argument(
        "--cases",
        default="zabBcdefghijklmnopqrstuvwx",
        help="which cases to run: a, b (60 min windows), B (5 min windows), c, "
        "d (index), e (relative time), f (count), g (memory, own process), "
        "h (SPL sliding), i (dynamic), j (streaming hopping), "
        "k (streaming 'changes'), l (time-weighted average), "
        "m (sessions over points), n (sessions over intervals), "
        "o (SPL tumbling), p (a pandas UDF over hopping windows), "
        "q (a pandas UDF over index windows), "
        "r (streaming windows over windows), s (calendar days, months), "
        "t (cumulating windows over points), "
        "u (overlap join), v (point-in-interval join without keys), "
        "w (ASOF join), "
        "x (the overlap join's growth), "
        "z (the floor: shuffle + sort of the inputs of a and b)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs per query at least (best kept)"
    )
    parser.add_argument(
        "--min-time",
        type=float,
        default=timing.MIN_TIME_SECONDS,
        help="seconds the timed runs of a query last at least together",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=timing.WARMUP_SECONDS,
        help="seconds of untimed runs before each query is timed",
    )
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument(
        "--memory-driver-memory", default="512m", help="the driver memory of case g's process"
    )
    parser.add_argument(
        "--memory-builtin",
        action="store_true",
        help="case g also times Spark's ROWS frame (slow: minutes)",
    )
    parser.add_argument("--memory-case", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    timing.WARMUP_SECONDS = args.warmup
    timing.MIN_TIME_SECONDS = args.min_time

    if args.memory_case is not None:  # case g's own process: one JSON line on stdout
        spark = session(args.driver_memory)
        result = memory_case(spark, args.memory_case, args.repeat, args.memory_builtin)
        spark.stop()
        print(json.dumps(result), flush=True)
        return

    spark = session(args.driver_memory)
    # 2,000,000 point events in 100 keys over one hour: 5.6 events per second per key.
    points = point_events(spark, 2_000_000 // scale, 100, 3600).cache()
    # The same number of tuples with distinct times, for (h).
    distinct = distinct_points(spark, 2_000_000 // scale, 100, 3600).cache()
    # 1,000,000 interval events in 100 keys over 4 weeks, lasting 100 minutes (100 hops) on
    # average: 25 events at a time in each key.
    intervals = interval_events(spark, 1_000_000 // scale, 100, 28 * 86400, 100 * 60).cache()
    # 1,000,000 interval events in 100 keys over 100,000 s (about 28 hours), lasting 80 to 120 s
    # (about 100 hops of 1 s): 10 events at a time in each key, so each key's time line is
    # covered and the answer is about 100 x 100,000 = 10,000,000 windows of 5 s.
    weighted = weighted_events(spark, 1_000_000 // scale, 100, 100_000 // scale).cache()
    # 2,000,000 point events in 100 keys over 300,000 s: 15 s apart on average in a key, so a
    # gap of 30 s closes a session after about one event in seven.
    session_events = point_events(spark, 2_000_000 // scale, 100, 300_000 // scale).cache()
    # 1,000,000 interval events in 100 keys over 1,200,000 s, lasting 1 s to 119 s (60 s on
    # average): starts 120 s apart on average in a key, so sessions of a few events.
    session_intervals_events = interval_events(
        spark, 1_000_000 // scale, 100, 1_200_000 // scale, 60
    ).cache()
    # 100,000 interval events in 20 keys over two days, lasting 1 s to 39 min (20 min on
    # average): about 60 values per hopping window of (p). 50,000 point events of (q) in 100 keys.
    pandas_intervals = interval_events(spark, 100_000 // scale, 20, 2 * 86400, 20 * 60).cache()
    pandas_points = point_events(spark, 50_000 // scale, 100, 3600).cache()
    # 2,000,000 point events in 100 keys over 400 days, for the calendar windows of (s).
    calendar_events = point_events(spark, 2_000_000 // scale, 100, 400 * 86400).cache()
    cases = {
        "a": lambda: hopping_points(points, args.repeat),
        "b": lambda: hopping_changes(intervals, "b", 60, args.repeat),
        "B": lambda: hopping_changes(intervals, "B", 5, args.repeat),
        "c": lambda: tumbling_points(points, args.repeat),
        "d": lambda: index_points(points, args.repeat),
        "e": lambda: relative_time_points(points, args.repeat),
        "f": lambda: count_points(points, args.repeat),
        "g": lambda: memory_subprocess(
            5_000_000 // scale, args.repeat, args.memory_driver_memory, args.memory_builtin
        ),
        "h": lambda: sliding_points(distinct, args.repeat),
        "i": lambda: dynamic_points(spark, points, args.repeat),
        "j": lambda: streaming_hopping(spark, points, min(args.repeat, 2)),
        "k": lambda: streaming_changes(spark, min(args.repeat, 2)),
        "l": lambda: time_weighted(weighted, args.repeat),
        "m": lambda: session_points(session_events, args.repeat),
        "n": lambda: session_intervals(session_intervals_events, args.repeat),
        "o": lambda: spl_tumbling_points(distinct, args.repeat),
        "p": lambda: pandas_hopping(pandas_intervals, args.repeat),
        "q": lambda: pandas_index(pandas_points, args.repeat),
        "r": lambda: streaming_two_stages(spark, points, min(args.repeat, 2)),
        "s": lambda: calendar_points(calendar_events, args.repeat),
        "t": lambda: cumulate_points(points, args.repeat),
        "u": lambda: joins.overlap_join(spark, scale, args.repeat),
        "v": lambda: joins.point_in_interval(spark, scale, args.repeat),
        "w": lambda: asof.asof_join(spark, scale, args.repeat),
        "x": lambda: joins.growth(spark, scale, args.repeat),
    }
    # The input of each batch case whose floor it is measured against: name, events, time.
    inputs = {
        "points": (points, "ts"),
        "intervals": (intervals, "s"),
        "distinct": (distinct, "ts"),
        "weighted": (weighted, "s"),
        "session points": (session_events, "ts"),
        "session intervals": (session_intervals_events, "s"),
        "calendar points": (calendar_events, "ts"),
    }
    input_of = {
        "a": "points",
        "b": "intervals",
        "B": "intervals",
        "c": "points",
        "d": "points",
        "e": "points",
        "f": "points",
        "h": "distinct",
        "i": "points",
        "l": "weighted",
        "m": "session points",
        "n": "session intervals",
        "o": "distinct",
        "s": "calendar points",
        "t": "points",
    }
    cases["z"] = lambda: [
        {
            "case": f"(z) floor: shuffle + sort of the {name} of ({case})",
            "builtin_s": None,
            "ours_s": floor_time(name, *inputs[name], args.repeat),
            "ours_rows": None,
        }
        for name, case in (("points", "a"), ("intervals", "b"))
    ]
    results = []
    for c in args.cases:
        result = cases[c]()
        result = result if isinstance(result, list) else [result]
        if c in input_of:
            floor = floor_time(input_of[c], *inputs[input_of[c]], args.repeat)
            for r in result:
                r["floor_s"] = floor
                print(
                    f"{r['case']}: {r['ours_s'] / floor:.2f}x the floor of its input "
                    f"({floor:.2f} s)",
                    flush=True,
                )
        results.extend(result)
    print()
    print(
        "| case | Spark built-in | eventwindows | speed-up | eventwindows / floor "
        "| rows: ours / built-in |"
    )
    print("|---|---|---|---|---|---|")
    for r in results:
        to_floor = f"{r['ours_s'] / r['floor_s']:.2f}x" if "floor_s" in r else "-"
        ours_rows = "-" if r["ours_rows"] is None else f"{r['ours_rows']:,}"
        if r["builtin_s"] is None:
            print(f"| {r['case']} | - | {r['ours_s']:.2f} s | - | {to_floor} | {ours_rows} / - |")
            continue
        print(
            f"| {r['case']} | {r['builtin_s']:.2f} s | {r['ours_s']:.2f} s | "
            f"{r['ratio']:.1f}x | {to_floor} | {ours_rows} / {r['builtin_rows']:,} |"
        )
    for note in NOTES:
        print(note)
    spark.stop()


if __name__ == "__main__":
    main()
