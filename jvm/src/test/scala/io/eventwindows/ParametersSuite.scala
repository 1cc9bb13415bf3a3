package io.eventwindows

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal}
import org.apache.spark.sql.types.{IntegerType, LongType, TimestampType}

import io.eventwindows.expressions.WindowParameters

/**
 * Constant parameters follow Spark's own functions: every integral type widens to the BIGINT a
 * parameter needs, and for timestamps what Spark's window() takes for a duration or a start time
 * (an interval string, a day-time interval, an integer number of microseconds) is accepted.
 */
class ParametersSuite extends EventWindowsSuite {

  /** Interval events A [1, 4), B [6, 7), C [3, 12) and the open-ended D from 14. */
  private val bigintEvents =
    """WITH events(k, s, e) AS (VALUES
      |  ('a', 1L, 4L), ('a', 6L, 7L), ('b', 3L, 12L), ('c', 14L, CAST(NULL AS BIGINT)))
      |""".stripMargin

  private def windows(events: String, groupBy: String): Seq[Seq[Any]] =
    rows(sql(events + s"SELECT window.start, window.end, count(*) FROM events " +
      s"GROUP BY $groupBy ORDER BY 1"))

  /** Each spelling of the same constants must give the rows of the BIGINT spelling. */
  private def sameRows(
      events: String,
      call: Seq[String] => String,
      bigint: Seq[String],
      others: Seq[String]*): Seq[Seq[Any]] = {
    val expected = windows(events, call(bigint))
    for (spelling <- others) {
      assert(windows(events, call(spelling)) === expected, call(spelling))
    }
    expected
  }

  test("BIGINT time: size, hop, alignment and horizon as INT, SMALLINT, TINYINT and INT " +
    "arithmetic") {
    // hopping_window(s, e, 6, 5, -3, 'window', 20): windows [-3 + 5n, 3 + 5n).
    // A meets [-3, 3) and [2, 8); B meets [2, 8); C meets [2, 8) and [7, 13); D lasts through
    // the horizon 20, so [14, 21) meets [12, 18) and [17, 23).
    val expected = sameRows(
      bigintEvents,
      p => s"hopping_window(s, e, ${p(0)}, ${p(1)}, ${p(2)}, 'window', ${p(3)})",
      Seq("6L", "5L", "-3L", "20L"),
      Seq("6", "5", "-3", "20"),
      Seq("6S", "5S", "-3S", "20S"),
      Seq("CAST(6 AS TINYINT)", "5Y", "-3Y", "20Y"),
      Seq("2 + 4", "10 - 5", "1 - 4", "4 * 5"))
    assert(expected === Seq(
      Seq(-3L, 3L, 1L),
      Seq(2L, 8L, 3L),
      Seq(7L, 13L, 1L),
      Seq(12L, 18L, 1L),
      Seq(17L, 23L, 1L)))
    // The issue's two calls.
    assert(windows(bigintEvents, "hopping_window(s, e, 6, 5, -5)") ===
      windows(bigintEvents, "hopping_window(s, e, 6L, 5L, -5L)"))
    assert(windows(bigintEvents, "hopping_window(s, e, 5, 1, 0, 'window')") ===
      windows(bigintEvents, "hopping_window(s, e, 5L, 1L, 0L, 'window')"))
    sameRows(
      bigintEvents,
      p => s"tumbling_window(s, e, ${p(0)}, ${p(1)}, 'changes')",
      Seq("5L", "2L"),
      Seq("5", "2"),
      Seq("5S", "2Y"),
      Seq("2 + 3", "1 + 1"))
  }

  test("BIGINT time: the scalar helpers take any integral constant, and snap_to_boundary any " +
    "integral column") {
    // snap_to_boundary(6, 2, 5) = 2 and (-1, 2, 5) = -3; windows [1 + 2n, 6 + 2n): the earliest
    // holding 3 is [-1, 4), the latest starting before 10 is [9, 14), and 14 + 2 = 16.
    val query = (p: Seq[String]) =>
      s"SELECT snap_to_boundary(6L, ${p(0)}, ${p(1)}), " +
        s"snap_to_boundary(-1L, ${p(0)}, ${p(1)}), adjust_start_time(3L, ${p(2)}, ${p(3)}, " +
        s"${p(4)}), adjust_end_time(10L, ${p(2)}, ${p(3)}, ${p(4)})"
    val expected = Seq(Seq(2L, -3L, 4L, 16L))
    for (spelling <- Seq(
        Seq("2L", "5L", "5L", "2L", "1L"),
        Seq("2", "5", "5", "2", "1"),
        Seq("2S", "5Y", "5S", "2Y", "CAST(1 AS SMALLINT)"),
        Seq("1 + 1", "2 + 3", "7 - 2", "1 + 1", "3 - 2"))) {
      assert(rows(sql(query(spelling))) === expected, spelling)
    }
    // `/` gives a DOUBLE, which is no integer: a clear error, not a silent truncation.
    assert(errorOf(sql("SELECT adjust_start_time(3L, 10 / 2, 2)")).contains(
      "adjust_start_time: `size` must be an integer number of ticks for BIGINT time, got DOUBLE"))
    assert(rows(sql("SELECT snap_to_boundary(t, a, p) FROM VALUES (6L, 2, 5S) AS v(t, a, p)")) ===
      Seq(Seq(2L)))
  }

