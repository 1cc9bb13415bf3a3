"""Windowed queries on ``local-cluster[2,1,1024]`` (two executor JVMs) agree with local mode.

A second SparkContext cannot live in the pytest process beside the ``spark`` fixture, so the
cluster half runs in a child process (this file run as a script) that prints one
``RESULT <json>`` line. The jar reaches the executors through ``spark.jars`` (set by
``eventwindows.builder()``): the window operator runs there, so a missing jar fails the query.
The same queries then run on the fixture's local[2] session and the answers must be equal. The
cluster forces its sorters to spill every 100 rows, so the operator's sort is also checked when it
merges spilled runs.

Local-cluster mode starts its executors from SPARK_HOME; pip-installed PySpark points it at the
package directory, which holds the launch scripts and jars.
"""

import json

import pytest

from harness import child_result, child_session, configured, print_result

MASTER = "local-cluster[2,1,1024]"
ROWS = 2000
KEYS = 10


def events(spark):
    """2000 events over 10 keys, round-robin over 7 partitions so every key is in every partition.

    s = (id * 7919) mod 5000 spreads the starts; e = s + 1 + id mod 97 gives lifetimes of 1 to 97.
    """
    from pyspark.sql import functions as F

    return (
        spark.range(ROWS)
        .select(
            (F.col("id") % KEYS).alias("k"),
            (F.col("id") * 7919 % 5000).alias("s"),
            (F.col("id") * 7919 % 5000 + 1 + F.col("id") % 97).alias("e"),
            F.col("id").alias("v"),
        )
        .repartition(7)
    )


def streamed(spark, build):
    """build(stream) over the events as a stream of 5 Parquet files in time order (1000 s each,
    one per micro-batch, watermark 30 s, so no row is late), in append mode: its rows."""
    import tempfile
    import uuid

    from pyspark.sql import functions as F

    source = tempfile.mkdtemp(prefix="eventwindows-stream-")
    timed = events(spark).select(
        "k", F.timestamp_seconds("s").alias("ts"), F.timestamp_seconds("e").alias("te"), "v"
    )
    for i in range(5):
        timed.filter(F.floor(F.unix_seconds("ts") / 1000) == i).coalesce(1).write.mode(
            "append"
        ).parquet(source)
    name = f"ew_stream_{uuid.uuid4().hex}"
    stream = spark.readStream.schema(timed.schema).option("maxFilesPerTrigger", 1).parquet(source)
    query = (
        build(stream.withWatermark("ts", "30 seconds"))
        .writeStream.format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", tempfile.mkdtemp(prefix="eventwindows-checkpoint-"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    return spark.table(name).withColumn(
        "window",
        F.struct(
            F.unix_micros("window.start").alias("start"), F.unix_micros("window.end").alias("end")
        ),
    )


