package io.eventwindows

import scala.util.Random

import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.execution.debug.codegenString

import io.eventwindows.execution.EventWindowAggregateExec
import io.eventwindows.expressions.EventTime

/**
 * Point events in windows that cannot overlap (tumbling, or hopping with gaps) under per-window
 * output are planned as Spark's own hash aggregate over `point_event_window`; everything else
 * goes through the window operator. Both plans must give the same rows.
 */
class PointEventWindowSuite extends EventWindowsSuite {
  private def physicalPlan(query: String) = sql(query).queryExecution.sparkPlan

  test("point events in tumbling windows: a hash aggregate over point_event_window, in codegen") {
    val query = "SELECT id % 3 AS k, window, count(*), sum(id) FROM range(100) " +
      "GROUP BY id % 3, tumbling_window(id, 7L)"
    val plan = physicalPlan(query)
    assert(plan.exists(_.isInstanceOf[HashAggregateExec]))
    assert(!plan.exists(_.isInstanceOf[EventWindowAggregateExec]))
    val df = sql(query)
    df.collect()
    assert(codegenString(df.queryExecution.executedPlan).contains("PointEventWindow.windowOf"))
    // Windows [7n, 7n + 7); k = id % 3. Worked out directly: the ids of window n with id % 3 = k.
    val expected = for {
      n <- 0L to 14L; k <- 0L to 2L
      ids = (7 * n until math.min(7 * n + 7, 100)).filter(_ % 3 == k) if ids.nonEmpty
    } yield Seq(k, 7 * n, 7 * n + 7, ids.size.toLong, ids.sum)
    assert(rows(df.selectExpr("k", "window.start", "window.end", "`count(1)`", "`sum(id)`")
      .orderBy("start", "k")) === expected)
  }

  test("overlapping windows, interval events, 'changes' and order-sensitive aggregates keep " +
    "the window operator") {
    for (groupBy <- Seq(
        "hopping_window(id, 7L, 3L)",
        "tumbling_window(id, id + 2, 7L)",
        "tumbling_window(id, 7L, 0L, 'changes')",
        "snapshot_window(id)")) {
      val plan = physicalPlan(s"SELECT count(*) FROM range(10) GROUP BY $groupBy")
      assert(plan.exists(_.isInstanceOf[EventWindowAggregateExec]), groupBy)
    }
    // The operator feeds events in time order; Spark's hash aggregate does not.
    for (aggregate <- Seq(
        "first(id)",
        "last(id)",
        "collect_list(id)",
        "max_by(id, id % 2)",
        "percentile_approx(id, 0.5)")) {
      val plan = physicalPlan(s"SELECT $aggregate FROM range(10) GROUP BY tumbling_window(id, 7L)")
      assert(plan.exists(_.isInstanceOf[EventWindowAggregateExec]), aggregate)
    }
    val gaps = physicalPlan("SELECT count(*) FROM range(10) GROUP BY hopping_window(id, 2L, 5L)")
    assert(!gaps.exists(_.isInstanceOf[EventWindowAggregateExec]))
  }

  /**
   * Random point events, with times near both ends of the time line, as (k, s, e) where e is the
   * one-tick end the operator gives a point event (`e == s` at the end of time: an empty lifetime).
   */
  private def pointEvents(
      seed: Long,
      lineMin: Long,
      lineMax: Long): Seq[(Int, Option[Long], Long)] = {
    val rng = new Random(seed)
    val edges =
      Seq(lineMin, lineMin + 1, lineMin + 5, lineMax - 5, lineMax - 1, lineMax, -3L, 0L, 4L)
    Seq.fill(900) {
      val s = rng.nextInt(4) match {
        case 0 => edges(rng.nextInt(edges.size))
        case 1 => rng.nextLong() % 50
        case 2 => edges(rng.nextInt(edges.size)) + (if (rng.nextBoolean()) 2L else -2L)
        case _ if lineMax - lineMin < 0 => rng.nextLong() // The whole range of Long.
        case _ => lineMin + Math.floorMod(rng.nextLong(), lineMax - lineMin)
      }
      val clamped = math.max(lineMin, math.min(lineMax, s))
      (rng.nextInt(3), if (rng.nextInt(20) == 0) None else Some(clamped), rng.nextInt(100))
    }.map { case (k, s, v) => (k, s, v.toLong) }
  }

  private def compareWithOperator(
      time: String,
      lineMin: Long,
      lineMax: Long,
      window: String => String): Unit = {
    // One query over many events: a query costs more than its events.
    val events = pointEvents(1L, lineMin, lineMax).map { case (k, s, v) =>
      (k, s, s.map(t => math.min(t + (if (t == Long.MaxValue) 0 else 1), lineMax)), v)
    }
    val session = spark
    import session.implicits._
    events.toDF("k", "s", "e", "v").createOrReplaceTempView("raw_points")
    val view = if (time == "BIGINT") "raw_points"
    else
      "(SELECT k, timestamp_micros(s) AS s, timestamp_micros(e) AS e, v FROM raw_points)"
    def run(call: String) = rows(sql(
      s"""SELECT k, window, count(*), sum(v), min(v), max(v) FROM $view
         |GROUP BY k, $call ORDER BY k, window.start""".stripMargin))
    val fast = run(window("s"))
    assert(!sql(s"SELECT count(*) FROM $view GROUP BY ${window("s")}").queryExecution.sparkPlan
      .exists(_.isInstanceOf[EventWindowAggregateExec]))
    val operator = run(window("s, e"))
    assert(fast === operator, s"$time ${window("s")}")
    assert(fast.nonEmpty)
  }

  test("the hash aggregate plan gives the operator's rows, up to both ends of BIGINT time") {
    for (window <- Seq[String => String](
        lifetime => s"tumbling_window($lifetime, 7L)",
        lifetime => s"tumbling_window($lifetime, 1000000000000000000L, 3L, 'point')",
        lifetime => s"hopping_window($lifetime, 3L, 10L, (-9223372036854775807L), 'window')",
        lifetime => s"hopping_window($lifetime, 4L, 9L, 2L, 'point')")) {
      compareWithOperator("BIGINT", Long.MinValue, Long.MaxValue, window)
    }
  }

  test("the hash aggregate plan gives the operator's rows, up to both ends of TIMESTAMP time") {
    for (window <- Seq[String => String](
        lifetime => s"tumbling_window($lifetime, INTERVAL 7 SECONDS, '2000-01-01 00:00:01')",
        lifetime =>
          s"hopping_window($lifetime, '3 microseconds', '10 microseconds', NULL, 'point')")) {
      compareWithOperator("TIMESTAMP", EventTime.TimestampMin, EventTime.TimestampMax, window)
    }
  }
}
