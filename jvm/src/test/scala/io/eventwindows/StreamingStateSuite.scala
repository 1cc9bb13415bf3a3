package io.eventwindows

import java.nio.file.Files
import java.sql.Timestamp
import java.time.Instant
import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import io.eventwindows.analysis.StreamingWindows

import org.apache.spark.sql.{AnalysisException, DataFrame, Encoders, Row}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.streaming.StreamingQuery

/**
 * Event windows on streams, through Spark's TransformWithState: for every family that runs on
 * streams, real streaming queries over several micro-batches (out-of-order rows within the delay,
 * ties, several keys, a late row) emit exactly the rows of the batch query over the same data for
 * the windows the final watermark has closed, each once; restarts from a checkpoint continue;
 * what does not run on streams is a clear error.
 *
 * Close times (the latest event time that can change a row) are worked out here from each
 * family's definition, independently of the processor: a row is closed once the watermark w has
 * passed it, since Spark drops every later row at or before w.
 */
class StreamingStateSuite extends EventWindowsSuite {

  private val baseMillis = ts("2024-01-01 00:00:00").getTime

  /** An instant `ms` milliseconds after 2024-01-01 00:00:00. */
  private def at(ms: Long): Timestamp = new Timestamp(baseMillis + ms)

  private def micros(t: Any): Long = {
    val time = t.asInstanceOf[Timestamp]
    time.getTime / 1000 * 1000000 + time.getNanos / 1000
  }

  private def ev(k: String, startMs: Long, endMs: Long, v: Long) =
    StreamEvent(k, at(startMs), at(endMs), v)

  private val delay = "1500 milliseconds"

  // Watermarks after each batch (max time - 1.5 s): 1.1 s, 2.7 s, 4.6 s, 6.5 s, 10.5 s.
  private val late = ev("a", 2500, 2600, 12) // At or before 2.7 s when batch 3 arrives: dropped.
  private val batches = Seq(
    Seq(ev("a", 0, 3000, 1), ev("b", 500, 1500, 2), ev("a", 1000, 2500, 3),
      ev("a", 1000, 4000, 4), ev("c", 1200, 1300, 5), ev("a", 2600, 2700, 6)),
    Seq(ev("a", 1800, 5000, 7), ev("b", 2000, 2100, 8), ev("b", 4000, 6000, 9),
      ev("c", 3500, 3600, 10), ev("a", 4200, 4300, 11)),
    Seq(late, ev("a", 5000, 5100, 13), ev("b", 4500, 7000, 14), ev("c", 4500, 4600, 15),
      ev("c", 4500, 4700, 16), ev("a", 6100, 6200, 17)),
    Seq(ev("a", 7000, 7500, 18), ev("b", 6500, 6600, 19), ev("c", 8000, 8100, 20),
      ev("b", 7900, 8000, 21)),
    Seq(ev("a", 12000, 12100, 22)))
  private val finalWatermarkMs = 10500L

  /** Runs `body` with the session's `conf` set, then restores it. */
  private def withConf[T](conf: (String, String)*)(body: => T): T = {
    val previous = conf.map { case (key, _) => key -> spark.conf.getOption(key) }
    conf.foreach { case (key, value) => spark.conf.set(key, value) }
    try body finally previous.foreach {
      case (key, Some(value)) => spark.conf.set(key, value)
      case (key, None) => spark.conf.unset(key)
    }
  }

  /** The RocksDB state store that event windows on streams need, and one shuffle partition. */
  private def withRocksDB[T](body: => T): T = withConf(
    "spark.sql.streaming.stateStore.providerClass" -> StreamingWindows.RocksDBProvider,
    "spark.sql.shuffle.partitions" -> "2")(body)

  private def aggregated(events: DataFrame, window: String): DataFrame =
    events.groupBy(expr("k"), expr(window))
      .agg(expr("count(*) AS n"), expr("sum(v) AS total"), expr("collect_list(v) AS vs"))
      .selectExpr("k", "window", "n", "total", "vs")

  private def sorted(rows: Seq[Seq[Any]]): Seq[Seq[Any]] = rows.sortBy(_.mkString("|"))

  private def newStream() = MemoryStream[StreamEvent](spark)(Encoders.product[StreamEvent])

  private val queries = new AtomicInteger

  /** What a streaming run gave: its rows in order of emission, and its progress. */
  private case class Run(rows: Seq[Seq[Any]], droppedByWatermark: Long, watermarkMs: Long)

  private def start(
      stream: MemoryStream[StreamEvent], window: String, mode: String,
      checkpoint: Option[String]): (StreamingQuery, String) = {
    val name = s"eventwindows_state_${queries.incrementAndGet()}"
    val writer = aggregated(stream.toDF().withWatermark("ts", delay), window)
      .writeStream.format("memory").queryName(name).outputMode(mode)
    val query = checkpoint.map(c => writer.option("checkpointLocation", c)).getOrElse(writer).start()
    (query, name)
  }

