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

    .venv/bin/python benchmarks/stream_joins.py            # 20,000 events a side, 10 files
    .venv/bin/python benchmarks/stream_joins.py --events 200000 --files 20
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import eventwindows as ew

RULE = "spark.eventwindows.rangeJoin.enabled"
MAX_SECONDS = 60
KEYS = 100
SCHEMA = "k int, v long, s timestamp, e timestamp"


def write_side(spark: SparkSession, path: str, n: int, files: int, seed: int) -> None:
    """n events, starts spread over n / 10 seconds (10 a second), in start order across
    `files` Parquet files (file i holds the i-th slice of the time line)."""
    span = max(n // 10, 1)

    def draw(salt: int, below: int):
        return F.pmod(F.xxhash64(F.col("id"), F.lit(seed), F.lit(salt)), F.lit(below))

    events = (
        spark.range(n)
        .select(
            draw(0, KEYS).cast("int").alias("k"),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000, help="events per side")
    parser.add_argument("--files", type=int, default=10, help="files (micro-batches) per side")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each query, best taken")
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
    finally:
        shutil.rmtree(root, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
