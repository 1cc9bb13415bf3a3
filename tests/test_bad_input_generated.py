"""Bad input, generated: every argument of every SQL function replaced in turn by a wrong type,
NULL, a non-constant column, extremes and malformed text, over a few rows of BIGINT and
TIMESTAMP events. Each call must end in one of three ways: a clear analysis error that names the
function, a documented answer (the query runs), or a clean run-time error (a Spark error with its
condition). Never an internal error (XX000), a bare JVM exception (Py4JJavaError), a hang or a
dead JVM.

The calls of one function and one time type run in one query when they analyze: a UNION ALL of
the calls' counts, watched by a timer that cancels Spark's jobs if they do not end in time (a
hang fails the test instead of the run).
"""

import json
import re
import threading
from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.errors import AnalysisException, PySparkException

from eventwindows.functions._documentation import SQL_FUNCTIONS

EVENTS = {
    "bigint": "SELECT * FROM VALUES (1, 1L, 3L, 10L, 'a', true), (1, 2L, 2L, 20L, 'b', false), "
    "(2, 5L, 9L, 30L, 'c', true), (2, 6L, NULL, NULL, NULL, NULL) "
    "AS ev(k, s, e, v, str, flag)",
    "timestamp": "SELECT k, timestamp_micros(s) AS s, timestamp_micros(e) AS e, v, str, flag "
    "FROM VALUES (1, 1L, 3L, 10L, 'a', true), (1, 2L, 2L, 20L, 'b', false), "
    "(2, 5L, 9L, 30L, 'c', true), (2, 6L, NULL, NULL, NULL, NULL) "
    "AS ev(k, s, e, v, str, flag)",
}

#: A valid call of every window function, per time type; its arguments are replaced in turn.
WINDOWS = {
    "bigint": [
        ("hopping_window", ["s", "e", "4L", "2L", "0L", "'window'", "20L"]),
        ("tumbling_window", ["s", "e", "4L", "1L", "'point'", "20L"]),
        ("cumulate_window", ["s", "e", "2L", "6L", "1L", "'window'", "20L"]),
        ("snapshot_window", ["s", "e"]),
        ("count_window", ["s", "e", "2", "'window'"]),
        ("index_window", ["s", "-1", "1", "v"]),
        ("time_window", ["s", "-2", "1", "'[)'"]),
        ("sliding_window", ["s", "'count(2)'", "'time(3)'"]),
        ("event_session_window", ["s", "e", "4L", "NULL", "'changes'"]),
        ("spl_tumbling_window", ["s", "'count(2)'", "true"]),
        # Anchors: the rows with a `str` (interval [s, e]); the message: the row without.
        ("anchor_window", ["s", "s", "e", "str"]),
    ],
    "timestamp": [
        ("hopping_window", ["s", "e", "'4 seconds'", "'2 seconds'", "'1 second'", "'changes'"]),
        (
            "tumbling_window",
            [
                "s",
                "e",
                "INTERVAL 4 SECONDS",
                "'2024-01-01 00:00:00'",
                "'window'",
                "TIMESTAMP '1970-01-01 00:00:10'",
            ],
        ),
        (
            "cumulate_window",
            ["s", "e", "'1 day'", "'1 month'", "NULL", "'changes'", "NULL", "'Europe/Berlin'"],
        ),
        ("snapshot_window", ["s", "e"]),
        ("count_window", ["s", "e", "2"]),
        ("index_window", ["s", "NULL", "1"]),
        ("time_window", ["s", "'-2 seconds'", "'1 second'", "'(]'"]),
        ("sliding_window", ["s", "'time(2 seconds)'", "'delta(v, 5)'"]),
        # Points (no end): the open-ended row would lie in too many pieces of max_duration.
        ("event_session_window", ["s", "'4 seconds'", "'8 seconds'", "'window'"]),
        ("spl_tumbling_window", ["s", "'time(2 seconds)'", "false"]),
        ("anchor_window", ["s", "s", "e", "str", "'[)'"]),
    ],
}

#: Scalar functions, in a SELECT list.
SCALARS = [
    ("snap_to_boundary", ["s", "0L", "5L"]),
    ("adjust_start_time", ["s", "5L", "2L", "0L"]),
    ("adjust_end_time", ["e", "5L", "2L", "0L"]),
]

#: Aggregates over the clipped lifetime, in the SELECT list of a GROUP BY over each window
#: (where they are allowed or not).
CLIPPED = [
    ("time_weighted_sum", ["v"]),
    ("time_weighted_avg", ["v"]),
    ("clipped_start", []),
    ("clipped_end", []),
]

