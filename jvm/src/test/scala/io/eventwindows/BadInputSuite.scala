package io.eventwindows

import org.apache.spark.sql.AnalysisException

/** Every misuse fails early with a message that names the parameter or the row. */
class BadInputSuite extends EventWindowsSuite {

  private val events =
    """WITH events(k, s, e, ts, name) AS (VALUES
      |  ('a', 1L, 5L, TIMESTAMP '2024-01-01 00:00:00', 'x'))
      |""".stripMargin

  /** Analysis of `groupBy` must fail (before any job runs) with all of `fragments`. */
  private def rejected(groupBy: String, fragments: String*): Unit = {
    val e = intercept[AnalysisException] {
      sql(events + s"SELECT count(*) FROM events GROUP BY $groupBy").queryExecution.assertAnalyzed()
    }
    fragments.foreach(f => assert(e.getMessage.contains(f), s"'$f' not in: ${e.getMessage}"))
  }

  test("size and hop must be positive") {
    rejected("hopping_window(s, e, 0L, 1L)", "hopping_window", "`size` must be positive")
    rejected("hopping_window(s, e, 5L, -1L)", "`hop` must be positive")
    rejected("tumbling_window(ts, INTERVAL 0 SECONDS)", "tumbling_window", "`size`")
    rejected("hopping_window(ts, '-5 seconds', '1 second')", "`size` must be positive")
  }

  test("durations must be constant, day-time, and of the right kind for the time type") {
    rejected("hopping_window(ts, '-1 month', '1 day')", "`size` must be positive")
    rejected("hopping_window(ts, 'five seconds', '1 second')", "`size` is not a valid interval")
    rejected("tumbling_window(s, '5 seconds')", "`size` must be an integer number of ticks")
    rejected(
      "tumbling_window(ts, 5.0)",
      "`size` must be an interval string such as '5 seconds' " +
        "or a day-time interval for TIMESTAMP time")
    rejected("hopping_window(s, e, s, 1L)", "`size` must be a constant")
  }

  test("'changes' needs hop <= size") {
    rejected("hopping_window(s, e, 2L, 3L, 0L, 'changes')", "'changes' needs hop <= size")
  }

  test("unknown output policy") {
    rejected(
      "tumbling_window(s, e, 5L, 0L, 'hopping')",
      "`output` must be one of 'window', 'point', 'changes'",
      "'hopping'")
  }

  test("time columns must be time types, and end must match start") {
    rejected(
      "tumbling_window(name, 5L)",
      "`start` must be TIMESTAMP, TIMESTAMP_NTZ or BIGINT",
      "STRING")
    rejected("snapshot_window(s, ts)", "`end` must have the type of `start` (BIGINT)", "TIMESTAMP")
    rejected("snapshot_window(k)", "snapshot_window", "`start` must be")
  }

  test("alignment of the wrong type") {
    rejected("tumbling_window(ts, '5 seconds', 7.5)", "`alignment` must be TIMESTAMP", "DECIMAL")
    rejected(
      "tumbling_window(s, 5L, TIMESTAMP '2024-01-01 00:00:00')",
      "`alignment` must be BIGINT")
    rejected("tumbling_window(ts, '5 seconds', 'not a time')", "`alignment` is not a valid")
  }

  test("a window function outside GROUP BY, or two of them") {
    // In a select list it is placed (as applyInPandas needs its grouping columns), and rejected
    // once the query is planned, before any job runs.
    val e = intercept[AnalysisException] {
      sql(events + "SELECT tumbling_window(s, 5L) FROM events").queryExecution.executedPlan
    }
    assert(e.getMessage.contains("must be used as a GROUP BY expression"))
    val inWhere = intercept[AnalysisException] {
      sql(events + "SELECT s FROM events WHERE tumbling_window(s, 5L).start > 0")
        .queryExecution.assertAnalyzed()
    }
    assert(inWhere.getMessage.contains("must be used as a GROUP BY expression"))
    rejected("tumbling_window(s, 5L), snapshot_window(s, e)", "only one window function")
  }

  test("DISTINCT aggregates are rejected, not silently dropped") {
    val e = intercept[AnalysisException] {
      sql(events + "SELECT count(DISTINCT k) FROM events GROUP BY tumbling_window(s, 5L)")
        .queryExecution.assertAnalyzed()
    }
    assert(e.getMessage.contains("DISTINCT aggregates are not supported"))
    assert((e.getCondition, e.getSqlState) === ("EVENTWINDOWS_UNSUPPORTED", "0A000"))
  }

