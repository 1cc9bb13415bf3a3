"""A temporal join of two streams (issue 47): eventwindows' stream-stream join
(``ew.temporal_join``, planned as Spark's ``transformWithState`` with the overlap condition
alone) against Spark's own stream-stream join of the same rows with the equivalent bounded range
condition, which Spark needs to clean its state: lifetimes last at most ``MAX_SECONDS``, so two
that overlap start less than that apart,

    l_k = r_k AND l_s < r_e AND r_s < l_e
      AND l_s > r_s - INTERVAL MAX_SECONDS AND r_s > l_s - INTERVAL MAX_SECONDS

Each side: interval events (1 s to ``MAX_SECONDS``) in 100 keys, in start order as Parquet
files read one per micro-batch (``maxFilesPerTrigger`` 1, ``availableNow``), a 10 s watermark on
the start, an inner join in append mode into the memory sink. The rows of both are reduced to a
count and an order-independent hash sum, and the script stops if any run's differ; it prints the
time of each query (start to end, a fresh checkpoint each run; the best of ``--repeat`` runs,
alternated between the two as benchmarks/run.py's streaming cases are, so that neither alone pays
for the JVM's warm-up), the events per second (both sides' events over that time) and the ratio.

An ASOF join of two streams (``ew.asof_join``, backward) has no usual way on streams to compare
with (a window function over the union does not run on a stream, Spark 4.3's ``ASOF JOIN`` joins
a stream only with a static table): it runs over such sides in ``ASOF_KEYS`` keys (each event's
start its time; hundreds of rows a key per micro-batch, dozens waiting for the watermark) at
half the events and at all of them (best of two runs each, alternated), its rows checked against
the batch ``asof_join`` of the same files (the left rows the last watermark has reached), and the
script prints the events per second of each and how the time grew (2.0 where it grows linearly).

    .venv/bin/python benchmarks/stream_joins.py            # 20,000 events a side, 10 files
    .venv/bin/python benchmarks/stream_joins.py --events 200000 --files 20
    .venv/bin/python benchmarks/stream_joins.py --join asof
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import tempfile
import time

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import eventwindows as ew

RULE = "spark.eventwindows.rangeJoin.enabled"
MAX_SECONDS = 60
KEYS = 100
ASOF_KEYS = 4  # hundreds of rows a key per micro-batch, dozens waiting
SCHEMA = "k int, v long, s timestamp, e timestamp"


def write_side(
    spark: SparkSession, path: str, n: int, files: int, seed: int, keys: int = KEYS
) -> None:
    """n events in `keys` keys, starts spread over n / 10 seconds (10 a second), in start order
    across `files` Parquet files (file i holds the i-th slice of the time line)."""
    span = max(n // 10, 1)

    def draw(salt: int, below: int):
        return F.pmod(F.xxhash64(F.col("id"), F.lit(seed), F.lit(salt)), F.lit(below))

    events = (
        spark.range(n)
        .select(
            draw(0, keys).cast("int").alias("k"),
            F.col("id").alias("v"),
            draw(1, span * 1_000_000).alias("us"),
            (1 + draw(2, MAX_SECONDS * 1_000_000 - 1)).alias("len"),
        )
        .select(
            "k",
            "v",
            F.timestamp_micros(F.lit(1_704_067_200_000_000) + F.col("us")).alias("s"),
            F.timestamp_micros(F.lit(1_704_067_200_000_000) + F.col("us") + F.col("len")).alias(
                "e"
            ),
            (F.col("us") * files / (span * 1_000_000)).cast("int").alias("file"),
        )
    )
    for i in range(files):
        events.where(F.col("file") == i).drop("file").write.mode("append").parquet(path)
        # One file per slice, in order of writing: the file source reads by modification time.
        time.sleep(0.01)


def stream(spark: SparkSession, path: str, prefix: str) -> DataFrame:
    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(path)
    return df.select(*[F.col(c).alias(prefix + c) for c in df.columns]).withWatermark(
        prefix + "s", "10 seconds"
    )


def run(name: str, df: DataFrame, checkpoint: str, rule: bool) -> tuple:
    """Runs the stream to its end into a memory table, the range join rule on or off (a stream's
    plan is analyzed again as it starts); (seconds, row count, hash sum)."""
    spark = df.sparkSession
    spark.conf.set(RULE, str(rule).lower())
    try:
        begin = time.perf_counter()
        query = (
            df.writeStream.format("memory")
            .queryName(name)
            .outputMode("append")
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        seconds = time.perf_counter() - begin
    finally:
        spark.conf.unset(RULE)
    count, total = (
        spark.table(name).select(F.count("*"), F.sum(F.hash("av", "bv").cast("long"))).first()
    )
    return seconds, count, total


def asof(spark: SparkSession, root: str, run: int) -> tuple:
    """The backward ASOF join of the two streams of files under `root` (run `run`, a checkpoint
    of its own): (seconds, rows); stops if its rows are not the batch join's over the left rows
    the last watermark has reached (a count and an order-independent hash sum)."""

    def join(a: DataFrame, b: DataFrame) -> DataFrame:
        return ew.asof_join(
            a.withColumnRenamed("l_k", "k"), b.withColumnRenamed("r_k", "k"), "k", "l_s", "r_s"
        )

    a, b = stream(spark, f"{root}/a", "l_"), stream(spark, f"{root}/b", "r_")
    name = f"stream_asof_{run}"
    begin = time.perf_counter()
    query = (
        join(a, b)
        .writeStream.format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", f"{root}/checkpoint_{run}")
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    seconds = time.perf_counter() - begin
    watermark = datetime.datetime.fromisoformat(
        query.lastProgress["eventTime"]["watermark"].replace("Z", "+00:00")
    )

    def reduced(df: DataFrame) -> tuple:
        return tuple(df.select(F.count("*"), F.sum(F.hash("l_v", "r_v").cast("long"))).first())

    stream_rows = reduced(spark.table(name))
    batch_sides = [
        spark.read.parquet(f"{root}/{side}").select(
            *[F.col(c).alias(prefix + c) for c in ("k", "v", "s", "e")]
        )
        for side, prefix in (("a", "l_"), ("b", "r_"))
    ]
    batch_rows = reduced(join(*batch_sides).where(F.col("l_s") <= F.lit(watermark)))
    if stream_rows != batch_rows:
        raise SystemExit(
            f"different rows: the stream's {stream_rows}, the batch join's {batch_rows} "
            "(count, hash)"
        )
    return seconds, stream_rows[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000, help="events per side")
    parser.add_argument("--files", type=int, default=10, help="files (micro-batches) per side")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each query, best taken")
    parser.add_argument(
        "--join", choices=["temporal", "asof", "both"], default="both", help="which joins to time"
    )
    args = parser.parse_args()
    spark = (
        ew.builder()
        .master("local[2]")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    root = tempfile.mkdtemp(prefix="stream_joins_")
    try:
        if args.join in ("temporal", "both"):
            write_side(spark, f"{root}/a", args.events, args.files, 1)
            write_side(spark, f"{root}/b", args.events, args.files, 2)
            a, b = stream(spark, f"{root}/a", "l_"), stream(spark, f"{root}/b", "r_")
            ours = ew.temporal_join(
                a.withColumnRenamed("l_k", "k"),
                b.withColumnRenamed("r_k", "k"),
                "k",
                left_lifetime=("l_s", "l_e"),
                right_lifetime=("r_s", "r_e"),
            ).select(F.col("l_v").alias("av"), F.col("r_v").alias("bv"))
            bound = f"INTERVAL {MAX_SECONDS} SECONDS"
            spark.conf.set(RULE, "false")
            try:
                sparks = a.join(
                    b,
                    F.expr(
                        f"l_k = r_k AND l_s < r_e AND r_s < l_e AND l_s > r_s - {bound} "
                        f"AND r_s > l_s - {bound}"
                    ),
                ).select(F.col("l_v").alias("av"), F.col("r_v").alias("bv"))
            finally:
                spark.conf.unset(RULE)
            runs = {"spark": [], "eventwindows": []}
            for i in range(args.repeat):
                for name, df, rule in (("spark", sparks, False), ("eventwindows", ours, True)):
                    query = f"stream_join_{name}_{i}"
                    runs[name].append(run(query, df, f"{root}/checkpoint_{query}", rule))
            answers = {name: {(n, h) for _, n, h in rs} for name, rs in runs.items()}
            if len(answers["eventwindows"] | answers["spark"]) != 1:
                raise SystemExit(f"different rows (count, hash) across runs: {answers}")
            (t_ours, n_ours, h_ours), (t_spark, _, _) = (
                min(runs["eventwindows"]),
                min(runs["spark"]),
            )
            events = 2 * args.events
            print(
                f"stream-stream temporal join, {args.events:,} events a side in {args.files} "
                f"files, {n_ours:,} rows (same rows, hash {h_ours}), best of {args.repeat} runs"
            )
            print(
                f"  eventwindows (transformWithState): {t_ours:7.1f} s  {events / t_ours:10,.0f} "
                "events/s"
            )
            print(
                f"  Spark stream-stream join (bounded): {t_spark:7.1f} s  "
                f"{events / t_spark:10,.0f} events/s"
            )
            print(f"  ratio (Spark / eventwindows): {t_spark / t_ours:.2f}")
        if args.join in ("asof", "both"):
            sizes = [args.events // 2, args.events]
            for n in sizes:
                write_side(spark, f"{root}/asof_{n}/a", n, args.files, 1, ASOF_KEYS)
                write_side(spark, f"{root}/asof_{n}/b", n, args.files, 2, ASOF_KEYS)
            # Best of two runs of each size, alternated (the first run also warms the JVM up).
            runs = [(n, asof(spark, f"{root}/asof_{n}", run)) for run in range(2) for n in sizes]
            best = {n: min(r for m, r in runs if m == n) for n in sizes}
            print(
                f"stream-stream ASOF join (backward), {ASOF_KEYS} keys, {args.files} "
                "micro-batches, best of two"
            )
            for n in sizes:
                seconds, rows = best[n]
                print(
                    f"  eventwindows, {n:,} events a side: {seconds:7.1f} s  "
                    f"{2 * n / seconds:10,.0f} events/s  ({rows:,} rows, same as batch)"
                )
            growth = best[sizes[1]][0] / best[sizes[0]][0]
            print(f"  growth of the time from 1x to 2x the events: {growth:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
