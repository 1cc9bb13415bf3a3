"""Grouped-aggregate pandas UDFs over every window family (issue 32): each window's UDF sees the
values a built-in aggregate over the same window sees, in the order `collect_list` gives them,
alone or beside built-in aggregates, with several arguments, clipped lifetimes, from SQL, and
empty Series over a window without events (issue 43); on a stream they are an analysis error
that says what works instead. `applyInPandas` calls its function once per window that `agg`
gives a row, ties in time and windows without events included (issue 43).

The expected answers come from the built-in aggregates of the same windows (computed by the window
operator as every other test checks them) and from the brute-force references
`reference.clipped` (hopping windows with clipped lifetimes) and `reference.psi` (windows by
index and by relative time).
"""

import collections
import random
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pyarrow as pa
import pyspark
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf

import eventwindows as ew
from harness import BIGINT_MAX, BIGINT_MIN, ONE_TICK, random_interval_rows
from reference import clipped as ref
from reference import psi as ref_psi


def written(x):
    """A value as the UDFs write it."""
    return "None" if x is None or (isinstance(x, float) and pd.isna(x)) else str(int(x))


BATCH_AND_ARROW_AGGREGATES = tuple(int(p) for p in pyspark.__version__.split(".")[:2]) >= (4, 2)
"""Grouped-aggregate pandas UDFs over an iterator of batches, and Arrow UDFs (`arrow_udf`), are
Spark 4.2's: the lines before have neither."""


@pytest.fixture(scope="module")
def udfs(spark):
    """The UDFs of this suite: `values` writes the values it is given, in order; `mean` and
    `size` are pandas' own; `members` writes each (v, e, clipped lifetime) it is given. They are
    closures, pickled by value: Spark's Python workers cannot import this module."""

    def _text(x):
        return "None" if x is None or (isinstance(x, float) and pd.isna(x)) else str(int(x))

    @pandas_udf("string")
    def values(v: pd.Series) -> str:
        return ",".join(_text(x) for x in v)

    @pandas_udf("double")
    def mean(v: pd.Series) -> float:
        return float(v.mean())

    @pandas_udf("long")
    def size(v: pd.Series) -> int:
        return len(v)

    @pandas_udf("double")
    def weighted(v: pd.Series, w: pd.Series) -> float:
        return float((v * w).sum())

    @pandas_udf("string")
    def members(v: pd.Series, e: pd.Series, cs: pd.Series, ce: pd.Series) -> str:
        return ";".join(
            f"{_text(a)}|{_text(b)}|{int(c)}|{int(d)}" for a, b, c, d in zip(v, e, cs, ce)
        )

    @pandas_udf("double")
    def integral(v: pd.Series, cs: pd.Series, ce: pd.Series) -> float:
        return float((v * (ce - cs)).sum())

    spark.udf.register("values_of", values)
    found = {
        "values": values,
        "mean": mean,
        "size": size,
        "weighted": weighted,
        "members": members,
        "integral": integral,
    }
    if BATCH_AND_ARROW_AGGREGATES:
        from pyspark.sql.functions import arrow_udf

        @pandas_udf("long")
        def batches_size(batches: Iterator[pd.Series]) -> int:  # over an iterator of batches
            return sum(len(v) for v in batches)

        @pandas_udf("double")
        def batches_weighted(batches: Iterator[tuple[pd.Series, pd.Series]]) -> float:
            return float(sum((v * w).sum() for v, w in batches))

        @arrow_udf("long")
        def arrow_size(v: pa.Array) -> int:
            return len(v)

        found.update(
            batches_size=batches_size, batches_weighted=batches_weighted, arrow_size=arrow_size
        )
    return found


def _events(spark, rows):
    return spark.createDataFrame(rows, "k int, s bigint, e bigint, v int")


def built_in_values(*read):
    """Each window's values v as the built-in collect_list sees them (NULLs kept, same order),
    when the aggregates read the columns `read` (which order ties)."""
    return F.array_join(
        F.transform(
            F.collect_list(F.struct(*(read or ["v"]))),
            lambda x: F.coalesce(x.v.cast("string"), F.lit("None")),
        ),
        ",",
    )


