"""The eventwindows Python functions under Spark Connect.

A local Spark Connect server (``SparkSession.builder.remote("local[2]")``: PySpark starts a
classic SparkContext with the Connect plugin in this process and talks to it over gRPC) cannot
share a Python process with the classic session of the ``spark`` fixture, so the Connect half
runs in a child process: this file run as a script. The child prints one ``RESULT <json>`` line;
the test checks it against hand-worked answers.

The child sets SPARK_TESTING=1, which makes PySpark bind the server to an ephemeral port and find
that port through the local JVM (instead of the fixed 15002, which another run on this machine
may hold).
"""

import os

import pytest

from harness import child_result, child_session, configured, print_result

# All in the smoke set (`-m smoke`, run on every Spark line): they share one child process.
pytestmark = pytest.mark.smoke


def _child():
    import warnings

    # The static configurations below are applied when the local server starts; the client then
    # tries to set them again as session configurations and warns that it cannot.
    warnings.filterwarnings("ignore", message="Failed to set spark")

    from pyspark.sql import SparkSession

    import eventwindows as ew

    def start():
        session = configured(
            SparkSession.builder.remote("local[2]")
            .config("spark.jars", ew.jar_path())
            .config("spark.sql.extensions", ew.EXTENSION_CLASS),
            {"spark.sql.shuffle.partitions": "2"},
        ).getOrCreate()
        session.range(1).collect()
        return session

    spark = child_session(start)

    import datetime

    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    result = {
        "session": f"{type(spark).__module__}.{type(spark).__name__}",
        "column": type(ew.hopping_window("s", 4, 2, end="e")).__module__,
    }

    events = spark.createDataFrame(
        [("a", 0, 4, 1), ("a", 2, 6, 10), ("b", 1, 2, 100)],
        "k string, s bigint, e bigint, v bigint",
    )
    hopping = events.groupBy("k", ew.hopping_window("s", 4, 2, end="e")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total")
    )
    result["hopping_columns"] = hopping.columns
    result["hopping"] = sorted(
        list(r) for r in hopping.select("k", "window.start", "window.end", "n", "total").collect()
    )

    # ew.plot reads its DataFrames through the DataFrame API only, so it draws under Connect too:
    # the marks it drew, by gid (see eventwindows.plotting.plot), and its lanes.
    figure = ew.plot(events, "s", "e", key="k", value="v", windows=hopping, labels=["n"])
    marks = {}
    for ax in figure.axes:
        for artist in [*ax.patches, *ax.lines, *ax.texts]:
            if artist.get_gid():
                marks[artist.get_gid()] = marks.get(artist.get_gid(), 0) + 1
    result["plot_marks"] = marks
    result["plot_lanes"] = [ax.get_title(loc="left") for ax in figure.axes]

    snapshot = events.groupBy(ew.snapshot_window("s", end="e")).count()
    result["snapshot"] = sorted(
        list(r) for r in snapshot.select("window.start", "window.end", "count").collect()
    )

    # The events of the StreamInsight team's post "Taming Hopping Windows".
    taming = spark.createDataFrame(
        [
            ("e0", "2012-06-28 00:00:00", None),
            ("e1", "2012-06-28 00:00:01", "2012-06-28 00:00:02"),
            ("e2", "2012-06-28 00:00:03", "2012-06-28 00:00:10"),
            ("e3", "2012-06-28 00:00:09", "2012-06-28 00:00:10"),
        ],
        "id string, s string, e string",
    ).select("id", F.col("s").cast("timestamp").alias("s"), F.col("e").cast("timestamp").alias("e"))
    changes = taming.groupBy(
        ew.hopping_window(
            "s",
            datetime.timedelta(seconds=5),
            "2 seconds",
            alignment=datetime.datetime(2012, 3, 15, 12, 0, 0),
            output="changes",
            end="e",
        )
    ).count()
    result["taming_changes"] = sorted(
        list(r)
        for r in changes.select(
            F.col("window.start").cast("string"), F.col("window.end").cast("string"), "count"
        ).collect()
    )

    scalars = spark.createDataFrame([(-3,), (7,)], "t bigint").select(
        "t",
        ew.snap_to_boundary("t", 3, 5),
        ew.adjust_start_time("t", 10, 5),
        ew.adjust_end_time("t", 10, 5, 3),
    )
    result["scalars"] = sorted(list(r) for r in scalars.collect())

    messages = spark.createDataFrame(
        [("a", 1, 1), ("a", 2, 2), ("a", 3, 4), ("a", 5, 8), ("b", 2, 16)],
        "k string, ts bigint, v bigint",
    )
    families = {
        "count": messages.groupBy("k", ew.count_window("ts", 2)),
        "index": messages.groupBy("k", ew.index_window("ts", -1, 0)),
        "time": messages.groupBy("k", ew.time_window("ts", -2, -1, bounds="[]")),
        "sliding": messages.groupBy(
            "k", ew.sliding_window("ts", ew.spl.count(2), ew.spl.delta("ts", 1))
        ),
    }
    for name, grouped in families.items():
        result[name] = sorted(
            list(r)
            for r in grouped.agg(F.sum("v").alias("total"))
            .select("k", "window.start", "total")
            .collect()
        )
    anchors = spark.createDataFrame(
        [("x", "a", 0, 2), ("y", "a", 3, 9), ("z", "b", 0, 1)],
        "id string, k string, s bigint, e bigint",
    )
    dynamic = ew.dynamic_window(anchors, messages, "ts", "s", "e", on="k").agg(
        F.count("v").alias("n"), F.sum("v").alias("total")
    )
    result["dynamic"] = sorted(
        list(r) for r in dynamic.select("id", "window.start", "window.end", "n", "total").collect()
    )

    # ASOF joins (through spark.sql with the DataFrames as table arguments) and to_signal.
    quotes = spark.createDataFrame(
        [("a", 1, 10), ("a", 3, 30), ("b", 0, 5)], "k string, qt bigint, q bigint"
    )
    asof = ew.asof_join(messages, quotes, "k", "ts", "qt", direction="nearest", tolerance=1)
    result["asof_columns"] = asof.columns
    result["asof"] = sorted(list(r) for r in asof.select("k", "ts", "q").collect())
    result["signal"] = sorted(
        list(r) for r in ew.to_signal(quotes, "qt", on="k").select("k", "start", "end").collect()
    )

    # Python's own aggregates and functions per window (docs/pandas-udfs.md).
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    @pandas_udf("string")
    def values(v: pd.Series) -> str:
        return ",".join(str(x) for x in v)

    result["pandas_agg"] = sorted(
        list(r)
        for r in events.groupBy("k", ew.hopping_window("s", 4, 2, end="e"))
        .agg(values("v").alias("vs"), F.count("*"))
        .select("k", "window.start", "vs", "count(1)")
        .collect()
    )

    def per_window(key, pdf):
        return pd.DataFrame({"k": [key[0]], "start": [key[1]["start"]], "n": [len(pdf)]})

    result["apply_in_pandas"] = sorted(
        list(r)
        for r in events.groupBy("k", ew.tumbling_window("s", 4, end="e"))
        .applyInPandas(per_window, "k string, start long, n long")
        .collect()
    )

    try:
        events.groupBy(ew.hopping_window("s", 0, 2, end="e")).count().columns
        result["bad_size"] = None
    except AnalysisException as e:
        result["bad_size"] = f"{type(e).__name__}: {e.getCondition()} {e.getSqlState()}: {e}"
    except Exception as e:  # noqa: BLE001  (the test says which exception it wanted)
        result["bad_size"] = f"UNEXPECTED {type(e).__module__}.{type(e).__name__}: {e}"

    points = spark.createDataFrame([("a", 3), ("b", 5)], "k string, t bigint")
    joined = ew.temporal_join(
        events, points, "k", "left", left_lifetime=("s", "e"), right_lifetime=("t", None)
    )
    result["temporal_plan"] = "RangeJoin" in joined._explain_string(extended=False)
    result["temporal"] = sorted(
        [r.k, r.s, r.e, r.v, r.t, r.lifetime.start, r.lifetime.end] for r in joined.collect()
    )
    result["temporal_self"] = sorted(
        [r[0], r[1], r[4], r[7][0], r[7][1]]
        for r in ew.temporal_join(
            events, events, "k", left_lifetime=("s", "e"), right_lifetime=("s", "e")
        ).collect()
    )

    try:
        spark.createDataFrame([(5, 3)], "s bigint, e bigint").groupBy(
            ew.snapshot_window("s", end="e")
        ).count().collect()
        result["bad_row"] = None
    except Exception as e:  # noqa: BLE001  (the test says which exception it wanted)
        result["bad_row"] = [
            type(e).__name__,
            getattr(e, "getCondition", lambda: None)(),
            getattr(e, "getSqlState", lambda: None)(),
            str(e),
        ]

    print_result(result)
    spark.stop()


