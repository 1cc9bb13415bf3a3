"""The timing every case of the benchmarks shares (benchmarks/run.py and the joins of
benchmarks/joins.py and benchmarks/asof.py): a query written to the noop sink, untimed runs first,
the best of the timed ones; the order-independent checksum that tells two answers are the same
rows; and the row of run.py's final table for a case timed both ways."""

from __future__ import annotations

import time

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

#: Seconds of untimed runs before each query is timed (run.py's --warmup).
WARMUP_SECONDS = 2.0
#: Seconds the timed runs of a query last at least (--min-time), as in Spark's own Benchmark: a
#: query under a second gets more runs, so that its best one is not a run slowed by the machine.
MIN_TIME_SECONDS = 2.0


def timed_runs(df: DataFrame, repeat: int) -> list:
    """The wall times of at least `repeat` full evaluations of df (written to the noop sink)
    lasting at least MIN_TIME_SECONDS together, after untimed ones for WARMUP_SECONDS (at least
    one)."""
    start = time.perf_counter()
    while True:
        df.write.format("noop").mode("overwrite").save()
        if time.perf_counter() - start >= WARMUP_SECONDS:
            break
    times = []
    while len(times) < repeat or sum(times) < MIN_TIME_SECONDS:
        t0 = time.perf_counter()
        df.write.format("noop").mode("overwrite").save()
        times.append(time.perf_counter() - t0)
    return times


def best_time(df: DataFrame, repeat: int) -> float:
    """The best of timed_runs."""
    return min(timed_runs(df, repeat))


def checksum(df: DataFrame) -> tuple:
    """(rows, order-independent hash sum) of df's rows."""
    row = df.agg(F.count(F.lit(1)), F.sum(F.hash(*df.columns).cast("long"))).first()
    return tuple(row)


def side_by_side(
    case: str, builtin_s: float, ours_s: float, builtin_rows: int, ours_rows: int
) -> dict:
    """The row of run.py's final table for a case timed both ways: the two best times, their
    ratio (built-in / ours) and the row counts."""
    return {
        "case": case,
        "builtin_s": builtin_s,
        "ours_s": ours_s,
        "ratio": builtin_s / ours_s,
        "ours_rows": ours_rows,
        "builtin_rows": builtin_rows,
    }
