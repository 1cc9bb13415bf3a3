"""`ew.temporal_join` and the SQL table function `temporal_join`, StreamInsight's join of two event
tables (SPEC 3.9): the same rows as a small reference in Python on random inputs (interval, point
and open-ended events, empty lifetimes, NULL keys and starts, ties, times near both ends of the
BIGINT line), for every join type, with and without keys, BIGINT and TIMESTAMP(_NTZ); planned by
the RangeJoin rule; composing with the windows' own output; bad arguments and bad rows."""

import collections
import datetime
import random

import pytest
from pyspark.sql import Row
from pyspark.sql import functions as F

import eventwindows as ew

BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
JOIN_TYPES = ["inner", "left", "right", "full", "left_semi", "left_anti"]


# ---------------------------------------------------------------------------------------------
# The reference: lifetimes as half-open [s, e), written from SPEC 3.9 and docs/events.md.


def lifetime(s, e, point, end_of_time, tick):
    """An event's lifetime (start, end): a point lasts one tick (none at the end of time), a NULL
    end is open (None)."""
    if point:
        return (s, None if s is None else s + tick if s < end_of_time else s)
    return (s, e)


def intersection(a, b, end_of_time):
    """The overlap of two lifetimes, or None: starts known, the later start before both ends."""
    if a[0] is None or b[0] is None:
        return None
    start = max(a[0], b[0])
    ends = [x[1] for x in (a, b) if x[1] is not None]
    if (
        start >= min(ends + [end_of_time])
        or a[0] >= (a[1] if a[1] is not None else end_of_time)
        or b[0] >= (b[1] if b[1] is not None else end_of_time)
    ):
        return None
    return (start, min(ends) if ends else None)


def reference(left, right, keyed, how, points, end_of_time, tick):
    """The join's rows as tuples (keys, left's others, right's others, lifetime), as
    temporal_join orders them; left rows (id, k, s, e), right rows (id, k, t, u)."""
    lp, rp = points
    lives_a = [lifetime(r[2], r[3], lp, end_of_time, tick) for r in left]
    lives_b = [lifetime(r[2], r[3], rp, end_of_time, tick) for r in right]
    out, matched_a, matched_b = [], set(), set()

    def row(a, b, life):
        ra = left[a] if a is not None else (None,) * 4
        rb = right[b] if b is not None else (None,) * 4
        if not keyed:
            return ra + rb + (life,)
        k = rb[1] if how == "right" else ra[1] if how != "full" or a is not None else rb[1]
        return (k, ra[0], ra[2], ra[3], rb[0], rb[2], rb[3], life)

    for i, ra in enumerate(left):
        for j, rb in enumerate(right):
            if keyed and (ra[1] is None or ra[1] != rb[1]):
                continue
            life = intersection(lives_a[i], lives_b[j], end_of_time)
            if life is not None:
                matched_a.add(i)
                matched_b.add(j)
                if how in ("inner", "left", "right", "full"):
                    out.append(row(i, j, life))
    if how in ("left", "full"):
        out += [row(i, None, lives_a[i]) for i in range(len(left)) if i not in matched_a]
    if how in ("right", "full"):
        out += [row(None, j, lives_b[j]) for j in range(len(right)) if j not in matched_b]
    if how in ("left_semi", "left_anti"):
        keep = matched_a if how == "left_semi" else set(range(len(left))) - matched_a
        out = [left[i] + (lives_a[i],) for i in sorted(keep)]
    return collections.Counter(out)


def random_events(rng, n, times, nulls=True):
    """Rows (id, k, s, e): ties, empty lifetimes (e = s), open-ended ones (e NULL), with `nulls`
    NULL keys and starts; never an end before the start."""
    rows = []
    for i in range(n):
        s = times(rng)
        shape = rng.random()
        e = (
            s
            if shape < 0.1
            else None
            if shape < 0.2
            else min(s + rng.choice([1, 2, 3, 5, 8, 20]), BIGINT_MAX)
        )
        k = rng.randrange(3)
        if nulls and rng.random() < 0.05:
            k = None
        if nulls and rng.random() < 0.05:
            s, e = None, None
        rows.append((i, k, s, e))
    return rows


def edge_times(rng):
    """Times near both ends of the BIGINT line (the last tick too), and some in the middle."""
    return rng.choice(
        [
            BIGINT_MIN + rng.randrange(30),
            BIGINT_MAX - rng.randrange(30),
            rng.randrange(-15, 45),
            rng.randrange(-15, 45),
        ]
    )


