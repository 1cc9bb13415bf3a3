"""Streaming DataFrames from PySpark: plans that need the window operator are an analysis error
(a pyspark AnalysisException naming the function), not windows computed per micro-batch."""
import pytest
from pyspark.errors import AnalysisException

import eventwindows as ew


@pytest.fixture
def stream(spark, tmp_path):
    (tmp_path / "events.json").write_text(
        '{"k": "a", "ts": "2024-01-01 00:00:00", "v": 1}\n'
        '{"k": "a", "ts": "2024-01-01 00:00:03", "v": 2}\n')
    return spark.readStream.schema("k string, ts timestamp, v bigint").json(str(tmp_path))


def test_overlapping_hopping_windows_on_a_stream_are_an_analysis_error(stream):
    assert stream.isStreaming
    with pytest.raises(AnalysisException) as info:
        stream.groupBy("k", ew.hopping_window("ts", None, "5 seconds", "1 second")).count()
    assert str(info.value).startswith(
        "hopping_window: streaming DataFrames are not supported yet, only batch DataFrames")


def test_point_events_in_tumbling_windows_run_as_spark_streaming_aggregation(stream):
    counted = (stream.withWatermark("ts", "1 second")
               .groupBy("k", ew.tumbling_window("ts", None, "2 seconds")).count())
    assert counted.isStreaming
    assert counted.columns == ["k", "window", "count"]
