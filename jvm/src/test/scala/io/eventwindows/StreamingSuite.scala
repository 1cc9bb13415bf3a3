package io.eventwindows

import java.sql.Timestamp
import java.util.concurrent.atomic.AtomicInteger

import io.eventwindows.execution.EventWindowStrategy
import io.eventwindows.plans.EventWindowAggregate

import org.apache.spark.sql.{AnalysisException, DataFrame, Encoders, classic}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.apache.spark.sql.functions.expr

/** A point event `ts` with an end `te` (for interval events) and a value. */
case class StreamEvent(k: String, ts: Timestamp, te: Timestamp, v: Long)

/**
 * Streaming DataFrames: every plan that needs the window operator fails at analysis, naming the
 * function (the operator would window each micro-batch on its own); point events in windows that
 * cannot overlap run as Spark's own streaming aggregation and give the batch answer.
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

  private val queries = new AtomicInteger

  /**
   * Runs `window` over the batches of `input` as a streaming query writing to the memory sink in `mode`,
   * and returns the rows each batch added (with the batches the watermark triggers after it).
   */
  private def streamed(
      window: String, mode: String, input: Seq[Seq[StreamEvent]] = batches)
      : Seq[Seq[Seq[Any]]] = {
    val stream = newStream()
    val name = s"eventwindows_stream_${queries.incrementAndGet()}"
    val query = aggregated(stream.toDF().withWatermark("ts", delay), window)
      .writeStream.format("memory").queryName(name).outputMode(mode).start()
    try {
      var seen = 0
      input.map { batch =>
        stream.addData(batch)
        query.processAllAvailable()
        val all = rows(spark.table(name))
        val added = all.drop(seen)
        seen = all.size
        sorted(added)
      }
    } finally query.stop()
  }

  /** The same aggregation over all the events as a batch DataFrame. */
  private def batchAnswer(window: String): Seq[Seq[Any]] =
    sorted(rows(aggregated(spark.createDataset(batches.flatten)(Encoders.product).toDF(), window)))

  private def rejected(build: DataFrame => DataFrame): String = {
    val events = newStream().toDF()
    intercept[AnalysisException](build(events)).getMessage
  }

  test("every plan that needs the window operator is an analysis error on a stream") {
    val cases = Seq(
      // The query: overlapping hopping windows over point events.
      "hopping_window" -> "hopping_window(ts, '5 seconds', '1 second')",
      "hopping_window" -> "hopping_window(ts, '5 seconds', '1 second', NULL, 'point')",
      "tumbling_window" -> "tumbling_window(ts, te, '2 seconds')",
      "hopping_window" -> "hopping_window(ts, te, '1 second', '2 seconds')")
    // Output 'changes', snapshot, count, index and relative-time windows run on streams through
    // TransformWithState; the families that do not are rejected there (StreamingStateSuite).
    for ((function, window) <- cases) {
      val message = rejected(events => aggregated(events, window))
      assert(message.startsWith(s"$function: streaming DataFrames are not supported yet"),
        s"$window: $message")
    }
    // The same aggregations on a batch DataFrame are fine.
    for ((_, window) <- cases) {
      aggregated(spark.createDataset(firstBatch)(Encoders.product).toDF(), window).collect()
    }
  }

  test("order-sensitive aggregates need the window operator, so they are rejected on a stream") {
    for (aggregate <- Seq("first(v)", "collect_list(v)", "max_by(v, k)")) {
      val message = rejected(_.groupBy(expr("tumbling_window(ts, '2 seconds')"))
        .agg(expr(aggregate)))
      assert(message.contains("tumbling_window: streaming DataFrames are not supported yet"),
        s"$aggregate: $message")
    }
  }

  test("the planner refuses a streaming EventWindowAggregate that skipped the check") {
    newStream().toDF().createOrReplaceTempView("stream_events")
    val session = spark.asInstanceOf[classic.SparkSession].sessionState
    val parsed = session.sqlParser.parsePlan(
      "SELECT k, count(*) FROM stream_events GROUP BY k, hopping_window(ts, te, '1 second', " +
        "'2 seconds')")
    val node = session.analyzer.execute(parsed).collectFirst { case a: EventWindowAggregate => a }
    assert(node.exists(_.isStreaming))
    val e = intercept[AnalysisException](EventWindowStrategy(node.get))
    assert(e.getMessage.startsWith("hopping_window: streaming DataFrames are not supported yet"))
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
      Seq(Seq("a", at(0), at(2), 1L, 1L), Seq("b", at(0), at(2), 1L, 2L),
        Seq("a", at(2), at(4), 2L, 7L)),
      Seq(Seq("a", at(2), at(4), 3L, 17L), Seq("b", at(2), at(4), 1L, 20L),
        Seq("a", at(4), at(6), 1L, 30L), Seq("b", at(4), at(6), 1L, 40L)),
      Seq(Seq("a", at(10), at(12), 1L, 100L))))
    val last = steps.flatten.map(r => (r(0), r(1)) -> r).toMap
    assert(sorted(last.values.toSeq) === batchAnswer(window))
  }

  test("update mode: a late event does not reopen a window the watermark has closed") {
    // After the second batch the watermark is 4.5 s: [0, 2) is closed, its state evicted.
    val late = Seq(event("a", 1, 1000), event("a", 10, 100))
    val steps = streamed("tumbling_window(ts, '2 seconds')", "update",
      Seq(firstBatch, secondBatch, late))
    assert(steps.last === Seq(Seq("a", at(10), at(12), 1L, 100L)))
  }
}
