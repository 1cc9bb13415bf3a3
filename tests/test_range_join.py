"""Range joins planned as a sweep (`RangeJoin`): the same rows as Spark's own plan of the same SQL
(the rule turned off through `spark.eventwindows.rangeJoin.enabled`, in the same session) on
random inputs, for every join type, with and without equality keys, overlap and
point-in-interval conditions with `<`, `<=` and `BETWEEN`, extra predicates, ties, empty and
inverted lifetimes, NULL bounds and keys, and times near both ends of the time line."""

import collections
import datetime
import random

import pytest

RULE = "spark.eventwindows.rangeJoin.enabled"
BROADCAST = "spark.sql.autoBroadcastJoinThreshold"
JOIN_TYPES = ["inner", "left", "right", "full", "left semi", "left anti"]
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1


def random_events(rng, n, times, keys=3, nulls=True, wide=False):
    """Rows (id, k, s, e, v) of lifetimes [s, e] drawn from `times` (a function of rng): ties,
    empty and inverted lifetimes, with `wide` some across the whole line, and, with `nulls`, NULL
    keys and bounds."""
    rows = []
    for i in range(n):
        s = times(rng)
        shape = rng.random()
        if shape < 0.1:
            e = s  # empty
        elif shape < 0.15:
            e = max(s - rng.randrange(1, 4), BIGINT_MIN)  # inverted: ends before it starts
        elif wide and shape < 0.18:
            s, e = BIGINT_MIN + rng.randrange(3), BIGINT_MAX - rng.randrange(3)
        else:
            e = min(s + rng.choice([1, 2, 3, 5, 8, 20]), BIGINT_MAX)
        k = rng.randrange(keys)
        if nulls and rng.random() < 0.05:
            k = None
        if nulls and rng.random() < 0.05:
            s = None
        if nulls and rng.random() < 0.05:
            e = None
        rows.append((i, k, s, e, rng.randrange(10)))
    return rows


def small_times(rng):
    return rng.randrange(0, 60)


def edge_times(rng):
    """Times near both ends of the BIGINT line, and some in the middle."""
    return rng.choice(
        [BIGINT_MIN + rng.randrange(30), BIGINT_MAX - rng.randrange(30), rng.randrange(-15, 15)]
    )


CONDITIONS = {
    "overlap, keys": "a.k = b.k AND a.s < b.e AND b.s < a.e",
    "overlap <=, no keys": "a.s <= b.e AND b.s <= a.e",
    "overlap mixed, extra, keys": "a.k = b.k AND b.e > a.s AND a.e >= b.s AND a.v >= b.v",
    "point in interval, keys": "a.k = b.k AND b.s <= a.s AND a.s < b.e",
    "point in interval, no keys": "b.s <= a.s AND a.s < b.e",
    "between, no keys, extra": "a.s BETWEEN b.s AND b.e AND a.v <> b.v",
    "int between, no keys": "a.id BETWEEN b.id - 2 AND b.id + 2 AND a.s <= b.e",
    "null-safe and two keys": "a.k <=> b.k AND a.v = b.v AND a.s <= b.e AND b.s < a.e",
}


def rows_of(spark, sql, rule):
    spark.conf.set(RULE, str(rule).lower())
    try:
        df = spark.sql(sql)
        plan = df._jdf.queryExecution().executedPlan().toString()
        return collections.Counter(map(tuple, df.collect())), plan
    finally:
        spark.conf.unset(RULE)


def check_same_as_spark(spark, conditions, join_type):
    """One query: the join under each condition, tagged by its number, all under a union."""
    columns = "a.*, b.*" if "semi" not in join_type and "anti" not in join_type else "a.*"
    sql = " UNION ALL ".join(
        f"SELECT {i} AS c, {columns} FROM a {join_type} JOIN b ON {condition}"
        for i, condition in enumerate(conditions)
    )
    ours, our_plan = rows_of(spark, sql, True)
    sparks, spark_plan = rows_of(spark, sql, False)
    assert our_plan.count("RangeJoin ") >= len(conditions), our_plan
    assert "RangeJoin" not in spark_plan, spark_plan
    assert ours == sparks, f"{sql}\nonly ours: {ours - sparks}\nonly Spark's: {sparks - ours}"
    return our_plan


@pytest.fixture(scope="module")
def bigint_tables(spark):
    """Tables a and b, and no broadcast (both sides shuffled by key, as for large tables) but
    where a test turns it back on."""
    spark.conf.set(BROADCAST, "-1")
    rng = random.Random(44)
    times = lambda r: edge_times(r) if r.random() < 0.3 else small_times(r)
    schema = "id int, k int, s bigint, e bigint, v int"
    # Only b has lifetimes across the whole line: where a is the side each row of b is sent to
    # the ranges of (joins but right and full outer), b's rows span a few ranges or all.
    spark.createDataFrame(random_events(rng, 150, times), schema).createOrReplaceTempView("a")
    spark.createDataFrame(
        random_events(rng, 150, times, wide=True), schema
    ).createOrReplaceTempView("b")
    yield
    spark.catalog.dropTempView("a")
    spark.catalog.dropTempView("b")
    spark.conf.unset(BROADCAST)


