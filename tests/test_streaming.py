"""Streaming DataFrames from PySpark: hopping and tumbling windows run as Spark's own streaming
aggregation; plans that need the window operator are an analysis error (a pyspark
AnalysisException naming the function), not windows computed per micro-batch."""
import pytest
from pyspark.errors import AnalysisException

import eventwindows as ew


@pytest.fixture
def stream(spark, tmp_path):
    (tmp_path / "events.json").write_text(
        '{"k": "a", "ts": "2024-01-01 00:00:00", "v": 1}\n'
        '{"k": "a", "ts": "2024-01-01 00:00:03", "v": 2}\n')
    return spark.readStream.schema("k string, ts timestamp, v bigint").json(str(tmp_path))


def test_changes_on_a_stream_are_an_analysis_error(stream):
    assert stream.isStreaming
    with pytest.raises(AnalysisException) as info:
        stream.groupBy("k", ew.hopping_window("ts", None, "5 seconds", "1 second",
                                              output="changes")).count()
    assert str(info.value).startswith(
        "hopping_window: streaming DataFrames are not supported yet, only batch DataFrames")


def test_overlapping_hopping_windows_on_a_stream_emit_each_closed_window(spark, stream, tmp_path):
    query = (stream.withWatermark("ts", "1 second")
             .groupBy("k", ew.hopping_window("ts", None, "5 seconds", "1 second")).count()
             .writeStream.format("memory").queryName("ew_stream_hopping").outputMode("append")
             .option("checkpointLocation", str(tmp_path / "checkpoint"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    rows = spark.table("ew_stream_hopping").selectExpr(
        "k", "string(window.start)", "string(window.end)", "count").orderBy("window").collect()
    # Events at 00:00:00 and 00:00:03; the watermark ends at 00:00:02, so of the windows
    # [n, n + 5) only those ending by then are closed: the first event's [-4, 1) and [-3, 2).
    assert [tuple(r) for r in rows] == [
        ("a", "2023-12-31 23:59:56", "2024-01-01 00:00:01", 1),
        ("a", "2023-12-31 23:59:57", "2024-01-01 00:00:02", 1)]


def test_point_events_in_tumbling_windows_run_as_spark_streaming_aggregation(stream):
    counted = (stream.withWatermark("ts", "1 second")
               .groupBy("k", ew.tumbling_window("ts", None, "2 seconds")).count())
    assert counted.isStreaming
    assert counted.columns == ["k", "window", "count"]