  /** Runs `window` over `input` (one micro-batch each), returning every row emitted. */
  private def streamed(
      window: String,
      input: Seq[Seq[StreamEvent]] = batches,
      mode: String = "append",
      checkpoint: Option[String] = None,
      stream: MemoryStream[StreamEvent] = newStream()): Run = withRocksDB {
    val (query, name) = start(stream, window, mode, checkpoint)
    try {
      input.foreach { batch =>
        stream.addData(batch)
        query.processAllAvailable()
      }
      val progress = query.recentProgress.toSeq
      val dropped = progress.flatMap(_.stateOperators.map(_.numRowsDroppedByWatermark)).sum
      val watermark = progress.lastOption.flatMap(p => Option(p.eventTime.get("watermark")))
        .map(w => Instant.parse(w).toEpochMilli - baseMillis).getOrElse(Long.MinValue)
      Run(rows(spark.table(name)), dropped, watermark)
    } finally query.stop()
  }

  /** The batch query over the events Spark kept (not the late row). */
  private def batchAnswer(window: String, events: Seq[StreamEvent] = batches.flatten): Seq[Seq[Any]] =
    rows(aggregated(spark.createDataset(events.filterNot(_ == late))(Encoders.product).toDF(),
      window))

  /**
   * Checks a streaming run of `window` against the batch query: the rows closed by the final
   * watermark (`closed(window struct, watermark in microseconds)`), each once.
   */
  private def agrees(window: String, closed: (Row, Long) => Boolean, run: Run): Unit = {
    assert(run.watermarkMs === finalWatermarkMs)
    val watermark = micros(at(run.watermarkMs))
    val expected = batchAnswer(window).filter(r => closed(r(1).asInstanceOf[Row], watermark))
    val all = batchAnswer(window)
    assert(expected.nonEmpty && expected.size < all.size, s"$window: a poor test")
    assert(sorted(run.rows) === sorted(expected), window)
  }

  private def field(window: Row, name: String): Long = micros(window.getAs[Timestamp](name))

  /** Snapshot windows: a run [a, b) is final once every event starting before b is known. */
  private val snapshotClosed = (w: Row, watermark: Long) => field(w, "end") - 1 <= watermark
  /** Count windows: final once every event starting at the last distinct start is known. */
  private val countClosed = (w: Row, watermark: Long) => field(w, "last") <= watermark
  /** Index windows: final once the anchor and the window's last message are known. */
  private val indexClosed = (w: Row, watermark: Long) =>
    Math.max(field(w, "start"), field(w, "last")) <= watermark
  /** Relative-time windows: final once every message up to the upper bound is known. */
  private def timeClosed(upperMicros: Long) = (w: Row, watermark: Long) =>
    Math.max(field(w, "start"), field(w, "start") + upperMicros) <= watermark

  private val cases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "snapshot_window(ts, te)" -> snapshotClosed,
    "snapshot_window(ts)" -> snapshotClosed,
    "count_window(ts, te, 2)" -> countClosed,
    "count_window(ts, 3, 'window')" -> countClosed,
    "count_window(ts, te, 1)" -> countClosed,
    "index_window(ts, -2, 0)" -> indexClosed,
    "index_window(ts, -1, 2)" -> indexClosed,
    "index_window(ts, 1, 3)" -> indexClosed,
    "index_window(ts, -3, -1)" -> indexClosed,
    "time_window(ts, '-2 seconds', '0 seconds')" -> timeClosed(0L),
    "time_window(ts, '-1 second', '1 second', '[)')" -> timeClosed(1000000L - 1),
    "time_window(ts, '-1 second', '-500 milliseconds', '(]')" -> timeClosed(-500000L))

  /**
   * Hopping output 'changes' (a snapshot window over snapped lifetimes): a run is final once no
   * later row can snap into it; rows after the watermark w snap to adjust_start_time(w + 1 tick)
   * or later.
   */
  private def changesClosed(size: String, hop: String) = (w: Row, watermark: Long) => {
    val snapped = spark.sql(s"SELECT adjust_start_time(timestamp_micros(${watermark + 1}), " +
      s"INTERVAL $size, INTERVAL $hop)").head().getAs[Timestamp](0)
    field(w, "end") <= micros(snapped)
  }

  private val changesCases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "hopping_window(ts, te, '2 seconds', '1 second', NULL, 'changes')" ->
      changesClosed("2 seconds", "1 second"),
    "tumbling_window(ts, '2 seconds', NULL, 'changes')" -> changesClosed("2 seconds", "2 seconds"),
    "hopping_window(ts, '3 seconds', '1 second', NULL, 'changes')" ->
      changesClosed("3 seconds", "1 second"))

  for ((window, closed) <- cases ++ changesCases) {
    test(s"append mode: $window gives the batch rows the watermark closed, each once") {
      val run = streamed(window)
      agrees(window, closed, run)
      assert(run.droppedByWatermark > 0)
    }
  }
}
