"""eventwindows demo: each query is printed, then its result.

* Hopping windows over the events of the StreamInsight team's blog post "Taming Hopping Windows":
  a row per window, and a row per change (the post's HoppingWindow2, here output 'changes'), in
  SQL and in Python; snapshot windows.
* Over a small stream of temperature readings: StreamInsight's count windows; the windows of \\psi
  (Platform for Situated Intelligence) by message index and by relative time, and its window
  statistics; dynamic windows driven by a table of alerts; and an IBM Streams SPL sliding window
  with the delta eviction of IBM's documentation (17.6 evicts 16.0, 14.0 evicts nothing).

Run it with ``bin/demo`` (which sets up first), or ``.venv/bin/python examples/demo.py`` once set
up.
"""

import textwrap
from datetime import datetime, timedelta

from pyspark.sql import functions as F  # noqa: F401  (used by the printed code, run by eval)

import eventwindows as ew

spark = (
    ew.builder()
    .master("local[2]")
    .appName("eventwindows-demo")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.ui.enabled", "false")
    .config("spark.ui.showConsoleProgress", "false")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")


def heading(text):
    print()
    print("=" * 100)
    print(textwrap.fill(text, 100))
    print("=" * 100)


def sql(title, query):
    """Prints `query`, then runs it and shows its rows."""
    heading(title)
    query = textwrap.dedent(query).strip()
    print(textwrap.indent(query, "    "))
    print()
    result = spark.sql(query)
    result.show(truncate=False)
    return result


def python(title, code):
    """Prints the Python expression `code`, then evaluates it (a DataFrame) and shows its rows."""
    heading(title)
    code = textwrap.dedent(code).strip()
    print(textwrap.indent(code, "    "))
    print()
    result = eval(code)  # the code printed above is the code that runs
    result.show(truncate=False)
    return result


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

heading(
    'The events of "Taming Hopping Windows" (the StreamInsight team\'s blog post), as the view '
    "`events`: lifetimes [s, e); e0 has no end (open-ended: it lasts to the end of time)"
)
events.show(truncate=False)

changes = sql(
    "Hopping windows of 5 s every 2 s, aligned at 2012-03-15 12:00:00, one row per change (output "
    "'changes', the post's HoppingWindow2). StreamInsight's own hopping window would give a row "
    "for every window up to the end of time for e0; here the post's six rows: counts 1, 2, 3, 2, "
    "3 and 1, the last one to the end of time (9999-12-31 23:59:59.999999)",
    """
    SELECT window.start, window.end, count(*) AS n, collect_list(payload) AS payloads
    FROM events
    GROUP BY hopping_window(s, e, INTERVAL 5 SECONDS, INTERVAL 2 SECONDS,
                            TIMESTAMP '2012-03-15 12:00:00', 'changes')
    ORDER BY window.start
    """,
)
print(
    "Its plan: the lifetimes snapped to the windows' intervals (adjust_start_time, "
    "adjust_end_time), feeding a snapshot window:"
)
changes.explain()

python(
    "The same windows in Python, a row per window ('point': a point event at each window end, "
    "StreamInsight's PointAlignToWindowEnd); open-ended e0 counts up to the default horizon, the "
    "latest finite time of the input, not to the end of time",
    """
    (events.groupBy(ew.hopping_window("s", "5 seconds", "2 seconds",
                                      alignment="2012-03-15 12:00:00", output="point", end="e"))
     .agg(F.count("*").alias("n")).orderBy("window.start"))
    """,
)

python(
    "Snapshot windows (StreamInsight): a row per interval between consecutive event endpoints",
    """
    events.groupBy(ew.snapshot_window("s", end="e")).count().orderBy("window.start")
    """,
)

readings = spark.createDataFrame(
    [
        (day + timedelta(seconds=t), temp)
        for t, temp in [(0, 17.1), (1, 16.4), (2, 16.0), (4, 17.6), (5, 14.0), (5, 14.5), (9, 15.0)]
    ],
    "ts timestamp, temperature double",
)
heading("Temperature readings, point events (two at 00:00:05), as the DataFrame `readings`")
readings.show(truncate=False)

python(
    "StreamInsight's count windows of 3 distinct times (the two readings at 00:00:05 count as "
    "one time), a point at the last one",
    """
    (readings.groupBy(ew.count_window("ts", 3))
     .agg(F.count("*").alias("n"), F.avg("temperature").alias("avg"))
     .orderBy("window.start").select("window.start", "window.first", "n", "avg"))
    """,
)

python(
    "\\psi's window statistics: Average(3), the average of the last three messages (full windows "
    "only), by message index",
    """
    (readings.groupBy(ew.index_window("ts", -2, 0)).agg(F.avg("temperature").alias("avg3"))
     .orderBy("window.start").select("window.start", "avg3"))
    """,
)
python(
    "\\psi's Average(TimeSpan.FromSeconds(3)): a row per message, over the messages of the last "
    "3 seconds, by relative time",
    """
    (readings.groupBy(ew.time_window("ts", "-3 seconds", "0 seconds"))
     .agg(F.avg("temperature").alias("avg_3s"), F.count("*").alias("n"))
     .orderBy("window.start").select("window.start", "avg_3s", "n"))
    """,
)
python(
    "\\psi's running Max(): the window from the first message to each message",
    """
    (readings.groupBy(ew.index_window("ts", None, 0))
     .agg(F.max("temperature").alias("running_max"))
     .orderBy("window.start").select("window.start", "running_max"))
    """,
)

alerts = spark.createDataFrame(
    [("a1", day + timedelta(seconds=1)), ("a2", day + timedelta(seconds=7))],
    "alert string, t timestamp",
)
heading("Alerts, as the DataFrame `alerts`")
alerts.show(truncate=False)
python(
    "\\psi's dynamic windows: a second table decides where each window lies; here the readings "
    "within a second of each alert",
    """
    (ew.dynamic_window(alerts, readings, "ts", F.expr("t - INTERVAL 1 SECOND"),
                       F.expr("t + INTERVAL 1 SECOND"))
     .agg(F.collect_list("temperature").alias("temperatures")).orderBy("alert"))
    """,
)

python(
    "IBM Streams SPL sliding window with delta(temperature, 1.5) eviction, the example of IBM's "
    "documentation: 17.6 evicts 16.0 (17.6 - 16.0 > 1.5) but not the older 17.1 and 16.4; 14.0 "
    "evicts nothing, so the window does not slide",
    """
    (readings.groupBy(ew.sliding_window("ts", ew.spl.delta("temperature", 1.5)))
     .agg(F.collect_list("temperature").alias("window_contents"))
     .orderBy("window.start").select("window.start", "window_contents"))
    """,
)

spark.stop()
