"""The Python API (eventwindows.functions) in classic PySpark, with hand-worked expected answers.

Timestamps are built from strings and read back as strings (``CAST(... AS STRING)``), both in the
session time zone (UTC, see conftest.py), so no answer depends on the machine's time zone.
"""

import datetime
import doctest
import importlib
import inspect
import pkgutil
import re

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import functions as F

import eventwindows as ew
from eventwindows import asof as ewasof
from eventwindows import dynamic as ewdyn
from eventwindows import functions as ewf
from eventwindows import joins as ewjoins
from eventwindows.functions import _documentation as ewdoc

#: The SQL functions, with the texts that DESCRIBE FUNCTION shows and the docstrings are made of
#: (the golden file FunctionDocsSuite writes from the Scala descriptions).
SQL_FUNCTIONS = ewdoc.SQL_FUNCTIONS

#: The column functions (`test_exports`: one for every SQL function that is no table function).
FUNCTIONS = [getattr(ew, name) for name in ewf.__all__]

#: The functions over DataFrames that call the SQL table functions.
TABLE_FUNCTIONS = [ew.dynamic_window, ew.temporal_join, ew.asof_join]

#: The Python helpers that write SPL policies (no SQL function of their own).
POLICIES = [ew.spl.count, ew.spl.time, ew.spl.delta, ew.spl.punct]

END_OF_TIME = "9999-12-31 23:59:59.999999"


# ----------------------------------------------------------------------------------------------
# Helpers


def timestamp_events(spark, rows, schema="k string, s string, e string, v bigint"):
    """A DataFrame of `rows` whose `s` and `e` strings become TIMESTAMPs (session time zone)."""
    df = spark.createDataFrame(rows, schema)
    return df.select(
        *[F.col(c).cast("timestamp").alias(c) if c in ("s", "e") else c for c in df.columns]
    )


def windowed(df, *aggs, keys=()):
    """The rows of an aggregated window query: (keys..., window.start, window.end, aggs...), sorted,
    timestamps as strings."""
    start = F.col("window.start")
    end = F.col("window.end")
    if df.schema["window"].dataType.simpleString().startswith("struct<start:timestamp"):
        start, end = start.cast("string"), end.cast("string")
    out = df.select(*keys, start.alias("ws"), end.alias("we"), *aggs)
    return sorted(tuple(r) for r in out.collect())


def normalized(text):
    return re.sub(r"\s+", " ", text).strip()


def analysis_error(build):
    """The AnalysisException raised while analyzing the DataFrame `build()` returns."""
    with pytest.raises(AnalysisException) as info:
        build().schema  # noqa: B018  (analysis is enough: the builders check at analysis time)
    return str(info.value)


# ----------------------------------------------------------------------------------------------
# Hopping, tumbling and snapshot windows


def test_hopping_interval_events_overlapping_windows(spark):
    # size 4 s, hop 2 s, epoch alignment: windows [2j, 2j + 4) seconds after midnight.
    # a/A [00:00:00, 00:00:03) v=10 intersects the windows starting in (-4, 3): -2, 0, 2
    # a/B [00:00:04, 00:00:05) v=1  intersects the windows starting in (0, 5):  2, 4
    # b/C [00:00:01, 00:00:02) v=5  intersects the windows starting in (-3, 2): -2, 0
    # Windows overlap, so A and C are each seen by two or three windows.
    events = timestamp_events(
        spark,
        [
            ("a", "2024-01-01 00:00:00", "2024-01-01 00:00:03", 10),
            ("a", "2024-01-01 00:00:04", "2024-01-01 00:00:05", 1),
            ("b", "2024-01-01 00:00:01", "2024-01-01 00:00:02", 5),
        ],
    )
    result = events.groupBy("k", ew.hopping_window("s", "4 seconds", "2 seconds", end="e")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    assert result.columns == ["k", "window", "n", "total"]
    assert windowed(result, "n", "total", keys=["k"]) == [
        ("a", "2023-12-31 23:59:58", "2024-01-01 00:00:02", 1, 10),  # A
        ("a", "2024-01-01 00:00:00", "2024-01-01 00:00:04", 1, 10),  # A
        ("a", "2024-01-01 00:00:02", "2024-01-01 00:00:06", 2, 11),  # A, B
        ("a", "2024-01-01 00:00:04", "2024-01-01 00:00:08", 1, 1),  # B
        ("b", "2023-12-31 23:59:58", "2024-01-01 00:00:02", 1, 5),  # C
        ("b", "2024-01-01 00:00:00", "2024-01-01 00:00:04", 1, 5),  # C
    ]


def test_window_column_is_a_struct_named_window(spark):
    events = timestamp_events(spark, [("a", "2024-01-01 00:00:00", "2024-01-01 00:00:03", 1)])
    result = events.groupBy("k", ew.hopping_window("s", "4 seconds", "2 seconds", end="e")).count()
    assert result.columns == ["k", "window", "count"]
    assert (
        result.schema["window"].dataType.simpleString() == "struct<start:timestamp,end:timestamp>"
    )
    bigint = spark.createDataFrame([(1,)], "t bigint").groupBy(ew.tumbling_window("t", 2)).count()
    assert bigint.columns == ["window", "count"]
    assert bigint.schema["window"].dataType.simpleString() == "struct<start:bigint,end:bigint>"


POINTS = [
    "2024-01-01 00:00:00",
    "2024-01-01 00:00:01",
    "2024-01-01 00:00:02",
    "2024-01-01 00:00:04",
    "2024-01-01 00:00:07",
]


# Columns need a running SparkContext, so every form is built lazily, in the test.
@pytest.mark.parametrize(
    "alignment",
    [
        lambda: "2024-01-01 00:00:01",
        lambda: datetime.datetime(2024, 1, 1, 0, 0, 1),  # naive: read in the session time zone
        lambda: datetime.datetime(2024, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc),
        lambda: datetime.datetime(
            2024, 1, 1, 1, 0, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=1))
        ),
        lambda: F.lit("2024-01-01 00:00:01").cast("timestamp"),
        # Offsets from the epoch, as Spark's window() takes its start time (midnight is a multiple
        # of 3 s after the epoch, so an offset of 1 s gives the same windows).
        lambda: "1 second",
        lambda: "-2 seconds",
        lambda: datetime.timedelta(seconds=1),
        lambda: 1_000_000,
    ],
    ids=[
        "string",
        "naive-datetime",
        "utc-datetime",
        "plus-one-hour-datetime",
        "column",
        "interval-string",
        "negative-interval-string",
        "timedelta",
        "int-microseconds",
    ],
)
def test_tumbling_point_events_with_alignment(spark, alignment):
    # Tumbling windows of 3 s aligned on 00:00:01: [1 + 3j, 4 + 3j) seconds after midnight.
    # Point events at 0 -> [-2, 1); 1 and 2 -> [1, 4); 4 -> [4, 7); 7 -> [7, 10).
    events = timestamp_events(spark, [("a", p, None, 1) for p in POINTS])
    result = events.groupBy(ew.tumbling_window("s", "3 seconds", alignment())).count()
    assert windowed(result, "count") == [
        ("2023-12-31 23:59:58", "2024-01-01 00:00:01", 1),
        ("2024-01-01 00:00:01", "2024-01-01 00:00:04", 2),
        ("2024-01-01 00:00:04", "2024-01-01 00:00:07", 1),
        ("2024-01-01 00:00:07", "2024-01-01 00:00:10", 1),
    ]