def collected(df):
    return collections.Counter(
        tuple(tuple(v) if hasattr(v, "asDict") else v for v in r) for r in df.collect()
    )


def check(spark, left, right, schema, keyed, how, points):
    a = spark.createDataFrame(left, schema.format("s", "e"))
    b = spark.createDataFrame(right, schema.format("t", "u"))
    joined = ew.temporal_join(
        a,
        b,
        "k" if keyed else None,
        how,
        left_lifetime=("s", None if points[0] else "e"),
        right_lifetime=("t", None if points[1] else "u"),
    )
    plan = joined._jdf.queryExecution().executedPlan().toString()
    assert "RangeJoin" in plan, plan
    ours = collected(joined)
    bigint = "bigint" in schema
    theirs = reference(
        left,
        right,
        keyed,
        how,
        points,
        BIGINT_MAX if bigint else TIMESTAMP_END,
        1 if bigint else datetime.timedelta(microseconds=1),
    )
    assert ours == theirs, (
        f"{how} {points}\nonly ours: {ours - theirs}\nonly the reference's: {theirs - ours}"
    )


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("how", JOIN_TYPES)
def test_same_rows_as_reference_on_bigint(spark, how):
    """Interval events with keys near both ends of the line; points in intervals without keys."""
    rng = random.Random(JOIN_TYPES.index(how))
    schema = "id int, k int, {} bigint, {} bigint"
    check(
        spark,
        random_events(rng, 60, edge_times),
        random_events(rng, 60, edge_times),
        schema,
        True,
        how,
        (False, False),
    )
    check(
        spark,
        random_events(rng, 60, edge_times),
        random_events(rng, 40, edge_times),
        schema,
        False,
        how,
        (True, False),
    )


TIMESTAMP_END = datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)


@pytest.mark.slow  # random inputs against a reference
def test_same_rows_as_reference_on_timestamp_ntz(spark):
    """TIMESTAMP_NTZ: interval against point events (and points against points) with keys, from
    year 0001 to the end of time."""
    rng = random.Random(9)
    low = datetime.datetime(1, 1, 1)
    base = datetime.datetime(2024, 1, 1)
    tick = datetime.timedelta(microseconds=1)

    def events(n):
        rows = []
        for i, k, s, e in random_events(rng, n, lambda r: r.randrange(0, 30)):
            if s is None:
                rows.append((i, k, None, None))
                continue
            where = rng.choice([low, base, base, TIMESTAMP_END - 50 * tick])
            rows.append((i, k, where + s * tick, None if e is None else where + e * tick))
        return rows

    schema = "id int, k int, {} timestamp_ntz, {} timestamp_ntz"
    for how in ["inner", "full"]:
        check(spark, events(50), events(50), schema, True, how, (False, True))
    check(spark, events(40), events(40), schema, True, "left", (True, True))


