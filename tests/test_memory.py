"""The operator's memory is Spark's: window contents are reserved through the task memory manager
and stored compactly, so one key with 5,000,000 events active at once completes under a 1 GiB
driver; where memory truly runs out, the task fails with Spark's own out-of-memory error naming the
operator and the key, and the application carries on.

Each case runs in a child process with a driver of its own (``spark.driver.memory=1g``).
"""
import sys

from harness import child_result, child_session, configured, print_result

N = 5_000_000


def _child():
    import eventwindows as ew

    spark = child_session(lambda: configured(ew.builder().master("local[2]"), {
        "spark.driver.memory": "1g",
        "spark.sql.shuffle.partitions": "2",
    }).getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    result = {"max_heap": spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()}
    # Event t lasts [t, t + N): at t = N - 1 all N events are active. Snapshot intervals: [0, 1),
    # [1, 2), ..., [N - 1, N) while events enter, then [N, N + 1), ... while they leave: 2N - 1
    # rows; the interval [N - 1, N) holds every event.
    windows = f"FROM range({N}) AS ev(t) GROUP BY snapshot_window(t, t + {N})"
    result["all_active"] = [list(r) for r in spark.sql(
        f"SELECT count(*), max(n), sum(n) FROM (SELECT count(*) AS n {windows})").collect()]
    # Per-key contents of three aggregates of wide buffers (over 40 bytes an event) cannot fit.
    try:
        spark.sql(f"SELECT window.start, avg(id), sum(id), max(id), min(id) "
                  f"FROM (SELECT 7 AS k, id FROM range({N})) AS ev "
                  f"GROUP BY k, snapshot_window(id, id + {N})").collect()
        result["out_of_memory"] = None
    except Exception as e:  # noqa: BLE001  (the error's class and text are what is checked)
        result["out_of_memory"] = str(e)
    # The application lives on: the same session answers the next query.
    result["after"] = [list(r) for r in spark.sql(
        "SELECT window.start, count(*) FROM range(5) AS ev(t) "
        "GROUP BY snapshot_window(t, t + 2) ORDER BY 1").collect()]
    print_result(result)
    spark.stop()


def test_five_million_active_events_under_a_one_gib_driver():
    result = child_result(__file__, "a 1 GiB driver")
    assert result["max_heap"] <= 1 << 30
    # sum over intervals of the events active: each event is active in N intervals of 1 tick.
    assert result["all_active"] == [[2 * N - 1, N, N * N]]

    error = result["out_of_memory"]
    assert error is not None, "avg, sum, max and min over 5,000,000 active events fit in 1 GiB"
    assert "UNABLE_TO_ACQUIRE_MEMORY" in error, error
    assert "eventwindows: EventWindowAggregate snapshot_window holds" in error, error
    assert "the window contents of the key (k=7)" in error, error

    # [0, 1): 1, [1, 2): 2, ..., [4, 5): 2, [5, 6): 1
    assert result["after"] == [[0, 1], [1, 2], [2, 2], [3, 2], [4, 2], [5, 1]]


if __name__ == "__main__":
    sys.exit(_child())