FAMILIES = [
    ("hopping", lambda: ew.hopping_window("s", 4, 2, end="e")),
    ("hopping-point", lambda: ew.hopping_window("s", 4, 2, output="point", end="e")),
    ("hopping-changes", lambda: ew.hopping_window("s", 4, 2, output="changes", end="e")),
    ("tumbling", lambda: ew.tumbling_window("s", 3, end="e")),
    ("tumbling-points", lambda: ew.tumbling_window("s", 3)),
    ("snapshot", lambda: ew.snapshot_window("s", end="e")),
    ("count", lambda: ew.count_window("s", 2, end="e")),
    ("index", lambda: ew.index_window("s", -2, 0)),
    ("index-running", lambda: ew.index_window("s", None, 0)),
    ("time", lambda: ew.time_window("s", -3, 1)),
    ("time-before", lambda: ew.time_window("s", -6, -1)),  # windows without events among them
    ("sliding", lambda: ew.sliding_window("s", ew.spl.count(3), ew.spl.count(1))),
    ("spl-tumbling", lambda: ew.spl_tumbling_window("s", ew.spl.count(2), True)),
    ("sessions", lambda: ew.event_session_window("s", 2, end="e")),
    ("sessions-pieces", lambda: ew.event_session_window("s", 2, max_duration=3, end="e")),
    ("sessions-changes", lambda: ew.event_session_window("s", 2, output="changes", end="e")),
    ("cumulate", lambda: ew.cumulate_window("s", 2, 6, end="e")),
    ("cumulate-changes", lambda: ew.cumulate_window("s", 2, 6, output="changes", end="e")),
    # Ticks as hours: local days in New York, across its change to daylight saving time.
    (
        "calendar",
        lambda: ew.hopping_window(
            F.timestamp_seconds(F.col("s") * 3600 + 1710046800 - 36000),
            "2 days",
            "1 day",
            end=F.timestamp_seconds(F.col("e") * 3600 + 1710046800 - 36000),
            time_zone="America/New_York",
        ),
    ),
]


@pytest.mark.parametrize("window", [w for _, w in FAMILIES], ids=[n for n, _ in FAMILIES])
def test_every_family_gives_the_udf_the_values_of_its_window(spark, udfs, window):
    rng = random.Random(32)
    rows = [
        (k, s, e, v)
        for _, k, s, e, v in random_interval_rows(
            rng, 6, [(0.2, ONE_TICK), (0.8, (1, 6))], times=((0, 20),), null_starts=0
        )
    ]
    events = _events(spark, rows).withColumn("k", F.coalesce("k", F.lit(-1)))
    result = (
        events.groupBy("k", window())
        .agg(
            udfs["values"]("v").alias("udf"),
            built_in_values().alias("built_in"),
            udfs["mean"]("v").alias("mean"),
            F.avg("v").alias("avg"),
            udfs["size"]("v").alias("size"),
            F.count("*").alias("count"),
        )
        .collect()
    )
    built_in_only = events.groupBy("k", window()).agg(F.count("*")).count()
    assert len(result) == built_in_only > 0
    for row in result:  # Over a window without events too: the UDFs get empty Series.
        assert row["udf"] == row["built_in"], row
        assert row["size"] == row["count"], row
        if row["avg"] is None:
            assert row["mean"] is None or pd.isna(row["mean"]), row
        else:
            assert row["mean"] == pytest.approx(row["avg"]), row


def test_dynamic_windows_give_the_udf_each_anchors_messages(spark, udfs):
    messages = spark.createDataFrame([(1, t, t * 10) for t in range(10)], "k int, t bigint, v int")
    anchors = spark.createDataFrame(
        [(1, 2, 4), (1, 0, 0), (1, 20, 30), (1, 5, 9)], "k int, a bigint, b bigint"
    )
    rows = (
        ew.dynamic_window(anchors, messages, "t", "a", "b", on="k")
        .agg(udfs["values"]("v").alias("udf"), F.count("*").alias("n"))
        .select("window.start", "window.end", "udf", "n")
        .orderBy("start")
        .collect()
    )
    assert [tuple(r) for r in rows] == [
        (0, 0, "0", 1),
        (2, 4, "20,30,40", 3),
        (5, 9, "50,60,70,80,90", 5),
        (20, 30, "", 0),
    ]