@pytest.mark.parametrize(
    "alignment",
    ["2024-01-01 00:00:01", datetime.datetime(2024, 1, 1, 0, 0, 1)],
    ids=["string", "datetime"],
)
def test_tumbling_timestamp_ntz_with_alignment(spark, alignment):
    # As test_tumbling_point_events_with_alignment, on TIMESTAMP_NTZ: a string or a naive
    # datetime alignment is the same wall-clock time.
    events = timestamp_events(spark, [("a", p, None, 1) for p in POINTS]).withColumn(
        "s", F.col("s").cast("timestamp_ntz")
    )
    result = events.groupBy(ew.tumbling_window("s", "3 seconds", alignment)).count()
    assert result.schema["window"].dataType.simpleString() == (
        "struct<start:timestamp_ntz,end:timestamp_ntz>"
    )
    assert windowed(result, "count") == [
        ("2023-12-31 23:59:58", "2024-01-01 00:00:01", 1),
        ("2024-01-01 00:00:01", "2024-01-01 00:00:04", 2),
        ("2024-01-01 00:00:04", "2024-01-01 00:00:07", 1),
        ("2024-01-01 00:00:07", "2024-01-01 00:00:10", 1),
    ]


@pytest.mark.parametrize(
    "size",
    [datetime.timedelta(seconds=3), "3000000 microseconds"],
    ids=["timedelta", "microseconds"],
)
def test_tumbling_point_events_default_alignment_is_the_epoch(spark, size):
    # Windows [3j, 3j + 3) seconds after the epoch; 2024-01-01 00:00:00 is 1704067200 s after it,
    # a multiple of 3, so the windows are [0, 3), [3, 6), [6, 9) seconds after midnight:
    # 0, 1, 2 -> [0, 3); 4 -> [3, 6); 7 -> [6, 9).
    events = timestamp_events(spark, [("a", p, None, 1) for p in POINTS])
    result = events.groupBy(ew.tumbling_window("s", size)).count()
    assert windowed(result, "count") == [
        ("2024-01-01 00:00:00", "2024-01-01 00:00:03", 3),
        ("2024-01-01 00:00:03", "2024-01-01 00:00:06", 1),
        ("2024-01-01 00:00:06", "2024-01-01 00:00:09", 1),
    ]