def queries(spark):
    """The windowed queries, each as rows of plain values (JSON-able, sorted)."""
    from pyspark.sql import functions as F

    import eventwindows as ew

    df = events(spark)
    # 300 anchors over the keys, intervals of 0 to 169 around scattered times.
    anchors = (
        spark.range(300)
        .select(
            (F.col("id") % KEYS).alias("k"),
            F.col("id").alias("aid"),
            (F.col("id") * 4099 % 5000).alias("t"),
        )
        .repartition(3)
    )
    aggs = [F.count("*").alias("n"), F.sum("v"), F.min("v"), F.max("v")]

    def broadcast_join(joined):
        plan = joined._jdf.queryExecution().executedPlan().toString()
        assert "RangeJoin Inner, no keys" in plan and "broadcast right" in plan, plan
        return joined

    def rows(result, *columns):
        return sorted(
            list(r)
            for r in result.select(
                "k", F.col("window.start"), F.col("window.end"), *columns
            ).collect()
        )

    return {
        "hopping": rows(
            df.groupBy("k", ew.hopping_window("s", 100, 40, end="e")).agg(*aggs),
            "n",
            "sum(v)",
            "min(v)",
            "max(v)",
        ),
        "points": rows(df.groupBy("k", ew.hopping_window("s", 100, 50)).agg(aggs[0]), "n"),
        "changes": rows(
            df.groupBy(
                "k", ew.hopping_window("s", 100, 40, alignment=7, output="changes", end="e")
            ).agg(*aggs[:2]),
            "n",
            "sum(v)",
        ),
        "snapshot": rows(
            df.groupBy("k", ew.snapshot_window("s", end="e")).agg(*aggs[:2]), "n", "sum(v)"
        ),
        "count": rows(
            df.groupBy("k", ew.count_window("s", 5, end="e")).agg(*aggs),
            "window.first",
            "window.last",
            "n",
            "sum(v)",
            "min(v)",
            "max(v)",
        ),
        "index": rows(
            df.groupBy("k", ew.index_window("s", -3, 1)).agg(
                aggs[0], aggs[1], F.collect_list("v").alias("vs")
            ),
            "window.first",
            "window.last",
            "n",
            "sum(v)",
            "vs",
        ),
        "running": rows(
            df.groupBy("k", ew.index_window("s", None, 0)).agg(*aggs[:2]), "n", "sum(v)"
        ),
        "time": rows(
            df.groupBy("k", ew.time_window("s", -150, 20, bounds="[)")).agg(
                aggs[0], aggs[1], F.collect_list("v").alias("vs")
            ),
            "n",
            "sum(v)",
            "vs",
        ),
        "sliding": rows(
            df.groupBy("k", ew.sliding_window("s", ew.spl.count(7), ew.spl.time(40))).agg(
                aggs[0], aggs[1], F.collect_list("v").alias("vs")
            ),
            "window.first",
            "window.last",
            "n",
            "sum(v)",
            "vs",
        ),
        "sliding_delta": rows(
            df.groupBy(
                "k", ew.sliding_window("s", ew.spl.delta("v", 300), ew.spl.delta("s", 100))
            ).agg(*aggs[:2]),
            "n",
            "sum(v)",
        ),
        "dynamic": rows(
            ew.dynamic_window(
                anchors,
                df.select("k", "s", "v"),
                "s",
                "t - aid % 50",
                "t + 20 * (aid % 7)",
                on="k",
                bounds="[)",
            ).agg(
                F.count("*").alias("n"),
                F.sum("v"),
                F.min("v"),
                F.max("v"),
                F.collect_list("v").alias("vs"),
            ),
            "n",
            "sum(v)",
            "min(v)",
            "max(v)",
            "vs",
        ),
        # Order-insensitive aggregates only: the messages are folded into slices between the
        # anchors' interval ends, which are broadcast to the executors.
        "dynamic_sliced": rows(
            ew.dynamic_window(
                anchors,
                df.select("k", "s", "v"),
                "s",
                "t - aid % 50",
                "t + 20 * (aid % 7)",
                on="k",
                bounds="(]",
            ).agg(F.count("*").alias("n"), F.sum("v"), F.avg("v")),
            "n",
            "sum(v)",
            "avg(v)",
        ),
        # The ASOF join's merge in the executors: each anchor with the nearest event of its key.
        "asof": sorted(
            list(r)
            for r in ew.asof_join(
                anchors, df.select("k", "s", "v"), "k", "t", "s", direction="nearest", tolerance=30
            )
            .select("k", "aid", "t", "s", "v")
            .collect()
        ),
        # Range joins in the executors: an overlap join of the events with themselves by key
        # (both sides shuffled) and, without keys, the events' starts in the anchors' intervals
        # [t - 20, t + 20), the anchors broadcast (sorted once) to the events' tasks.
        "range_keyed": sorted(
            list(r)
            for r in df.alias("a")
            .join(
                df.alias("b"),
                (F.col("a.k") == F.col("b.k"))
                & (F.col("a.s") < F.col("b.e"))
                & (F.col("b.s") < F.col("a.e")),
            )
            .select("a.k", "a.v", "b.v")
            .collect()
        ),
        "range_broadcast": sorted(
            list(r)
            for r in broadcast_join(
                df.join(
                    anchors.select("aid", "t"),
                    (F.col("t") - 20 <= F.col("s")) & (F.col("s") < F.col("t") + 20),
                )
            )
            .select("k", "v", "aid")
            .collect()
        ),
        "tumbling_timestamps": rows(
            df.select("k", F.timestamp_seconds("s").alias("t"))
            .groupBy("k", ew.tumbling_window("t", "1 minute"))
            .count()
            .withColumn(
                "window",
                F.struct(
                    F.col("window.start").cast("string").alias("start"),
                    F.col("window.end").cast("string").alias("end"),
                ),
            ),
            "count",
        ),
        # On streams: Spark's streaming aggregation, and transformWithState in the executors
        # (state in RocksDB, the processor and its sweep serialized to them).
        "stream_hopping": rows(
            streamed(
                spark,
                lambda st: st.groupBy(
                    "k", ew.hopping_window("ts", "100 seconds", "40 seconds", end="te")
                ).agg(*aggs),
            ),
            "n",
            "sum(v)",
            "min(v)",
            "max(v)",
        ),
        "stream_snapshot": rows(
            streamed(
                spark, lambda st: st.groupBy("k", ew.snapshot_window("ts", end="te")).agg(*aggs[:2])
            ),
            "n",
            "sum(v)",
        ),
        "stream_index": rows(
            streamed(
                spark,
                lambda st: st.groupBy("k", ew.index_window("ts", -3, 1)).agg(
                    aggs[0], F.collect_list("v").alias("vs")
                ),
            ),
            "n",
            "vs",
        ),
        "stream_sliding": rows(
            streamed(
                spark,
                lambda st: st.groupBy(
                    "k", ew.sliding_window("ts", ew.spl.count(7), ew.spl.time(40))
                ).agg(aggs[0], F.collect_list("v").alias("vs")),
            ),
            "n",
            "vs",
        ),
    }


