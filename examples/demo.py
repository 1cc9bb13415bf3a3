"""eventwindows demo: StreamInsight's "Taming Hopping Windows" example, in SQL and in Python."""
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

spark.stop()