  /** Point events at 00:00:00, 00:00:01 and 00:00:04 (2024-01-01 00:00:00 is a multiple of 3 s). */
  private val timestampEvents =
    """WITH events(s) AS (VALUES (TIMESTAMP '2024-01-01 00:00:00'),
      |  (TIMESTAMP '2024-01-01 00:00:01'), (TIMESTAMP '2024-01-01 00:00:04'))
      |""".stripMargin

  test("timestamps: a bare integer size or hop is an error saying what to write") {
    // Python's F.window refuses an integer duration; Spark's SQL window() reads it as
    // microseconds, which made 600 microsecond windows of a size meant as 600 seconds.
    rejected(
      timestampEvents,
      "hopping_window(s, 4000000, '2 seconds')",
      "hopping_window: `size` must be an interval string such as '5 seconds' or a day-time " +
        "interval for TIMESTAMP time, got the integer 4000000",
      "for microseconds write '4000000 microseconds'")
    rejected(timestampEvents, "tumbling_window(s, 3000000L)", "`size`", "the integer 3000000")
    rejected(
      timestampEvents,
      "hopping_window(s, '4 seconds', 2 * 1000000)",
      "`hop`",
      "the integer 2000000")
    sameRows(
      timestampEvents,
      p => s"hopping_window(s, ${p(0)}, ${p(1)})",
      Seq("'4 seconds'", "'2 seconds'"),
      Seq("'4000000 microseconds'", "'2000000 microseconds'"),
      Seq("INTERVAL 4 SECONDS", "INTERVAL '2' SECOND"))
  }

  test("timestamps: the alignment as an offset from the epoch, as window()'s start time") {
    // 3 s windows aligned on 00:00:01: [23:59:58, 00:00:01), [00:00:01, 00:00:04), [00:00:04, ...)
    val plusOne = sameRows(
      timestampEvents,
      p => s"tumbling_window(s, '3 seconds', ${p.head})",
      Seq("TIMESTAMP '1970-01-01 00:00:01'"),
      Seq("'1970-01-01 00:00:01'"),
      Seq("'1 second'"),
      Seq("INTERVAL 1 SECOND"),
      Seq("1000000"),
      Seq("1000000L"),
      Seq("500000 * 2"))
    assert(plusOne === Seq(
      Seq(ts("2023-12-31 23:59:58"), ts("2024-01-01 00:00:01"), 1L),
      Seq(ts("2024-01-01 00:00:01"), ts("2024-01-01 00:00:04"), 1L),
      Seq(ts("2024-01-01 00:00:04"), ts("2024-01-01 00:00:07"), 1L)))
    // Aligned on 23:59:59: [23:59:59, 00:00:02), [00:00:02, 00:00:05).
    val minusOne = sameRows(
      timestampEvents,
      p => s"tumbling_window(s, '3 seconds', ${p.head})",
      Seq("TIMESTAMP '1969-12-31 23:59:59'"),
      Seq("'-1 second'"),
      Seq("INTERVAL -1 SECOND"),
      Seq("-1000000"))
    assert(minusOne === Seq(
      Seq(ts("2023-12-31 23:59:59"), ts("2024-01-01 00:00:02"), 2L),
      Seq(ts("2024-01-01 00:00:02"), ts("2024-01-01 00:00:05"), 1L)))
  }

  test("timestamps: the scalar helpers take the same spellings") {
    val snapped = "SELECT snap_to_boundary(TIMESTAMP '2024-01-01 00:00:04', %s, %s), " +
      "adjust_start_time(TIMESTAMP '2024-01-01 00:00:04', %s, %s, %s)"
    val expected = rows(sql(snapped.format(
      "TIMESTAMP '1970-01-01 00:00:01'",
      "'3 seconds'",
      "'3 seconds'",
      "'3 seconds'",
      "TIMESTAMP '1970-01-01 00:00:01'")))
    // 00:00:04 is on a boundary of 00:00:01 + 3n: it snaps to itself, and the earliest window
    // holding it, [00:00:04, 00:00:07), ends at 00:00:07.
    assert(expected === Seq(Seq(ts("2024-01-01 00:00:04"), ts("2024-01-01 00:00:07"))))
    assert(rows(sql(snapped.format(
      "'1 second'",
      "'3000000 microseconds'",
      "INTERVAL 3 SECONDS",
      "INTERVAL 3 SECONDS",
      "1000000"))) === expected)
  }

  /** Analysis of `groupBy` over `events` must fail with all of `fragments`. */
  private def rejected(events: String, groupBy: String, fragments: String*): Unit = {
    val e = intercept[AnalysisException] {
      sql(events + s"SELECT count(*) FROM events GROUP BY $groupBy").queryExecution
        .assertAnalyzed()
    }
    fragments.foreach(f => assert(e.getMessage.contains(f), s"'$f' not in: ${e.getMessage}"))
  }