def test_composes_with_hopping_points_and_window_time(spark):
    """A hopping window's 'point' rows joined with a machine's states, then windowed again; a
    tumbling window's `window_time` as a point event."""
    readings = spark.createDataFrame(
        [("m", 0, 3, 1), ("m", 4, 9, 2)], "k string, s bigint, e bigint, v int"
    )
    states = spark.createDataFrame(
        [("m", "idle", 0, 5), ("m", "busy", 5, None)],
        "k string, state string, since bigint, until bigint",
    )
    # Windows [2j, 2j + 4) as points at their ends: 2 (total 1), 4 (1), 6 (3), 8, 10, 12 (2).
    points = readings.groupBy("k", ew.hopping_window("s", 4, 2, end="e", output="point")).agg(
        F.sum("v").alias("total")
    )
    joined = ew.temporal_join(
        points,
        states,
        "k",
        left_lifetime=("window.start", "window.end"),
        right_lifetime=("since", "until"),
    )
    assert "RangeJoin" in joined._jdf.queryExecution().executedPlan().toString()
    assert sorted(
        (r.lifetime.start, r.lifetime.end, r.state, r.total) for r in joined.collect()
    ) == [
        (2, 3, "idle", 1),
        (4, 5, "idle", 1),
        (6, 7, "busy", 3),
        (8, 9, "busy", 2),
        (10, 11, "busy", 2),
        (12, 13, "busy", 2),
    ]
    # Tumbling windows of 6 over the joined rows: [0, 6) idle 2 + ... = 2; [6, 12) busy 7; [12, 18) 2.
    again = joined.groupBy(
        "state", ew.tumbling_window("lifetime.start", 6, end="lifetime.end")
    ).agg(F.sum("total").alias("total"))
    assert sorted((r.state, r.window.start, r.total) for r in again.collect()) == [
        ("busy", 6, 7),
        ("busy", 12, 2),
        ("idle", 0, 2),
    ]

    at = datetime.datetime(2024, 1, 1)
    second = datetime.timedelta(seconds=1)
    events = spark.createDataFrame(
        [(at + 3 * second, 1), (at + 12 * second, 2), (at + 15 * second, 4)], "ts timestamp, v int"
    )
    totals = (
        events.groupBy(ew.tumbling_window("ts", "10 seconds"))
        .agg(F.sum("v").alias("total"))
        .select(F.window_time("window").alias("t"), "total")
    )
    modes = spark.createDataFrame(
        [("idle", at, at + 10 * second), ("busy", at + 10 * second, None)],
        "mode string, s timestamp, e timestamp",
    )
    tick = datetime.timedelta(microseconds=1)
    # window_time: each window's last tick, 00:00:09.999999 (idle) and 00:00:19.999999 (busy).
    assert sorted(
        (r.mode, r.total, r.lifetime.start, r.lifetime.end)
        for r in ew.temporal_join(
            totals, modes, None, left_lifetime=("t", None), right_lifetime=("s", "e")
        ).collect()
    ) == [
        ("busy", 6, at + 20 * second - tick, at + 20 * second),
        ("idle", 1, at + 10 * second - tick, at + 10 * second),
    ]


def test_an_end_before_the_start_fails_naming_the_row(spark):
    good = spark.createDataFrame([(1, 0, 10)], "k int, s bigint, e bigint")
    bad = spark.createDataFrame([(1, 0, 10), (1, 7, 3)], "k int, s bigint, e bigint")
    for left, right, how, side in [
        (bad, good, "left", "left"),
        (good, bad, "inner", "right"),
        (bad, good, "left_anti", "left"),
    ]:
        joined = ew.temporal_join(
            left, right, "k", how, left_lifetime=("s", "e"), right_lifetime=("s", "e")
        )
        with pytest.raises(Exception) as failure:
            joined.collect()
        assert failure.value.getCondition() == "EVENTWINDOWS_EVENT_ENDS_BEFORE_START", failure.value
        assert "an event must not end before it starts, but one has start 7 and end 3" in str(
            failure.value
        ), (side, failure.value)


def test_bad_arguments_name_the_parameter(spark):
    a = spark.createDataFrame([(1, 0, 10, 1.0)], "k int, s bigint, e bigint, d double")
    b = spark.createDataFrame([(1, datetime.datetime(2024, 1, 1))], "k int, t timestamp")
    life = ("s", "e")
    cases = [
        (dict(right=a, on="k", how="sideways"), ValueError, "`how` must be one of"),
        (dict(right=a, on="x"), ValueError, "`on`: `x` is not a column of `left`"),
        (dict(right=a, on=3), TypeError, "`on` must be a column name"),
        (dict(right=a, on="k", left_lifetime=("s",)), TypeError, "`left_lifetime` must be a pair"),
        (
            dict(right=a, on="k", right_lifetime=("s", "nope")),
            ValueError,
            "`right_lifetime`: `nope` is not a column",
        ),
        (
            dict(right=a, on="k", left_lifetime=("d", None)),
            TypeError,
            "`left_lifetime`: `d` must be TIMESTAMP, TIMESTAMP_NTZ or BIGINT, got double",
        ),
        (
            dict(right=b, on="k", right_lifetime=("t", None)),
            TypeError,
            "`left_lifetime` is bigint but `right_lifetime` timestamp",
        ),
        (
            dict(right=a.withColumnRenamed("d", "lifetime"), on="k"),
            ValueError,
            "`right` has a column `lifetime`",
        ),
        (dict(right="a", on="k"), TypeError, "`right` must be a DataFrame"),
    ]
    for arguments, error, text in cases:
        arguments = {"left_lifetime": life, "right_lifetime": life, **arguments}
        with pytest.raises(error, match=text.replace("(", r"\(")):
            ew.temporal_join(a, **arguments)


