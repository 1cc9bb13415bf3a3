"""ASOF joins (`ew.asof_join`, the SQL table function `asof_join`, the `AsofJoin` operator)
against pandas' `merge_asof` on random inputs with ties, every direction, with and without a
tolerance, exact matches and keys; against a brute-force reference (checked against pandas
here too) for NULLs and times at both ends of the BIGINT line; many keys, keys on one side only
and tasks whose right rows the probe cannot hold (they merge instead); the plan (one operator,
no window function); bad arguments; and `ew.to_signal` on a hand-worked case."""

import datetime
import random

import pandas as pd
import pyspark
import pytest
from pyspark.sql import functions as F

import eventwindows as ew

BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
DIRECTIONS = ["backward", "forward", "nearest"]

SQL_ASOF_JOIN = tuple(int(p) for p in pyspark.__version__.split(".")[:2]) >= (4, 3)
"""Whether this Spark has SQL's ``ASOF JOIN`` (4.3, behind ``spark.sql.join.asofJoin.enabled``)."""


def brute_force(left, right, keyed, direction, tolerance, exact):
    """Each left row (k, t, x) with the y of its right row (k, t, y), chosen among all right rows
    by the definition (ties: by the other columns k, y, NULLs first, backward the last, forward the first; nearest: the nearer,
    backward at equal distance). Python ints: no overflow at the ends of the line."""
    out = []
    for k, t, x in left:

        def candidates(accept):
            return [
                (rt, -1 if rk is None else rk, y)
                for rk, rt, y in right
                if t is not None
                and rt is not None
                and (not keyed or (k is not None and rk == k))
                and accept(rt)
                and (tolerance is None or abs(rt - t) <= tolerance)
            ]

        back = candidates(lambda rt: rt < t or (exact and rt == t))
        fwd = candidates(lambda rt: rt > t or (exact and rt == t))
        b = max(back) if back else None  # the greatest time, then the greatest y
        f = min(fwd) if fwd else None  # the least time, then the least y
        if direction == "backward":
            chosen = b
        elif direction == "forward":
            chosen = f
        else:
            chosen = f if b is None or (f is not None and f[0] - t < t - b[0]) else b
        out.append((k, t, x, None if chosen is None else chosen[2]))
    return sorted(out, key=repr)


def with_pandas(left, right, keyed, direction, tolerance, exact):
    """pandas' merge_asof of the same rows, the right rows sorted by (t, k, y) so that its first
    and last among ties are ours (Spark orders ties by the right side's other columns)."""
    lf = pd.DataFrame(left, columns=["k", "t", "x"]).sort_values("t", kind="mergesort")
    rf = pd.DataFrame(right, columns=["k", "t", "y"]).sort_values(["t", "k", "y"], kind="mergesort")
    merged = pd.merge_asof(
        lf,
        rf,
        on="t",
        by="k" if keyed else None,
        direction=direction,
        tolerance=tolerance,
        allow_exact_matches=exact,
        suffixes=("", "_r"),
    )
    rows = []
    for r in merged.itertuples(index=False):
        y = None if pd.isna(r.y) else int(r.y)
        rows.append((r.k, int(r.t), int(r.x), y))
    return sorted(rows, key=repr)


def run(spark, left, right, keyed, direction, tolerance, exact):
    lt = spark.createDataFrame(left, "k int, t bigint, x int")
    rt = spark.createDataFrame(right, "k int, t bigint, y int")
    joined = ew.asof_join(
        lt,
        rt,
        "k" if keyed else None,
        "t",
        "t",
        direction=direction,
        tolerance=tolerance,
        allow_exact_matches=exact,
    )
    if not keyed:
        joined = joined.drop("k_r") if "k_r" in joined.columns else joined
    rows = joined.collect()
    if keyed:
        assert joined.columns == ["k", "t", "x", "y"]
        return sorted([tuple(r) for r in rows], key=repr)
    assert joined.columns == ["k", "t", "x", "k", "y"]  # without keys, both k are kept
    return sorted([(r[0], r[1], r[2], r[4]) for r in rows], key=repr)


def random_rows(rng, n, times, nulls=False):
    rows = []
    for i in range(n):
        k, t = rng.randrange(3), times(rng)
        if nulls and rng.random() < 0.1:
            k = None
        if nulls and rng.random() < 0.1:
            t = None
        rows.append((k, t, i))
    return rows


