"""Bad calls end in a clear analysis error naming our function and its parameter: never Spark's
internal error (SQLSTATE XX000), a bare JVM exception or a silently changed parameter."""

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException

from harness import analysis_error

EVENTS = "SELECT * FROM VALUES (1L, 2L, 3L), (4L, 6L, 5L) AS ev(s, e, v)"


@pytest.fixture(scope="module")
def events(spark):
    spark.sql(EVENTS).createOrReplaceTempView("bad_ev")
    yield "bad_ev"
    spark.catalog.dropTempView("bad_ev")


@pytest.mark.parametrize(
    "query, expected",
    [
        # A window function in a JOIN condition (was: Found the unresolved operator 'Join').
        (
            "SELECT count(*) FROM bad_ev a JOIN bad_ev b "
            "ON tumbling_window(a.s, 5L) = tumbling_window(b.s, 5L)",
            ["tumbling_window", "GROUP BY"],
        ),
        # An aggregate list that is not aggregates (was: MISSING_ATTRIBUTES, XX000).
        (
            "SELECT * FROM dynamic_window(TABLE(bad_ev), TABLE(bad_ev), 's', 's', 'e', 'v AS n')",
            ["anchor_window", "`aggregates`", "v"],
        ),
        (
            "SELECT * FROM dynamic_window(TABLE(bad_ev), TABLE(bad_ev), 's', 's', 'e', "
            "'count(*) AS n, abs(v) AS a')",
            ["anchor_window", "`aggregates`", "abs("],
        ),
        # Durations and alignments beyond BIGINT microseconds (was: ArithmeticException).
        (
            "SELECT count(*) FROM bad_ev GROUP BY tumbling_window(CAST(s AS TIMESTAMP), "
            "'200000000 days')",
            ["tumbling_window", "`size`", "too long"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY hopping_window(CAST(s AS TIMESTAMP), '2 days', "
            "'1 day', '200000000 days')",
            ["hopping_window", "`alignment`", "too long"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY hopping_window(CAST(s AS TIMESTAMP), '2 days', "
            "'200000000 days')",
            ["hopping_window", "`hop`", "too long"],
        ),
        # Policy numbers beyond BIGINT (was: silently wrapped into time(1)).
        (
            "SELECT count(*) FROM bad_ev GROUP BY sliding_window(s, 'time(18446744073709551617)')",
            ["sliding_window", "`eviction`", "time(t) needs t <= 9223372036854775807"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY sliding_window(s, 'count(3)', "
            "'time(18446744073709551617)')",
            ["sliding_window", "`trigger`", "time(t) needs t <= 9223372036854775807"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY sliding_window(s, 'count(18446744073709551617)')",
            ["sliding_window", "`eviction`", "count(n) needs n <= 9223372036854775807"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY sliding_window(CAST(s AS TIMESTAMP), "
            "'time(200000000 days)')",
            ["sliding_window", "`eviction`", "microseconds"],
        ),
        # Delta attributes that are no column (was: UNRESOLVED_COLUMN window.start, MISSING_GROUP_BY).
        (
            "SELECT window.start, count(*) FROM bad_ev GROUP BY sliding_window(s, "
            "'delta(nosuchcol, 1)')",
            ["sliding_window", "`eviction`", "nosuchcol", "not a column"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY sliding_window(s, 'count(2)', 'delta(nosuchcol, 1)')",
            ["sliding_window", "`trigger`", "nosuchcol", "not a column"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY sliding_window(s, 'delta(sum(v), 1)')",
            ["sliding_window", "`eviction`", "sum(v)", "not a column"],
        ),
        (
            "SELECT count(*) FROM bad_ev GROUP BY sliding_window(s, 'delta(v + 1, 1)')",
            ["sliding_window", "`eviction`", "v + 1", "not a column"],
        ),
    ],
    ids=[
        "join",
        "dynamic-not-aggregates",
        "dynamic-scalar",
        "size-overflow",
        "alignment-overflow",
        "hop-overflow",
        "time-eviction-overflow",
        "time-trigger-overflow",
        "count-overflow",
        "time-interval-overflow",
        "delta-unknown-eviction",
        "delta-unknown-trigger",
        "delta-aggregate",
        "delta-expression",
    ],
)
def test_named_analysis_error(spark, events, query, expected):
    message = analysis_error(spark, query)
    for part in expected:
        assert part in message, message


def test_results_that_are_no_aggregates_are_spark_own_error(spark, events):
    """Over the other families, Spark's own check names the expression, as for window()."""
    for window in ("snapshot_window(s, e)", "tumbling_window(s, 5L)", "count_window(s, e, 2)"):
        message = analysis_error(spark, f"SELECT v + 1 FROM bad_ev GROUP BY {window}")
        assert "MISSING_AGGREGATION" in message and '"v"' in message, message


def test_a_delta_over_a_value_column_evicts_by_its_difference(spark, events):
    rows = spark.sql(
        "SELECT window.start, count(*) FROM bad_ev GROUP BY sliding_window(s, 'delta(v, 1)')"
    ).collect()
    # v = 3 then 5: 5 - 3 > 1 evicts the first tuple before the second fires.
    assert sorted(tuple(r) for r in rows) == [(1, 1), (4, 1)]


@pytest.mark.parametrize(
    "query, condition, expected",
    [
        (
            "SELECT count(*) FROM VALUES (5L, 3L) AS t(s, e) GROUP BY snapshot_window(s, e)",
            "EVENTWINDOWS_EVENT_ENDS_BEFORE_START",
            "the row (s=5, e=3) has end 3 < start 5",
        ),
        (
            "SELECT count(*) FROM VALUES (5L, 3L) AS t(s, e) GROUP BY tumbling_window(s, e, 2L)",
            "EVENTWINDOWS_EVENT_ENDS_BEFORE_START",
            "the row (s=5, e=3) has end 3 < start 5",
        ),
        (
            "SELECT count(*) FROM VALUES (1L, 3L), (2L, NULL) AS t(o, a) "
            "GROUP BY sliding_window(o, 'delta(a, 1)')",
            "EVENTWINDOWS_INVALID_INPUT",
            "'delta(a, 1)' is NULL in the row (o=2, a=null)",
        ),
        (
            "SELECT * FROM dynamic_window(TABLE(bad_anchors), TABLE(bad_ev), 's', 's', 'e', "
            "'count(*) AS n')",
            "EVENTWINDOWS_INVALID_INPUT",
            "the anchor (s=5, e=4) has an end before its start",
        ),
    ],
    ids=[
        "end-before-start",
        "end-before-start-hash-aggregate",
        "null-delta-attribute",
        "reversed-anchor",
    ],
)
def test_run_time_errors_are_spark_errors(spark, events, query, condition, expected):
    """Bad rows fail the query with a Spark error (condition and SQLSTATE), which PySpark raises
    as its own exception class, not a Py4JJavaError with a JVM stack trace."""
    spark.sql("SELECT * FROM VALUES (5L, 4L) AS a(s, e)").createOrReplaceTempView("bad_anchors")
    with pytest.raises(IllegalArgumentException) as info:
        spark.sql(query).collect()
    error = info.value
    assert (error.getCondition(), error.getSqlState()) == (condition, "22000")
    assert expected in str(error), str(error)


@pytest.mark.parametrize(
    "query, event, windows",
    [
        # An event [0, 2^62) in windows [w, w + 2^62) every tick: -2^62 < w < 2^62, 2^63 - 1 of them.
        (
            "SELECT count(*) FROM (SELECT 0L AS s, 4611686018427387904L AS e) "
            "GROUP BY hopping_window(s, e, 4611686018427387904L, 1L)",
            "from 0 to 4611686018427387904",
            "9223372036854775807",
        ),
        # An open-ended event up to a horizon at the end of time, in windows [5n, 5n + 10):
        # -1 <= n <= (2^63 - 2) // 5, 1844674407370955163 of them.
        (
            "SELECT count(*) FROM (SELECT 0L AS s, CAST(NULL AS BIGINT) AS e) "
            "GROUP BY hopping_window(s, e, 10L, 5L, 0L, 'window', 9223372036854775807L)",
            "from 0 to 9223372036854775807",
            "1844674407370955163",
        ),
        # The tumbling windows of one tick of an event over half the line.
        (
            "SELECT count(*) FROM (SELECT -4611686018427387904L AS s, 0L AS e) "
            "GROUP BY tumbling_window(s, e, 1L)",
            "from -4611686018427387904 to 0",
            "4611686018427387904",
        ),
    ],
    ids=["long-event-short-hops", "open-ended-to-the-end-of-time", "tumbling-ticks"],
)
def test_an_event_in_too_many_windows_fails_at_once(spark, query, event, windows):
    """Each window is a row: an event in more windows than the limit fails the query naming the
    event, the limit and 'changes', instead of running for years or filling memory."""
    with pytest.raises(IllegalArgumentException) as info:
        spark.sql(query).collect()
    message = str(info.value)
    assert event in message and f"lies in {windows} windows" in message, message
    assert "spark.eventwindows.maxWindowsPerEvent" in message and "'changes'" in message, message


def test_the_window_limit_is_a_setting(spark):
    query = (
        "SELECT count(*) FROM (SELECT 0L AS s, 100L AS e) "
        "GROUP BY hopping_window(s, e, 10L, 1L)"
    )  # 109 windows
    try:
        spark.conf.set("spark.eventwindows.maxWindowsPerEvent", "100")
        with pytest.raises(IllegalArgumentException, match="more than the limit of 100"):
            spark.sql(query).collect()
        spark.conf.set("spark.eventwindows.maxWindowsPerEvent", "109")
        assert len(spark.sql(query).collect()) == 109
        spark.conf.set("spark.eventwindows.maxWindowsPerEvent", "0")
        with pytest.raises(AnalysisException, match="from 1 to 2147483647"):
            spark.sql(query).collect()
    finally:
        spark.conf.unset("spark.eventwindows.maxWindowsPerEvent")


def test_a_time_trigger_over_a_long_gap_fails_at_once(spark):
    """A time trigger fires a row at every instant over a non-empty window: with count eviction a
    gap of 10^18 ticks between two tuples would be 10^18 - 1 rows (they once filled the JVM's
    memory); with time eviction the window empties after the eviction's time, so the same gap is
    a few rows."""
    gap = "FROM VALUES (0L), (1000000000000000000L) AS t(o) GROUP BY sliding_window(o, "
    with pytest.raises(IllegalArgumentException) as info:
        spark.sql(f"SELECT count(*) {gap}'count(2)', 'time(1)')").collect()
    message = str(info.value)
    assert (
        "'time(1)' would fire 999999999999999999 times before the tuple at order "
        "1000000000000000000" in message
    ), message
    assert "spark.eventwindows.maxWindowsPerEvent" in message, message
    # time(5) eviction: the tuple at 0 is in the window at the instants 1 to 5, then the window is
    # empty until the tuple at 10^18, which is in it at the instant 10^18 (fired at the end).
    rows = spark.sql(f"SELECT window.start, window.first {gap}'time(5)', 'time(1)')").collect()
    assert sorted(tuple(r) for r in rows) == [(t, 0) for t in range(1, 6)] + [(10**18, 10**18)]