# The UDFs over a window's messages (v, with w = 2 beside them) as the reference's count and values
# give them: one query per kind, as Spark takes UDFs of one kind in an aggregation.
KINDS = {
    "pandas": (
        -6,
        -1,
        "[]",
        {"size": ("size", "v"), "weighted": ("weighted", "v", "w"), "values": ("values", "v")},
    ),
    **(
        {
            "batches": (-3, -1, "()", {"size": ("batches_size", "v")}),  # one such UDF a query
            "batches-pairs": (-6, -1, "[]", {"weighted": ("batches_weighted", "v", "w")}),
            "arrow": (-6, -1, "[]", {"size": ("arrow_size", "v")}),
        }
        if BATCH_AND_ARROW_AGGREGATES
        else {}
    ),
}


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_window_without_events_gives_the_udfs_empty_series(spark, udfs, kind):
    # Messages with ties, some at both ends of the time line, whose windows before them (or
    # around them, ends open) are often empty; as the reference computes them.
    rng = random.Random(4301)
    rows = []
    for k in (0, 1):
        for base in (-10, BIGINT_MIN, BIGINT_MAX - 12):
            for _ in range(8):
                rows.append((k, base + rng.randint(0, 12), rng.choice([None, rng.randint(-9, 9)])))
    messages = spark.createDataFrame(rows, "k int, s bigint, v int").withColumn("w", F.lit(2))
    lo, hi, bounds, calls = KINDS[kind]
    result = (
        messages.groupBy("k", ew.time_window("s", lo, hi, bounds))
        .agg(
            F.count("*").alias("count"),
            *(udfs[udf](*columns).alias(name) for name, (udf, *columns) in calls.items()),
        )
        .collect()
    )

    def written(text):
        return tuple(int(v) for v in text.split(",") if text and v != "None")

    actual = collections.Counter(
        (
            r.k,
            r.window.start,
            r["count"],
            r.size if "size" in calls else None,
            r.weighted if "weighted" in calls else None,
            written(r["values"]) if "values" in calls else None,
        )
        for r in result
    )
    expected = collections.Counter(
        (
            k,
            t,
            n,
            n if "size" in calls else None,
            2.0 * sum(values) if "weighted" in calls else None,
            values if "values" in calls else None,
        )
        for k, t, _, n, _, _, _, values in ref_psi.time_window(rows, lo, hi, bounds)
    )
    assert actual == expected
    assert any(n == 0 for _, _, n, *_ in expected)


@pytest.mark.smoke
def test_clipped_lifetimes_reach_the_udf_as_the_reference_clips_them(spark, udfs):
    rng = random.Random(3202)
    rows = [
        (k, s, e, v)
        for _, k, s, e, v in random_interval_rows(
            rng, 8, [(0.2, ONE_TICK), (0.8, (1, 9))], times=((-15, 15),), null_starts=0
        )
    ]
    events = _events(spark, rows)
    result = (
        events.groupBy("k", ew.hopping_window("s", 5, 3, 1, end="e"))
        .agg(
            udfs["members"]("v", "e", ew.clipped_start(), ew.clipped_end()).alias("members"),
            udfs["integral"]("v", ew.clipped_start(), ew.clipped_end()).alias("integral"),
            ew.time_weighted_sum("v").alias("tws"),
        )
        .collect()
    )
    actual = {(r.k, r.window.start, r.window.end): r.members for r in result}

    def tie_order(m):  # by start, then by the columns read (e, v), NULLs first
        e, v = m.event.end, m.event.values[0]
        return (m.event.start, e is not None, e or 0, v is not None, v or 0)

    expected = {
        (w.key, w.start, w.end): ";".join(
            f"{written(m.event.values[0])}|{written(m.event.end)}|{m.start}|{m.end}"
            for m in sorted(w.members, key=tie_order)
        )
        for w in ref.hopping_window(rows, 5, 3, 1)
    }
    assert actual == expected
    for r in result:
        if r.tws is not None:
            assert r.integral == pytest.approx(r.tws), r


@pytest.mark.smoke
def test_sql_calls_a_registered_udf(spark, udfs):
    _events(spark, [(1, 0, 3, 5), (1, 1, 2, None), (2, 4, 5, 7)]).createOrReplaceTempView(
        "pandas_udf_events"
    )
    rows = spark.sql("""
        SELECT k, window.start, values_of(v) AS vs, count(*) AS n FROM pandas_udf_events
        GROUP BY k, snapshot_window(s, e) ORDER BY k, start""").collect()
    assert [tuple(r) for r in rows] == [
        (1, 0, "5", 1),
        (1, 1, "5,None", 2),
        (1, 2, "5", 1),
        (2, 4, "7", 1),
    ]


