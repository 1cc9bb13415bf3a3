package io.eventwindows

import java.nio.file.Files
import java.sql.Timestamp
import java.time.Instant
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{AnalysisException, DataFrame, Encoders, Row}
import org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.streaming.StreamingQuery

import io.eventwindows.analysis.StreamingWindows

/** An event whose columns are all fixed-width (its unsafe row has no variable-length part). */
case class FixedWidthEvent(k: Long, ts: Timestamp, v: Long)

/**
 * Event windows on streams, through Spark's TransformWithState: for every family that runs on
 * streams, real streaming queries over several micro-batches (out-of-order rows within the delay,
 * ties, several keys, a late row) emit exactly the rows of the batch query over the same data for
 * the windows the final watermark has closed, each once; restarts from a checkpoint continue;
 * what does not run on streams is a clear error.
 *
 * Close times (the latest event time that can change a row) are worked out here from each
 * family's definition, independently of the processor: a row is closed once the watermark w has
 * passed it, since Spark drops every later row at or before w. Hopping windows instead count a
 * late row in their windows still open, as Spark's streaming aggregation does ([[hoppingAnswer]]).
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
    Seq(
      ev("a", 0, 3000, 1),
      ev("b", 500, 1500, 2),
      ev("a", 1000, 2500, 3),
      ev("a", 1000, 4000, 4),
      ev("c", 1200, 1300, 5),
      ev("a", 2600, 2700, 6)),
    Seq(
      ev("a", 1800, 5000, 7),
      ev("b", 2000, 2100, 8),
      ev("b", 4000, 6000, 9),
      ev("c", 3500, 3600, 10),
      ev("a", 4200, 4300, 11)),
    Seq(
      late,
      ev("a", 5000, 5100, 13),
      ev("b", 4500, 7000, 14),
      ev("c", 4500, 4600, 15),
      ev("c", 4500, 4700, 16),
      ev("a", 6100, 6200, 17)),
    Seq(
      ev("a", 7000, 7500, 18),
      ev("b", 6500, 6600, 19),
      ev("c", 8000, 8100, 20),
      ev("b", 7900, 8000, 21)),
    Seq(ev("a", 12000, 12100, 22)))
  private val finalWatermarkMs = 10500L

  /**
   * The RocksDB state store that event windows on streams need, and one shuffle partition (one
   * state store per micro-batch: a fifth less time than two here; the Python streaming suites
   * run with four). Checkpoint files are renamed through Hadoop's FileSystem, Spark's other
   * checkpoint file manager: the default one renames through Hadoop's FileContext, which without
   * Hadoop's native library starts a `readlink` process for every file, most of a micro-batch's
   * time here.
   */
  private def withRocksDB[T](body: => T): T = withConf(
    "spark.sql.streaming.stateStore.providerClass" -> StreamingWindows.RocksDBProvider,
    "spark.sql.shuffle.partitions" -> "1",
    "spark.sql.streaming.checkpointFileManagerClass" ->
      classOf[FileSystemBasedCheckpointFileManager].getName)(body)

  /** Aggregates of every kind: declarative, order-sensitive, typed imperative (collect_list). */
  private val measures = Seq(
    "count(*) AS n",
    "sum(v) AS total",
    "avg(v) AS mean",
    "max(v) AS top",
    "first(v) AS head",
    "collect_list(v) AS vs")

  private def aggregated(
      events: DataFrame,
      window: String,
      aggregates: Seq[String] = measures): DataFrame =
    events.groupBy(expr("k"), expr(window))
      .agg(expr(aggregates.head), aggregates.tail.map(expr): _*)

  private def sorted(rows: Seq[Seq[Any]]): Seq[Seq[Any]] = rows.sortBy(_.mkString("|"))

  private def newStream() = MemoryStream[StreamEvent](spark)(Encoders.product[StreamEvent])

  private val queries = new AtomicInteger

  /** What a streaming run gave: its rows in order of emission, its progress, its aggregates. */
  private case class Run(
      rows: Seq[Seq[Any]],
      droppedByWatermark: Long,
      watermarkMs: Long,
      aggregates: Seq[String])

  /**
   * Starts `window` over `stream` in `mode`; the rows of each micro-batch go to the returned
   * buffer (foreachBatch, which, unlike the memory sink, restarts from a checkpoint).
   */
  private def start(
      stream: MemoryStream[StreamEvent],
      window: String,
      mode: String,
      checkpoint: Option[String],
      aggregates: Seq[String] = measures): (StreamingQuery, ConcurrentLinkedQueue[Seq[Any]]) = {
    val emitted = new ConcurrentLinkedQueue[Seq[Any]]
    val sink: (DataFrame, Long) => Unit =
      (batch, _) => batch.collect().foreach(r => emitted.add(r.toSeq))
    val writer = aggregated(stream.toDF().withWatermark("ts", delay), window, aggregates)
      .writeStream.queryName(s"eventwindows_state_${queries.incrementAndGet()}")
      .outputMode(mode).foreachBatch(sink)
    val query =
      checkpoint.map(c => writer.option("checkpointLocation", c)).getOrElse(writer).start()
    (query, emitted)
  }

  /** Runs `window` over `input` (one micro-batch each), returning every row emitted. */
  private def streamed(
      window: String,
      input: Seq[Seq[StreamEvent]] = batches,
      mode: String = "append",
      checkpoint: Option[String] = None,
      stream: MemoryStream[StreamEvent] = newStream(),
      aggregates: Seq[String] = measures): Run = withRocksDB {
    val (query, emitted) = start(stream, window, mode, checkpoint, aggregates)
    try {
      input.foreach { batch =>
        stream.addData(batch)
        query.processAllAvailable()
      }
      val progress = query.recentProgress.toSeq
      val dropped = progress.flatMap(_.stateOperators.map(_.numRowsDroppedByWatermark)).sum
      val watermark = progress.lastOption.flatMap(p => Option(p.eventTime.get("watermark")))
        .map(w => Instant.parse(w).toEpochMilli - baseMillis).getOrElse(Long.MinValue)
      Run(emitted.asScala.toSeq, dropped, watermark, aggregates)
    } finally query.stop()
  }

  /** The events Spark keeps (not the late row). */
  private val kept = batches.flatten.filterNot(_ == late)

  /** The batch query over `events`. */
  private def batchAnswer(
      window: String,
      events: Seq[StreamEvent],
      aggregates: Seq[String] = measures): Seq[Seq[Any]] =
    rows(aggregated(spark.createDataset(events)(Encoders.product).toDF(), window, aggregates))

  /**
   * Checks a streaming run of `window` against the batch query over `events` (those Spark kept):
   * the rows closed by the final watermark (`closed(window struct, watermark in microseconds)`),
   * each once.
   */
  private def agrees(
      window: String,
      closed: (Row, Long) => Boolean,
      run: Run,
      events: Seq[StreamEvent] = kept,
      finalWatermark: Long = finalWatermarkMs): Unit = {
    assert(run.watermarkMs === finalWatermark)
    val watermark = micros(at(run.watermarkMs))
    val expected = batchAnswer(window, events, run.aggregates).filter(r =>
      closed(r(1).asInstanceOf[Row], watermark))
    assert(expected.nonEmpty, s"$window: a poor test")
    val same = sorted(run.rows) == sorted(expected)
    assert(
      same,
      s"$window: missing ${sorted(expected.diff(run.rows)).mkString("; ")}; " +
        s"extra ${sorted(run.rows.diff(expected)).mkString("; ")}")
  }

  private def field(window: Row, name: String): Long = micros(window.getAs[Timestamp](name))

  /**
   * The watermark by which Spark drops each micro-batch's late rows (in ms after 2024-01-01):
   * that of the micro-batch before, the latest time of the earlier batches minus the delay (a
   * micro-batch without data runs between two of `input`'s).
   */
  private def lateRowWatermarks(input: Seq[Seq[StreamEvent]]): Seq[Long] =
    input.scanLeft(0L - baseMillis) { (w, batch) =>
      Math.max(w, batch.map(e => e.ts.getTime - baseMillis).max - 1500L)
    }

  /**
   * Hopping windows as Spark's streaming aggregation (and `window()`) counts late rows: an
   * event's row for a window counts unless the window's row ended at or before the late-row
   * watermark of the event's micro-batch. Those watermarks grow, so a window holds the events of
   * the batches up to the last whose watermark is before its row's end: its row of the batch
   * query over those batches.
   */
  private def hoppingAnswer(window: String, input: Seq[Seq[StreamEvent]]): Seq[Seq[Any]] = {
    val late = lateRowWatermarks(input).map(w => micros(at(w)))
    input.indices.flatMap { k =>
      batchAnswer(window, input.take(k + 1).flatten).filter { r =>
        val end = field(r(1).asInstanceOf[Row], "end")
        late(k) < end && (k + 1 == input.size || late(k + 1) >= end)
      }
    }
  }

  /**
   * The events of `input` Spark drops as late from hopping windows: those in windows whose rows
   * all ended by their micro-batch's late-row watermark (an event in no window is no row).
   */
  private def hoppingDropped(window: String, input: Seq[Seq[StreamEvent]]): Long = {
    val late = lateRowWatermarks(input).map(w => micros(at(w)))
    // Each event its own key: its rows, the end of its last.
    val events = input.zipWithIndex.flatMap { case (batch, b) => batch.map(_ -> b) }
    val lastEnds = batchAnswer(window, events.indices.map(i => events(i)._1.copy(k = i.toString)))
      .groupBy(_.head).map { case (k, rows) =>
        k.toString.toInt -> rows.map(r => field(r(1).asInstanceOf[Row], "end")).max
      }
    events.indices.count(i => lastEnds.get(i).exists(_ <= late(events(i)._2))).toLong
  }

  /** Checks a streaming run of hopping `window` over `input` against [[hoppingAnswer]]. */
  private def hoppingAgrees(
      window: String,
      run: Run,
      input: Seq[Seq[StreamEvent]] = batches): Unit = {
    val watermark = micros(at(run.watermarkMs))
    val expected = hoppingAnswer(window, input).filter(r =>
      hoppingClosed(r(1).asInstanceOf[Row], watermark))
    assert(expected.nonEmpty, s"$window: a poor test")
    assert(
      sorted(run.rows) == sorted(expected),
      s"$window: missing " +
        s"${sorted(expected.diff(run.rows)).mkString("; ")}; extra " +
        s"${sorted(run.rows.diff(expected)).mkString("; ")}")
    assert(run.droppedByWatermark === hoppingDropped(window, input), window)
  }

  /**
   * Snapshot windows: a run [a, b) is final once every event starting at or before b is known
   * (one starting at b would end it there).
   */
  private val snapshotClosed = (w: Row, watermark: Long) => field(w, "end") <= watermark

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
   * Running windows (lo NULL): every message of the key up to the anchor's index + hi; final as
   * the other index windows. The state folds the messages before the open windows into one
   * aggregation buffer, which every later window starts from.
   */
  private val runningCases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "index_window(ts, NULL, 0)",
    "index_window(ts, NULL, 2)",
    "index_window(ts, NULL, -2)")
    .map(_ -> indexClosed)

  /**
   * Hopping windows with per-window output (here with collect_list, which depends on input order,
   * so not Spark's streaming aggregation), as Spark's aggregation runs them with other aggregates
   * (and `window()`): a row is final once the watermark reaches its end (under 'point' the row
   * `[e, e + 1)` at the window's end e), and a late event still counts in the windows whose rows
   * end after the micro-batch's late-row watermark ([[hoppingAnswer]]).
   */
  private val hoppingClosed = (w: Row, watermark: Long) => field(w, "end") <= watermark

  private val hoppingCases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "hopping_window(ts, '3 seconds', '1 second')" -> hoppingClosed,
    "hopping_window(ts, te, '2 seconds', '1 second', '500 milliseconds')" -> hoppingClosed,
    "tumbling_window(ts, te, '2 seconds', NULL, 'point')" -> hoppingClosed,
    "hopping_window(ts, te, '1 second', '2 seconds')" -> hoppingClosed)

  /**
   * Hopping output 'changes' (a snapshot window over snapped lifetimes): a run is final once no
   * later row can snap into it; rows after the watermark w snap to adjust_start_time(w + 1 tick)
   * or later.
   */
  private def changesClosed(size: String, hop: String) = (w: Row, watermark: Long) => {
    val snapped = spark.sql(s"SELECT adjust_start_time(timestamp_micros(${watermark + 1}), " +
      s"INTERVAL $size, INTERVAL $hop)").head().getAs[Timestamp](0)
    field(w, "end") < micros(snapped)
  }

  private val changesCases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "hopping_window(ts, te, '2 seconds', '1 second', NULL, 'changes')" ->
      changesClosed("2 seconds", "1 second"),
    "tumbling_window(ts, '2 seconds', NULL, 'changes')" -> changesClosed("2 seconds", "2 seconds"),
    "hopping_window(ts, '3 seconds', '1 second', NULL, 'changes')" ->
      changesClosed("3 seconds", "1 second"))

  /**
   * SPL sliding windows: a firing at t (an arrival, or a time-trigger instant, which the batch
   * fires up to the key's last arrival) sees the tuples up to t: final once they are known.
   */
  private val slidingClosed = (w: Row, watermark: Long) => field(w, "start") <= watermark

  private val slidingCases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "sliding_window(ts, 'count(2)')",
    "sliding_window(ts, 'count(3)', 'count(2)')",
    "sliding_window(ts, 'time(2 seconds)', 'count(2)')",
    "sliding_window(ts, 'delta(v, 5)')",
    "sliding_window(ts, 'count(3)', 'time(1 second)')",
    "sliding_window(ts, 'time(2 seconds)', 'time(700 milliseconds)')",
    "sliding_window(ts, 'count(2)', 'delta(v, 3)')",
    "sliding_window(ts, 'delta(v, 4)', 'delta(v, 2)')",
    "sliding_window(ts, 'delta(ts, 1)', 'time(1 second)')",
    "sliding_window(ts, 'time(1500 milliseconds)', 'delta(v, 2)')").map(_ -> slidingClosed)

  /**
   * Sessions: a row `[a, b)` (a session, a piece of one, a change within one) is final once every
   * event starting at or before b is known, since an event starting at the session's end joins it.
   */
  private val sessionClosed = (w: Row, watermark: Long) => field(w, "end") <= watermark

  private val sessionCases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "event_session_window(ts, te, '1 second')",
    "event_session_window(ts, '700 milliseconds')",
    "event_session_window(ts, te, '500 milliseconds', '2 seconds')",
    "event_session_window(ts, te, '1 second', NULL, 'changes')",
    "event_session_window(ts, te, '800 milliseconds', '1500 milliseconds', 'changes')")
    .map(_ -> sessionClosed)

  /** SPL tumbling windows: a flush at t sees the tuples up to t, as a sliding window's firing. */
  private val tumblingCases: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "spl_tumbling_window(ts, 'count(2)')",
    "spl_tumbling_window(ts, 'count(3)')",
    "spl_tumbling_window(ts, 'time(2 seconds)')",
    "spl_tumbling_window(ts, 'time(700 milliseconds)')",
    "spl_tumbling_window(ts, 'delta(v, 5)')",
    "spl_tumbling_window(ts, 'delta(ts, 1)')").map(_ -> slidingClosed)

  /**
   * The random streams' events are dense (up to 2.5 s long, about one per 140 ms and key): a
   * longer gap makes one session per key, which closes only after the last batch.
   */
  private val randomSessions: Seq[(String, (Row, Long) => Boolean)] = Seq(
    "event_session_window(ts, '50 milliseconds')",
    "event_session_window(ts, te, '100 milliseconds', '500 milliseconds')",
    "event_session_window(ts, te, '100 milliseconds', NULL, 'changes')",
    "event_session_window(ts, te, '100 milliseconds', '700 milliseconds', 'changes')")
    .map(_ -> sessionClosed)

  /** The windows of the random streams' test. */
  private val randomCases = Seq(
    cases(0),
    cases(2),
    cases(6),
    cases(10),
    hoppingCases(1),
    changesCases(0),
    slidingCases(5),
    slidingCases(7)) ++ runningCases ++ randomSessions ++
    tumblingCases

  /** The windows of each family (and output of hopping windows), in lists of their own. */
  private val casesPerFamily = Seq(
    cases.take(2), // snapshot
    cases.slice(2, 5), // count
    cases.slice(5, 9), // index
    cases.drop(9), // relative time
    runningCases,
    hoppingCases,
    changesCases,
    slidingCases,
    sessionCases,
    tumblingCases)

  // Each window on the fixed batches, but those the random streams' test runs (on other events,
  // with the same checks): a streaming query per window is most of this suite's time. The quick
  // tier runs the first of each family's list; the others are SlowTest.
  for {
    family <- casesPerFamily
    ((window, closed), i) <- family.filterNot(randomCases.contains).zipWithIndex
  } {
    val tags = if (i == 0) Nil else Seq(SlowTest)
    test(s"append mode: $window gives the batch rows the watermark closed, each once", tags: _*) {
      val run = streamed(window)
      if (hoppingCases.contains(window -> closed)) hoppingAgrees(window, run)
      else {
        agrees(window, closed, run)
        assert(run.droppedByWatermark > 0)
      }
    }
  }

  test("update mode: families whose rows exist once closed emit the same closed rows, each once") {
    for ((window, closed) <- Seq(
        cases(0),
        cases(2),
        cases(6),
        runningCases(1),
        sessionCases(1),
        slidingCases(0))) {
      agrees(window, closed, streamed(window, mode = "update"))
    }
  }

  test("update mode: rows known while open are emitted as they change, the last the batch's") {
    for ((window, closed) <- Seq(cases(9), cases(11), hoppingCases(1), hoppingCases(2))) {
      val run = restarted(window, window, mode = "update")
      val answer =
        if (hoppingCases.contains(window -> closed)) hoppingAnswer(window, batches)
        else batchAnswer(window, kept)
      // Each row by its key and window; ties in time_window give equal rows for one window.
      def byWindow(rows: Seq[Seq[Any]]) = rows.map(r => r.take(2) -> r).toMap
      assert(byWindow(run.rows) === byWindow(answer), window)
      val watermark = micros(at(run.watermarkMs))
      assert(
        answer.exists(r => !closed(r(1).asInstanceOf[Row], watermark)),
        s"$window: no row open at the end, a poor test")
      // A row is emitted again only with a new result (each version once, but for ties), not
      // because it closed.
      run.rows.groupBy(identity).foreach { case (row, emitted) =>
        assert(emitted.size <= answer.count(_ == row).max(1), s"$window: $row ${emitted.size}x")
      }
    }
  }

  test("complete mode is an error: there is no streaming aggregation to complete") {
    val message = errorOf(withRocksDB {
      start(newStream(), "count_window(ts, te, 2)", "complete", None)._1.stop()
    })
    assert(message.contains("Invalid streaming output mode: complete"), message)
  }

  /**
   * Runs `first` over the first two batches and `second` over the rest, on one checkpoint (the
   * second run with `secondAggregates`), in output `mode`.
   */
  private def restarted(
      first: String,
      second: String,
      secondAggregates: Seq[String] = measures,
      mode: String = "append"): Run = {
    val checkpoint = Files.createTempDirectory("eventwindows-checkpoint").toString
    val stream = newStream()
    val before = streamed(first, batches.take(2), mode, Some(checkpoint), stream)
    val after = streamed(
      second,
      batches.drop(2),
      mode,
      Some(checkpoint),
      stream,
      aggregates = secondAggregates)
    Run(
      before.rows ++ after.rows,
      before.droppedByWatermark + after.droppedByWatermark,
      after.watermarkMs,
      secondAggregates)
  }

  test(
    "a query stopped and restarted from its checkpoint continues: no row lost or repeated",
    SlowTest) {
    // A window of each family and route through the state (two queries each).
    for ((window, closed) <- Seq(
        cases(0),
        cases(2),
        cases(6),
        cases(10),
        runningCases(2),
        hoppingCases(1),
        changesCases(0),
        slidingCases(7),
        sessionCases(4),
        tumblingCases(4))) {
      val run = restarted(window, window)
      if (hoppingCases.contains(window -> closed)) hoppingAgrees(window, run)
      else {
        agrees(window, closed, run)
        assert(run.droppedByWatermark > 0)
      }
    }
  }

  test("a changed window definition against an old checkpoint is an error, not wrong rows") {
    val message = errorOf(restarted("count_window(ts, te, 2)", "count_window(ts, te, 3)"))
    assert(
      message.contains("count_window: the checkpoint holds the state of another window " +
        "definition [count_window CountWindow(2,point)"),
      message)
    assert(message.contains("a changed window definition needs a new checkpoint location"))
  }

  test("running windows: aggregates of every kind give the batch answer through the state") {
    // The prefix's buffer holds a typed imperative object (percentile's map, serialized in
    // state), an imperative one's fields (approx_count_distinct), floating point merged exactly
    // as the batch merges it (stddev), a filtered count, and order-sensitive last and max_by.
    val aggregates = Seq(
      "count(*) FILTER (WHERE v % 2 = 0) AS evens",
      "stddev(v) AS sd",
      "percentile(v, 0.5) AS median",
      "approx_count_distinct(v) AS distinct",
      "last(v) AS tail",
      "max_by(v, te) AS latest")
    for ((window, closed) <- runningCases) {
      agrees(window, closed, streamed(window, aggregates = aggregates))
    }
  }

  test("sessions of one piece: aggregates of every kind give the batch answer through the state") {
    // The events of an open session are folded into its buffer (as a running window's prefix);
    // with an aggregate of the clipped lifetime they are kept instead (it needs each of them).
    val aggregates = Seq(
      "count(*) FILTER (WHERE v % 2 = 0) AS evens",
      "stddev(v) AS sd",
      "percentile(v, 0.5) AS median",
      "approx_count_distinct(v) AS distinct",
      "last(v) AS tail",
      "max_by(v, te) AS latest")
    // Under 'changes' (which takes no clipped lifetime) the batch merges a buffer per start, and
    // the stream a folded buffer with the later ones: a floating-point stddev may round otherwise
    // there (docs/sessions.md).
    val (whole, changes) = (sessionCases(0), sessionCases(3))
    for ((window, measured) <- Seq(
        whole._1 -> aggregates,
        whole._1 -> (aggregates :+ "time_weighted_avg(v) AS weighted"),
        changes._1 -> aggregates.filterNot(_.startsWith("stddev")))) {
      agrees(window, sessionClosed, streamed(window, aggregates = measured))
    }
  }

  test("a state holding aggregation buffers holds its aggregates: changed ones are an error") {
    // Other families keep events and aggregate them anew; a running window keeps the buffer of
    // the aggregates over the messages it no longer keeps, a session of one piece that of its
    // earlier events.
    val changed = Seq("count(*) AS n", "sum(v) AS total", "max(v) AS top")
    for ((window, family) <- Seq(
        "index_window(ts, NULL, 0)" -> "IndexWindow(None,0)",
        "event_session_window(ts, te, '1 second')" -> "SessionWindow(")) {
      val function = window.takeWhile(_ != '(')
      val message = errorOf(restarted(window, window, changed))
      assert(
        message.contains(s"$function: the checkpoint holds the state of another window " +
          s"definition [$function $family"),
        message)
      assert(
        message.contains("aggregates=[count(1), sum(v), avg(v), max(v), first(v), " +
          "collect_list(v)]"),
        message)
      assert(message.contains("a changed window definition needs a new checkpoint location"))
    }
  }

  test("a window over the whole stream (no GROUP BY keys) runs with one constant key") {
    def global(events: DataFrame) = events.groupBy(expr("count_window(ts, te, 2)"))
      .agg(expr("count(*) AS n"), expr("collect_list(v) AS vs"))
    val stream = newStream()
    val name = s"eventwindows_state_${queries.incrementAndGet()}"
    val emitted = withRocksDB {
      val query = global(stream.toDF().withWatermark("ts", delay)).writeStream.format("memory")
        .queryName(name).outputMode("append").start()
      try {
        batches.foreach { b => stream.addData(b); query.processAllAvailable() }
        rows(spark.table(name))
      } finally query.stop()
    }
    val watermark = micros(at(finalWatermarkMs))
    val expected = rows(global(spark.createDataset(batches.flatten.filterNot(_ == late))(
      Encoders.product).toDF())).filter(r => countClosed(r(0).asInstanceOf[Row], watermark))
    assert(expected.nonEmpty)
    assert(sorted(emitted) === sorted(expected))
  }

  test("an event just after the watermark ends a snapshot run: the run waits for it") {
    // After the first batch the watermark is 1.1 s: [0.5 s, 2 s) is open, and the next batch
    // ends it at 1.100001 s.
    val input = Seq(
      Seq(ev("a", 500, 2000, 1), ev("a", 2600, 2700, 2)),
      Seq(StreamEvent(
        "a",
        new Timestamp(baseMillis + 1100) { setNanos(100001000) },
        at(3000),
        3)),
      Seq(ev("a", 12000, 12100, 4)))
    val run = streamed("snapshot_window(ts, te)", input)
    val expected = batchAnswer("snapshot_window(ts, te)", input.flatten).filter(r =>
      snapshotClosed(r(1).asInstanceOf[Row], micros(at(run.watermarkMs))))
    assert(sorted(run.rows) === sorted(expected))
    assert(run.rows.exists(r => micros(r(1).asInstanceOf[Row].get(1)) == micros(at(1100)) + 1))
  }

  /** The analysis error's function and reason, once its condition is checked to be ours. */
  private def rejected(events: DataFrame, window: String): String = {
    val e = intercept[AnalysisException](aggregated(events, window))
    assert(Option(e.getCondition).exists(_.startsWith("EVENTWINDOWS_")), e.getMessage)
    s"${e.messageParameters("function")}: ${e.messageParameters("reason")}"
  }

  test("without the RocksDB state store provider: an analysis error saying what to set") {
    val message = rejected(newStream().toDF().withWatermark("ts", delay), "count_window(ts, 2)")
    assert(
      message.startsWith("count_window: on a streaming DataFrame event windows keep their " +
        "state in Spark's RocksDB state store"),
      message)
    assert(
      message.contains("set spark.sql.streaming.stateStore.providerClass=" +
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"),
      message)
  }

  test("without a watermark on the window's time column: an analysis error") {
    withRocksDB {
      for (window <- Seq(
          "snapshot_window(ts, te)",
          "index_window(ts, -1, 0)",
          "hopping_window(ts, te, '2 seconds', '1 second', NULL, 'changes')")) {
        val function = window.takeWhile(_ != '(')
        for (events <- Seq(newStream().toDF(), newStream().toDF().withWatermark("te", delay))) {
          val message = rejected(events, window)
          assert(
            message.startsWith(s"$function: on a streaming DataFrame the window's time " +
              "column ts needs an event-time watermark on that column"),
            message)
        }
      }
    }
  }

  test("per-window hopping output over an open-ended event needs a horizon on a stream") {
    val openEnded = Seq(Seq(StreamEvent("a", at(0), null, 1L)), Seq(ev("a", 9000, 9100, 2)))
    val message = errorOf(streamed("hopping_window(ts, te, '2 seconds', '1 second')", openEnded))
    assert(
      message.contains("hopping_window: the event starting at 2024-01-01 00:00:00 is " +
        "open-ended (NULL end): on a stream it would lie in windows without end."),
      message)
    // With a horizon at 3 s it lies in the windows up to [3 s, 5 s), as in a batch.
    val window = "hopping_window(ts, te, '2 seconds', '1 second', NULL, 'window', " +
      "TIMESTAMP'2024-01-01 00:00:03')"
    val run = streamed(window, openEnded)
    assert(run.rows.map(r => micros(r(1).asInstanceOf[Row].get(0))).sorted ===
      (-1000000L to 3000000L by 1000000L).map(_ + micros(at(0))))
    agrees(window, hoppingClosed, run, openEnded.flatten, finalWatermark = 9000 - 1500)
  }

  test("a tumbling window's flush at the end of its group is an analysis error on a stream") {
    withRocksDB {
      val events = newStream().toDF().withWatermark("ts", delay)
      val message = rejected(events, "spl_tumbling_window(ts, 'count(2)', flush_at_end => true)")
      assert(
        message.startsWith("spl_tumbling_window: `flush_at_end` => true is not supported " +
          "on streaming DataFrames: a stream's groups never end"),
        message)
    }
  }

  test("dynamic windows on a stream without a watermark on the messages' time: an error") {
    withRocksDB {
      val message = rejected(newStream().toDF(), "anchor_window(ts, ts, te, named_struct('v', v))")
      assert(
        message.startsWith("anchor_window: on a streaming DataFrame the messages' time " +
          "column ts needs an event-time watermark"),
        message)
    }
  }

  test(
    "the state keeps only the events that windows still open need, per family",
    SlowTest) {
    // After the last batch (watermark 10.5 s), read back through Spark's state data source.
    // Key a has one event after the watermark (12 s); b and c none.
    val kept = Seq(
      // Every window of b and c is closed: their keys are forgotten.
      "time_window(ts, '-2 seconds', '0 seconds')" -> Map("a" -> 1L),
      "snapshot_window(ts, te)" -> Map("a" -> 1L),
      // The last distinct start and the events still active there (none), and a's 12 s event.
      "count_window(ts, te, 2)" -> Map("a" -> 2L, "b" -> 1L, "c" -> 1L),
      // The last hi - lo messages.
      "index_window(ts, -2, 0)" -> Map("a" -> 3L, "b" -> 2L, "c" -> 2L),
      // The window's tuples.
      "sliding_window(ts, 'count(2)')" -> Map("a" -> 3L, "b" -> 2L, "c" -> 2L),
      // The open window: a's 9th tuple (and its 12 s one), c's 5th; b's 6 tuples were flushed.
      "spl_tumbling_window(ts, 'count(2)')" -> Map("a" -> 2L, "c" -> 1L),
      // The open session's events: a's last session (6.1 s to 8.5 s) closed, as did b's and c's.
      "event_session_window(ts, te, '1 second')" -> Map("a" -> 1L))
    for ((window, expected) <- kept) {
      val checkpoint = Files.createTempDirectory("eventwindows-checkpoint").toString
      streamed(window, checkpoint = Some(checkpoint))
      val events = withRocksDB {
        spark.read.format("statestore").option("path", checkpoint)
          .option("stateVarName", "events").load()
          .groupBy("key.k").count().collect().map(r => r.getString(0) -> r.getLong(1)).toMap
      }
      assert(events === expected, window)
    }
  }

  /**
   * A session case of the state tests: events of 100 ms every 200 ms in twelve micro-batches of a
   * second (`input`), under `windows`, half the batches, then the rest after a restart from the
   * checkpoint; after each half key a keeps `keptEvents` events and its open session in the state
   * variable `sessionState`, from its start at 0 s; the rows are the batch query's.
   */
  private case class OpenSessionCase(
      name: String,
      windows: Seq[String],
      input: Seq[Seq[StreamEvent]],
      sessionState: String,
      keptEvents: Long)

  Seq(
    // With a gap of 500 ms the session never ends, and its pieces of 2 s close one after the
    // other. The open rows lie in the piece holding the watermark (after six batches 4.3 s:
    // [4 s, 6 s); after twelve, 10.3 s: [10 s, 12 s)): its 10 events are all the state keeps,
    // with the session's start.
    OpenSessionCase(
      "a session that never ends keeps per key the events of its open piece, not all of them",
      Seq(
        "event_session_window(ts, te, '500 milliseconds', '2 seconds')",
        "event_session_window(ts, te, '500 milliseconds', '2 seconds', 'changes')"),
      (0 until 12).map(b =>
        (0 until 5).map(i =>
          ev(
            "a",
            b * 1000L + i * 200L,
            b * 1000L + i * 200L + 100L,
            b * 5L + i))),
      "openSession",
      keptEvents = 10L),
    // With a gap of 500 ms a's session never ends; b's pauses in batches 2 and 3, and its second
    // session ends after batch 8 (at 9.4 s, closed by the final watermark, 10.3 s). At a
    // watermark w, a keeps its events from the latest start at or before w (after six batches,
    // 4.3 s: the one at 4.2 s) and the 8 after w, not its 30 or 60 events: its earlier ones are
    // one aggregation buffer. Under 'changes' the session's rows up to the watermark are
    // emitted, each over every event since 0 s, folded or not.
    OpenSessionCase(
      "a session without max_duration keeps per key its latest events and one buffer",
      Seq(
        "event_session_window(ts, te, '500 milliseconds')",
        "event_session_window(ts, te, '500 milliseconds', NULL, 'changes')"),
      (0 until 12).map(b =>
        (0 until 5).flatMap { i =>
          val t = b * 1000L + i * 200L
          Seq(ev("a", t, t + 100L, b * 5L + i)) ++
            (if (b < 2 || (b >= 4 && b <= 8)) Seq(ev("b", t, t + 100L, 100L + b * 5L + i))
             else Nil)
        }),
      "foldedSession",
      keptEvents = 9L)).foreach { c =>
    test(c.name, SlowTest) {
      for (window <- c.windows) {
        val checkpoint = Files.createTempDirectory("eventwindows-checkpoint").toString
        val stream = newStream()
        def state(name: String) = withRocksDB {
          spark.read.format("statestore").option("path", checkpoint)
            .option("stateVarName", name).load().where("key.k = 'a'")
        }
        // Half the batches, then the rest after a restart from the checkpoint.
        val kept = c.input.grouped(6).map { half =>
          val run = streamed(window, half, checkpoint = Some(checkpoint), stream = stream)
          (run, state("events").count(), state(c.sessionState).selectExpr("value.start").head())
        }.toSeq
        assert(kept.map(_._2) === Seq(c.keptEvents, c.keptEvents), window)
        // The session's start, in microseconds, from which its pieces are counted.
        assert(kept.map(_._3.getLong(0)) === Seq(micros(at(0)), micros(at(0))), window)
        val run = Run(kept.flatMap(_._1.rows), 0L, kept.last._1.watermarkMs, measures)
        agrees(window, sessionClosed, run, c.input.flatten, finalWatermark = 11800 - 1500)
      }
    }
  }

  test("a running window keeps per key its open windows' messages and one buffer for the rest") {
    // After the last batch (watermark 10.5 s) a has 9 messages up to the watermark and one
    // after it (12 s), b 6, c 5. The open windows need the last max(hi, 0) messages up to the
    // watermark (the open anchors) and, for hi < 0, the last -hi (their windows' last messages).
    val firstTimes = Map("a" -> micros(at(0)), "b" -> micros(at(500)), "c" -> micros(at(1200)))
    val kept = Seq(
      "index_window(ts, NULL, 0)" -> (Map("a" -> 1L), Map("a" -> 9L, "b" -> 6L, "c" -> 5L)),
      "index_window(ts, NULL, 2)" ->
        (Map("a" -> 3L, "b" -> 2L, "c" -> 2L), Map("a" -> 7L, "b" -> 4L, "c" -> 3L)),
      "index_window(ts, NULL, -2)" ->
        (Map("a" -> 3L, "b" -> 2L, "c" -> 2L), Map("a" -> 7L, "b" -> 4L, "c" -> 3L)))
    for ((window, (events, folded)) <- kept) {
      val checkpoint = Files.createTempDirectory("eventwindows-checkpoint").toString
      streamed(window, checkpoint = Some(checkpoint))
      def state(name: String) = spark.read.format("statestore").option("path", checkpoint)
        .option("stateVarName", name).load()
      withRocksDB {
        assert(
          state("events").groupBy("key.k").count().collect()
            .map(r => r.getString(0) -> r.getLong(1)).toMap === events,
          window)
        val prefixes = state("progress")
          .selectExpr("key.k", "value.prefixCount", "value.prefixFirstTime").collect()
        assert(prefixes.map(r => r.getString(0) -> r.getLong(1)).toMap === folded, window)
        assert(prefixes.map(r => r.getString(0) -> r.getLong(2)).toMap === firstTimes, window)
      }
    }
  }

  test(
    "random streams (ties, disorder within the delay, late rows) agree with the batch query",
    SlowTest) {
    val random = new scala.util.Random(20240101)
    // Times on a 100 ms grid (ties), up to 2 s before each batch's second (some late).
    val input = (0 until 6).map { b =>
      (0 until 14).map { _ =>
        val t = (b * 1000L + random.nextInt(2600) - 2000) / 100 * 100
        ev(
          Seq("a", "b")(random.nextInt(2)),
          t,
          t + 100L * (1 + random.nextInt(25)),
          random.nextInt(50))
      }
    }
    // A row at or before its micro-batch's late-row watermark is late.
    val watermarks = lateRowWatermarks(input)
    val notLate = input.zip(watermarks).flatMap { case (batch, w) =>
      batch.filter(e => e.ts.getTime - baseMillis > w)
    }
    assert(notLate.size < input.flatten.size, "no late row")
    for ((window, closed) <- randomCases) {
      val run = streamed(window, input)
      if (hoppingCases.contains(window -> closed)) hoppingAgrees(window, run, input)
      else {
        assert(run.droppedByWatermark === input.flatten.size - notLate.size)
        agrees(window, closed, run, notLate, watermarks.last)
      }
    }
  }

  test("events whose columns are all fixed-width are each kept, not the serializer's buffer") {
    val input = batches.map(_.map(e => FixedWidthEvent(e.k.head.toLong, e.ts, e.v)))
    def aggregate(events: DataFrame) = events.groupBy(
      expr("k"),
      expr("time_window(ts, " +
        "'-2 seconds', '0 seconds')")).agg(expr("collect_list(v) AS vs"))
    val stream = MemoryStream[FixedWidthEvent](spark)(Encoders.product[FixedWidthEvent])
    val emitted = new ConcurrentLinkedQueue[Seq[Any]]
    val sink: (DataFrame, Long) => Unit = (b, _) => b.collect().foreach(r => emitted.add(r.toSeq))
    withRocksDB {
      val query = aggregate(stream.toDF().withWatermark("ts", delay)).writeStream
        .outputMode("append").foreachBatch(sink).start()
      try input.foreach { b => stream.addData(b); query.processAllAvailable() }
      finally query.stop()
    }
    val watermark = micros(at(finalWatermarkMs))
    val expected = rows(aggregate(spark.createDataset(input.flatten.filterNot(_.v == late.v))(
      Encoders.product[FixedWidthEvent]).toDF()))
      .filter(r => timeClosed(0L)(r(1).asInstanceOf[Row], watermark))
    assert(expected.nonEmpty)
    assert(sorted(emitted.asScala.toSeq) === sorted(expected))
  }
}