  test("an aggregate's input or FILTER cannot use the window column") {
    for (query <- Seq(
        "SELECT sum(e - window.start) FROM events GROUP BY snapshot_window(s, e)",
        "SELECT count(*) FILTER (WHERE window.end > 3) FROM events GROUP BY tumbling_window(s, e, 5L)",
        "SELECT max(window.start) FROM events GROUP BY tumbling_window(s, 5L)")) {
      val e = intercept[AnalysisException](sql(events + query).queryExecution.assertAnalyzed())
      assert(e.getMessage.contains("an aggregate's input cannot use the window column"), query)
    }
    // The window in the result is fine: every event of a snapshot window covers all of it.
    assert(rows(sql(events + "SELECT sum(k2) * (window.end - window.start) FROM " +
      "(SELECT s, e, 3L AS k2 FROM events) GROUP BY snapshot_window(s, e)")) === Seq(Seq(12L)))
  }

  test("an event that ends before it starts fails the query, naming the row") {
    val message = errorOf(sql(
      """SELECT id, count(*) FROM VALUES ('ok', 1L, 3L), ('bad', 7L, 4L) AS t(id, s, e)
        |GROUP BY id, snapshot_window(s, e)""".stripMargin).collect())
    assert(message.contains("an event must not end before it starts"))
    assert(
      message.contains("id=bad") && message.contains("s=7") && message.contains("e=4"),
      message)
  }

  test("under 'changes' the user's lifetime is checked, not the snapped one") {
    // Snapped, [3, 2) would become [5, 7): a valid-looking lifetime.
    val message = errorOf(sql(
      """SELECT count(*) FROM VALUES (3L, 2L) AS t(s, e)
        |GROUP BY hopping_window(s, e, 5L, 2L, 0L, 'changes')""".stripMargin).collect())
    assert(
      message.contains("an event must not end before it starts") &&
        message.contains("start 3") && message.contains("end 2"),
      message)
  }

  test("an empty lifetime is in no window") {
    assert(rows(sql(
      """SELECT window.start, count(*) FROM VALUES (2L, 2L), (3L, 4L) AS t(s, e)
        |GROUP BY tumbling_window(s, e, 5L)""".stripMargin)) === Seq(Seq(0L, 1L)))
  }

  test("rows with a NULL start are skipped, as by Spark's window()") {
    assert(rows(sql(
      """SELECT window.start, count(*) FROM VALUES (CAST(NULL AS BIGINT)), (3L) AS t(s)
        |GROUP BY tumbling_window(s, 5L)""".stripMargin)) === Seq(Seq(0L, 1L)))
  }

  test("count windows: n must be a constant integer of at least 1, output 'point' or 'window'") {
    rejected("count_window(s, e, 0)", "count_window", "`n` must be at least 1, got 0")
    rejected("count_window(ts, -2L)", "`n` must be at least 1")
    rejected("count_window(s, e, 1.5)", "`n` must be an integer", "DECIMAL")
    rejected("count_window(s, e, s)", "`n` must be a constant")
    rejected("count_window(s, e, 2, 'changes')", "`output` must be one of 'point', 'window'")
    rejected("count_window(name, 2)", "`start` must be TIMESTAMP, TIMESTAMP_NTZ or BIGINT")
  }

  test("index windows: integer bounds, lo <= hi, hi not NULL") {
    rejected(
      "index_window(s, 1, -1)",
      "index_window",
      "`lo` must not exceed `hi`, got lo 1 > hi -1")
    rejected("index_window(s, -1, CAST(NULL AS INT))", "`hi` must not be NULL")
    rejected("index_window(s, 'a', 0)", "`lo` must be an integer")
    rejected("index_window(name, -1, 0)", "`time` must be TIMESTAMP, TIMESTAMP_NTZ or BIGINT")
    rejected("index_window(s, -1)", "takes 3 or 4 arguments")
  }

  test("relative-time windows: offsets of the time type, lo <= hi, known bounds") {
    rejected("time_window(s, 2, 1)", "time_window", "`lo` must not exceed `hi`")
    rejected("time_window(ts, '5 seconds', '-5 seconds')", "`lo` must not exceed `hi`")
    rejected("time_window(s, -1, 1, '[[')", "`bounds` must be one of '[]', '[)', '(]', '()'")
    rejected("time_window(s, '-5 seconds', 0)", "`lo` must be an integer number of ticks")
    rejected("time_window(ts, '-1 month', '0 seconds')", "`lo` must not have months")
    rejected("time_window(name, -1, 1)", "`time` must be TIMESTAMP, TIMESTAMP_NTZ or BIGINT")
  }
}