def test_random_against_pandas(spark):
    """Times 0..40 with many ties on both sides, every direction, tolerance and exact matches,
    with and without keys; pandas' answer is the brute force's too."""
    rng = random.Random(44)
    left = random_rows(rng, 60, lambda r: r.randrange(40))
    right = random_rows(rng, 50, lambda r: r.randrange(40))
    cases = [
        (True, d, tol, exact) for d in DIRECTIONS for tol in (None, 2) for exact in (True, False)
    ]
    cases += [
        (False, d, tol, exact)
        for d, tol, exact in [
            ("backward", None, True),
            ("forward", 3, False),
            ("nearest", None, False),
            ("nearest", 1, True),
        ]
    ]
    for keyed, direction, tolerance, exact in cases:
        expected = with_pandas(left, right, keyed, direction, tolerance, exact)
        assert brute_force(left, right, keyed, direction, tolerance, exact) == expected
        assert run(spark, left, right, keyed, direction, tolerance, exact) == expected, (
            keyed,
            direction,
            tolerance,
            exact,
        )


def test_columns_are_pruned_but_not_those_that_order_ties(spark):
    """Spark's column pruning leaves out of the join's sides the columns nothing reads, but not
    the right side's orderable columns, which order its rows tying on (keys, time): selecting
    fewer columns does not change which right row is chosen. Right rows (y, z) = (1, 9) and
    (2, 0) tie at t = 5; backward takes the last by (y, z), (2, 0), so z is 0 however selected."""
    lt = spark.createDataFrame([(1, 6, "wide")], "k int, t bigint, pad string")
    rt = spark.createDataFrame([(1, 5, 1, 9), (1, 5, 2, 0)], "k int, t bigint, y int, z int")
    joined = ew.asof_join(lt, rt, "k", "t", "t")
    assert [tuple(r) for r in joined.select("z").collect()] == [(0,)]
    assert [tuple(r) for r in joined.select("y", "z").collect()] == [(2, 0)]
    plan = joined.select("z")._jdf.queryExecution().optimizedPlan()
    join = plan.child()  # Project [z] over the AsofJoin
    sides = [join.children().apply(i).output() for i in range(2)]
    names = [[side.apply(i).name() for i in range(side.size())] for side in sides]
    assert names == [["k", "t"], ["k", "t", "y", "z"]], plan.toString()


def test_a_table_joined_with_itself(spark):
    """One DataFrame as both sides (its columns the same attributes on both): each row with the
    row before it of its key, in DataFrame and SQL form, as pandas' merge_asof of the table with
    itself gives it."""
    rng = random.Random(45)
    rows = [
        (k, t, i) for i, (k, t, _) in enumerate(random_rows(rng, 40, lambda r: r.randrange(30)))
    ]
    df = spark.createDataFrame(rows, "k int, t bigint, x int")
    expected = [
        (k, t, x, y) for k, t, x, y in with_pandas(rows, rows, True, "backward", None, False)
    ]
    joined = ew.asof_join(df, df, "k", "t", "t", allow_exact_matches=False)
    assert joined.columns == ["k", "t", "x", "x"]
    assert sorted(map(tuple, joined.collect()), key=repr) == expected
    df.createOrReplaceTempView("itself")
    try:
        sql = spark.sql(
            "SELECT * FROM asof_join(TABLE(itself), TABLE(itself), 't', 't', 'k', 'backward', "
            "NULL, false)"
        )
        assert sorted(map(tuple, sql.collect()), key=repr) == expected
    finally:
        spark.catalog.dropTempView("itself")


@pytest.mark.slow  # random inputs against a reference
def test_random_without_keys_in_ranges_of_time(spark):
    """Without keys the join is spread over ranges of time (4 shuffle partitions): left rows
    whose match lies in an earlier range (backward), a later one (forward) or either (nearest),
    with ties at the ranges' boundaries and times near both ends of the line (so against the
    brute force, which agrees with pandas above: pandas' distances overflow there), from several
    input partitions; and it runs in more than one task."""
    rng = random.Random(4404)
    # Clusters of times far apart (the ranges' boundaries fall in the gaps, so many matches are
    # across one), with ties, near both ends of the BIGINT line too.
    centers = [BIGINT_MIN + 10, -1000, 0, 5000, BIGINT_MAX - 40]

    def times(r):
        return r.choice(centers) + r.randrange(30)

    left = random_rows(rng, 200, times)
    right = [row for row in random_rows(rng, 60, times) if rng.random() < 0.5]
    lt = spark.createDataFrame(left, "k int, t bigint, x int").repartition(3)
    rt = spark.createDataFrame(right, "k int, t bigint, y int").repartition(3)
    for direction, tolerance, exact in [
        ("backward", None, True),
        ("backward", 2000, False),
        ("forward", None, False),
        ("forward", 10, True),
        ("nearest", None, True),
        ("nearest", 5, False),
    ]:
        joined = ew.asof_join(
            lt,
            rt,
            None,
            "t",
            "t",
            direction=direction,
            tolerance=tolerance,
            allow_exact_matches=exact,
        )
        got = sorted(((r[0], r[1], r[2], r[4]) for r in joined.collect()), key=repr)
        expected = brute_force(left, right, False, direction, tolerance, exact)
        assert got == expected, (direction, tolerance, exact)
    plan = joined._jdf.queryExecution().executedPlan().toString()
    assert "AsofJoin nearest, no keys, ranges of time" in plan
    tasks = joined.select(F.spark_partition_id().alias("task")).distinct().count()
    assert tasks > 1, plan