def test_snapshot_windows_over_interval_events(spark):
    # A [0, 4) v=1, B [2, 6) v=10, C [5, 7) v=100, D [9, 10) v=1000.
    # Endpoints 0 2 4 5 6 7 9 10; the intervals between them with an active event:
    # [0,2) A; [2,4) A B; [4,5) B; [5,6) B C; [6,7) C; (nothing in [7,9)); [9,10) D.
    events = spark.createDataFrame(
        [(0, 4, 1), (2, 6, 10), (5, 7, 100), (9, 10, 1000)], "s bigint, e bigint, v bigint"
    )
    result = events.groupBy(ew.snapshot_window("s", end="e")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    assert result.columns == ["window", "n", "total"]
    assert windowed(result, "n", "total") == [
        (0, 2, 1, 1),
        (2, 4, 2, 11),
        (4, 5, 1, 10),
        (5, 6, 2, 110),
        (6, 7, 1, 100),
        (9, 10, 1, 1000),
    ]


def test_snapshot_windows_over_point_events(spark):
    # Point events last one tick: 3, 3 -> [3, 4) holds two events; 5 -> [5, 6).
    events = spark.createDataFrame([(3,), (3,), (5,)], "t bigint")
    result = events.groupBy(ew.snapshot_window("t")).count()
    assert windowed(result, "count") == [(3, 4, 2), (5, 6, 1)]


# ----------------------------------------------------------------------------------------------
# The "Taming Hopping Windows" post's example through the Python API

TAMING_EVENTS = [
    ("e0", "2012-06-28 00:00:00", None),
    ("e1", "2012-06-28 00:00:01", "2012-06-28 00:00:02"),
    ("e2", "2012-06-28 00:00:03", "2012-06-28 00:00:10"),
    ("e3", "2012-06-28 00:00:09", "2012-06-28 00:00:10"),
]


def taming_events(spark):
    return timestamp_events(spark, TAMING_EVENTS, "id string, s string, e string")


def taming_query(spark, output, horizon=None):
    return (
        taming_events(spark)
        .groupBy(
            ew.hopping_window(
                "s",
                "5 seconds",
                "2 seconds",
                alignment="2012-03-15 12:00:00",
                output=output,
                horizon=horizon,
                end="e",
            )
        )
        .agg(F.count("*").alias("n"))
    )


@pytest.mark.smoke
def test_taming_hopping_windows_changes_query_table(spark):
    # Windows [a + 2j, a + 2j + 5) with a = 2012-03-15 12:00:00, which is 9028800 s (even) before
    # 2012-06-28 00:00:00: the windows start at even seconds after midnight, end at odd ones.
    # The post's "Query" table: one row per run of windows holding the same events, its
    # lifetime the run of window ends (e0 is open-ended, so the last row lasts forever).
    assert windowed(taming_query(spark, "changes"), "n") == [
        ("2012-06-28 00:00:01", "2012-06-28 00:00:03", 1),  # end 1: [-4, 1) e0
        ("2012-06-28 00:00:03", "2012-06-28 00:00:05", 2),  # end 3: [-2, 3) e0 e1
        ("2012-06-28 00:00:05", "2012-06-28 00:00:07", 3),  # end 5: [0, 5) e0 e1 e2
        ("2012-06-28 00:00:07", "2012-06-28 00:00:11", 2),  # ends 7, 9: e0 e2
        ("2012-06-28 00:00:11", "2012-06-28 00:00:15", 3),  # ends 11, 13: e0 e2 e3
        ("2012-06-28 00:00:15", END_OF_TIME, 1),  # ends 15...: e0
    ]


@pytest.mark.smoke
def test_taming_hopping_windows_point_output_with_horizon(spark):
    # output 'point': a one-tick event at each non-empty window's end. With the horizon at
    # 00:00:12, open-ended e0 covers through 00:00:12, so the windows starting at 10 and 12 hold
    # e0 alone (window ends 15 and 17); the window starting at 14 is empty.
    # These are exactly the 'changes' rows above expanded into the window ends they cover.
    def point(second, n):
        return (f"2012-06-28 00:00:{second:02d}", f"2012-06-28 00:00:{second:02d}.000001", n)

    result = taming_query(spark, "point", horizon="2012-06-28 00:00:12")
    assert windowed(result, "n") == [
        point(1, 1),
        point(3, 2),
        point(5, 3),
        point(7, 2),
        point(9, 2),
        point(11, 3),
        point(13, 3),
        point(15, 1),
        point(17, 1),
    ]


@pytest.mark.smoke
def test_taming_hopping_windows_window_output_default_horizon(spark):
    # Default horizon: the latest finite time of the input, 00:00:10 minus one tick, so e0 stops
    # before 00:00:10 and the last window is [8, 13).
    assert windowed(taming_query(spark, None), "n") == [
        ("2012-06-27 23:59:56", "2012-06-28 00:00:01", 1),
        ("2012-06-27 23:59:58", "2012-06-28 00:00:03", 2),
        ("2012-06-28 00:00:00", "2012-06-28 00:00:05", 3),
        ("2012-06-28 00:00:02", "2012-06-28 00:00:07", 2),
        ("2012-06-28 00:00:04", "2012-06-28 00:00:09", 2),
        ("2012-06-28 00:00:06", "2012-06-28 00:00:11", 3),
        ("2012-06-28 00:00:08", "2012-06-28 00:00:13", 3),
    ]


# ----------------------------------------------------------------------------------------------
# Durations and BIGINT time


@pytest.mark.parametrize(
    "durations",
    [
        lambda: ("4 seconds", "2 seconds"),
        lambda: (datetime.timedelta(seconds=4), datetime.timedelta(seconds=2)),
        lambda: (datetime.timedelta(seconds=4), "2000 milliseconds"),
        lambda: (F.expr("INTERVAL 4 SECONDS"), F.expr("INTERVAL '2' SECOND")),
    ],
    ids=["strings", "timedeltas", "mixed", "columns"],
)
def test_duration_forms_agree(spark, durations):
    size, hop = durations()
    # As in test_hopping_interval_events_overlapping_windows, key a only.
    events = timestamp_events(
        spark,
        [
            ("a", "2024-01-01 00:00:00", "2024-01-01 00:00:03", 10),
            ("a", "2024-01-01 00:00:04", "2024-01-01 00:00:05", 1),
        ],
    )
    result = events.groupBy(ew.hopping_window("s", size, hop, end="e")).count()
    assert windowed(result, "count") == [
        ("2023-12-31 23:59:58", "2024-01-01 00:00:02", 1),
        ("2024-01-01 00:00:00", "2024-01-01 00:00:04", 1),
        ("2024-01-01 00:00:02", "2024-01-01 00:00:06", 2),
        ("2024-01-01 00:00:04", "2024-01-01 00:00:08", 1),
    ]


def test_sub_second_timedelta(spark):
    # Tumbling windows of 1.5 s from the epoch; 2024-01-01 00:00:00 is 1704067200 s after the
    # epoch, a multiple of 1.5 s, so windows are [0, 1.5), [1.5, 3), ... after midnight.
    # Points at 0, 1 -> [0, 1.5); 2 -> [1.5, 3); 4 -> [3, 4.5).
    events = timestamp_events(spark, [("a", p, None, 1) for p in POINTS[:4]])
    result = events.groupBy(ew.tumbling_window("s", datetime.timedelta(milliseconds=1500))).count()
    assert windowed(result, "count") == [
        ("2024-01-01 00:00:00", "2024-01-01 00:00:01.5", 2),
        ("2024-01-01 00:00:01.5", "2024-01-01 00:00:03", 1),
        ("2024-01-01 00:00:03", "2024-01-01 00:00:04.5", 1),
    ]


def bigint_points(spark):
    return spark.createDataFrame([(-3,), (7,), (12,)], "t bigint")


def test_bigint_hopping_point_events(spark):
    # size 10, hop 5: windows [5j, 5j + 10). A point p is in the windows starting in (p - 10, p]:
    # -3 -> -10, -5 (floor rounding before 0); 7 -> 0, 5; 12 -> 5, 10.
    result = bigint_points(spark).groupBy(ew.hopping_window("t", 10, 5)).count()
    assert windowed(result, "count") == [
        (-10, 0, 1),
        (-5, 5, 1),
        (0, 10, 1),
        (5, 15, 2),
        (10, 20, 1),
    ]


def test_bigint_output_policies(spark):
    # Same windows as above. 'point': one tick at each window end. 'changes': window ends 0 and 5
    # hold {-3}, 10 holds {7}, 15 holds {7, 12}, 20 holds {12}: runs [0,10) [10,15) [15,20) [20,25).
    points = bigint_points(spark)
    point = points.groupBy(ew.hopping_window("t", 10, 5, output="point")).count()
    assert windowed(point, "count") == [(0, 1, 1), (5, 6, 1), (10, 11, 1), (15, 16, 2), (20, 21, 1)]
    changes = points.groupBy(ew.hopping_window("t", 10, 5, None, "changes")).count()
    assert windowed(changes, "count") == [(0, 10, 1), (10, 15, 1), (15, 20, 2), (20, 25, 1)]


def test_bigint_tumbling_with_int_alignment(spark):
    # size 5 aligned on 3: windows [3 + 5j, 8 + 5j): -3 -> [-7, -2); 7 -> [3, 8); 12 -> [8, 13).
    result = bigint_points(spark).groupBy(ew.tumbling_window("t", 5, alignment=3)).count()
    assert windowed(result, "count") == [(-7, -2, 1), (3, 8, 1), (8, 13, 1)]


def test_later_optional_argument_after_none(spark):
    # alignment=None with output given: passed as NULL, which means the epoch. Windows [5j, 5j+5):
    # -3 -> [-5, 0) ends at 0; 7 -> [5, 10) ends at 10; 12 -> [10, 15) ends at 15.
    result = (
        bigint_points(spark)
        .groupBy(ew.tumbling_window("t", 5, alignment=None, output="point"))
        .count()
    )
    assert windowed(result, "count") == [(0, 1, 1), (10, 11, 1), (15, 16, 1)]


# ----------------------------------------------------------------------------------------------
# Sessions over events and SPL tumbling windows: each Python call gives the rows of its SQL call


def same_rows_as_sql(spark, table, df, grouped, sql_window, *aggs_sql):
    """The rows of `grouped` (a groupBy over the Python window function, aggregated) and of the
    SQL query grouping `table` by `sql_window` with `aggs_sql`, both as
    (window fields..., aggregates...), sorted."""
    df.createOrReplaceTempView(table)
    fields = [f.name for f in grouped.schema["window"].dataType.fields]
    python_rows = grouped.select(
        *[F.col(f"window.{f}") for f in fields], *[c for c in grouped.columns if c != "window"]
    )
    sql_rows = spark.sql(
        f"SELECT {', '.join(f'window.{f}' for f in fields)}, "
        f"{', '.join(aggs_sql)} FROM {table} GROUP BY {sql_window}"
    )
    python_sorted = sorted(tuple(r) for r in python_rows.collect())
    assert python_sorted == sorted(tuple(r) for r in sql_rows.collect())
    return python_sorted


SESSION_EVENTS = [
    ("a", 1, 3, 1),
    ("a", 6, 7, 10),
    ("a", 12, 13, 100),
    ("a", 14, 20, 1000),
    ("b", 2, 2, 5),
    ("b", 4, 9, 50),
]


def session_events(spark):
    return spark.createDataFrame(SESSION_EVENTS, "k string, s bigint, e bigint, v bigint")


@pytest.mark.parametrize(
    "build, sql, expected",
    [
        # gap 4: a: [1,3) keeps it open to 3 - 1 + 4 = 6; [6,7) joins (6 <= 6), to 10; [12,13)
        # starts [12, 16); [14,20) joins it, to 23. b: [2,2) is empty (in no session); [4,9) alone:
        # [4, 12).
        (
            lambda: ew.event_session_window("s", 4, end="e"),
            "event_session_window(s, e, 4)",
            [("a", 1, 10, 2, 11), ("a", 12, 23, 2, 1100), ("b", 4, 12, 1, 50)],
        ),
        # max_duration 5 cuts [1, 10) into [1, 6) and [6, 10); [12, 23) into [12, 17), [17, 22)
        # (only [14, 20) reaches it) and [22, 23) (no event: no row); [4, 12) into [4, 9) and
        # [9, 12) (no event).
        (
            lambda: ew.event_session_window("s", 4, max_duration=5, end="e"),
            "event_session_window(s, e, 4, 5)",
            [
                ("a", 1, 6, 1, 1),
                ("a", 6, 10, 1, 10),
                ("a", 12, 17, 2, 1100),
                ("a", 17, 22, 1, 1000),
                ("b", 4, 9, 1, 50),
            ],
        ),
        # max_duration=None before a given output: a SQL NULL, no maximum.
        (
            lambda: ew.event_session_window(F.col("s"), 4, None, "window", end="e"),
            "event_session_window(s, e, 4, NULL, 'window')",
            [("a", 1, 10, 2, 11), ("a", 12, 23, 2, 1100), ("b", 4, 12, 1, 50)],
        ),
        # 'changes': lifetimes extended to the session's end, a row at every distinct start.
        (
            lambda: ew.event_session_window("s", 4, output=F.lit("changes"), end="e"),
            "event_session_window(s, e, 4, output => 'changes')",
            [
                ("a", 1, 6, 1, 1),
                ("a", 6, 10, 2, 11),
                ("a", 12, 14, 1, 100),
                ("a", 14, 23, 2, 1100),
                ("b", 4, 12, 1, 50),
            ],
        ),
        (
            lambda: ew.event_session_window("s", 4),
            "event_session_window(s, 4)",
            # Points 1, 6, 12, 14 (a), 2, 4 (b): a [1, 5), [6, 10), [12, 18); b [2, 8).
            [("a", 1, 5, 1, 1), ("a", 6, 10, 1, 10), ("a", 12, 18, 2, 1100), ("b", 2, 8, 2, 55)],
        ),
    ],
    ids=["window", "max-duration", "none-before-output", "changes-column", "points"],
)
def test_event_session_window_matches_sql(spark, build, sql, expected):
    grouped = (
        session_events(spark)
        .groupBy("k", build())
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
    )
    rows = same_rows_as_sql(
        spark,
        "py_sessions",
        session_events(spark),
        grouped.select("window", "k", "n", "total"),
        sql + ", k",
        "k",
        "count(*)",
        "sum(v)",
    )
    assert sorted((r[2], r[0], r[1], r[3], r[4]) for r in rows) == expected


@pytest.mark.smoke
def test_event_session_window_trill_changes(spark):
    # Trill's progressive session example: points 11, 12, 21, 25 with x = 1, 1, 2, 2, gap 6.
    points = spark.createDataFrame([(11, 1), (12, 1), (21, 2), (25, 2)], "ts bigint, x bigint")
    result = points.groupBy(ew.event_session_window("ts", 6, output="changes")).agg(
        F.sum("x").alias("total")
    )
    assert windowed(result, "total") == [(11, 12, 1), (12, 18, 2), (21, 25, 2), (25, 31, 4)]
    window = points.groupBy(ew.event_session_window("ts", 6)).agg(F.sum("x").alias("total"))
    assert windowed(window, "total") == [(11, 18, 2), (21, 31, 4)]


@pytest.mark.parametrize(
    "gap",
    [
        lambda: "30 seconds",
        lambda: datetime.timedelta(seconds=30),
        lambda: "30000000 microseconds",
        lambda: F.expr("INTERVAL 30 SECONDS"),
    ],
    ids=["string", "timedelta", "microseconds", "column"],
)
def test_event_session_window_timestamp_gap_forms_agree(spark, gap):
    # Points at 00:00:00, 00:00:20, 00:01:00: the first two within 30 s, the third alone. As
    # Spark's session_window(ts, '30 seconds').
    events = timestamp_events(
        spark,
        [
            ("a", "2024-01-01 00:00:00", None, 1),
            ("a", "2024-01-01 00:00:20", None, 2),
            ("a", "2024-01-01 00:01:00", None, 4),
        ],
    )
    result = events.groupBy(ew.event_session_window("s", gap())).agg(F.sum("v").alias("total"))
    expected = [
        ("2024-01-01 00:00:00", "2024-01-01 00:00:50", 3),
        ("2024-01-01 00:01:00", "2024-01-01 00:01:30", 4),
    ]
    assert windowed(result, "total") == expected
    spark_session = events.groupBy(F.session_window("s", "30 seconds")).agg(
        F.sum("v").alias("total")
    )
    start, end = (F.col("session_window." + f).cast("string") for f in ("start", "end"))
    assert sorted(tuple(r) for r in spark_session.select(start, end, "total").collect()) == (
        expected
    )


TUPLES = [(i, i, i in (2, 5)) for i in range(8)]


def tuples(spark):
    return spark.createDataFrame(TUPLES, "age bigint, v bigint, mark boolean")


@pytest.mark.parametrize(
    "build, sql, expected",
    [
        # delta(age, 2): {0,1,2} flushed at 3, {3,4,5} at 6; {6,7} stays open.
        (
            lambda: ew.spl_tumbling_window("age", ew.spl.delta("age", 2)),
            "spl_tumbling_window(age, 'delta(age, 2)')",
            [(3, 4, 0, 2, [0, 1, 2]), (6, 7, 3, 5, [3, 4, 5])],
        ),
        (
            lambda: ew.spl_tumbling_window("age", "delta(age, 2)", flush_at_end=True),
            "spl_tumbling_window(age, 'delta(age, 2)', flush_at_end => true)",
            [(3, 4, 0, 2, [0, 1, 2]), (6, 7, 3, 5, [3, 4, 5]), (7, 8, 6, 7, [6, 7])],
        ),
        (
            lambda: ew.spl_tumbling_window(F.col("age"), ew.spl.count(3), F.lit(True)),
            "spl_tumbling_window(age, 'count(3)', true)",
            [(2, 3, 0, 2, [0, 1, 2]), (5, 6, 3, 5, [3, 4, 5]), (7, 8, 6, 7, [6, 7])],
        ),
        (
            lambda: ew.spl_tumbling_window("age", ew.spl.count(3), None),
            "spl_tumbling_window(age, 'count(3)')",
            [(2, 3, 0, 2, [0, 1, 2]), (5, 6, 3, 5, [3, 4, 5])],
        ),
        # time(3): first arrival 0, instants 3, 6: {0,1,2} flushed at 3, {3,4,5} at 6.
        (
            lambda: ew.spl_tumbling_window("age", ew.spl.time(3), False),
            "spl_tumbling_window(age, 'time(3)', false)",
            [(3, 4, 0, 2, [0, 1, 2]), (6, 7, 3, 5, [3, 4, 5])],
        ),
        (
            lambda: ew.spl_tumbling_window("age", "time(3)", flush_at_end=True),
            "spl_tumbling_window(age, 'time(3)', true)",
            [(3, 4, 0, 2, [0, 1, 2]), (6, 7, 3, 5, [3, 4, 5]), (7, 8, 6, 7, [6, 7])],
        ),
        # punct(mark): TRUE at 2 and 5: flushed after them.
        (
            lambda: ew.spl_tumbling_window("age", ew.spl.punct("mark"), flush_at_end=True),
            "spl_tumbling_window(age, 'punct(mark)', flush_at_end => true)",
            [(2, 3, 0, 2, [0, 1, 2]), (5, 6, 3, 5, [3, 4, 5]), (7, 8, 6, 7, [6, 7])],
        ),
    ],
    ids=[
        "delta",
        "delta-flush-at-end",
        "count-flush-column",
        "count-none",
        "time-false",
        "time-string-flush-at-end",
        "punct",
    ],
)
def test_spl_tumbling_window_matches_sql(spark, build, sql, expected):
    grouped = tuples(spark).groupBy(build()).agg(F.collect_list("v").alias("vs"))
    rows = same_rows_as_sql(spark, "py_tuples", tuples(spark), grouped, sql, "collect_list(v)")
    assert [tuple(r) for r in rows] == expected


POSITIONS = [
    (t, t + 3 - t % 2, 10 - t, datetime.datetime(2024, 1, 1, 0, 0, t), 10 * t)
    for t in (1, 2, 3, 5, 6)
]
"""Events (s, e, o, ts, v): a few, whose ends, order and times differ, so that an argument in
the wrong place changes the windows."""


@pytest.mark.parametrize(
    "build, sql",
    [
        (lambda: ew.count_window("s", 2), "count_window(s, 2)"),
        (lambda: ew.count_window("s", 2, "window", end="e"), "count_window(s, e, 2, 'window')"),
        (lambda: ew.index_window("s", -1, 0), "index_window(s, -1, 0)"),
        (lambda: ew.index_window("s", None, 0, "o"), "index_window(s, NULL, 0, o)"),
        (lambda: ew.time_window("s", -1, 0), "time_window(s, -1, 0)"),
        (
            lambda: ew.time_window("ts", "-1 second", "0 seconds", "()"),
            "time_window(ts, INTERVAL '-1' SECOND, INTERVAL '0' SECOND, '()')",
        ),
    ],
    ids=[
        "count",
        "count-output-end",
        "index",
        "index-running-order",
        "time",
        "time-strings-bounds",
    ],
)
def test_count_and_psi_windows_match_sql(spark, build, sql):
    events = spark.createDataFrame(
        POSITIONS, "s bigint, e bigint, o bigint, ts timestamp, v bigint"
    )
    grouped = events.groupBy(build()).agg(F.sort_array(F.collect_list("v")).alias("vs"))
    rows = same_rows_as_sql(
        spark, "py_positions", events, grouped, sql, "sort_array(collect_list(v))"
    )
    assert len(rows) > 1, rows  # windows enough to tell the arguments apart


def test_spl_tumbling_window_timestamp_order(spark):
    # count(2) over timestamps: flushed at the second tuple of each pair; the window struct is
    # (start, end = start + 1 µs, first, last), timestamps.
    events = timestamp_events(spark, [("a", p, None, 1) for p in POINTS])
    result = events.groupBy(ew.spl_tumbling_window("s", ew.spl.count(2))).count()
    assert result.schema["window"].dataType.simpleString() == (
        "struct<start:timestamp,end:timestamp,first:timestamp,last:timestamp>"
    )
    assert windowed(result, F.col("window.first").cast("string"), "count") == [
        ("2024-01-01 00:00:01", "2024-01-01 00:00:01.000001", "2024-01-01 00:00:00", 2),
        ("2024-01-01 00:00:04", "2024-01-01 00:00:04.000001", "2024-01-01 00:00:02", 2),
    ]


def test_session_and_spl_windows_bad_python_values_name_the_parameter(spark):
    for call, parameter in [
        (lambda: ew.event_session_window("s", 1.5), "`gap`"),
        (lambda: ew.event_session_window("s", True), "`gap`"),
        (lambda: ew.event_session_window("s", 5, max_duration=[5]), "`max_duration`"),
        (lambda: ew.event_session_window("s", 5, output=1), "`output`"),
        (lambda: ew.event_session_window(1, 5), "`start`"),
        (lambda: ew.event_session_window("s", 5, end=2), "`end`"),
        (lambda: ew.spl_tumbling_window("t", ew.spl.count(2), flush_at_end=1), "`flush_at_end`"),
        (lambda: ew.spl_tumbling_window("t", ew.spl.count(2), "true"), "`flush_at_end`"),
        (lambda: ew.spl_tumbling_window("t", 5), "`eviction`"),
        (lambda: ew.spl_tumbling_window(None, ew.spl.count(2)), "`order`"),
    ]:
        with pytest.raises(TypeError, match=parameter):
            call()


@pytest.mark.smoke
def test_session_and_spl_windows_bad_sql_values_name_the_parameter(spark):
    events = session_events(spark)
    for build, words in [
        (
            lambda: ew.event_session_window("s", 4, output="point", end="e"),
            ["event_session_window", "`output`", "'changes'"],
        ),
        (lambda: ew.event_session_window("s", 4, max_duration=3, end="e"), ["`max_duration`"]),
        (lambda: ew.event_session_window("s", 0, end="e"), ["`gap`"]),
        (
            lambda: ew.spl_tumbling_window("s", ew.spl.punct("k")),
            ["spl_tumbling_window", "`eviction`", "punct(k)", "BOOLEAN"],
        ),
        (
            lambda: ew.sliding_window("s", ew.spl.punct("k")),
            ["sliding_window", "`eviction`", "spl_tumbling_window"],
        ),
    ]:
        message = analysis_error(lambda: events.groupBy(build()).count())
        for word in words:
            assert word in message, message


# ----------------------------------------------------------------------------------------------
# Scalar functions


def test_scalar_functions_bigint(spark):
    # snap_to_boundary(t, 3, 5): the largest 3 + 5n <= t: -3 -> -7, 7 -> 3, 12 -> 8.
    # adjust_start_time(t, 10, 5): the end of the earliest window [5j, 5j + 10) holding t:
    #   -3 -> [-10, 0) -> 0; 7 -> [0, 10) -> 10; 12 -> [5, 15) -> 15.
    # adjust_end_time(t, 10, 5, 3): windows start at 3 + 5j; the latest starting before t, its
    #   end, plus one hop: -3 -> start -7, end 3, 8; 7 -> 3, 13, 18; 12 -> 8, 18, 23.
    result = bigint_points(spark).select(
        "t",
        ew.snap_to_boundary("t", 3, 5).alias("snapped"),
        ew.adjust_start_time("t", 10, 5).alias("adjusted_start"),
        ew.adjust_end_time(F.col("t"), 10, 5, 3).alias("adjusted_end"),
    )
    assert sorted(tuple(r) for r in result.collect()) == [
        (-3, -7, 0, 8),
        (7, 3, 10, 18),
        (12, 8, 15, 23),
    ]


@pytest.mark.smoke
def test_scalar_functions_timestamp(spark):
    # snap_to_boundary floors before 1970: 23:59:59 on 2 s boundaries from the epoch -> 23:59:58.
    # The "Taming Hopping Windows" post: size 5 s, hop 2 s, alignment a = 2012-03-15 12:00:00
    # (windows start at even seconds after 2012-06-28 00:00:00): e2 [3, 10) becomes [5, 15)
    # (its "Adjusted Events").
    df = spark.createDataFrame(
        [("1969-12-31 23:59:59", "2012-06-28 00:00:03", "2012-06-28 00:00:10")],
        "t string, s string, e string",
    ).select(*[F.col(c).cast("timestamp") for c in "tse"])
    size, hop, a = datetime.timedelta(seconds=5), "2 seconds", "2012-03-15 12:00:00"
    result = df.select(
        ew.snap_to_boundary("t", "1970-01-01 00:00:00", "2 seconds").cast("string"),
        ew.adjust_start_time("s", size, hop, a).cast("string"),
        ew.adjust_end_time("e", size, hop, a).cast("string"),
    )
    assert tuple(result.first()) == (
        "1969-12-31 23:59:58",
        "2012-06-28 00:00:05",
        "2012-06-28 00:00:15",
    )


# ----------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.smoke
def test_bad_size_names_the_parameter(spark):
    events = taming_events(spark)
    message = analysis_error(
        lambda: events.groupBy(ew.hopping_window("s", "0 seconds", "2 seconds", end="e")).count()
    )
    assert "`size`" in message and "positive" in message


def test_bad_output_names_the_parameter(spark):
    events = taming_events(spark)
    message = analysis_error(
        lambda: events.groupBy(
            ew.hopping_window("s", "5 seconds", "2 seconds", output="bogus", end="e")
        ).count()
    )
    assert "`output`" in message and "'changes'" in message


def test_end_of_wrong_type_names_the_parameter(spark):
    events = taming_events(spark)
    message = analysis_error(
        lambda: events.groupBy(ew.hopping_window("s", "5 seconds", "2 seconds", end="id")).count()
    )
    assert "`end`" in message and "TIMESTAMP" in message


@pytest.mark.parametrize(
    "build, parameter",
    [
        (
            lambda e: ew.hopping_window("s", "2 seconds", "5 seconds", output="changes", end="e"),
            "hop",
        ),
        (
            lambda e: ew.hopping_window("s", "5 seconds", "2 seconds", horizon=3, end="e"),
            "`horizon`",
        ),
        (
            lambda e: ew.tumbling_window("s", "1 month", time_zone="Mars/Olympus", end="e"),
            "`time_zone`",
        ),
        (lambda e: ew.tumbling_window("s", "5 parsecs", end="e"), "`size`"),
        (lambda e: ew.tumbling_window("id", "5 seconds"), "`start`"),
    ],
    ids=["changes-hop-over-size", "int-horizon", "bad-time-zone", "bad-interval", "string-start"],
)
def test_more_bad_parameters_name_the_parameter(spark, build, parameter):
    events = taming_events(spark)
    assert parameter in analysis_error(lambda: events.groupBy(build(events)).count())


@pytest.mark.parametrize(
    "build",
    [
        lambda: ew.snapshot_window("s", end="e"),
        lambda: ew.count_window("s", 2, end="e"),
        lambda: ew.event_session_window("s", 2, end="e"),
    ],
    ids=["snapshot_window", "count_window", "event_session_window"],
)
def test_end_before_start_names_the_row(spark, build):
    events = spark.createDataFrame([(5, 3, 1)], "s bigint, e bigint, v bigint")
    with pytest.raises(IllegalArgumentException, match=r"the row \(s=5, e=3\) has end 3 < start 5"):
        events.groupBy(build()).count().collect()


@pytest.mark.parametrize(
    "build, parameter",
    [
        (lambda: ew.hopping_window("s", 1.5, 1), "`size`"),
        (lambda: ew.tumbling_window("s", 5, alignment=1.5), "`alignment`"),
        (lambda: ew.snapshot_window(3), "`start`"),
        *[(lambda bad=bad: ew.count_window("s", bad), "`n`") for bad in (2.0, "2", True, None)],
        (lambda: ew.count_window("s", 2, output=1), "`output`"),
        (lambda: ew.count_window(1, 2), "`start`"),
        (lambda: ew.count_window("s", 2, end=2), "`end`"),
        (lambda: ew.index_window(3, 0, 1), "`time`"),
        (lambda: ew.index_window("t", 0.5, 1), "`lo`"),
        (lambda: ew.index_window("t", True, 1), "`lo`"),
        (lambda: ew.index_window("t", "-1", 1), "`lo`"),
        (lambda: ew.index_window("t", 0, None), "`hi`"),
        (lambda: ew.index_window("t", 0, 1.0), "`hi`"),
        (lambda: ew.index_window("t", 0, 1, order=5), "`order`"),
        (lambda: ew.time_window(None, 0, 1), "`time`"),
        (lambda: ew.time_window("t", 1.5, 2), "`lo`"),
        (lambda: ew.time_window("t", False, 2), "`lo`"),
        (lambda: ew.time_window("t", 0, None), "`hi`"),
        (lambda: ew.time_window("t", 0, datetime.datetime(2024, 1, 1)), "`hi`"),
        (lambda: ew.time_window("t", 0, 1, bounds=2), "`bounds`"),
    ],
)
def test_python_types_are_checked_before_spark(spark, build, parameter):
    # Before any Spark call (the spark fixture is there only because F.col needs a SparkContext).
    with pytest.raises(TypeError, match=parameter):
        build()


# ----------------------------------------------------------------------------------------------
# Documentation


def numpydoc_sections(doc):
    """The sections of a numpydoc docstring by title ('' for the text before the first)."""
    sections, title, lines = {}, "", []
    doc_lines = doc.splitlines()
    for i, line in enumerate(doc_lines):
        if i + 1 < len(doc_lines) and re.fullmatch(r"-+", doc_lines[i + 1]) and line.strip():
            sections[title] = "\n".join(lines)
            title, lines = line.strip(), []
        elif not re.fullmatch(r"-+", line):
            lines.append(line)
    sections[title] = "\n".join(lines)
    return sections


def numpydoc_parameters(section):
    """The `name : type` entries of a Parameters section, each with its text, in order."""
    entries = re.findall(r"^(\w+) : [^\n]*\n((?:    [^\n]*\n?)+)", section, re.MULTILINE)
    return [(name, normalized(text)) for name, text in entries]


@pytest.mark.parametrize("function", FUNCTIONS + TABLE_FUNCTIONS, ids=lambda f: f.__name__)
def test_docstring_is_numpydoc_made_from_describe_function(spark, function):
    sections = numpydoc_sections(function.__doc__)
    assert {"Parameters", "Returns", "Examples"} <= set(sections) or (
        not inspect.signature(function).parameters and "Parameters" not in sections
    )
    assert ".. versionadded:: 0.1.0" in sections[""]
    assert ">>> " in sections["Examples"]
    # Parameters: the Python signature's, in its order, each with the text the function keeps.
    parameters = numpydoc_parameters(sections.get("Parameters", ""))
    assert [name for name, _ in parameters] == list(inspect.signature(function).parameters)
    if function in FUNCTIONS:  # a column function takes the SQL function's parameters, by name
        assert {name for name, _ in parameters} == set(
            SQL_FUNCTIONS[function.__sql_function__]["arguments"]
        )
    for name, text in parameters:
        assert text == normalized(function.__parameter_texts__[name])
    # The texts are DESCRIBE FUNCTION's: the description, every argument not taken otherwise in
    # Python, and the notes.
    described = {}
    for (line,) in spark.sql(f"DESCRIBE FUNCTION EXTENDED {function.__sql_function__}").collect():
        label, _, text = line.partition(":")
        described[label] = normalized(text)
    arguments = described["Extended Usage"].split("Examples:")[0]
    description = normalized(sections[""]).split(" .. versionadded")[0]
    assert described["Usage"].endswith(") - " + description)
    for name, text in parameters:
        if name not in function.__python_parameters__:
            assert re.search(rf"\* (\w+, )*{name}(, \w+)* - {re.escape(text)}", arguments), name
    for note in SQL_FUNCTIONS[function.__sql_function__]["notes"]:
        assert normalized(note) in arguments and normalized(note) in normalized(sections["Notes"])


@pytest.mark.smoke
def test_docstring_examples_run(spark):
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    globs = {
        "spark": spark,
        "F": F,
        "ew": ew,
        "datetime": datetime,
        **{f.__name__: f for f in FUNCTIONS + TABLE_FUNCTIONS + POLICIES + [ew.to_signal]},
    }
    # The functions are defined in the modules of eventwindows.functions, one per source.
    sources = pkgutil.iter_modules(ewf.__path__, prefix="eventwindows.functions.")
    modules = [
        ewf,
        *(importlib.import_module(m.name) for m in sources),
        ewdyn,
        ewjoins,
        ewasof,
        ew.spl,
        ew.errors,
    ]
    report = []
    for module in modules:
        for test in finder.find(module, module.__name__, globs=globs):
            runner.run(test, out=report.append)
    assert runner.tries >= 2 * len(FUNCTIONS + TABLE_FUNCTIONS)
    assert runner.failures == 0, "".join(report)


@pytest.mark.smoke
def test_exports():
    # One Python function for every SQL function (a new one fails here until it has one), the
    # column functions exactly those of eventwindows.functions.
    assert set(ewf.__all__) == {
        name for name, texts in SQL_FUNCTIONS.items() if texts["group"] != "table_funcs"
    }
    assert {f.__sql_function__ for f in FUNCTIONS + TABLE_FUNCTIONS} == set(SQL_FUNCTIONS)
    for f in FUNCTIONS + TABLE_FUNCTIONS + [ew.to_signal]:
        assert getattr(ew, f.__name__) is f
        assert f.__name__ in ew.__all__
    for policy in POLICIES:
        assert getattr(ew.spl, policy.__name__) is policy
    assert "spl" in ew.__all__
    assert {"EXTENSION_CLASS", "builder", "jar_path"} <= set(ew.__all__)


def test_spl_policy_helpers_write_spl():
    assert ew.spl.count(4) == "count(4)"
    assert ew.spl.time("5 seconds") == "time(5 seconds)"
    assert ew.spl.time(1.5) == "time(1.5)"
    assert ew.spl.time(datetime.timedelta(seconds=2)) == "time(2000000 microseconds)"
    assert ew.spl.delta("temperature", 1.5) == "delta(temperature, 1.5)"
    assert ew.spl.delta("ts", datetime.timedelta(milliseconds=1)) == "delta(ts, 1000 microseconds)"
    assert ew.spl.punct("end_of_batch") == "punct(end_of_batch)"
    for bad in (
        lambda: ew.spl.count("4"),
        lambda: ew.spl.count(True),
        lambda: ew.spl.time(None),
        lambda: ew.spl.delta(3, 1),
        lambda: ew.spl.delta("x", None),
        lambda: ew.spl.punct(None),
        lambda: ew.spl.punct(F.col("p")),
    ):
        with pytest.raises(TypeError):
            bad()


@pytest.mark.smoke
def test_builder_sets_up_the_state_store_of_windows_on_streams(spark):
    # The session of this run comes from ew.builder(): the conf is what the builder set.
    assert spark.conf.get("spark.sql.streaming.stateStore.providerClass") == (
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
    )
