"""The operator's memory is Spark's: window contents are reserved through the task memory manager
and stored compactly, so one key with 5,000,000 events active at once completes under a 1 GiB
driver; where memory truly runs out, the task fails with Spark's own out-of-memory error naming the
operator and the key, and the application carries on. The range join's sweep reserves its active
events the same way: a key with more of them than memory fails with the same error.

Each case runs in a child process with a driver of its own (``spark.driver.memory=1g``).
"""

import sys

from harness import child_result, child_session, configured, print_result

N = 5_000_000


def _child():
    import eventwindows as ew

    spark = child_session(
        lambda: configured(
            ew.builder().master("local[2]"),
            {
                "spark.driver.memory": "1g",
                "spark.sql.shuffle.partitions": "2",
            },
        ).getOrCreate()
    )
    spark.sparkContext.setLogLevel("OFF")
    result = {"max_heap": spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()}
    # Event t lasts [t, t + N): at t = N - 1 all N events are active. Snapshot intervals: [0, 1),
    # [1, 2), ..., [N - 1, N) while events enter, then [N, N + 1), ... while they leave: 2N - 1
    # intervals; [t, t + 1) holds the events from max(0, t - N + 1) to min(t, N - 1), so its
    # average is t / 2 and its sum (min + max)(max - min + 1) / 2. Checked for every interval,
    # and given for the first, the one holding every event and the last.
    ev = f"(SELECT 7 AS k, id FROM range({N})) AS ev GROUP BY k, snapshot_window(id, id + {N})"
    result["all_active"] = [
        list(r)
        for r in spark.sql(f"""
        SELECT count(*),
               count_if(mn = greatest(t - {N - 1}, 0) AND mx = least(t, {N - 1}) AND a * 2 = t
                        AND s = (mn + mx) * (mx - mn + 1) DIV 2),
               sort_array(collect_list(
                 CASE WHEN t IN (0, {N - 1}, {2 * N - 2}) THEN struct(t, a, s, mx, mn) END))
        FROM (SELECT window.start AS t, avg(id) AS a, sum(id) AS s, max(id) AS mx, min(id) AS mn
              FROM {ev})""").collect()
    ]
    # Buffers of 17 fields (over 130 bytes an event) for the same events cannot fit.
    try:
        spark.sql(
            f"SELECT window.start, avg(id), sum(id), max(id), min(id), stddev(id), "
            f"variance(id), corr(id, id) FROM {ev}"
        ).collect()
        result["out_of_memory"] = None
    except Exception as e:  # noqa: BLE001  (the error's class and text are what is checked)
        result["out_of_memory"] = str(e)
    # A range join whose key 7 has 120,000 events of 4 KB lasting to the end (about 490 MB): all
    # stay active for the right side's one event at the end, more than the pool of a 1 GiB driver.
    # (Written with `id DIV 1000000`, 0 here, so that the optimizer folds no side into constants.)
    spark.sql(
        "SELECT CAST(7 + id DIV 1000000 AS INT) AS k, id AS s, "
        "1000000 + id DIV 1000000 AS e, repeat(CAST(id % 10 AS STRING), 4000) AS p "
        "FROM range(120000)"
    ).createOrReplaceTempView("big")
    spark.sql(
        "SELECT CAST(7 + id DIV 1000000 AS INT) AS k, 999999 + id AS s, 1000000 + id AS e "
        "FROM range(1)"
    ).createOrReplaceTempView("last")
    try:
        spark.sql(
            "SELECT sum(length(a.p)) FROM big a JOIN last b ON a.k = b.k AND a.s < b.e "
            "AND b.s < a.e"
        ).collect()
        result["join_out_of_memory"] = None
    except Exception as e:  # noqa: BLE001
        result["join_out_of_memory"] = str(e)
    # The application lives on: the same session answers the next query.
    result["after"] = [
        list(r)
        for r in spark.sql(
            "SELECT window.start, count(*) FROM range(5) AS ev(t) "
            "GROUP BY snapshot_window(t, t + 2) ORDER BY 1"
        ).collect()
    ]
    print_result(result)
    spark.stop()


def test_five_million_active_events_under_a_one_gib_driver():
    result = child_result(__file__, "a 1 GiB driver")
    assert result["max_heap"] <= 1 << 30
    # 2N - 1 intervals, every one as worked out; the first, the one of every event, the last.
    assert result["all_active"] == [
        [
            2 * N - 1,
            2 * N - 1,
            [
                [0, 0.0, 0, 0, 0],
                [N - 1, (N - 1) / 2, N * (N - 1) // 2, N - 1, 0],
                [2 * N - 2, N - 1, N - 1, N - 1, N - 1],
            ],
        ]
    ]

    error = result["out_of_memory"]
    assert error is not None, "17 buffer fields over 5,000,000 active events fit in 1 GiB"
    assert "UNABLE_TO_ACQUIRE_MEMORY" in error, error
    assert "eventwindows: EventWindowAggregate snapshot_window holds" in error, error
    assert "the window contents of the key (k=7)" in error, error

    error = result["join_out_of_memory"]
    assert error is not None, "120,000 active events of 4 KB fit in 1 GiB"
    assert "UNABLE_TO_ACQUIRE_MEMORY" in error, error
    assert "eventwindows: RangeJoin Inner holds" in error, error
    assert "the active events of the key (" in error and "k=7)" in error, error

    # [0, 1): 1, [1, 2): 2, ..., [4, 5): 2, [5, 6): 1
    assert result["after"] == [[0, 1], [1, 2], [2, 2], [3, 2], [4, 2], [5, 1]]


if __name__ == "__main__":
    sys.exit(_child())