def asof_join_node(joined):
    """The `AsofJoin` operator of `joined`'s executed plan (after an action: adaptive
    execution's final plan), to read its metrics."""

    def find(node):
        if node.nodeName() == "AsofJoin":
            return node
        if node.nodeName() == "AdaptiveSparkPlan":
            return find(node.executedPlan())
        if node.nodeName().endswith("QueryStage"):
            return find(node.plan())
        children = node.children()
        found = (find(children.apply(i)) for i in range(children.size()))
        return next((n for n in found if n is not None), None)

    return find(joined._jdf.queryExecution().executedPlan())


INDEX_LIMIT = "spark.eventwindows.asofJoin.maxIndexBytes"

FOUR_TASKS = {
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.adaptive.coalescePartitions.enabled": "false",
}
"""Settings under which a keyed join runs in four tasks (adaptive execution would coalesce the
small partitions of these tests into one)."""


def asof_rows(spark, left, right, settings, on="k", **join):
    """`ew.asof_join(left, right, on, "t", "t", **join)`'s rows (sorted) and its operator,
    run under the settings (a value of None: unset), which then get their values back."""
    before = {key: spark.conf.get(key, None) for key in settings}

    def put(values):
        for key, value in values.items():
            spark.conf.unset(key) if value is None else spark.conf.set(key, value)

    put(settings)
    try:
        joined = ew.asof_join(left, right, on, "t", "t", **join)
        return sorted(map(tuple, joined.collect()), key=repr), asof_join_node(joined)
    finally:
        put(before)


def test_random_when_the_index_is_refused_memory(spark):
    """A task whose right rows the probe's index cannot hold (the test-only limit on its memory,
    as when the memory manager refuses it) merges the two sorted sides instead: at once (limit
    0) or after the index held some (40,000 bytes, where a task's ~750 right rows and its arrays
    need about 66,000), with the same rows as pandas either way; four tasks, 40 keys, ties."""
    rng = random.Random(4405)
    rows = lambda n: [(rng.randrange(40), rng.randrange(500), i) for i in range(n)]
    left, right = rows(300), rows(3000)
    lt = spark.createDataFrame(left, "k int, t bigint, x int")
    rt = spark.createDataFrame(right, "k int, t bigint, y int")
    for limit, direction, tolerance, exact in [
        (None, "nearest", 3, True),
        ("0", "backward", None, True),
        ("40000", "nearest", 3, True),
        ("40000", "forward", None, False),
    ]:
        got, operator = asof_rows(
            spark,
            lt,
            rt,
            {**FOUR_TASKS, INDEX_LIMIT: limit},
            direction=direction,
            tolerance=tolerance,
            allow_exact_matches=exact,
        )
        case = (limit, direction, tolerance, exact)
        assert got == with_pandas(left, right, True, direction, tolerance, exact), case
        merged = operator.metrics().apply("numTasksFallBacked").value()
        assert merged == (0 if limit is None else 4), case


