"""The Python signatures read as PySpark's: the time column first, then the durations, as
``F.window(timeColumn, windowDuration, slideDuration)``, and an interval event's end as the keyword
``end``. Answers come from Spark's own ``window()`` and ``session_window()`` over the same rows,
and from the same query written in SQL, which is unchanged.
"""

import warnings

import pytest
from pyspark.sql import functions as F

import eventwindows as ew

TIMES = [
    "2024-03-01 00:00:07",
    "2024-03-01 00:04:59",
    "2024-03-01 00:05:00",
    "2024-03-01 00:13:30",
    "2024-03-01 01:02:03",
    "2024-03-01 01:02:04",
]


@pytest.fixture(scope="module")
def points(spark):
    return spark.createDataFrame(
        [(t, i) for i, t in enumerate(TIMES)], "ts string, v bigint"
    ).select(F.col("ts").cast("timestamp").alias("ts"), "v")


@pytest.fixture(scope="module")
def intervals(spark):
    rows = [(0, 4, 1), (2, 9, 2), (7, 8, 3), (12, 30, 4)]
    return spark.createDataFrame(rows, "s bigint, e bigint, v bigint")


def rows(df, window, *aggs):
    """The sorted (start, end, aggregates...) of `df` grouped by `window` (whose column is
    `window`, or Spark's `session_window`)."""
    names = [f"a{i}" for i in range(len(aggs))]
    grouped = df.groupBy(window).agg(*[a.alias(n) for a, n in zip(aggs, names)])
    bounds = [f"{grouped.columns[0]}.{field}" for field in ("start", "end")]
    return sorted(tuple(r) for r in grouped.select(*bounds, *names).collect())


