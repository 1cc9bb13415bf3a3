"""The temporal joins of benchmarks/run.py: the same SQL planned by eventwindows (``RangeJoin``)
and by Spark alone (``spark.eventwindows.rangeJoin.enabled=false``: a sort-merge join on the
keys with the range as a filter, or a broadcast nested loop join without keys), in the same
session, and the same query in DuckDB over the same rows as a single-machine peer. The inputs
are materialized once with ``localCheckpoint()`` and read through views by both plans.

(u) overlap join: two tables of 500,000 interval events (1 s to 120 s) in 100 keys over a day,
    ``a.k = b.k AND a.s < b.e AND b.s < a.e``.
(v) point in interval without keys: 2,000,000 points over a day and 10,000 intervals of 1 s to
    60 s, ``b.s <= a.ts AND a.ts < b.e``.
(x) growth: the overlap join of (u) at 1/8, 1/4, 1/2 and all of its input (the same density of
    events, over 1/8 to all of the day): eventwindows' time should grow with the input (and the
    output, which grows as fast), Spark's with the product of the sides per key.
"""

from __future__ import annotations

import contextlib
import time

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from timing import best_time, checksum, side_by_side

RULE = "spark.eventwindows.rangeJoin.enabled"
MICROS_PER_SECOND = 1_000_000
#: 2024-01-01 00:00:00 UTC in microseconds, as in run.py.
ORIGIN = 1_704_067_200 * MICROS_PER_SECOND
DAY_SECONDS = 86_400

OVERLAP = "SELECT a.k, a.v AS av, b.v AS bv FROM a JOIN b ON a.k = b.k AND a.s < b.e AND b.s < a.e"
POINT_IN_INTERVAL = (
    "SELECT a.v AS av, b.v AS bv FROM points a JOIN intervals b ON b.s <= a.ts AND a.ts < b.e"
)


@contextlib.contextmanager
def rule(spark: SparkSession, enabled: bool):
    """The range join rule on or off while planning inside the block."""
    spark.conf.set(RULE, str(enabled).lower())
    try:
        yield
    finally:
        spark.conf.unset(RULE)


def events(
    spark: SparkSession,
    n: int,
    keys: int,
    span_seconds: int,
    min_seconds: int,
    max_seconds: int,
    seed: int,
) -> DataFrame:
    """n interval events (k, s, e, v): starts uniform over span_seconds, lengths uniform in
    [min_seconds, max_seconds]; keys 0..keys-1 (all 0 for keys=1)."""
    span = span_seconds * MICROS_PER_SECOND
    length = F.lit(min_seconds * MICROS_PER_SECOND) + (
        F.rand(seed + 1) * (max_seconds - min_seconds) * MICROS_PER_SECOND
    ).cast("long")
    start = F.lit(ORIGIN) + (F.rand(seed) * span).cast("long")
    return spark.range(n, numPartitions=4).select(
        (F.col("id") % keys).cast("int").alias("k"),
        F.timestamp_micros(start).alias("s"),
        F.timestamp_micros(start + length).alias("e"),
        (F.rand(seed + 2) * 1000).cast("long").alias("v"),
    )


def points(spark: SparkSession, n: int, span_seconds: int, seed: int) -> DataFrame:
    span = span_seconds * MICROS_PER_SECOND
    return spark.range(n, numPartitions=4).select(
        F.timestamp_micros(F.lit(ORIGIN) + (F.rand(seed) * span).cast("long")).alias("ts"),
        (F.rand(seed + 1) * 1000).cast("long").alias("v"),
    )


def duckdb_time(tables: dict, sql: str, repeat: int):
    """DuckDB's best time for `sql` (its rows materialized in a temporary table) over `tables`
    (name -> Spark DataFrame, copied into DuckDB first, outside the timing) on 2 threads, and its
    row count; None if DuckDB is not installed."""
    try:
        import duckdb
    except ImportError:
        return None
    con = duckdb.connect()
    con.execute("SET threads TO 2")
    for name, df in tables.items():
        arrow = df.toArrow()  # noqa: F841 (read by DuckDB's replacement scan below)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM arrow")
    times = []
    for _ in range(max(repeat, 2)):
        t0 = time.perf_counter()
        con.execute(f"CREATE OR REPLACE TEMP TABLE result AS {sql}")
        times.append(time.perf_counter() - t0)
    rows = con.execute("SELECT count(*) FROM result").fetchone()[0]
    con.close()
    return min(times), rows


