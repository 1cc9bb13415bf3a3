package io.eventwindows

import java.sql.Timestamp

import org.apache.spark.sql.{classic, AnalysisException, DataFrame, Encoders}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.streaming.StreamingQuery

import io.eventwindows.execution.EventWindowStrategy
import io.eventwindows.plans.EventWindowAggregate

/** A point event `ts` with an end `te` (for interval events) and a value. */
case class StreamEvent(k: String, ts: Timestamp, te: Timestamp, v: Long)

/**
 * Streaming DataFrames: hopping and tumbling windows under 'window' and 'point' output, with
 * order-insensitive aggregates, run as Spark's own streaming aggregation and give the batch answer
 * of every window the watermark has closed. (With order-sensitive aggregates they run through
 * TransformWithState, as the other families: StreamingStateSuite.)
 *
 * The scenario throughout: events at 00:00:00-00:00:03 in the first micro-batch and at
 * 00:00:02-00:00:05 in the second (a third pushes the watermark on).
 */
class StreamingSuite extends EventWindowsSuite {

  private def at(seconds: Int, micros: Int = 0): Timestamp = {
    val t = ts(f"2024-01-01 00:00:$seconds%02d")
    t.setNanos(micros * 1000)
    t
  }

  private def event(k: String, second: Int, v: Long) =
    StreamEvent(k, at(second), at(second + 1), v)

  private val firstBatch =
    Seq(event("a", 0, 1), event("b", 1, 2), event("a", 2, 3), event("a", 3, 4))
  private val secondBatch =
    Seq(event("a", 2, 10), event("b", 3, 20), event("a", 4, 30), event("b", 5, 40))
  private val thirdBatch = Seq(event("a", 10, 100))
  private val batches = Seq(firstBatch, secondBatch, thirdBatch)

  /** 500 ms: the watermark is 2.5 s, 4.5 s, 9.5 s after the batches, never on a boundary. */
  private val delay = "500 milliseconds"

  private def newStream() = MemoryStream[StreamEvent](spark)(Encoders.product[StreamEvent])

  private def aggregated(events: DataFrame, window: String): DataFrame =
    events.groupBy(expr("k"), expr(window)).agg(expr("count(*) AS n"), expr("sum(v) AS total"))
      .selectExpr("k", "window.start", "window.end", "n", "total")

  private def sorted(rows: Seq[Seq[Any]]): Seq[Seq[Any]] =
    rows.sortBy(r => (r(1).toString, r(0).toString))

  /**
   * Runs `window` over the batches of `input` as a streaming query in output `mode` (from
   * `stream`, and from `checkpoint` if given), and returns the rows each batch added (with the
   * batches the watermark triggers after it); `last` sees the query and the rows of its last
   * micro-batch before it stops.
   */
  private def streamed(
      window: String,
      mode: String,
      input: Seq[Seq[StreamEvent]] = batches,
      stream: MemoryStream[StreamEvent] = newStream(),
      checkpoint: Option[String] = None,
      last: (StreamingQuery, Seq[Seq[Any]]) => Unit = (_, _) => ()): Seq[Seq[Seq[Any]]] = {
    val microBatches = new java.util.concurrent.ConcurrentLinkedQueue[Seq[Seq[Any]]]
    var lastMicroBatch = Seq.empty[Seq[Any]]
    val writer = aggregated(stream.toDF().withWatermark("ts", delay), window)
      .writeStream.outputMode(mode)
      .foreachBatch((batch: DataFrame, _: Long) => microBatches.add(rows(batch)): Unit)
    val query = checkpoint.fold(writer)(writer.option("checkpointLocation", _)).start()
    try {
      val steps = input.map { batch =>
        stream.addData(batch)
        query.processAllAvailable()
        val added = Iterator.continually(microBatches.poll()).takeWhile(_ != null).toSeq
        added.lastOption.foreach(lastMicroBatch = _)
        sorted(added.flatten)
      }
      last(query, sorted(lastMicroBatch))
      steps
    } finally query.stop()
  }

  /** The same aggregation over all the events as a batch DataFrame. */
  private def batchAnswer(window: String, input: Seq[Seq[StreamEvent]] = batches): Seq[Seq[Any]] =
    sorted(rows(aggregated(spark.createDataset(input.flatten)(Encoders.product).toDF(), window)))

