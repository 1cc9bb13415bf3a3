package io.eventwindows

import org.apache.spark.sql.{Encoder, Encoders}
import org.apache.spark.sql.expressions.Aggregator
import org.apache.spark.sql.functions.{call_function, col, lit, udaf}

/** Average of longs as a typed `Aggregator`, to show user-defined aggregates over windows. */
object LongAverage extends Aggregator[Long, (Long, Long), Double] {
  override def zero: (Long, Long) = (0L, 0L)
  override def reduce(b: (Long, Long), a: Long): (Long, Long) = (b._1 + a, b._2 + 1)
  override def merge(x: (Long, Long), y: (Long, Long)): (Long, Long) = (x._1 + y._1, x._2 + y._2)
  override def finish(r: (Long, Long)): Double = r._1.toDouble / r._2
  override def bufferEncoder: Encoder[(Long, Long)] =
    Encoders.tuple(Encoders.scalaLong, Encoders.scalaLong)
  override def outputEncoder: Encoder[Double] = Encoders.scalaDouble
}

/**
 * Spark's own aggregates over event windows, on tumbling windows of 10 ticks over
 * (k, t, v): a: (1,1) (2,5) (12,7) (15,2) (15,9); b: (3,4).
 */
class AggregatesSuite extends EventWindowsSuite {

  private val events =
    """WITH events(k, t, v) AS (VALUES ('a', 1L, 1L), ('a', 2L, 5L), ('a', 12L, 7L),
      |  ('a', 15L, 2L), ('a', 15L, 9L), ('b', 3L, 4L))
      |""".stripMargin

  /**
   * The rows of a query over `tumbling_window(t, 10L)`, which point events with order-insensitive
   * aggregates run as Spark's hash aggregate, after checking that the window operator gives the
   * same rows for the same events written as one-tick interval events, `tumbling_window(t, t + 1,
   * 10L)`: both plans run the aggregates, each with its own machinery.
   */
  private def bothPlans(template: String): Seq[Seq[Any]] = {
    val points = rows(sql(events + template.replace("WINDOW", "tumbling_window(t, 10L)")))
    val intervals = rows(sql(events + template.replace("WINDOW", "tumbling_window(t, t + 1, 10L)")))
    assert(points === intervals, template)
    points
  }

  private def query(aggregates: String, more: String = "") = bothPlans(
    s"""SELECT k, window.start, $aggregates FROM events
       |GROUP BY k, WINDOW $more ORDER BY k, window.start""".stripMargin)

  test("declarative built-ins") {
    assert(query("count(*), sum(v), avg(v), min(v), max(v)") === Seq(
      Seq("a", 0L, 2L, 6L, 3.0, 1L, 5L),
      Seq("a", 10L, 3L, 18L, 6.0, 2L, 9L),
      Seq("b", 0L, 1L, 4L, 4.0, 4L, 4L)))
    val sd = query("stddev_samp(v)")
    assert(math.abs(sd(1)(2).asInstanceOf[Double] - math.sqrt(13.0)) < 1e-12)
  }

  test("order-sensitive and imperative aggregates see events in time order") {
    assert(query("first(v), last(v), collect_list(v), percentile_approx(v, 0.5)") === Seq(
      Seq("a", 0L, 1L, 5L, Seq(1L, 5L), 1L),
      Seq("a", 10L, 7L, 9L, Seq(7L, 2L, 9L), 7L),
      Seq("b", 0L, 4L, 4L, Seq(4L), 4L)))
  }

  test("a typed Aggregator UDAF, from the DataFrame API") {
    val df = sql(events + "SELECT * FROM events")
    val average = udaf(LongAverage)
    val result = df.groupBy(col("k"), call_function("tumbling_window", col("t"), lit(10L)))
      .agg(average(col("v")).as("avg"))
      .orderBy("k", "window.start")
      .select("k", "window.start", "avg")
    assert(rows(result) === Seq(Seq("a", 0L, 3.0), Seq("a", 10L, 6.0), Seq("b", 0L, 4.0)))
  }

  test("FILTER, HAVING and expressions over aggregates and keys") {
    assert(query(
      "count(*) FILTER (WHERE v > 4), sum(v) * 2 + 1, upper(k)",
      "HAVING count(*) > 1") === Seq(
      Seq("a", 0L, 1L, 13L, "A"),
      Seq("a", 10L, 2L, 37L, "A")))
  }

  test("grouping by an expression, and by no key at all") {
    assert(bothPlans(
      """SELECT k = 'a' AS isA, window.start, count(*) FROM events
        |GROUP BY k = 'a', WINDOW ORDER BY 1, 2""".stripMargin) === Seq(
      Seq(false, 0L, 1L),
      Seq(true, 0L, 2L),
      Seq(true, 10L, 3L)))
    assert(bothPlans("SELECT window.end, count(*) FROM events GROUP BY WINDOW ORDER BY 1") ===
      Seq(Seq(10L, 3L), Seq(20L, 3L)))
  }

  test("in a snapshot window every event's clipped lifetime is the window") {
    // Snapshot windows of [0,4) and [2,6): [0,2) {x}, [2,4) {x, y}, [4,6) {y}. Each event's
    // clipped lifetime is the window itself, so the time-weighted sum is sum(v) * duration.
    val result = rows(sql(
      """SELECT window.start, window.end,
        |  sum(v) * (window.end - window.start) AS weighted
        |FROM VALUES ('x', 0L, 4L, 10L), ('y', 2L, 6L, 1L) AS t(id, s, e, v)
        |GROUP BY snapshot_window(s, e) ORDER BY 1""".stripMargin))
    assert(result === Seq(Seq(0L, 2L, 20L), Seq(2L, 4L, 22L), Seq(4L, 6L, 2L)))
  }
}
