"""eventwindows against Spark's best built-in way to get the same answer, in the same session.

    .venv/bin/python benchmarks/run.py            # the sizes of the README table
    .venv/bin/python benchmarks/run.py --quick    # a tenth of the events, to try it out

Each case builds the input once, caches it, then times both queries (best of ``--repeat`` runs,
each written to Spark's ``noop`` sink so every row is computed and none is collected), checks that
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
"""
from __future__ import annotations

import argparse
import time

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import eventwindows as ew

MICROS_PER_SECOND = 1_000_000
#: The first instant of the generated data (2024-01-01 00:00:00 UTC), in microseconds.
ORIGIN = 1_704_067_200 * MICROS_PER_SECOND


def session(driver_memory: str) -> SparkSession:
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


def interval_events(spark: SparkSession, n: int, keys: int, span_seconds: int,
                    mean_seconds: int) -> DataFrame:
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


def best_time(df: DataFrame, repeat: int) -> float:
    """The best wall time of `repeat` full evaluations of df (written to the noop sink)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        df.write.format("noop").mode("overwrite").save()
        times.append(time.perf_counter() - t0)
    return min(times)


def checksum(df: DataFrame) -> tuple:
    """(rows, order-independent hash sum) of df's rows."""
    row = df.agg(F.count(F.lit(1)), F.sum(F.hash(*df.columns).cast("long"))).first()
    return tuple(row)


def per_window(df: DataFrame) -> DataFrame:
    """The comparable form of a per-window answer: key, window start and end, count, sum."""
    return df.select("k", F.col("window.start").alias("ws"), F.col("window.end").alias("we"),
                     "n", "total")


def expand_changes(df: DataFrame, size_us: int, hop_us: int) -> DataFrame:
    """Our 'changes' rows as per-window rows: a row [S, E) stands for the windows ending at
    S, S + hop, ... < E (E - S is a whole number of hops)."""
    s, e = F.unix_micros("window.start"), F.unix_micros("window.end")
    ends = F.explode(F.sequence(s, e - hop_us, F.lit(hop_us)))
    return df.select("k", ends.alias("we_us"), "n", "total").select(
        "k", F.timestamp_micros(F.col("we_us") - size_us).alias("ws"),
        F.timestamp_micros("we_us").alias("we"), "n", "total")


def compare(name: str, ours: DataFrame, builtin: DataFrame, ours_check: DataFrame,
            builtin_check: DataFrame, repeat: int) -> dict:
    ours_sum, builtin_sum = checksum(ours_check), checksum(builtin_check)
    if ours_sum != builtin_sum:
        raise AssertionError(f"{name}: different answers: ours {ours_sum}, built-in {builtin_sum}")
    t_builtin = best_time(builtin, repeat)
    t_ours = best_time(ours, repeat)
    result = {
        "case": name,
        "builtin_s": t_builtin,
        "ours_s": t_ours,
        "ratio": t_builtin / t_ours,
        "ours_rows": ours.count(),
        "builtin_rows": builtin_sum[0],
    }
    print(f"{name}: built-in {t_builtin:.2f} s, eventwindows {t_ours:.2f} s, "
          f"ratio {result['ratio']:.1f}x; rows: ours {result['ours_rows']:,}, "
          f"built-in {result['builtin_rows']:,}; same answer: {ours_sum[0]:,} windows",
          flush=True)
    return result


def hopping_points(events: DataFrame, repeat: int) -> dict:
    ours = events.groupBy("k", ew.hopping_window("ts", None, "60 seconds", "1 second")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"))
    builtin = events.groupBy("k", F.window("ts", "60 seconds", "1 second")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"))
    return compare("(a) hopping 60 s / 1 s, point events", ours, builtin,
                   per_window(ours), per_window(builtin), repeat)


def tumbling_points(events: DataFrame, repeat: int) -> dict:
    ours = events.groupBy("k", ew.tumbling_window("ts", None, "60 seconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"))
    builtin = events.groupBy("k", F.window("ts", "60 seconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"))
    return compare("(c) tumbling 60 s, point events", ours, builtin,
                   per_window(ours), per_window(builtin), repeat)


def hopping_changes(events: DataFrame, label: str, size_minutes: int, repeat: int) -> dict:
    size_us, hop_us = size_minutes * 60 * MICROS_PER_SECOND, 60 * MICROS_PER_SECOND
    ours = events.groupBy("k", ew.hopping_window(
        "s", "e", f"{size_minutes} minutes", "1 minute", output="changes")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"))
    # Spark alone: window starts w = n * hop with s - size < w < e, i.e. from the first multiple
    # of hop above s - size to the last multiple of hop below e.
    s, e = F.unix_micros("s"), F.unix_micros("e")
    first = (s - size_us) - F.pmod(s - size_us, F.lit(hop_us)) + hop_us
    last = (e - 1) - F.pmod(e - 1, F.lit(hop_us))
    builtin = (
        events.select("k", "v", F.explode(F.sequence(first, last, F.lit(hop_us))).alias("ws_us"))
        .groupBy("k", "ws_us").agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .select("k", F.timestamp_micros("ws_us").alias("ws"),
                F.timestamp_micros(F.col("ws_us") + size_us).alias("we"), "n", "total"))
    name = f"({label}) hopping {size_minutes} min / 1 min 'changes', events of 100 hops"
    return compare(name, ours, builtin, expand_changes(ours, size_us, hop_us), builtin, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the events")
    parser.add_argument("--cases", default="abBc",
                        help="which cases to run: a, b (60 min windows), B (5 min windows), c")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per query (best kept)")
    parser.add_argument("--driver-memory", default="6g")
    args = parser.parse_args()
    scale = 10 if args.quick else 1

    spark = session(args.driver_memory)
    # 2,000,000 point events in 100 keys over one hour: 5.6 events per second per key.
    points = point_events(spark, 2_000_000 // scale, 100, 3600).cache()
    # 1,000,000 interval events in 100 keys over 4 weeks, lasting 100 minutes (100 hops) on
    # average: 25 events at a time in each key.
    intervals = interval_events(spark, 1_000_000 // scale, 100, 28 * 86400, 100 * 60).cache()
    cases = {"a": lambda: hopping_points(points, args.repeat),
             "b": lambda: hopping_changes(intervals, "b", 60, args.repeat),
             "B": lambda: hopping_changes(intervals, "B", 5, args.repeat),
             "c": lambda: tumbling_points(points, args.repeat)}
    results = [cases[c]() for c in args.cases]
    print()
    print("| case | Spark built-in | eventwindows | speed-up | rows: ours / built-in |")
    print("|---|---|---|---|---|")
    for r in results:
        print(f"| {r['case']} | {r['builtin_s']:.2f} s | {r['ours_s']:.2f} s | "
              f"{r['ratio']:.1f}x | {r['ours_rows']:,} / {r['builtin_rows']:,} |")
    spark.stop()


if __name__ == "__main__":
    main()