def _child():
    import eventwindows as ew

    def start():
        session = configured(
            ew.builder().master(MASTER).appName("eventwindows-local-cluster"),
            {
                "spark.executor.memory": "512m",
                # Sorters spill every 100 rows: the operator's sort (KeyTimeSorter, on Spark's
                # UnsafeExternalRowSorter) merges spilled runs in the executors, local mode does not.
                "spark.shuffle.spill.numElementsForceSpillThreshold": "100",
            },
        ).getOrCreate()
        session.range(4).repartition(4).collect()  # waits for executors
        return session

    spark = child_session(start)
    spark.sparkContext.setLogLevel("ERROR")
    # The ids of the executors (not the driver) registered with the driver.
    executors = spark.sparkContext._jsc.sc().getExecutorIds().mkString(",").split(",")
    result = {
        "master": spark.sparkContext.master,
        "executors": sorted(executors),
        "queries": queries(spark),
    }
    print_result(result)
    spark.stop()


@pytest.fixture(scope="module")
def cluster_result():
    return child_result(__file__, MASTER)


def test_ran_on_two_executor_jvms(cluster_result):
    assert cluster_result["master"] == MASTER
    assert cluster_result["executors"] == ["0", "1"]


def test_cluster_agrees_with_local_mode(spark, cluster_result):
    local = json.loads(json.dumps(queries(spark)))  # the same JSON shape as the child's answer
    assert set(cluster_result["queries"]) == set(local)
    for name, rows in local.items():
        assert rows, name
        assert cluster_result["queries"][name] == rows, name


def test_answers_hold_hand_checkable_invariants(cluster_result):
    answers = cluster_result["queries"]
    # Every key has events: rows of all 10 keys in every query.
    for name, rows in answers.items():
        assert {r[0] for r in rows} == set(range(KEYS)), name
    # size 100, hop 50: every point event lies in exactly 2 windows.
    assert sum(r[3] for r in answers["points"]) == 2 * ROWS
    # Tumbling windows hold every point event once; s < 5000 s covers 84 one-minute windows at
    # most, and the 200 events of a key (s = 7919 id mod 5000, id = k mod 10) count 200 in total.
    per_key = {}
    for k, _, _, n in answers["tumbling_timestamps"]:
        per_key[k] = per_key.get(k, 0) + n
    assert per_key == {k: ROWS // KEYS for k in range(KEYS)}
    # s = 7919 id mod 5000 is one-to-one on the 2000 ids (7919 is prime to 5000), so each key has
    # 200 distinct starts: count_window(5) gives 200 - 4 windows per key, index_window(-3, 1)
    # 200 - 4 full windows (anchors 3..198), the running window and time_window a row per event.
    for name, expected in [("count", 196), ("index", 196), ("running", 200), ("time", 200)]:
        per_key = {}
        for r in answers[name]:
            per_key[r[0]] = per_key.get(r[0], 0) + 1
        assert per_key == {k: expected for k in range(KEYS)}, name
    assert all(r[5] == 5 for r in answers["index"])  # 5 messages in every index window
    assert {r[0]: r[3] for r in answers["running"] if r[3] == ROWS // KEYS} == {
        k: ROWS // KEYS for k in range(KEYS)
    }  # the last running window holds the whole key
    # The ASOF join: every anchor once, its match (if any) of its key within 30.
    assert sorted(r[1] for r in answers["asof"]) == list(range(300))
    assert all(r[3] is None or abs(r[3] - r[2]) <= 30 for r in answers["asof"])
    # The range joins: each pair's keys equal; every event with a lifetime meets itself.
    assert all(r[0] % KEYS == r[1] % KEYS == r[2] % KEYS for r in answers["range_keyed"])
    assert {r[1] for r in answers["range_keyed"] if r[1] == r[2]} == set(range(ROWS))
    assert len(answers["range_broadcast"]) > ROWS
    # Hopping windows [40j, 40j + 100) each hold a key's events; the row's sum of v is the sum
    # of distinct ids of that key, so it is congruent to n * k modulo 10.
    for k, _, _, n, total, low, high in answers["hopping"]:
        assert total % KEYS == (n * k) % KEYS and low % KEYS == k and high % KEYS == k


if __name__ == "__main__":
    _child()