def compare_join(
    spark: SparkSession,
    name: str,
    tables: dict,
    sql: str,
    repeat: int,
    with_duckdb: bool = True,
) -> dict:
    """Times `sql` over `tables` (registered as views) with the rule on and off, after checking
    that both plans give the same rows, and in DuckDB."""
    for view, df in tables.items():
        df.createOrReplaceTempView(view)
    with rule(spark, True):
        ours = spark.sql(sql)
        plan = ours._jdf.queryExecution().executedPlan().toString()
        assert "RangeJoin" in plan, f"{name}: not planned as a RangeJoin:\n{plan}"
        ours_sum = checksum(ours)
        t_ours = best_time(ours, repeat)
    with rule(spark, False):
        builtin = spark.sql(sql)
        builtin_sum = checksum(builtin)
        if builtin_sum != ours_sum:
            raise AssertionError(
                f"{name}: different answers: ours {ours_sum}, Spark's plan {builtin_sum}"
            )
        t_builtin = best_time(builtin, repeat)
    result = side_by_side(name, t_builtin, t_ours, builtin_sum[0], ours_sum[0])
    line = (
        f"{name}: Spark's plan {t_builtin:.2f} s, eventwindows {t_ours:.2f} s, "
        f"ratio {result['ratio']:.1f}x; same answer: {ours_sum[0]:,} rows"
    )
    duck = duckdb_time(tables, sql, repeat) if with_duckdb else None
    if duck is not None:
        t_duck, duck_rows = duck
        if duck_rows != ours_sum[0]:
            raise AssertionError(f"{name}: DuckDB gives {duck_rows:,} rows, Spark {ours_sum[0]:,}")
        result["duckdb_s"] = t_duck
        line += f"; DuckDB {t_duck:.2f} s (eventwindows / DuckDB {t_ours / t_duck:.1f}x)"
    print(line, flush=True)
    return result


def overlap_join(spark: SparkSession, scale: int, repeat: int) -> dict:
    """(u)"""
    n = 500_000 // scale
    a = events(spark, n, 100, DAY_SECONDS, 1, 120, seed=10).localCheckpoint()
    b = events(spark, n, 100, DAY_SECONDS, 1, 120, seed=20).localCheckpoint()
    return compare_join(
        spark,
        f"(u) overlap join, 2 x {n:,} intervals in 100 keys",
        {"a": a, "b": b},
        OVERLAP,
        repeat,
    )


def point_in_interval(spark: SparkSession, scale: int, repeat: int) -> dict:
    """(v)"""
    n, m = 2_000_000 // scale, 10_000 // scale
    a = points(spark, n, DAY_SECONDS, seed=30).localCheckpoint()
    b = events(spark, m, 1, DAY_SECONDS, 1, 60, seed=40).drop("k").localCheckpoint()
    return compare_join(
        spark,
        f"(v) point in interval, no keys, {n:,} points x {m:,} intervals",
        {"points": a, "intervals": b},
        POINT_IN_INTERVAL,
        repeat,
    )


def growth(spark: SparkSession, scale: int, repeat: int) -> list:
    """(x): the events of (u) over 1/8 .. all of the day, so the density stays that of (u)."""
    results = []
    for part in (8, 4, 2, 1):
        n = 500_000 // scale // part
        a = events(spark, n, 100, DAY_SECONDS // part, 1, 120, seed=10).localCheckpoint()
        b = events(spark, n, 100, DAY_SECONDS // part, 1, 120, seed=20).localCheckpoint()
        results.append(
            compare_join(
                spark,
                f"(x) overlap join growth: 1/{part} of (u), 2 x {n:,} intervals",
                {"a": a, "b": b},
                OVERLAP,
                repeat,
                with_duckdb=False,
            )
        )
    base = results[0]
    for r in results[1:]:
        growth_note = (
            f"{r['case']}: x{r['ours_rows'] / base['ours_rows']:.1f} rows out, "
            f"eventwindows x{r['ours_s'] / base['ours_s']:.1f} time, "
            f"Spark's plan x{r['builtin_s'] / base['builtin_s']:.1f}"
        )
        print(growth_note, flush=True)
    return results