def test_a_much_smaller_right_side_is_broadcast(spark):
    """A right side under Spark's broadcast threshold and at most the left's size over the
    shuffle partitions (60 rows against 400, 4 partitions) is broadcast, sorted once, and the left
    side is not moved, with keys or without (no ranges of time then): the brute force's rows,
    with ties, NULL keys and times, every direction, and when a task's index is refused memory."""

    def table(n, a, b, name):  # from range(): a plan whose size Spark knows when planning
        return spark.range(n).selectExpr(
            f"CASE WHEN id % 11 = 5 THEN NULL ELSE CAST(id * {a} % 3 AS INT) END AS k",
            f"CASE WHEN id % 13 = 7 THEN NULL ELSE id * {b} % 40 END AS t",
            f"CAST(id AS INT) AS {name}",
        )

    lt, rt = table(400, 7, 31, "x").repartition(3), table(60, 5, 17, "y")
    left, right = ([tuple(r) for r in df.collect()] for df in (lt, rt))
    for keyed, direction, tolerance, exact, limit in [
        (True, "backward", None, True, None),
        (True, "nearest", 2, False, None),
        (True, "forward", None, True, "0"),
        (False, "nearest", None, True, None),
        (False, "backward", 3, False, None),
    ]:
        case = (keyed, direction, tolerance, exact, limit)
        settings = {INDEX_LIMIT: limit}
        got, operator = asof_rows(
            spark,
            lt,
            rt,
            settings,
            on="k" if keyed else None,
            direction=direction,
            tolerance=tolerance,
            allow_exact_matches=exact,
        )
        plan = operator.toString()
        assert "broadcast right" in plan and "ranges of time" not in plan, (case, plan)
        if not keyed:
            got = sorted(((r[0], r[1], r[2], r[4]) for r in got), key=repr)
        assert got == brute_force(left, right, keyed, direction, tolerance, exact), case
        merged = operator.metrics().apply("numTasksFallBacked").value()
        assert merged == (0 if limit is None else 3), case


@pytest.mark.slow  # random inputs against a reference
def test_random_many_keys_some_on_one_side(spark):
    """The probe finds each left row's key among many: 90,000 left keys, 80,000 right ones
    (keys on one side only both ways), ties on time, in one task (so past the 65,535 keys whose
    ordinals are their own: the rest share one and are found by their bytes) and in four."""
    left = spark.range(150_000).selectExpr(
        "CAST(id * 7919 % 90000 AS INT) AS k", "id * 104729 % 1000 AS t", "CAST(id AS INT) AS x"
    )
    right = spark.range(120_000).selectExpr(
        "CAST(10000 + id * 31 % 80000 AS INT) AS k",
        "id * 7727 % 1000 AS t",
        "CAST(id AS INT) AS y",
    )
    left_rows, right_rows = (list(map(tuple, df.collect())) for df in (left, right))
    one_task = {"spark.sql.shuffle.partitions": "1"}
    for settings, direction, tolerance, exact in [
        (one_task, "backward", None, True),
        (one_task, "nearest", 20, False),
        (FOUR_TASKS, "forward", None, True),
    ]:
        got, _ = asof_rows(
            spark,
            left,
            right,
            settings,
            direction=direction,
            tolerance=tolerance,
            allow_exact_matches=exact,
        )
        expected = with_pandas(left_rows, right_rows, True, direction, tolerance, exact)
        assert got == expected, (settings, direction)


@pytest.mark.slow  # random inputs against a reference
def test_nulls_and_both_ends_of_the_line(spark):
    """Times near both ends of BIGINT (distances beyond BIGINT), NULL keys and times on both
    sides: NULLs match nothing, a left row with one is kept with NULLs."""
    rng = random.Random(7)
    ends = lambda r: r.choice(
        [BIGINT_MIN + r.randrange(6), BIGINT_MAX - r.randrange(6), r.randrange(-3, 3)]
    )
    left = random_rows(rng, 50, ends, nulls=True)
    right = random_rows(rng, 40, ends, nulls=True)
    for keyed, direction, tolerance, exact in [
        (True, "backward", None, True),
        (True, "forward", None, False),
        (True, "nearest", None, True),
        (False, "nearest", BIGINT_MAX, False),
        (True, "backward", 3, True),
    ]:
        assert run(spark, left, right, keyed, direction, tolerance, exact) == brute_force(
            left, right, keyed, direction, tolerance, exact
        ), (keyed, direction)