def test_a_stream_is_an_analysis_error_saying_what_works(spark, udfs, tmp_path):
    stream = (
        spark.readStream.schema("k int, ts timestamp, v int")
        .json(str(tmp_path))
        .withWatermark("ts", "1 second")
    )
    with pytest.raises(AnalysisException) as info:
        stream.groupBy("k", ew.tumbling_window("ts", "2 seconds")).agg(udfs["mean"]("v"))
    message = str(info.value)
    assert "tumbling_window" in message and "streaming" in message and "mean" in message
    assert "collect_list" in message and "INTERNAL_ERROR" not in message


def test_what_cannot_be_mixed_is_named(spark, udfs):
    events = _events(spark, [(1, 0, 3, 5)])
    events.createOrReplaceTempView("pandas_filter_events")
    with pytest.raises(AnalysisException, match="does not support FILTER"):  # Spark's own
        spark.sql(
            "SELECT values_of(v) FILTER (WHERE v > 0) FROM pandas_filter_events "
            "GROUP BY tumbling_window(s, e, 2)"
        ).schema
    with pytest.raises(AnalysisException, match="in an aggregation of its own"):
        events.groupBy(ew.tumbling_window("s", 2, end="e")).agg(
            udfs["mean"]("v"), F.collect_list(F.create_map("k", "v"))
        ).schema


# ----------------------------------------------------------------------------------------------
# applyInPandas: one call per window with its events


@pytest.mark.smoke
def test_apply_in_pandas_calls_the_function_once_per_window(spark):
    rng = random.Random(3203)
    # Distinct times per key: no two windows of a key share a `window` value.
    rows = []
    for k in (1, 2):
        for s in rng.sample(range(0, 30), 12):
            rows.append((k, s, s + rng.randint(1, 5), rng.choice([None, rng.randint(-9, 9)])))
    events = _events(spark, rows)

    def per_window(key, pdf):
        k, window = key
        values = ",".join("None" if pd.isna(v) else str(int(v)) for v in pdf["v"])
        return pd.DataFrame(
            {
                "k": [k],
                "start": [window["start"]],
                "end": [window["end"]],
                "n": [len(pdf)],
                "columns": [",".join(pdf.columns)],
                "values": [values],
            }
        )

    schema = "k int, start long, end long, n long, columns string, values string"
    for window in [
        lambda: ew.hopping_window("s", 4, 2, end="e"),
        lambda: ew.count_window("s", 3, end="e"),
        lambda: ew.index_window("s", -2, 0),
        lambda: ew.event_session_window("s", 1, end="e"),
        lambda: ew.hopping_window("s", 4, 2, output="changes", end="e"),
        lambda: ew.cumulate_window("s", 2, 6, end="e"),
    ]:
        applied = events.groupBy("k", window()).applyInPandas(per_window, schema).collect()
        expected = (
            events.groupBy("k", window())
            .agg(F.count("*").alias("n"), built_in_values("k", "s", "e", "v").alias("values"))
            .select("k", "window.start", "window.end", "n", "values")
            .collect()
        )
        assert sorted((r.k, r.start, r.end, r.n, r.values) for r in applied) == sorted(
            tuple(r) for r in expected if r.n > 0
        )
        assert {r.columns for r in applied} == {"k,s,e,v"}


def test_apply_in_pandas_with_clipped_lifetimes(spark):
    events = _events(spark, [(1, 0, 5, 10), (1, 3, 9, 20)])

    def lengths(key, pdf):
        window = key[1]
        return pd.DataFrame(
            {
                "start": [window["start"]],
                "weighted": [float((pdf["v"] * (pdf["clipped_end"] - pdf["clipped_start"])).sum())],
            }
        )

    spark.conf.set("spark.eventwindows.applyInPandas.clippedLifetimes", "true")
    try:
        rows = (
            events.groupBy("k", ew.tumbling_window("s", 4, end="e"))
            .applyInPandas(lengths, "start long, weighted double")
            .orderBy("start")
            .collect()
        )
        # [0, 4): 10 * 4 + 20 * 1; [4, 8): 10 * 1 + 20 * 4; [8, 12): 20 * 1.
        assert [tuple(r) for r in rows] == [(0, 60.0), (4, 90.0), (8, 20.0)]
        with pytest.raises(AnalysisException, match="clipped"):
            events.groupBy("k", ew.index_window("s", -1, 0)).applyInPandas(
                lengths, "start long, weighted double"
            ).schema
    finally:
        spark.conf.unset("spark.eventwindows.applyInPandas.clippedLifetimes")