@pytest.mark.smoke
@pytest.mark.parametrize(
    "ours, spark_window",
    [
        (lambda: ew.tumbling_window("ts", "1 hour"), lambda: F.window("ts", "1 hour")),
        (
            lambda: ew.tumbling_window("ts", "10 minutes", "5 minutes"),
            lambda: F.window("ts", "10 minutes", startTime="5 minutes"),
        ),
        (
            lambda: ew.hopping_window("ts", "10 minutes", "5 minutes"),
            lambda: F.window("ts", "10 minutes", "5 minutes"),
        ),
        (
            lambda: ew.hopping_window("ts", size="10 minutes", hop="5 minutes"),
            lambda: F.window("ts", "10 minutes", "5 minutes"),
        ),
        (
            lambda: ew.event_session_window("ts", "5 minutes"),
            lambda: F.session_window("ts", "5 minutes"),
        ),
    ],
    ids=["tumbling", "tumbling-alignment", "hopping", "hopping-keywords", "session"],
)
def test_calls_read_as_spark_window_and_give_its_rows(points, ours, spark_window):
    aggs = (F.count("*"), F.sum("v"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new form warns of nothing
        column = ours()
    assert rows(points, column, *aggs) == rows(points, spark_window(), *aggs)


def test_cumulate_reads_step_then_size(points):
    # The hour so far, every 30 minutes: [00:00, 00:30) and [00:00, 01:00), then the next hour's.
    got = rows(points, ew.cumulate_window("ts", "30 minutes", "1 hour"), F.count("*"))
    assert [(str(s)[11:16], str(e)[11:16], n) for s, e, n in got] == [
        ("00:00", "00:30", 4),
        ("00:00", "01:00", 4),
        ("01:00", "01:30", 2),
        ("01:00", "02:00", 2),
    ]


@pytest.mark.parametrize(
    "new, old, sql",
    [
        (
            lambda: ew.hopping_window("s", 4, 2, end="e"),
            lambda: ew.hopping_window("s", "e", 4, 2),
            "hopping_window(s, e, 4, 2)",
        ),
        (
            lambda: ew.tumbling_window("s", 4, end="e"),
            lambda: ew.tumbling_window("s", "e", 4),
            "tumbling_window(s, e, 4)",
        ),
        (
            lambda: ew.tumbling_window("s", 4, end=F.col("e")),
            lambda: ew.tumbling_window(F.col("s"), F.col("e"), 4),
            "tumbling_window(s, e, 4)",
        ),
        (
            lambda: ew.snapshot_window("s", end="e"),
            lambda: ew.snapshot_window("s", "e"),
            "snapshot_window(s, e)",
        ),
        (
            lambda: ew.count_window("s", 2, end="e"),
            lambda: ew.count_window("s", "e", 2),
            "count_window(s, e, 2)",
        ),
        (
            lambda: ew.cumulate_window("s", 2, 6, end="e"),
            lambda: ew.cumulate_window("s", "e", 2, 6),
            "cumulate_window(s, e, 2, 6)",
        ),
        (
            lambda: ew.event_session_window("s", 3, end="e"),
            lambda: ew.event_session_window("s", "e", 3),
            "event_session_window(s, e, 3)",
        ),
        (
            lambda: ew.tumbling_window("s", 4),
            lambda: ew.tumbling_window("s", None, 4),
            "tumbling_window(s, 4)",
        ),
    ],
    ids=[
        "hopping",
        "tumbling",
        "tumbling-columns",
        "snapshot",
        "count",
        "cumulate",
        "session",
        "points",
    ],
)
def test_the_end_is_a_keyword_and_a_positional_end_reads_with_a_warning(
    spark, intervals, new, old, sql
):
    aggs = (F.count("*"), F.sum("v"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = rows(intervals, new(), *aggs)
    with pytest.warns(
        FutureWarning,
        match=r"\(start, end, \.\.\.\) is deprecated: pass the end "
        r"as a keyword",
    ):
        column = old()
    assert rows(intervals, column, *aggs) == expected
    intervals.createOrReplaceTempView("signature_intervals")
    from_sql = spark.sql(
        f"SELECT window.start, window.end, count(*), sum(v) FROM signature_intervals GROUP BY {sql}"
    )
    assert sorted(tuple(r) for r in from_sql.collect()) == expected


@pytest.mark.parametrize(
    "call, parameter",
    [
        (lambda: ew.tumbling_window("ts", 600), "size"),
        (lambda: ew.hopping_window("ts", "10 minutes", 60_000_000), "hop"),
        (lambda: ew.event_session_window("ts", 30), "gap"),
        (lambda: ew.cumulate_window("ts", 60, "1 hour"), "step"),
    ],
    ids=["tumbling", "hopping", "session", "cumulate"],
)
def test_an_integer_duration_over_timestamps_is_an_error_saying_what_to_write(
    points, call, parameter
):
    """F.window refuses an integer duration; over TIMESTAMP time ours do too, at analysis (an
    integer is a number of ticks over BIGINT time only)."""
    from pyspark.errors import AnalysisException

    with pytest.raises(
        AnalysisException,
        match=f"`{parameter}` must be an interval string such "
        f"as '5 seconds' or a day-time interval for "
        f"TIMESTAMP time, got the integer",
    ) as info:
        points.groupBy(call()).count()
    assert "microseconds'" in str(info.value)
    assert info.value.getCondition() == "EVENTWINDOWS_INVALID_PARAMETER"


def test_changes_speaks_the_units_of_the_call(points):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match=r"got hop 10 minutes > size 5 minutes"):
        points.groupBy(ew.hopping_window("ts", "5 minutes", "10 minutes", output="changes")).count()


def test_two_columns_after_the_start_are_durations(intervals):
    # Two Columns after the start cannot be the old form (its end, then two durations).
    column = ew.hopping_window("s", F.expr("4"), F.expr("2"))
    assert rows(intervals, column, F.count("*")) == rows(
        intervals, ew.hopping_window("s", 4, 2), F.count("*")
    )


def test_an_end_given_twice_is_an_error():
    with pytest.raises(TypeError, match="two ends"):
        ew.tumbling_window("s", "e", 4, end="e")


# ----------------------------------------------------------------------------------------------
# Names: SPL's policies in a namespace of their own, nothing shadowed by `import *`


def test_spl_policies_are_in_their_namespace():
    assert (
        ew.spl.count(1000),
        ew.spl.time("5 seconds"),
        ew.spl.delta("v", 2),
        ew.spl.punct("p"),
    ) == ("count(1000)", "time(5 seconds)", "delta(v, 2)", "punct(p)")


def test_import_star_shadows_neither_pyspark_nor_the_standard_library():
    import builtins
    import time as time_module

    scope = {}
    exec("from eventwindows import *", scope)
    exec("from eventwindows.functions import *", scope)
    shadowed = {
        name
        for name in scope
        if name in dir(F) or name in dir(builtins) or name in {"time", "datetime"}
    }
    assert not shadowed - {"__builtins__"}, shadowed
    assert time_module.time  # the module, still reachable under its name


def test_the_top_level_policies_write_spl_with_a_deprecation_warning():
    with pytest.warns(FutureWarning, match="use eventwindows.spl.count"):
        assert ew.count(3) == "count(3)"


# ----------------------------------------------------------------------------------------------
# Dynamic windows read like GroupedData


@pytest.fixture(scope="module")
def anchors_and_messages(spark):
    messages = spark.createDataFrame(
        [(1, 1, 10.0), (2, 2, 20.0), (5, 4, 40.0)], "ts bigint, v bigint, w double"
    )
    anchors = spark.createDataFrame(
        [("x", 0, 2), ("y", 3, 4), ("z", 1, 5)], "id string, s bigint, e bigint"
    )
    return anchors, messages


def by_anchor(df, *columns):
    return sorted(tuple(r) for r in df.select("id", *columns).collect())


def test_dynamic_windows_have_groupeddata_shortcuts(anchors_and_messages):
    anchors, messages = anchors_and_messages
    windows = ew.dynamic_window(anchors, messages, "ts", "s", "e")
    # x = [0, 2] holds ts 1 and 2, y = [3, 4] none, z = [1, 5] all three.
    assert by_anchor(windows.count(), "count") == [("x", 2), ("y", 0), ("z", 3)]
    assert by_anchor(windows.sum("v"), "`sum(v)`") == [("x", 3), ("y", None), ("z", 7)]
    assert by_anchor(windows.max(), "`max(ts)`", "`max(v)`", "`max(w)`") == [
        ("x", 2, 2, 20.0),
        ("y", None, None, None),
        ("z", 5, 4, 40.0),
    ]
    assert by_anchor(windows.min("w"), "`min(w)`") == [("x", 10.0), ("y", None), ("z", 10.0)]
    assert by_anchor(windows.avg("v"), "`avg(v)`") == by_anchor(windows.mean("v"), "`avg(v)`")
    assert by_anchor(windows.agg({"w": "avg"}), "`avg(w)`") == [
        ("x", 15.0),
        ("y", None),
        ("z", 70.0 / 3),
    ]
    with pytest.raises(ValueError, match="not a numeric column"):
        windows.sum("id")


def test_dynamic_window_time_start_and_end_are_names_or_columns(anchors_and_messages):
    anchors, messages = anchors_and_messages
    by_name = ew.dynamic_window(anchors, messages, "ts", "s", "e").count()
    by_column = ew.dynamic_window(anchors, messages, F.col("ts"), F.col("s"), F.col("e")).count()
    assert by_anchor(by_column, "count") == by_anchor(by_name, "count")


# ----------------------------------------------------------------------------------------------
# Errors of the Python layer


def test_python_argument_errors_have_conditions(spark):
    from pyspark.errors import PySparkTypeError, PySparkValueError

    with pytest.raises(PySparkTypeError, match="`size`") as bad_type:
        ew.tumbling_window("ts", 1.5)
    assert (bad_type.value.getCondition(), bad_type.value.getSqlState()) == (
        "EVENTWINDOWS_INVALID_ARGUMENT_TYPE",
        "42K09",
    )
    with pytest.raises(PySparkValueError, match="`bounds`") as bad_value:
        ew.dynamic_window(spark.range(1), spark.range(1), "id", "id", "id", bounds="[[")
    assert (bad_value.value.getCondition(), bad_value.value.getSqlState()) == (
        "EVENTWINDOWS_INVALID_ARGUMENT_VALUE",
        "22023",
    )


WITHOUT_EXTENSION = """
import eventwindows as ew
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
try:
    ew.hopping_window("ts", "10 minutes", "5 minutes")
except Exception as e:
    print("RESULT", type(e).__name__, e.getCondition(), e.getSqlState())
    print("MESSAGE", e)
"""


def test_a_program_without_the_extension_is_told_what_is_missing(tmp_path):
    import os
    import subprocess
    import sys

    app = tmp_path / "app.py"
    app.write_text(WITHOUT_EXTENSION)
    result = subprocess.run(
        [sys.executable, str(app)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "RESULT EventWindowsRuntimeError EVENTWINDOWS_EXTENSION_MISSING 42883" in result.stdout
    assert (
        "hopping_window is an eventwindows SQL function, but this Spark session does not "
        "have the eventwindows extension: make the session with eventwindows.builder()"
        in result.stdout
    ), result.stdout


def test_every_error_condition_is_listed_in_the_docs():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    jvm = json.loads(
        (root / "jvm/src/main/resources/error/eventwindows-error-conditions.json").read_text()
    )
    page = (root / "docs/errors.md").read_text()
    for condition, info in [*jvm.items(), *ew.errors.CONDITIONS.items()]:
        assert condition.startswith("EVENTWINDOWS_")
        assert f"| `{condition}` | {info['sqlState']} |" in page, condition


def test_dynamic_windows_apply_in_pandas_once_per_anchor(anchors_and_messages):
    import pandas as pd

    anchors, messages = anchors_and_messages
    windows = ew.dynamic_window(anchors, messages, "ts", "s", "e")

    def per_anchor(key, pdf):
        window = key[-1]
        return pd.DataFrame(
            {
                "id": [window["anchor"]["id"]],
                "start": [window["start"]],
                "n": [len(pdf)],
                "total": [int(pdf["v"].sum())],
                "columns": [",".join(pdf.columns)],
            }
        )

    rows = windows.applyInPandas(
        per_anchor, "id string, start long, n long, total long, columns string"
    ).collect()
    # As agg: x = [0, 2] holds ts 1, 2; y = [3, 4] none (a call with no rows); z = [1, 5] all.
    assert sorted(tuple(r) for r in rows) == [
        ("x", 0, 2, 3, "ts,v,w"),
        ("y", 3, 0, 0, "ts,v,w"),
        ("z", 1, 3, 7, "ts,v,w"),
    ]
    counts = windows.applyInPandas(lambda pdf: pd.DataFrame({"n": [len(pdf)]}), "n long")
    assert sorted(r.n for r in counts.collect()) == [0, 2, 3]