  /** The watermark after [[batches]]: their latest event time, 00:00:10, less the delay. */
  private val finalWatermark = at(9, 500000)

  /** The rows of windows that Spark has evicted at `watermark`: those ending at or before it. */
  private def closedBy(watermark: Timestamp)(answer: Seq[Seq[Any]]): Seq[Seq[Any]] =
    answer.filter(_(2).asInstanceOf[Timestamp].compareTo(watermark) <= 0)

  test("the planner refuses a streaming EventWindowAggregate that skipped the check") {
    newStream().toDF().createOrReplaceTempView("stream_events")
    val session = spark.asInstanceOf[classic.SparkSession].sessionState
    val parsed = session.sqlParser.parsePlan(
      "SELECT k, count(*) FROM stream_events " +
        "GROUP BY k, spl_tumbling_window(ts, 'count(2)', flush_at_end => true)")
    val node = session.analyzer.execute(parsed).collectFirst { case a: EventWindowAggregate => a }
    assert(node.exists(_.isStreaming))
    val e = intercept[AnalysisException](EventWindowStrategy(node.get))
    assert(
      e.getMessage.startsWith("[EVENTWINDOWS_UNSUPPORTED] spl_tumbling_window: " +
        "`flush_at_end` => true is not supported on streaming DataFrames"),
      e.getMessage)
  }

  // Tumbling 2 s windows [0, 2), [2, 4), [4, 6), [10, 12); hopping 1 s every 2 s: [0, 1),
  // [2, 3), [4, 5), [10, 11), the others' events in gaps. A window is emitted in append mode
  // once the watermark (2.5 s, 4.5 s, 9.5 s after the batches) reaches its output end.
  private val appendCases = Seq(
    "tumbling_window(ts, '2 seconds')" -> Seq(
      Seq(Seq("a", at(0), at(2), 1L, 1L), Seq("b", at(0), at(2), 1L, 2L)),
      Seq(Seq("a", at(2), at(4), 3L, 17L), Seq("b", at(2), at(4), 1L, 20L)),
      Seq(Seq("a", at(4), at(6), 1L, 30L), Seq("b", at(4), at(6), 1L, 40L))),
    // A point event at each window's end, lasting 1 microsecond.
    "tumbling_window(ts, '2 seconds', NULL, 'point')" -> Seq(
      Seq(Seq("a", at(2), at(2, 1), 1L, 1L), Seq("b", at(2), at(2, 1), 1L, 2L)),
      Seq(Seq("a", at(4), at(4, 1), 3L, 17L), Seq("b", at(4), at(4, 1), 1L, 20L)),
      Seq(Seq("a", at(6), at(6, 1), 1L, 30L), Seq("b", at(6), at(6, 1), 1L, 40L))),
    "hopping_window(ts, '1 second', '2 seconds')" -> Seq(
      Seq(Seq("a", at(0), at(1), 1L, 1L)),
      Seq(Seq("a", at(2), at(3), 2L, 13L)),
      Seq(Seq("a", at(4), at(5), 1L, 30L))))

  for ((window, expected) <- appendCases) {
    test(s"append mode with a watermark: $window gives each window once, when complete") {
      val steps = streamed(window, "append")
      assert(steps === expected)
      // All of it is the batch answer over all the events, but for the windows the watermark
      // has not passed yet (those of the event at 00:00:10).
      val open = at(10)
      assert(sorted(steps.flatten) ===
        batchAnswer(window).filterNot(_(1).asInstanceOf[Timestamp].compareTo(open) >= 0))
    }
  }

  test("update mode: each batch updates its windows; the last value of each is the batch answer") {
    val window = "tumbling_window(ts, '2 seconds')"
    val steps = streamed(window, "update")
    assert(steps === Seq(
      Seq(
        Seq("a", at(0), at(2), 1L, 1L),
        Seq("b", at(0), at(2), 1L, 2L),
        Seq("a", at(2), at(4), 2L, 7L)),
      Seq(
        Seq("a", at(2), at(4), 3L, 17L),
        Seq("b", at(2), at(4), 1L, 20L),
        Seq("a", at(4), at(6), 1L, 30L),
        Seq("b", at(4), at(6), 1L, 40L)),
      Seq(Seq("a", at(10), at(12), 1L, 100L))))
    val last = steps.flatten.map(r => (r(0), r(1)) -> r).toMap
    assert(sorted(last.values.toSeq) === batchAnswer(window))
  }