def test_sql_timestamps_and_the_plan(spark):
    """The SQL form over timestamps with an interval tolerance; the plan is one AsofJoin, no
    window function and no other join."""
    trades = spark.createDataFrame(
        [
            ("a", datetime.datetime(2024, 1, 1, 9, 0, 2), 1),
            ("a", datetime.datetime(2024, 1, 1, 9, 0, 9), 2),
            ("b", datetime.datetime(2024, 1, 1, 9, 0, 3), 3),
        ],
        "sym string, ts timestamp, qty int",
    )
    quotes = spark.createDataFrame(
        [
            ("a", datetime.datetime(2024, 1, 1, 9, 0, 1), 10.0),
            ("a", datetime.datetime(2024, 1, 1, 9, 0, 5), 11.0),
            ("b", datetime.datetime(2024, 1, 1, 9, 0, 4), 20.0),
        ],
        "sym string, qt timestamp, bid double",
    )
    trades.createOrReplaceTempView("asof_trades")
    quotes.createOrReplaceTempView("asof_quotes")
    query = (
        "SELECT sym, qty, bid, qt FROM asof_join(TABLE(asof_trades), TABLE(asof_quotes), "
        "'ts', 'qt', 'sym', 'backward', '3 seconds') ORDER BY qty"
    )
    rows = [tuple(r) for r in spark.sql(query).collect()]
    assert rows == [
        ("a", 1, 10.0, datetime.datetime(2024, 1, 1, 9, 0, 1)),
        ("a", 2, None, None),  # 9:00:05 is 4 seconds back
        ("b", 3, None, None),
    ]
    plan = spark.sql(query)._jdf.queryExecution().executedPlan().toString()
    assert "AsofJoin backward, keys (sym) = (sym), times ts and qt, tolerance 3000000" in plan
    assert "Window" not in plan and "SortMergeJoin" not in plan and "BroadcastHashJoin" not in plan
    nearest = ew.asof_join(
        trades,
        quotes,
        "sym",
        "ts",
        "qt",
        direction="nearest",
        tolerance=datetime.timedelta(seconds=1),
    )
    assert sorted((r.qty, r.bid) for r in nearest.collect()) == [(1, 10.0), (2, None), (3, 20.0)]


def test_collated_string_keys_are_one_key_as_the_collation_says(spark):
    """Keys of a STRING COLLATE UTF8_LCASE column: 'a' and 'A' are one key, as in Spark's own
    joins (which compare collation keys), though their bytes differ; pandas' answer over the key
    each name lowercases to, UTF8_LCASE's equality."""
    rng = random.Random(45)
    names = {0: ("a", "A"), 1: ("b", "B"), 2: ("é", "É")}
    number = {n: k for k, pair in names.items() for n in pair}
    left = random_rows(rng, 40, lambda r: r.randrange(30))
    right = random_rows(rng, 40, lambda r: r.randrange(30))

    def collated(rows, value):
        named = [(rng.choice(names[k]), t, v) for k, t, v in rows]
        return spark.createDataFrame(named, f"k string, t bigint, {value} int").selectExpr(
            "k COLLATE UTF8_LCASE AS k", "t", value
        )

    lt, rt = collated(left, "x"), collated(right, "y")
    for direction in DIRECTIONS:
        joined = ew.asof_join(lt, rt, "k", "t", "t", direction=direction)
        got = sorted(((number[r.k], r.t, r.x, r.y) for r in joined.collect()), key=repr)
        assert got == with_pandas(left, right, True, direction, None, True), direction


@pytest.mark.parametrize(
    "call, error, words",
    [
        (
            lambda l, r: ew.asof_join(l, r, "k", "t", "t", direction="closest"),
            ValueError,
            "`direction`",
        ),
        (
            lambda l, r: ew.asof_join(l, r, "nope", "t", "t"),
            ValueError,
            "`on` names no column of the left",
        ),
        (
            lambda l, r: ew.asof_join(l, r, "k", "t", "y"),
            ValueError,
            "`right_time` names no column",
        ),
        (lambda l, r: ew.asof_join(l, r, "k", "t", "t", tolerance=-1), ValueError, "`tolerance`"),
        (lambda l, r: ew.asof_join(l, r, "k", "t", "t", tolerance=1.5), TypeError, "`tolerance`"),
        (
            lambda l, r: ew.asof_join(l, r, "k", "t", "t", allow_exact_matches=1),
            TypeError,
            "`allow_exact_matches`",
        ),
        (lambda l, r: ew.asof_join(l, r, 3, "t", "t"), TypeError, "`on`"),
        (
            lambda l, r: ew.asof_join(l, r, "k", "t", "t", tolerance="2 seconds").collect(),
            Exception,
            "asof_join: `tolerance` must be an integer number of ticks for BIGINT time",
        ),
        (
            lambda l, r: ew.asof_join(l, r, "k", "t", "x").collect(),
            Exception,
            "asof_join: `right_time` must be TIMESTAMP, TIMESTAMP_NTZ or an integral type, got STRING",
        ),
        (
            lambda l, r: ew.asof_join(
                l, r.withColumn("k", r.k.cast("string")), "k", "t", "t"
            ).collect(),
            Exception,
            "asof_join: `on` key 'k' is INT in the left table and STRING in the right",
        ),
        (
            lambda l, r: ew.asof_join(
                l.withColumn("k", F.struct(F.col("x").cast("string collate utf8_lcase"))),
                r.withColumn("k", F.struct(F.col("x").cast("string collate utf8_lcase"))),
                "k",
                "t",
                "t",
            ).collect(),
            Exception,
            "asof_join: `on` key 'k' is STRUCT<",
        ),
        (lambda l, r: ew.to_signal(l, "t", tolerance="1 second"), TypeError, "`tolerance`"),
    ],
)
def test_bad_arguments(spark, call, error, words):
    left = spark.createDataFrame([(1, 1, "a")], "k int, t bigint, x string")
    right = spark.createDataFrame([(1, 1, "b")], "k int, t bigint, x string")
    with pytest.raises(error) as info:
        call(left, right)
    assert words in str(info.value)