def test_lifetime_longer_than_bigint_without_keys(spark):
    """A right join without keys whose home side (the right) has a lifetime across the whole
    BIGINT line, longer than a Long can count: every point must still meet it (the sweep's
    `lo - reach` saturated wrongly at first, and points near the end of the line missed it)."""
    points = [(i, BIGINT_MAX - d) for i, d in enumerate([3, 13, 40])] + [(3, -30), (4, 0)]
    a = spark.createDataFrame(points, "id int, t bigint")
    b = spark.createDataFrame(
        [(10, BIGINT_MIN + 10, None), (11, -20, -10), (12, -40, -35)], "id int, s bigint, e bigint"
    )
    joined = ew.temporal_join(
        a, b, None, "right", left_lifetime=("t", None), right_lifetime=("s", "e")
    )
    assert "RangeJoin" in joined._jdf.queryExecution().executedPlan().toString()
    assert sorted(((r[0], r[2]) for r in joined.collect()), key=str) == [
        (0, 10),
        (1, 10),
        (2, 10),
        (3, 10),
        (4, 10),
        (None, 11),
        (None, 12),
    ]


def test_sql_table_function(spark):
    """The SQL form: a self-join (told apart as any SQL self-join), planned by the RangeJoin
    rule; bad arguments are analysis errors naming the function and parameter."""
    spark.createDataFrame(
        [("a", 0, 4), ("a", 2, 6), ("b", 1, 2)], "k string, s bigint, e bigint"
    ).createOrReplaceTempView("x")
    try:
        joined = spark.sql(
            "SELECT * FROM temporal_join(TABLE(x), TABLE(x), 'k', 'inner', 's', 'e', 's', 'e')"
        )
        assert "RangeJoin" in joined._jdf.queryExecution().executedPlan().toString()
        assert joined.columns == ["k", "s", "e", "s", "e", "lifetime"]
        # a: [0,4) x [0,4), [0,4) x [2,6), [2,6) x [0,4), [2,6) x [2,6); b: [1,2) with itself.
        assert sorted((r[0], r[1], r[3], tuple(r[5])) for r in joined.collect()) == [
            ("a", 0, 0, (0, 4)),
            ("a", 0, 2, (2, 4)),
            ("a", 2, 0, (2, 4)),
            ("a", 2, 2, (2, 6)),
            ("b", 1, 1, (1, 2)),
        ]
        for arguments, text in [
            ("'k', 'sideways', 's', 'e', 's', 'e'", "`how` must be one of"),
            (
                "'k', NULL, 'nope', 'e', 's', 'e'",
                "`left_start` names no column of the left table: 'nope'",
            ),
            ("'z', 'left', 's', 'e', 's', NULL", "`on` names no column"),
        ]:
            with pytest.raises(Exception, match=text) as failure:
                spark.sql(f"SELECT * FROM temporal_join(TABLE(x), TABLE(x), {arguments})")
            assert "temporal_join" in str(failure.value)
    finally:
        spark.catalog.dropTempView("x")


@pytest.mark.parametrize("join", ["temporal_join", "asof_join"])
def test_a_cached_input_is_read_from_the_cache_and_stays_cached(spark, join):
    """Both joins pass their DataFrames to SQL as views: a cached one is read from Spark's cache,
    and stays cached for later queries (a view dropped with `spark.catalog.dropTempView`, as
    `spark.sql`'s DataFrame arguments are, would uncache it)."""
    left = spark.createDataFrame([("a", 2, 6, 1)], "k string, s bigint, e bigint, v bigint").cache()
    right = spark.createDataFrame([("a", 3, 10)], "k string, t bigint, q bigint")
    left.count()
    if join == "temporal_join":
        joined = ew.temporal_join(
            left, right, "k", left_lifetime=("s", "e"), right_lifetime=("t", None)
        )
        # [2, 6) meets the point 3, which lasts [3, 4).
        expected = [("a", 2, 6, 1, 3, 10, (3, 4))]
    else:
        joined = ew.asof_join(left, right, "k", "s", "t", direction="forward")
        # The first quote at or after 2: the one at 3.
        expected = [("a", 2, 6, 1, 3, 10)]
    try:
        assert "InMemoryTableScan" in joined._jdf.queryExecution().executedPlan().toString()
        assert [
            tuple(tuple(x) if isinstance(x, Row) else x for x in r) for r in joined.collect()
        ] == expected
        later = left.select("k", "v")
        assert "InMemoryTableScan" in later._jdf.queryExecution().executedPlan().toString()
    finally:
        left.unpersist()