#: What replaces an argument: wrong types, NULL, columns, extremes, malformed text.
VARIANTS = [
    "NULL",
    "v",
    "str",
    "'x'",
    "1.5D",
    "true",
    "0L",
    "-1L",
    "9223372036854775807L",
    "-9223372036854775807L - 1L",
    "TIMESTAMP '0001-01-01 00:00:00'",
    "INTERVAL 1 MONTH",
    "'200000000 days'",
    "array(1L)",
    "'count(0)'",
    "'delta(, 1)'",
    "'count(9223372036854775808)'",
    "'[['",
]

TIMEOUT_SECONDS = 120


def calls(function, arguments):
    """Every call of `function` with one argument replaced by a variant, and with one argument
    fewer and one more than the valid call."""
    out = [
        f"{function}({', '.join(arguments)})",
        f"{function}({', '.join(arguments[:1])})",
        f"{function}({', '.join(arguments + ['1L'])})",
    ]
    for i in range(len(arguments)):
        for variant in VARIANTS:
            out.append(f"{function}({', '.join(arguments[:i] + [variant] + arguments[i + 1 :])})")
    return out


def outcome(spark, query):
    """'ok', or the analysis or run-time error's message; fails on anything else, or a hang."""
    timer = threading.Timer(TIMEOUT_SECONDS, spark.sparkContext.cancelAllJobs)
    timer.start()
    try:
        spark.sql(query).collect()
        return "ok"
    except AnalysisException as e:
        return "analysis: " + str(e)
    except PySparkException as e:
        # A Spark error of its own class, with a condition: ours, or Spark's (a failed cast of a
        # column given where a constant belongs, say).
        assert e.getCondition() is not None, (query, str(e)[:2000])
        return "run time: " + str(e)
    except Py4JJavaError as e:
        pytest.fail(
            f"a bare JVM error (or a hang, cancelled after {TIMEOUT_SECONDS} s) for\n"
            f"{query}\n{str(e)[:2000]}"
        )
    finally:
        timer.cancel()


CONDITIONS = json.loads(
    (
        Path(__file__).resolve().parent.parent / "jvm/src/main/resources/error/"
        "eventwindows-error-conditions.json"
    ).read_text()
)
"""The error conditions of eventwindows, with their SQLSTATEs."""


def check(function, call, message):
    """An error of ours has one of our conditions, its SQLSTATE and names the function; any
    other is a Spark error with a condition of Spark's (a failed cast, say), never an internal
    one."""
    if message == "ok":
        return
    first = message.splitlines()[0]
    assert "XX000" not in first and "INTERNAL_ERROR" not in first, (call, message[:2000])
    condition = re.search(r"\[([A-Z][A-Z0-9_.]*)\]", first)
    assert condition, ("no condition", call, first)
    if condition.group(1).startswith("EVENTWINDOWS_"):
        assert condition.group(1) in CONDITIONS, (call, first)
        assert f"SQLSTATE: {CONDITIONS[condition.group(1)]['sqlState']}" in message, (call, first)
        names = (function,) if isinstance(function, str) else function
        assert any(name in first for name in names) or "eventwindows" in first, (call, first)


def check_all(spark, function, queries):
    """Analyzes every query (a single-column result) and checks each error; runs the ones that
    analyze as one UNION ALL, and one by one if that fails."""
    analyzed = []
    for query in queries:
        try:
            spark.sql(query).schema  # noqa: B018  (analysis only)
            analyzed.append(query)
        except AnalysisException as e:
            check(function, query, "analysis: " + str(e))
        except Py4JJavaError as e:
            pytest.fail(f"a bare JVM error at analysis for\n{query}\n{str(e)[:2000]}")
    assert analyzed, "the valid call must analyze"
    union = " UNION ALL ".join(
        f"SELECT {i} AS q, CAST(r AS STRING) AS r FROM ({q}) AS t(r)"
        for i, q in enumerate(analyzed)
    )
    try:
        runs = outcome(spark, union) == "ok"
    except pytest.fail.Exception as e:
        # Parts of the union failing at once are one STAGE_MATERIALIZATION_MULTIPLE_FAILURES of
        # Spark's (XX000), as its adaptive plan reports them: each part is checked alone below.
        if "STAGE_MATERIALIZATION_MULTIPLE_FAILURES" not in str(e):
            raise
        runs = False
    if not runs:
        for query in analyzed:
            check(function, query, outcome(spark, query))