def test_a_window_function_in_a_select_is_an_error(spark):
    events = _events(spark, [(1, 0, 5, 10)])
    with pytest.raises(AnalysisException, match="must be used as a GROUP BY expression"):
        events.select(ew.tumbling_window("s", 4, end="e")).collect()
    with pytest.raises(AnalysisException, match="must be used as a GROUP BY expression"):
        events.select("k", ew.tumbling_window("s", 4, end="e").alias("w")).filter(
            "w.start > 0"
        ).collect()


def test_apply_in_pandas_with_the_events_alone_and_on_a_stream(spark, tmp_path):
    events = _events(spark, [(1, 0, 5, 10), (1, 3, 9, 20), (2, 1, 2, 30)])

    def total(pdf):  # func(pdf): no key
        return pd.DataFrame({"total": [int(pdf["v"].sum())]})

    rows = events.groupBy("k", ew.snapshot_window("s", end="e")).applyInPandas(total, "total long")
    # k 1: [0, 3) 10, [3, 5) 30, [5, 9) 20; k 2: [1, 2) 30.
    assert sorted(r.total for r in rows.collect()) == [10, 20, 30, 30]
    stream = (
        spark.readStream.schema("k int, ts timestamp, v int")
        .json(str(tmp_path))
        .withWatermark("ts", "1 second")
    )
    with pytest.raises(
        AnalysisException,
        match="applyInPandas over event windows is not supported on streaming DataFrames",
    ):
        stream.groupBy("k", ew.tumbling_window("ts", "2 seconds")).applyInPandas(
            total, "total long"
        )


def _window_text(window):
    """A window's fields as text (the functions run in workers write it themselves: Spark's
    workers cannot import this module)."""
    return ",".join(str(x) for x in window)


TIED_FAMILIES = [
    ("index", lambda: ew.index_window("s", -1, 0)),
    ("index-ahead", lambda: ew.index_window("s", 0, 2)),
    ("time", lambda: ew.time_window("s", -2, 0)),
    ("time-before", lambda: ew.time_window("s", -6, -1)),  # windows without events among them
    ("sliding", lambda: ew.sliding_window("s", ew.spl.count(3), ew.spl.count(1))),
    ("spl-tumbling", lambda: ew.spl_tumbling_window("s", ew.spl.count(2), True)),
]


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("window", [w for _, w in TIED_FAMILIES], ids=[n for n, _ in TIED_FAMILIES])
def test_apply_in_pandas_calls_the_function_once_per_window_of_agg(spark, window):
    # Times of whole seconds, many messages on each: windows with equal `window` values.
    rng = random.Random(4302)
    rows = [
        (rng.choice([0, 1, None]), rng.randint(0, 8), rng.choice([None, rng.randint(-9, 9)]))
        for _ in range(40)
    ]
    events = spark.createDataFrame(rows, "k int, s bigint, v int")

    def per_window(key, pdf):
        k, window = key
        values = ",".join("None" if pd.isna(v) else str(int(v)) for v in pdf["v"])
        text = ",".join(str(x) for x in window.values())  # a struct in a key: a dict
        return pd.DataFrame(
            {
                "k": [k],
                "window": [text],
                "n": [len(pdf)],
                "columns": [",".join(pdf.columns)],
                "values": [values],
            }
        )

    applied = (
        events.groupBy("k", window())
        .applyInPandas(per_window, "k int, window string, n long, columns string, values string")
        .collect()
    )
    expected = (
        events.groupBy("k", window())
        .agg(F.count("*").alias("n"), built_in_values("k", "s", "v").alias("values"))
        .collect()
    )
    assert collections.Counter(
        (r.k, r.window, r.n, r["values"]) for r in applied
    ) == collections.Counter((r.k, _window_text(r.window), r.n, r["values"]) for r in expected)
    assert {r.columns for r in applied} == {"k,s,v"}
    windows = collections.Counter((r.k, _window_text(r.window)) for r in expected)
    assert max(windows.values()) > 1  # windows that tie, each a call of its own