@pytest.mark.parametrize(
    "join_type",
    [pytest.param(t, marks=pytest.mark.smoke) if t == "full" else t for t in JOIN_TYPES],
)
def test_same_rows_as_spark_on_bigint(spark, bigint_tables, join_type):
    check_same_as_spark(spark, list(CONDITIONS.values()), join_type)


def test_a_much_smaller_side_is_broadcast_as_sparks_rule_would(spark, bigint_tables):
    """A side under spark.sql.autoBroadcastJoinThreshold whose unmatched rows the join does not
    keep is broadcast (sorted once, the other side not shuffled), with or without keys, if it is
    also at most the other's size over the shuffle partitions (4): the same rows as Spark's plan
    either way. Two sides of one size, both under the threshold, are both shuffled; so is a full
    outer join, which keeps both sides' unmatched rows."""
    conditions = list(CONDITIONS.values())
    saved = {view: spark.table(view) for view in ("a", "b")}

    def as_values(view, df):  # as VALUES: a plan whose size Spark knows (rows x width)
        rows = ", ".join(
            "(" + ", ".join("NULL" if v is None else str(v) for v in row) + ")"
            for row in df.collect()
        )
        columns = ", ".join(f"CAST({c} AS {t}) AS {c}" for c, t in df.dtypes)
        spark.sql(
            f"SELECT {columns} FROM VALUES {rows} AS t({', '.join(df.columns)})"
        ).createOrReplaceTempView(view)

    def broadcast_sides(join_type):
        plan = check_same_as_spark(spark, conditions, join_type)
        sides = {side: plan.count(f"broadcast {side}") for side in ("left", "right")}
        assert sum(sides.values()) in (0, len(conditions)), plan
        assert ("ranges of time" in plan) == (sides == {"left": 0, "right": 0}), plan
        return {side for side, n in sides.items() if n}

    spark.conf.unset(BROADCAST)
    try:
        for view, df in saved.items():
            as_values(view, df)
        assert broadcast_sides("inner") == set()  # 150 rows a side: both shuffled
        # One side of 30 rows against 150 (30 x 4 <= 150): broadcast where the join type can
        # build it, never the side whose unmatched rows it keeps.
        builds = {"inner", "left", "left semi", "left anti"}
        for small, other, builds_small in [("b", "a", builds), ("a", "b", {"inner", "right"})]:
            as_values(small, saved[small].limit(30))
            as_values(other, saved[other])
            for join_type in JOIN_TYPES:
                expected = (
                    {"left" if small == "a" else "right"} if join_type in builds_small else set()
                )
                assert broadcast_sides(join_type) == expected, join_type
    finally:
        spark.conf.set(BROADCAST, "-1")
        for view, df in saved.items():
            df.createOrReplaceTempView(view)


@pytest.mark.slow  # random inputs against a reference
def test_same_rows_as_spark_on_timestamps_near_both_ends(spark):
    """TIMESTAMP_NTZ lifetimes from year 0001 to 9999 (and as DATEs): overlap with keys, point in
    interval without."""
    low, high = datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)
    rng = random.Random(7)

    def times(r):
        return r.choice(
            [
                low + datetime.timedelta(microseconds=r.randrange(20)),
                high - datetime.timedelta(microseconds=r.randrange(20)),
                datetime.datetime(2024, 1, 1, 0, 0, r.randrange(20)),
            ]
        )

    def lifetimes(n):
        """Lifetimes of 0, 1 or 3 seconds (clipped at the end of the line) or ending 1 µs
        before they start; NULL keys and bounds as random_events draws them."""
        rows = []
        for i, k, s, e, v in random_events(rng, n, lambda r: 0):
            start, base = (None if s is None else times(rng)), times(rng)
            if start is not None:
                base = start
            if e is not None:
                e = (
                    base - datetime.timedelta(microseconds=1)
                    if base > low and rng.random() < 0.1
                    else min(base, high - datetime.timedelta(seconds=3))
                    + datetime.timedelta(seconds=rng.choice([0, 1, 3]))
                )
            rows.append((i, k, start, e, v))
        return rows

    schema = "id int, k int, s timestamp_ntz, e timestamp_ntz, v int"
    spark.createDataFrame(lifetimes(120), schema).createOrReplaceTempView("a")
    spark.createDataFrame(lifetimes(120), schema).createOrReplaceTempView("b")
    try:
        for join_type in ["inner", "full", "left anti"]:
            check_same_as_spark(
                spark,
                [
                    "a.k = b.k AND a.s < b.e AND b.s < a.e",
                    "a.s BETWEEN b.s AND b.e",
                    "CAST(a.s AS DATE) BETWEEN CAST(b.s AS DATE) AND CAST(b.e AS DATE)",
                ],
                join_type,
            )
    finally:
        spark.catalog.dropTempView("a")
        spark.catalog.dropTempView("b")