  test("update mode: a late event does not reopen a window the watermark has closed") {
    // After the second batch the watermark is 4.5 s: [0, 2) is closed, its state evicted.
    val late = Seq(event("a", 1, 1000), event("a", 10, 100))
    val steps = streamed(
      "tumbling_window(ts, '2 seconds')",
      "update",
      Seq(firstBatch, secondBatch, late))
    assert(steps.last === Seq(Seq("a", at(10), at(12), 1L, 100L)))
  }

  // Overlapping windows and interval events: Spark's own streaming aggregation over every window
  // of each event. Windows end on whole seconds or at .75, never at a watermark, and none that
  // closes early has a late event.
  private val explodedCases = Seq(
    "hopping_window(ts, '5 seconds', '1 second')",
    "hopping_window(ts, '3 seconds', '1 second', NULL, 'point')",
    "hopping_window(ts, te, '3 seconds', '1 second')",
    "tumbling_window(ts, te, '2 seconds', NULL, 'point')",
    "hopping_window(ts, te, '1 second', '2 seconds')",
    "hopping_window(ts, te, '2 seconds', '1 second', '750 milliseconds')")

  for (window <- explodedCases) {
    test(s"append mode: $window gives the batch answer of each closed window, once") {
      val steps = streamed(window, "append")
      assert(steps.flatten.nonEmpty)
      assert(sorted(steps.flatten) === closedBy(finalWatermark)(batchAnswer(window)))
    }
  }

  test("overlapping windows on a stream: each event in each of its windows, as worked out") {
    // Hopping 3 s every 1 s over the first batch (a at 0, 2, 3 with values 1, 3, 4; b at 1 with
    // 2), watermark 2.5 s after it, then 4.5 s: windows ending by 2.5 s, then by 4.5 s.
    val steps = streamed(
      "hopping_window(ts, '3 seconds', '1 second')",
      "append",
      Seq(firstBatch, Seq(event("b", 5, 0))))
    assert(steps === Seq(
      Seq(
        Seq("a", ts("2023-12-31 23:59:58"), at(1), 1L, 1L),
        Seq("a", ts("2023-12-31 23:59:59"), at(2), 1L, 1L),
        Seq("b", ts("2023-12-31 23:59:59"), at(2), 1L, 2L)),
      Seq(
        Seq("a", at(0), at(3), 2L, 4L),
        Seq("b", at(0), at(3), 1L, 2L),
        Seq("a", at(1), at(4), 2L, 7L),
        Seq("b", at(1), at(4), 1L, 2L))))
  }

  test("complete mode: every window so far after each batch; after the last, the batch answer") {
    val window = "hopping_window(ts, te, '3 seconds', '1 second')"
    var table = Seq.empty[Seq[Any]]
    streamed(window, "complete", last = (_, rows) => table = rows)
    assert(table === batchAnswer(window))
  }

  test(
    "a query restarted from its checkpoint between batches repeats and loses nothing",
    SlowTest) {
    val window = "hopping_window(ts, te, '3 seconds', '1 second')"
    val stream = newStream()
    val checkpoint = java.nio.file.Files.createTempDirectory("eventwindows-checkpoint").toString
    val before = streamed(window, "append", batches.take(2), stream, Some(checkpoint))
    val after = streamed(window, "append", batches.drop(2), stream, Some(checkpoint))
    assert(before.flatten.nonEmpty && after.flatten.nonEmpty)
    assert(sorted(before.flatten ++ after.flatten) ===
      closedBy(finalWatermark)(batchAnswer(window)))
  }

