"""eventwindows demo: StreamInsight's "Taming Hopping Windows" example, in SQL and in Python, then
count windows, psi's windows and statistics, dynamic windows and SPL sliding windows over a small
stream of temperature readings."""
from datetime import datetime, timedelta

from pyspark.sql import functions as F

import eventwindows as ew

spark = (
    ew.builder()
    .master("local[2]")
    .appName("eventwindows-demo")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.ui.enabled", "false")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")

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
events.createOrReplaceTempView("events")

print("Events:")
events.show(truncate=False)

print("Hopping windows of 5 s every 2 s, one row per change (seed 000's HoppingWindow2), in SQL:")
changes = spark.sql(
    """
    SELECT window.start, window.end, count(*) AS n, collect_list(payload) AS payloads
    FROM events
    GROUP BY hopping_window(s, e, INTERVAL 5 SECONDS, INTERVAL 2 SECONDS,
                            TIMESTAMP '2012-03-15 12:00:00', 'changes')
    ORDER BY window.start
    """
)
changes.show(truncate=False)
print("Its plan: snapped lifetimes feeding a snapshot window.")
changes.explain()

print("The same windows, a point event at each window end, in Python:")
(
    events.groupBy(
        ew.hopping_window("s", "e", "5 seconds", "2 seconds",
                          alignment="2012-03-15 12:00:00", output="point")
    )
    .agg(F.count("*").alias("n"))
    .orderBy("window.start")
    .show(truncate=False)
)

print("Snapshot windows:")
events.groupBy(ew.snapshot_window("s", "e")).count().orderBy("window.start").show(truncate=False)

readings = spark.createDataFrame(
    [(day + timedelta(seconds=t), temp) for t, temp in
     [(0, 17.1), (1, 16.4), (2, 16.0), (4, 17.6), (5, 14.0), (5, 14.5), (9, 15.0)]],
    "ts timestamp, temperature double",
)
print("Readings:")
readings.show(truncate=False)

print("Count windows of 3 distinct times (StreamInsight), a point at the last one:")
(readings.groupBy(ew.count_window("ts", None, 3)).agg(F.count("*").alias("n"),
                                                       F.avg("temperature").alias("avg"))
 .orderBy("window.start").select("window.start", "window.first", "n", "avg").show(truncate=False))

print("psi's Average(3) and Average(TimeSpan.FromSeconds(3)), and the running maximum:")
(readings.groupBy(ew.index_window("ts", -2, 0)).agg(F.avg("temperature").alias("avg3"))
 .orderBy("window.start").select("window.start", "avg3").show(truncate=False))
(readings.groupBy(ew.time_window("ts", "-3 seconds", "0 seconds"))
 .agg(F.avg("temperature").alias("avg_3s"), F.count("*").alias("n"))
 .orderBy("window.start").select("window.start", "avg_3s", "n").show(truncate=False))
(readings.groupBy(ew.index_window("ts", None, 0)).agg(F.max("temperature").alias("running_max"))
 .orderBy("window.start").select("window.start", "running_max").show(truncate=False))

print("Dynamic windows: the readings within a second of each alert:")
alerts = spark.createDataFrame([("a1", day + timedelta(seconds=1)), ("a2", day + timedelta(seconds=7))],
                               "alert string, t timestamp")
(ew.dynamic_window(alerts, readings, "ts", F.expr("t - INTERVAL 1 SECOND"),
                   F.expr("t + INTERVAL 1 SECOND"))
 .agg(F.collect_list("temperature").alias("temperatures")).orderBy("alert").show(truncate=False))

print("SPL sliding window, delta(temperature, 1.5) eviction (the seed's example: 17.6 evicts 16.0,")
print("14.0 evicts nothing, so the window does not slide):")
(readings.groupBy(ew.sliding_window("ts", ew.delta("temperature", 1.5)))
 .agg(F.collect_list("temperature").alias("window_contents"))
 .orderBy("window.start").select("window.start", "window_contents").show(truncate=False))

spark.stop()