def test_collated_string_keys_join_as_sparks_own(spark):
    """Keys of a STRING COLLATE UTF8_LCASE column, 'a' and 'A' equal under the collation though
    their bytes differ, both sides shuffled: the same rows as Spark's own plan (Spark's
    RewriteCollationJoin makes the join compare the keys' collation keys before the rule reads
    them)."""
    rng = random.Random(46)
    names = ("a", "A", "b", "B", "é", "É")
    schema = "id int, k string, s bigint, e bigint, v int"
    spark.conf.set(BROADCAST, "-1")
    try:
        for view in ("a", "b"):
            rows = [
                (i, None if k is None else rng.choice(names), s, e, v)
                for i, k, s, e, v in random_events(rng, 60, small_times)
            ]
            spark.createDataFrame(rows, schema).selectExpr(
                "id", "k COLLATE UTF8_LCASE AS k", "s", "e", "v"
            ).createOrReplaceTempView(view)
        for join_type in ("inner", "full"):
            plan = check_same_as_spark(
                spark,
                [CONDITIONS["overlap, keys"], CONDITIONS["point in interval, keys"]],
                join_type,
            )
            assert "collationkey" in plan, plan
    finally:
        spark.catalog.dropTempView("a")
        spark.catalog.dropTempView("b")
        spark.conf.unset(BROADCAST)


@pytest.mark.smoke
def test_dataframe_api_and_explain(spark):
    """The DataFrame API's join is recognized too; EXPLAIN names the operator with its keys and
    lifetimes, and no sort of Spark's (the operator sorts each side itself, as the windows and
    the ASOF join do); the configuration turns the rule off."""
    a = spark.createDataFrame([(1, 0, 10), (1, 5, 6), (2, 3, 4)], "k int, s bigint, e bigint")
    b = spark.createDataFrame([(1, 9, 12), (2, 4, 9)], "k int, t bigint, u bigint")

    def join():  # a new DataFrame each time: a DataFrame keeps the plan it was first given
        return a.join(b, (a.k == b.k) & (a.s < b.u) & (b.t < a.e), "left")

    spark.conf.set(BROADCAST, "-1")  # as for large tables: both sides shuffled
    try:
        joined = join()
        plan = joined._jdf.queryExecution().executedPlan().toString()
    finally:
        spark.conf.unset(BROADCAST)
    assert "RangeJoin LeftOuter, keys (k) = (k), lifetimes [s, e] and [t, u]" in plan, plan
    assert "Sort [" not in plan, plan
    assert sorted(map(tuple, joined.collect()), key=str) == sorted(
        [(1, 0, 10, 1, 9, 12), (1, 5, 6, None, None, None), (2, 3, 4, None, None, None)], key=str
    )
    spark.conf.set(RULE, "false")
    try:
        assert "RangeJoin" not in join()._jdf.queryExecution().executedPlan().toString()
    finally:
        spark.conf.unset(RULE)


def test_shapes_not_recognized_stay_sparks(spark):
    """One bound only, a range on DOUBLE columns, a hint, a bound with a subquery (evaluated
    apart from the condition, where Spark would not plan it), a side that is not deterministic
    without keys (read twice, it would not give the same rows): Spark's own plan."""
    a = spark.createDataFrame([(1, 0.0, 1.0)], "k int, s double, e double")
    a.createOrReplaceTempView("x")
    try:
        for sql in [
            "SELECT * FROM x a JOIN x b ON a.k = b.k AND a.s < b.e",
            "SELECT * FROM x a JOIN x b ON a.s < b.e AND b.s < a.e",
            "SELECT /*+ BROADCAST(b) */ * FROM x a JOIN x b "
            "ON CAST(a.s AS BIGINT) < CAST(b.e AS BIGINT) "
            "AND CAST(b.s AS BIGINT) < CAST(a.e AS BIGINT)",
            "SELECT * FROM x a JOIN x b ON a.k = b.k AND CAST(a.s AS BIGINT) "
            "< CAST(b.e AS BIGINT) + (SELECT count(*) FROM x) "
            "AND CAST(b.s AS BIGINT) < CAST(a.e AS BIGINT)",
            "SELECT * FROM (SELECT CAST(rand() * 10 AS BIGINT) AS t FROM x) a JOIN x b "
            "ON CAST(b.s AS BIGINT) <= a.t AND a.t < CAST(b.e AS BIGINT)",
        ]:
            plan = spark.sql(sql)._jdf.queryExecution().executedPlan().toString()
            assert "RangeJoin" not in plan, sql
    finally:
        spark.catalog.dropTempView("x")