  test("a changed window against the checkpoint of another fails the query, not wrong rows") {
    val stream = newStream()
    val checkpoint = java.nio.file.Files.createTempDirectory("eventwindows-checkpoint").toString
    streamed(
      "hopping_window(ts, '3 seconds', '1 second')",
      "append",
      batches.take(2),
      stream,
      Some(checkpoint))
    // Windows of the old definition are still open in the state: the next batch closes them.
    val message = errorOf(streamed(
      "hopping_window(ts, '2 seconds', '1 second')",
      "append",
      batches.drop(2),
      stream,
      Some(checkpoint)))
    assert(
      message.contains("hopping_window: the checkpoint holds the state of another window " +
        "definition, not of this query's [hopping_window Hopping(2000000,1000000,0,window,None) " +
        "start=ts end=point]; a changed window definition needs a new checkpoint location"),
      message)
    assert(message.contains("[EVENTWINDOWS_CHECKPOINT_MISMATCH]"), message)
  }

  test("late rows are dropped from their closed windows and counted in the progress") {
    // After the second batch the watermark is 4.5 s: the late event's window [1, 4) is closed
    // and drops it; it still counts in [2, 5) and [3, 6).
    val late = Seq(event("a", 3, 1000), event("a", 10, 100))
    var dropped = 0L
    val steps = streamed(
      "hopping_window(ts, '3 seconds', '1 second')",
      "update",
      Seq(firstBatch, secondBatch, late),
      last = (q, _) =>
        dropped = q.recentProgress.flatMap(_.stateOperators)
          .map(_.numRowsDroppedByWatermark).sum)
    assert(dropped > 0)
    assert(steps.last.filter(r => r(0) == "a" && r(1) == at(3)) ===
      Seq(Seq("a", at(3), at(6), 3L, 1034L)))
  }

  test("an open-ended event on a stream fails the query, naming it, unless there is a horizon") {
    val openEnded = Seq(StreamEvent("a", at(1), null, 5L), event("a", 3, 1))
    val message = errorOf(
      streamed("hopping_window(ts, te, '2 seconds', '1 second')", "append", Seq(openEnded)))
    assert(
      message.contains("hopping_window: the event starting at " +
        "2024-01-01 00:00:01 is open-ended (NULL end): on a stream it would lie in windows " +
        "without end."),
      message)
    // With a horizon it lasts through 00:00:06, as in a batch.
    val window = "hopping_window(ts, te, '2 seconds', '1 second', NULL, 'window', " +
      "TIMESTAMP'2024-01-01 00:00:06')"
    val input = Seq(openEnded, Seq(event("b", 10, 0)))
    val steps = streamed(window, "append", input)
    assert(steps.flatten.count(_(0) == "a") === 7) // [0, 2) to [6, 8): the event's 7 windows.
    assert(sorted(steps.flatten) === closedBy(finalWatermark)(batchAnswer(window, input)))
  }

  test("an event in more than a million windows fails the query, pointing to 'changes'") {
    // 2 s windows [w, w + 2 s) every microsecond: the event [0, 1 s) lies in those with
    // -2 s < w < 1 s, 2,999,999 of them, each a row.
    val message = errorOf(streamed(
      "hopping_window(ts, te, '2 seconds', '1 microsecond')",
      "append",
      Seq(Seq(event("a", 0, 1)))))
    assert(
      message.contains("hopping_window: the event from 2024-01-01 00:00:00 to " +
        "2024-01-01 00:00:01 lies in 2999999 windows, more than the limit of 1000000 for one event " +
        "(spark.eventwindows.maxWindowsPerEvent): each window is a row. Use output 'changes'"),
      message)
  }

  test("append mode without a watermark is Spark's own error, as for window(); update mode runs") {
    val stream = newStream()
    val counted = stream.toDF()
      .groupBy(expr("hopping_window(ts, '3 seconds', '1 second')")).agg(expr("count(*) AS n"))
    val message = errorOf(counted.writeStream.outputMode("append").format("memory")
      .queryName("eventwindows_no_watermark").start().stop())
    assert(
      message.contains("This output mode is not supported for streaming aggregations " +
        "without watermark"),
      message)
    val query = counted.writeStream.outputMode("update").format("memory")
      .queryName("eventwindows_no_watermark_update").start()
    try {
      stream.addData(firstBatch)
      query.processAllAvailable()
      // Windows [n, n + 3) over events at 0, 1, 2, 3 s: the counts of n = -2 to 3.
      assert(rows(spark.table("eventwindows_no_watermark_update").orderBy("window"))
        .map(_(1)) === Seq(1L, 2L, 3L, 3L, 2L, 1L))
    } finally query.stop()
  }
}