  test("what is not accepted fails with a message naming the parameter") {
    rejected(
      bigintEvents,
      "tumbling_window(s, e, 2.5)",
      "tumbling_window: `size` must be an integer number of ticks for BIGINT time, got DECIMAL")
    rejected(
      bigintEvents,
      "tumbling_window(s, e, 5, TIMESTAMP '2024-01-01 00:00:00')",
      "`alignment` must be BIGINT like the time column (or a narrower integer), got TIMESTAMP")
    rejected(
      bigintEvents,
      "tumbling_window(s, e, 5, 0, 'window', '2024-01-01')",
      "`horizon` must be BIGINT like the time column (or a narrower integer), got STRING")
    rejected(
      bigintEvents,
      "tumbling_window(s, e, CAST(NULL AS INT))",
      "`size` must not be NULL")
    rejected(
      timestampEvents,
      "tumbling_window(s, 2.5)",
      "`size` must be an interval string " +
        "such as '5 seconds' or a day-time interval for TIMESTAMP time, got DECIMAL(2,1)")
    rejected(
      bigintEvents,
      "tumbling_window(s, e, INTERVAL 1 MONTH)",
      "`size` must be",
      "got INTERVAL MONTH")
    rejected(
      timestampEvents,
      "tumbling_window(s, INTERVAL -1 MONTH)",
      "`size` must be positive, with no negative part")
    rejected(
      timestampEvents,
      "tumbling_window(s, '3 seconds', 1.5)",
      "`alignment` must be TIMESTAMP like the time column or a timestamp string, or an offset " +
        "from the epoch as window() takes its start time",
      "got DECIMAL(2,1)")
    rejected(
      timestampEvents,
      "tumbling_window(s, '3 seconds', '1 month')",
      "`alignment` must not have months")
    rejected(
      timestampEvents,
      "tumbling_window(s, '3 seconds', 'soon')",
      "`alignment` is not a valid TIMESTAMP nor an interval: 'soon'")
    // The horizon is an instant: no window() equivalent, so no offsets and no integers.
    rejected(
      timestampEvents,
      "tumbling_window(s, '3 seconds', NULL, 'window', 5)",
      "`horizon` must be TIMESTAMP like the time column (or a timestamp string), got INT")
    rejected(
      timestampEvents,
      "tumbling_window(s, '3 seconds', NULL, 'window', '1 second')",
      "`horizon` is not a valid TIMESTAMP: '1 second'")
  }

  test("integer and offsetTicks, for the parameters of the families to come") {
    import WindowParameters.{durationTicks, integer, offsetTicks}
    assert(integer("f", "n", Literal(3.toByte)) === 3L)
    assert(integer("f", "n", Literal(-4.toShort)) === -4L)
    assert(integer("f", "n", Literal(5)) === 5L)
    assert(integer("f", "n", Literal(Long.MaxValue)) === Long.MaxValue)

    /** The error's function and reason, once its condition and SQLSTATE are checked. */
    def error(body: => Any): String = {
      val e = intercept[AnalysisException](body)
      assert((e.getCondition, e.getSqlState) === ("EVENTWINDOWS_INVALID_PARAMETER", "22023"))
      s"${e.messageParameters("function")}: ${e.messageParameters("reason")}"
    }
    assert(error(integer("f", "n", Literal(2.5))) ===
      "f: `n` must be an integer (TINYINT, SMALLINT, INT or BIGINT), got DOUBLE (2.5D)")
    assert(error(integer("f", "n", Literal(null, IntegerType))) === "f: `n` must not be NULL")
    assert(error(integer("f", "n", AttributeReference("c", IntegerType)())) ===
      "f: `n` must be a constant, got c")

    assert(offsetTicks("f", "lo", Literal(-5), LongType) === -5L)
    assert(offsetTicks("f", "lo", Literal(0.toShort), LongType) === 0L)
    assert(offsetTicks("f", "lo", Literal("-5 seconds"), TimestampType) === -5000000L)
    assert(offsetTicks("f", "lo", Literal("0 seconds"), TimestampType) === 0L)
    // A bare integer is no duration for timestamps (as Python's F.window): the error says what
    // to write.
    assert(error(offsetTicks("f", "lo", Literal(-7), TimestampType)) ===
      "f: `lo` must be an interval string such as '5 seconds' or a day-time interval for " +
      "TIMESTAMP time, got the integer -7, which is no duration for TIMESTAMP time (as in " +
      "Spark's window()); for microseconds write '-7 microseconds'")
    assert(error(offsetTicks("f", "lo", Literal("5 seconds"), LongType)) ===
      "f: `lo` must be an integer number of ticks for BIGINT time, got STRING ('5 seconds')")
    assert(durationTicks("f", "size", Literal(5.toByte), LongType) === 5L)
    assert(error(durationTicks("f", "size", Literal(0), LongType)) ===
      "f: `size` must be positive, got 0")
    assert(error(durationTicks("f", "size", Literal("0 seconds"), TimestampType)) ===
      "f: `size` must be positive, got '0 seconds'")
  }
}