def test_every_sql_function_has_a_generated_call():
    """The calls above cover every SQL function the extension registers but its table functions
    (TABLE arguments: test_bad_input): a new function fails here until it has its valid call."""
    listed = (
        {f for calls in WINDOWS.values() for f, _ in calls}
        | {f for f, _ in SCALARS}
        | {f for f, _ in CLIPPED}
    )
    assert listed == {
        name for name, texts in SQL_FUNCTIONS.items() if texts["group"] != "table_funcs"
    }


@pytest.fixture(scope="module")
def views(spark):
    # One shuffle partition: a UNION ALL of a hundred aggregations over four rows is mostly tasks.
    partitions = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    for time, sql in EVENTS.items():
        spark.sql(sql).createOrReplaceTempView(f"generated_{time}")
    yield
    for time in EVENTS:
        spark.catalog.dropTempView(f"generated_{time}")
    spark.conf.set("spark.sql.shuffle.partitions", partitions)


@pytest.mark.parametrize(
    "time, function, arguments",
    [(t, f, a) for t, windows in WINDOWS.items() for f, a in windows],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_every_bad_window_call_is_clear(spark, views, time, function, arguments):
    check_all(
        spark,
        function,
        [
            f"SELECT count(*) FROM generated_{time} GROUP BY k, {call}"
            for call in calls(function, arguments)
        ],
    )


@pytest.mark.parametrize(
    "function, arguments", SCALARS, ids=lambda x: x if isinstance(x, str) else None
)
def test_every_bad_scalar_call_is_clear(spark, views, function, arguments):
    # As strings: times before the year 1 have no Python datetime.
    check_all(
        spark,
        function,
        [
            f"SELECT max(CAST({call} AS STRING)) FROM generated_{time}"
            for time in EVENTS
            for call in calls(function, arguments)
        ],
    )


@pytest.mark.parametrize("time", list(WINDOWS))
def test_every_bad_clipped_call_is_clear(spark, views, time):
    # Every variant over one window that allows them, the valid calls over every window.
    windows = [f"{window}({', '.join(a)})" for window, a in WINDOWS[time]]
    queries = []
    for function, arguments in CLIPPED:
        valid = f"{function}({', '.join(arguments)})"
        wrapped = (lambda c: c) if arguments else (lambda c: f"max({c})")
        queries += [
            f"SELECT {wrapped(call)} FROM generated_{time} GROUP BY k, {windows[0]}"
            for call in dict.fromkeys(calls(function, arguments))
        ]
        queries += [
            f"SELECT {wrapped(valid)} FROM generated_{time} GROUP BY k, {window}"
            for window in windows[1:]
        ]
    check_all(spark, tuple(function for function, _ in CLIPPED), queries)


@pytest.mark.parametrize("time", list(WINDOWS))
def test_every_pandas_udf_call_is_clear(spark, views, time):
    # A grouped-aggregate pandas UDF over every window, alone and beside built-in aggregates, and
    # what is wrong with one: a scalar pandas UDF as an aggregate, the window column or a clipped
    # lifetime as its input, a FILTER, a nested aggregate, a result Spark cannot group by.
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    @pandas_udf("double")
    def generated_mean(v: pd.Series) -> float:
        return float(v.mean())

    @pandas_udf("long")
    def generated_plus_one(v: pd.Series) -> pd.Series:
        return v + 1

    spark.udf.register("generated_mean", generated_mean)
    spark.udf.register("generated_plus_one", generated_plus_one)
    selects = [
        "generated_mean(v)",
        "generated_mean(v), count(*), max(str)",
        "generated_mean(CAST(clipped_end() AS BIGINT))",
    ]
    bad = [
        "generated_plus_one(v)",
        "generated_mean(window.start)",
        "generated_mean(v) FILTER (WHERE flag)",
        "max(generated_mean(v))",
        "generated_mean(v), collect_list(map(k, v))",
        "generated_mean(generated_plus_one(v))",
    ]
    for i, (function, arguments) in enumerate(WINDOWS[time]):
        window = f"{function}({', '.join(arguments)})"
        # A run-time error (a NULL delta attribute, say) names the window function.
        check_all(
            spark,
            function,
            [
                f"SELECT {select} FROM generated_{time} GROUP BY k, {window}"
                for select in selects + (bad if i == 0 else [])
            ],
        )