@pytest.fixture(scope="module")
def connect_result():
    env = dict(os.environ, SPARK_TESTING="1")
    env.pop("SPARK_REMOTE", None)
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    return child_result(__file__, "a local Spark Connect session", env)


def test_runs_under_spark_connect(connect_result):
    assert connect_result["session"] == "pyspark.sql.connect.session.SparkSession"
    assert connect_result["column"] == "pyspark.sql.connect.column"


def test_hopping_window_aggregate(connect_result):
    # size 4, hop 2: windows [2j, 2j + 4). a/[0,4) v=1 -> windows starting -2, 0, 2;
    # a/[2,6) v=10 -> 0, 2, 4; b/[1,2) v=100 -> -2, 0.
    assert connect_result["hopping_columns"] == ["k", "window", "n", "total"]
    assert connect_result["hopping"] == [
        ["a", -2, 2, 1, 1],
        ["a", 0, 4, 2, 11],
        ["a", 2, 6, 2, 11],
        ["a", 4, 8, 1, 10],
        ["b", -2, 2, 1, 100],
        ["b", 0, 4, 1, 100],
    ]


def test_plot(connect_result):
    # One bar per event with an end (all three), one per hopping row (the six above), a label per
    # event (its v) and per row (n=...); one lane per key.
    assert connect_result["plot_lanes"] == ["k = a", "k = b"]
    marks = connect_result["plot_marks"]
    assert marks.get("event-bar") == 3, marks
    assert marks.get("window-bar:windows") == 6, marks
    assert marks.get("event-label") == 3, marks
    assert marks.get("window-label:windows") == 6, marks


