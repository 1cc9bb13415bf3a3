"""Case (w) of the benchmarks: the ASOF join of issue 44 (item 4), 2,000,000 trades with
2,000,000 quotes in 100 keys over a day (a tenth with --quick), each trade with the last quote of
its key at or before it: `ew.asof_join` (each left row looked up among its task's sorted right
rows) against the usual way (the union of both, then `last(..., ignorenulls)` over a window by
key and time, keeping the trades' rows), and on Spark 4.3 against its SQL `ASOF JOIN` too, same
answers checked, noop sink. The inputs are materialized once with `localCheckpoint()`.
(`cache()` serves as well since `ew.asof_join` keeps a cached input cached: it once passed its
inputs as `spark.sql`'s DataFrame arguments, whose views PySpark drops with `dropTempView`,
uncaching them.)

Hooked into benchmarks/run.py as `asof_join(spark, scale, repeat)`; alone:
    .venv/bin/python benchmarks/asof.py --quick
"""

from joins import duckdb_time
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from timing import best_time, checksum, side_by_side

import eventwindows as ew

DAY_US = 86_400_000_000
KEYS = 100


def trades_and_quotes(spark: SparkSession, n: int):
    """n trades at random times of a day, n quotes at distinct times (so that "the last quote"
    is one row either way), each in KEYS keys, materialized (see the module's docstring)."""
    trades = spark.range(n).select(
        (F.col("id") * 7919 % KEYS).cast("int").alias("k"),
        F.timestamp_micros((F.rand(44) * DAY_US).cast("long")).alias("ts"),
        F.col("id").alias("tid"),
        (F.col("id") % 1000).cast("int").alias("qty"),
    )
    quotes = spark.range(n).select(
        (F.col("id") % KEYS).cast("int").alias("k"),
        F.timestamp_micros(F.col("id") * (DAY_US // n)).alias("qts"),
        (F.col("id") % 997 / 10.0).alias("bid"),
    )
    return trades.localCheckpoint(), quotes.localCheckpoint()


def usual_way(trades: DataFrame, quotes: DataFrame) -> DataFrame:
    """The ASOF join as Spark users write it: both in one table, a quote before a trade at the
    same time, the last quote carried forward over a window by key and time."""
    union = trades.select(
        "k",
        F.col("ts").alias("t"),
        "tid",
        "qty",
        F.lit(None).cast("timestamp").alias("qts"),
        F.lit(None).cast("double").alias("bid"),
        F.lit(1).alias("side"),
    ).unionByName(
        quotes.select(
            "k",
            F.col("qts").alias("t"),
            F.lit(None).cast("long").alias("tid"),
            F.lit(None).cast("int").alias("qty"),
            "qts",
            "bid",
            F.lit(0).alias("side"),
        )
    )
    carried = (
        Window.partitionBy("k")
        .orderBy("t", "side")
        .rowsBetween(Window.unboundedPreceding, Window.currentRow)
    )
    return (
        union.select(
            "k",
            F.col("t").alias("ts"),
            "tid",
            "qty",
            F.last("qts", ignorenulls=True).over(carried).alias("qts"),
            F.last("bid", ignorenulls=True).over(carried).alias("bid"),
            "side",
        )
        .where("side = 1")
        .drop("side")
    )


#: The same join in Spark 4.3's SQL ASOF JOIN (a left join: every trade once), over the views
#: `trades` and `quotes`.
SPARK_ASOF = (
    "SELECT t.k, t.ts, t.tid, t.qty, q.qts, q.bid FROM trades t "
    "LEFT ASOF JOIN quotes q MATCH_CONDITION(t.ts >= q.qts) ON t.k = q.k"
)

#: The configuration that enables it (off by default in 4.3; the syntax fails without it).
SPARK_ASOF_ENABLED = "spark.sql.join.asofJoin.enabled"


def has_sql_asof_join(spark: SparkSession) -> bool:
    """Whether the session's Spark has SQL's ASOF JOIN (4.3 and later)."""
    return tuple(int(p) for p in spark.version.split(".")[:2]) >= (4, 3)


def spark_asof_time(spark, trades, quotes, expected, repeat):
    """Spark 4.3's ASOF JOIN of the same rows: its best time, after checking its answer is
    `expected` (checksum)."""
    trades.createOrReplaceTempView("trades")
    quotes.createOrReplaceTempView("quotes")
    spark.conf.set(SPARK_ASOF_ENABLED, "true")
    try:
        builtin = spark.sql(SPARK_ASOF)
        answer = checksum(builtin)
        if answer != expected:
            raise AssertionError(f"(w): Spark's ASOF JOIN gives {answer}, ours {expected}")
        return best_time(builtin, repeat)
    finally:
        spark.conf.unset(SPARK_ASOF_ENABLED)


#: The same join in DuckDB's own ASOF JOIN (a left join: every trade once).
DUCKDB_ASOF = (
    "SELECT t.k, t.ts, t.tid, t.qty, q.qts, q.bid FROM trades t "
    "ASOF LEFT JOIN quotes q ON t.k = q.k AND t.ts >= q.qts"
)


def asof_join(spark: SparkSession, scale: int, repeat: int) -> dict:
    """Case (w): times both plans, checks they give the same rows, prints and returns the ratio."""
    n = 2_000_000 // scale
    trades, quotes = trades_and_quotes(spark, n)
    ours = ew.asof_join(trades, quotes, "k", "ts", "qts").select(
        "k", "ts", "tid", "qty", "qts", "bid"
    )
    usual = usual_way(trades, quotes)
    ours_sum, usual_sum = checksum(ours), checksum(usual)
    same = ours_sum == usual_sum
    ours_s, usual_s = best_time(ours, repeat), best_time(usual, repeat)
    name = f"(w) ASOF join, {n:,} trades x {n:,} quotes, {KEYS} keys"
    result = {
        **side_by_side(name, usual_s, ours_s, usual_sum[0], ours_sum[0]),
        "usual_s": usual_s,
        "same_answer": same,
    }
    line = (
        f"{name}: ours {ours_s:.2f} s, the usual way (union + last over a window) "
        f"{usual_s:.2f} s, {usual_s / ours_s:.1f}x, same answer: {same}"
    )
    if has_sql_asof_join(spark):
        sql_s = spark_asof_time(spark, trades, quotes, ours_sum, repeat)
        result["spark_asof_s"] = sql_s
        line += f"; Spark's ASOF JOIN {sql_s:.2f} s ({sql_s / ours_s:.1f}x, same answer)"
    duck = duckdb_time({"trades": trades, "quotes": quotes}, DUCKDB_ASOF, repeat)
    if duck is not None:
        duck_s, duck_rows = duck
        if duck_rows != n:
            raise AssertionError(f"(w): DuckDB gives {duck_rows:,} rows, not {n:,}")
        result["duckdb_s"] = duck_s
        line += f"; DuckDB {duck_s:.2f} s (eventwindows / DuckDB {ours_s / duck_s:.1f}x)"
    print(line, flush=True)
    return result


if __name__ == "__main__":
    import argparse
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import run  # the benchmarks' session

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the events")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    session = run.session("6g")
    asof_join(session, 10 if args.quick else 1, args.repeat)
    session.stop()
