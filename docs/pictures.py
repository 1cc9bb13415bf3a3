"""Regenerates the pictures in docs/pictures/ with the project's own code (ew.plot over the
windows' real results): run ``.venv/bin/python docs/pictures.py`` from the repository root.

* ``hopping_changes.png``: "Taming Hopping Windows": StreamInsight's hopping windows
  (5 s every 2 s) over long events, one of them open-ended, and the same windows as ``'changes'``
  rows, one per run of windows with the same events.
* ``count_window_ties.png``: count windows of 2 distinct start times over point events, two of
  them at one time (as in StreamInsight's count windows' second figure).
* ``calendar_days.png``: calendar days in Berlin over readings around 2024-03-31, the day the
  clocks spring forward: that day's window lasts 23 hours (times in UTC).
* ``cumulate_month_daily.png``: cumulating windows, a month cumulated daily in Berlin (Flink's
  CUMULATE with calendar units): a row per day so far, or one per change of the month to date.
* ``sliding_delta_eviction.png``: an SPL sliding window with ``delta(temperature, 1.5)`` eviction
  over out-of-order temperatures (IBM Streams SPL's example): the tuple at 16.0 leaves before
  older ones.
"""

from datetime import datetime, timedelta
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a script: no display

from pyspark.sql import functions as F  # noqa: E402

import eventwindows as ew  # noqa: E402

OUT = Path(__file__).resolve().parent / "pictures"


def hopping_changes(spark):
    day = datetime(2012, 6, 28)
    events = spark.createDataFrame(
        [
            ("e0", day, None),  # open-ended: lasts to the end of time
            ("e1", day + timedelta(seconds=1), day + timedelta(seconds=2)),
            ("e2", day + timedelta(seconds=3), day + timedelta(seconds=10)),
            ("e3", day + timedelta(seconds=9), day + timedelta(seconds=10)),
        ],
        "payload string, s timestamp, e timestamp",
    )

    def hopping(output):
        return events.groupBy(
            ew.hopping_window(
                "s",
                "5 seconds",
                "2 seconds",
                alignment="2012-03-15 12:00:00",
                output=output,
                end="e",
            )
        ).agg(F.count("*").alias("count"))

    return ew.plot(
        events,
        "s",
        "e",
        value="payload",
        windows={"'window'": hopping("window"), "'changes'": hopping("changes")},
        labels=["count"],
        title="Hopping windows of 5 s every 2 s: one row per window, or one per change",
    )


def count_window_ties(spark):
    base = datetime(2024, 1, 1)
    readings = spark.createDataFrame(
        [(base + timedelta(seconds=s), v) for s, v in [(1, 1), (3, 2), (3, 4), (4, 8), (6, 16)]],
        "ts timestamp, v bigint",
    )
    windows = readings.groupBy(ew.count_window("ts", 2)).agg(
        F.count("*").alias("count"), F.sum("v").alias("sum")
    )
    return ew.plot(
        readings,
        "ts",
        value="v",
        windows=windows,
        labels=["count", "sum"],
        title="count_window(ts, 2): two distinct start times each; the two events "
        "at 3 s count as one",
    )


def calendar_days(spark):
    readings = spark.createDataFrame(
        [
            (datetime(2024, 3, 30, 12), 1.0),
            (datetime(2024, 3, 30, 22, 30), 2.0),
            (datetime(2024, 3, 31, 12), 4.0),
            (datetime(2024, 3, 31, 21, 30), 8.0),
            (datetime(2024, 3, 31, 22, 30), 16.0),
            (datetime(2024, 4, 1, 8), 32.0),
        ],
        "ts timestamp, kwh double",
    )
    windows = readings.groupBy(ew.tumbling_window("ts", "1 day", time_zone="Europe/Berlin")).agg(
        F.count("*").alias("n"), F.sum("kwh").alias("kwh")
    )
    return ew.plot(
        readings,
        "ts",
        value="kwh",
        windows=windows,
        labels=["n", "kwh"],
        title="tumbling_window(ts, '1 day', time_zone => 'Europe/Berlin'), in UTC: "
        "31 March lasts 23 hours",
    )


def sliding_delta_eviction(spark):
    base = datetime(2024, 1, 1)
    temperatures = [17.1, 16.4, 16.0, 17.6, 14.0]  # SPL's example tuples A to E, one a second
    readings = spark.createDataFrame(
        [(base + timedelta(seconds=s), t) for s, t in enumerate(temperatures, 1)],
        "ts timestamp, temperature double",
    )
    windows = readings.groupBy(ew.sliding_window("ts", ew.spl.delta("temperature", 1.5))).agg(
        F.collect_list("temperature").alias("tuples")
    )
    return ew.plot(
        readings,
        "ts",
        value="temperature",
        windows=windows,
        labels=["tuples"],
        title="sliding_window(ts, 'delta(temperature, 1.5)'): 17.6 evicts 16.0 only, "
        "14.0 evicts nothing",
    )


def cumulate_month_daily(spark):
    sales = spark.createDataFrame(
        [
            (datetime(2024, 2, 3, 10), 5),
            (datetime(2024, 2, 10, 9), 7),
            (datetime(2024, 2, 10, 16), 1),
            (datetime(2024, 2, 25, 12), 3),
        ],
        "ts timestamp, amount bigint",
    )

    def cumulate(output):
        return sales.groupBy(
            ew.cumulate_window("ts", "1 day", "1 month", output=output, time_zone="Europe/Berlin")
        ).agg(F.sum("amount").alias("sum"))

    return ew.plot(
        sales,
        "ts",
        value="amount",
        windows={"'window'": cumulate("window"), "'changes'": cumulate("changes")},
        labels=["sum"],
        figsize=(11, 9),
        title="cumulate_window(ts, '1 day', '1 month', time_zone => 'Europe/Berlin'): "
        "February so far, every day, or one row per change",
    )


PICTURES = {
    "hopping_changes.png": hopping_changes,
    "count_window_ties.png": count_window_ties,
    "sliding_delta_eviction.png": sliding_delta_eviction,
    "calendar_days.png": calendar_days,
    "cumulate_month_daily.png": cumulate_month_daily,
}


def main():
    spark = (
        ew.builder()
        .master("local[1]")
        .appName("eventwindows-pictures")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    OUT.mkdir(exist_ok=True)
    try:
        for name, picture in PICTURES.items():
            picture(spark).savefig(OUT / name, dpi=110)
            print(f"wrote {OUT / name}")
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