def test_snapshot_window(connect_result):
    # [0,4), [2,6), [1,2): endpoints 0 1 2 4 6 -> [0,1) 1; [1,2) 2; [2,4) 2; [4,6) 1.
    assert connect_result["snapshot"] == [[0, 1, 1], [1, 2, 2], [2, 4, 2], [4, 6, 1]]


def test_taming_hopping_windows_changes(connect_result):
    # timedelta size, string hop, naive datetime alignment; see test_python_api for the derivation.
    day = "2012-06-28 00:00:"
    assert connect_result["taming_changes"] == [
        [day + "01", day + "03", 1],
        [day + "03", day + "05", 2],
        [day + "05", day + "07", 3],
        [day + "07", day + "11", 2],
        [day + "11", day + "15", 3],
        [day + "15", "9999-12-31 23:59:59.999999", 1],
    ]


def test_scalar_functions(connect_result):
    # As in test_python_api.test_scalar_functions_bigint.
    assert connect_result["scalars"] == [[-3, -7, 0, 8], [7, 3, 10, 18]]


def test_count_psi_spl_and_dynamic_windows(connect_result):
    # a: 1 (1), 2 (2), 3 (4), 5 (8); b: 2 (16).
    # count_window(2): windows ending at 2, 3, 5: 1+2, 2+4, 4+8; b has one start only.
    assert connect_result["count"] == [["a", 2, 3], ["a", 3, 6], ["a", 5, 12]]
    # index_window(-1, 0): anchors 2, 3, 5 of a.
    assert connect_result["index"] == [["a", 2, 3], ["a", 3, 6], ["a", 5, 12]]
    # time_window(-2, -1): 1 [-1, 0] {}; 2 [0, 1] {1}; 3 [1, 2] {1, 2}; 5 [3, 4] {4}; b 2 {}.
    assert connect_result["time"] == [
        ["a", 1, None],
        ["a", 2, 1],
        ["a", 3, 3],
        ["a", 5, 4],
        ["b", 2, None],
    ]
    # count(2) eviction, delta(ts, 1) trigger: a: 1 sets the reference; 2 - 1 = 1 does not fire;
    # 3: 3 - 1 > 1 fires on [1, 2] (3), reference 3; 5: 5 - 3 > 1 fires on [2, 3] (6). b: none.
    assert connect_result["sliding"] == [["a", 3, 3], ["a", 5, 6]]
    # x [0, 2] of a: 1, 2; y [3, 9] of a: 3, 5; z [0, 1] of b: none.
    assert connect_result["dynamic"] == [
        ["x", 0, 2, 2, 3],
        ["y", 3, 9, 2, 12],
        ["z", 0, 1, 0, None],
    ]