def test_to_signal(spark):
    """Each point event lasts until the next one of its key, at most the tolerance; the last
    one of a key until the tolerance, or open-ended."""
    points = spark.createDataFrame(
        [("a", 1, 10), ("a", 4, 11), ("a", 20, 12), ("b", 2, 20)], "k string, t bigint, v int"
    )
    rows = lambda df: sorted((r.k, r.start, r.end) for r in df.collect())
    assert rows(ew.to_signal(points, "t", on="k")) == [
        ("a", 1, 4),
        ("a", 4, 20),
        ("a", 20, None),
        ("b", 2, None),
    ]
    assert rows(ew.to_signal(points, "t", on="k", tolerance=5)) == [
        ("a", 1, 4),
        ("a", 4, 9),
        ("a", 20, 25),
        ("b", 2, 7),
    ]
    assert rows(ew.to_signal(points, "t")) == [
        ("a", 1, 2),
        ("a", 4, 20),
        ("a", 20, None),
        ("b", 2, 4),
    ]


@(
    pytest.mark.smoke
    if SQL_ASOF_JOIN
    else pytest.mark.skip(reason="SQL's ASOF JOIN needs Spark 4.3")
)
def test_random_against_spark_sql_asof_join(spark):
    """On Spark 4.3, the same rows as its SQL ``LEFT ASOF JOIN ... MATCH_CONDITION(...)`` where
    both are defined: backward (``>=``, ``>``) and forward (``<=``, ``<``), no tolerance (4.3's
    condition is one comparison), with and without keys, right times distinct within a key (4.3
    leaves ties among right rows unordered), left rows with ties."""
    rng = random.Random(43)
    left = spark.createDataFrame(
        random_rows(rng, 80, lambda r: r.randrange(60)), "k int, t bigint, x int"
    ).repartition(3)
    left.createOrReplaceTempView("sql_asof_left")
    keyed_right = sorted({(rng.randrange(3), rng.randrange(60)) for _ in range(40)})
    keyless_right = sorted({t: k for k, t in keyed_right}.items())  # one right row per time
    spark.conf.set("spark.sql.join.asofJoin.enabled", "true")
    try:
        for keyed, rows in (
            (True, [(k, t, y) for y, (k, t) in enumerate(keyed_right)]),
            (False, [(k, t, y) for y, (t, k) in enumerate(keyless_right)]),
        ):
            right = spark.createDataFrame(rows, "k int, t bigint, y int").repartition(2)
            right.createOrReplaceTempView("sql_asof_right")
            for direction, exact, comparison in [
                ("backward", True, ">="),
                ("backward", False, ">"),
                ("forward", True, "<="),
                ("forward", False, "<"),
            ]:
                on = " ON l.k = r.k" if keyed else ""
                sql = spark.sql(
                    "SELECT l.k, l.t, l.x, r.y FROM sql_asof_left l LEFT ASOF JOIN "
                    f"sql_asof_right r MATCH_CONDITION(l.t {comparison} r.t){on}"
                )
                ours = ew.asof_join(
                    left,
                    right,
                    "k" if keyed else None,
                    "t",
                    "t",
                    direction=direction,
                    allow_exact_matches=exact,
                )
                # Without keys both k columns are kept: the left k, t, x and the right y.
                got = sorted(((r[0], r[1], r[2], r[-1]) for r in ours.collect()), key=repr)
                expected = sorted(map(tuple, sql.collect()), key=repr)
                assert len(expected) == 80 and got == expected, (keyed, direction, exact)
    finally:
        spark.conf.unset("spark.sql.join.asofJoin.enabled")