def test_apply_in_pandas_over_ties_as_the_reference_counts(spark):
    # Two messages at time 2 and three at 7, by index: every window of two messages gives a call,
    # the last two at 7 both with the window (7, 8, 7, 7), as reference.psi enumerates them.
    rows = [(1, 1, 1), (1, 2, 2), (1, 2, 3), (1, 5, 4), (1, 5, 5), (1, 7, 6), (1, 7, 7), (1, 7, 8)]
    events = spark.createDataFrame(rows, "k int, s bigint, v int")

    def size(key, pdf):
        return pd.DataFrame(
            {
                "window": [",".join(str(x) for x in key[1].values())],
                "n": [len(pdf)],
                "total": [int(pdf["v"].sum())],
            }
        )

    applied = (
        events.groupBy("k", ew.index_window("s", -1, 0))
        .applyInPandas(size, "window string, n long, total long")
        .collect()
    )
    expected = [
        (_window_text((t, end, first, last)), n, total)
        for _, t, end, first, last, n, total, *_ in ref_psi.index_window(rows, -1, 0)
    ]
    assert len(expected) == 7
    assert collections.Counter(tuple(r) for r in applied) == collections.Counter(expected)


def test_apply_in_pandas_over_batches_and_a_large_function(spark):
    # A function over an iterator of DataFrames, and a UDF whose pickled command is over Spark's
    # broadcast threshold (1 MiB: PySpark sends it as a broadcast), over windows that tie and
    # windows without events; agg's count(*) per window, from the window operator, is the answer.
    events = spark.createDataFrame(
        [(1, t, t) for t in (0, 0, 3, 3, 3, 9, 9, 20)], "k int, s bigint, v int"
    )
    grouped = events.groupBy("k", ew.time_window("s", -4, -1))
    expected = collections.Counter(
        (r.window.start, r.n) for r in grouped.agg(F.count("*").alias("n")).collect()
    )
    assert expected[(9, 0)] == 2 and expected[(3, 2)] == 3

    def per_window(key: tuple[Any, ...], batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        n = sum(len(batch) for batch in batches)
        yield pd.DataFrame({"start": [key[1]["start"]], "n": [n]})

    applied = grouped.applyInPandas(per_window, "start long, n long").collect()
    assert collections.Counter((r.start, r.n) for r in applied) == expected

    padding = "x" * (2 << 20)

    @pandas_udf("long")
    def large_size(v: pd.Series) -> int:
        return len(v) + len(padding) - (2 << 20)

    sizes = grouped.agg(large_size("v").alias("n")).collect()
    assert collections.Counter((r.window.start, r.n) for r in sizes) == expected


def test_apply_in_pandas_over_anchor_windows(spark):
    # anchor_window over the union dynamic_window builds: two equal anchors are a call each, an
    # anchor without messages a call with no rows (hand-worked, as the dynamic test above).
    messages = spark.createDataFrame([(1, t, t * 10) for t in range(10)], "k int, t bigint, v int")
    anchors = spark.createDataFrame(
        [(1, 2, 4), (1, 0, 0), (1, 20, 30), (1, 5, 9), (1, 5, 9)], "k int, a bigint, b bigint"
    )
    union = messages.unionByName(
        anchors.select(
            "k", F.struct("a", "b").alias("anchor"), F.col("a").alias("s"), F.col("b").alias("e")
        ),
        allowMissingColumns=True,
    )

    def per_anchor(key, pdf):
        return pd.DataFrame(
            {
                "start": [key[1]["start"]],
                "n": [len(pdf)],
                "values": [",".join(str(int(v)) for v in pdf["v"])],
            }
        )

    rows = (
        union.groupBy(
            "k",
            F.call_function("anchor_window", F.col("t"), F.col("s"), F.col("e"), F.col("anchor")),
        )
        .applyInPandas(per_anchor, "start long, n long, values string")
        .collect()
    )
    assert sorted(tuple(r) for r in rows) == [
        (0, 1, "0"),
        (2, 3, "20,30,40"),
        (5, 5, "50,60,70,80,90"),
        (5, 5, "50,60,70,80,90"),
        (20, 0, ""),
    ]