def test_pandas_udfs(connect_result):
    # The hopping rows of test_hopping_window_aggregate, each with its values in time order.
    assert connect_result["pandas_agg"] == [
        ["a", -2, "1", 1],
        ["a", 0, "1,10", 2],
        ["a", 2, "1,10", 2],
        ["a", 4, "10", 1],
        ["b", -2, "100", 1],
        ["b", 0, "100", 1],
    ]
    # Tumbling 4: a [0, 4) both, [4, 8) the second; b [0, 4).
    assert connect_result["apply_in_pandas"] == [["a", 0, 2], ["a", 4, 1], ["b", 0, 1]]


def test_temporal_join(connect_result):
    """Planned by the RangeJoin rule; a left join with point events (an unmatched row keeps its
    own lifetime), and a self-join, which stays unambiguous."""
    assert connect_result["temporal_plan"]
    # a [0,4) and [2,6) meet the point 3: [3, 4); b [1,2) does not meet 5.
    assert connect_result["temporal"] == [
        ["a", 0, 4, 1, 3, 3, 4],
        ["a", 2, 6, 10, 3, 3, 4],
        ["b", 1, 2, 100, None, 1, 2],
    ]
    # (k, left s, right s, lifetime): a's pairs [0,4)x[0,4), [0,4)x[2,6), [2,6)x[0,4),
    # [2,6)x[2,6); b [1,2) with itself.
    assert connect_result["temporal_self"] == [
        ["a", 0, 0, 0, 4],
        ["a", 0, 2, 2, 4],
        ["a", 2, 0, 2, 4],
        ["a", 2, 2, 2, 6],
        ["b", 1, 1, 1, 2],
    ]


def test_asof_join_and_signal(connect_result):
    # Nearest quote of the key within 1 tick, the backward one at equal distance: a at 2 is 1
    # from both 1 and 3; a at 5 and b at 2 are 2 from theirs.
    assert connect_result["asof_columns"] == ["k", "ts", "v", "qt", "q"]
    assert connect_result["asof"] == [
        ["a", 1, 10],
        ["a", 2, 10],
        ["a", 3, 30],
        ["a", 5, None],
        ["b", 2, None],
    ]
    assert connect_result["signal"] == [["a", 1, 3], ["a", 3, None], ["b", 0, None]]


def test_bad_parameter_is_an_analysis_exception(connect_result):
    assert connect_result["bad_size"] is not None
    assert connect_result["bad_size"].startswith(
        "AnalysisException: EVENTWINDOWS_INVALID_PARAMETER 22023: "
    ), connect_result["bad_size"]
    assert "`size`" in connect_result["bad_size"]


def test_bad_row_is_a_spark_error(connect_result):
    """A run-time data error reaches the Connect client as Spark's own error class, with its
    condition and SQLSTATE and our message."""
    name, condition, state, message = connect_result["bad_row"]
    assert (name, condition, state) == (
        "IllegalArgumentException",
        "EVENTWINDOWS_EVENT_ENDS_BEFORE_START",
        "22000",
    ), connect_result["bad_row"]
    assert "the row (s=5, e=3) has end 3 < start 5" in message, message


if __name__ == "__main__":
    _child()
