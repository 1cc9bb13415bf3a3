package io.eventwindows

import java.time.LocalDateTime

import org.apache.spark.sql.types.{LongType, StructType, TimestampNTZType, TimestampType}

/** The three time types, alignment before 1970, and the type of the `window` column. */
class TimeTypesSuite extends EventWindowsSuite {

  test("TIMESTAMP_NTZ events give TIMESTAMP_NTZ windows; string alignment is read as NTZ") {
    val df = sql(
      """SELECT window, count(*) AS n FROM VALUES
        |  (TIMESTAMP_NTZ '2024-03-01 10:00:07', TIMESTAMP_NTZ '2024-03-01 10:00:12'),
        |  (TIMESTAMP_NTZ '2024-03-01 10:00:13', TIMESTAMP_NTZ '2024-03-01 10:00:14') AS t(s, e)
        |GROUP BY hopping_window(s, e, INTERVAL 10 SECONDS, '5 seconds', '2024-03-01 10:00:01')
        |ORDER BY window.start""".stripMargin)
    val window = df.schema("window").dataType.asInstanceOf[StructType]
    assert(window.map(_.dataType) === Seq(TimestampNTZType, TimestampNTZType))
    // Windows [01 + 5n, 11 + 5n): [07,12) meets [56,06)? no; [01,11), [06,16), [11,21);
    // [13,14) meets [06,16), [11,21).
    def at(s: String) = LocalDateTime.parse(s"2024-03-01T10:00:$s")
    assert(rows(df.selectExpr("window.start", "window.end", "n")) === Seq(
      Seq(at("01"), at("11"), 1L),
      Seq(at("06"), at("16"), 2L),
      Seq(at("11"), at("21"), 2L)))
  }

  test("windows before 1970 and before the alignment start on the right boundary") {
    val df = sql(
      """SELECT window.start, count(*) FROM VALUES
        |  (TIMESTAMP '1969-12-31 23:59:58'), (TIMESTAMP '1969-12-31 23:59:59.5'),
        |  (TIMESTAMP '1970-01-01 00:00:00') AS t(ts)
        |GROUP BY tumbling_window(ts, '2 seconds', TIMESTAMP '1970-01-01 00:00:00')
        |ORDER BY 1""".stripMargin)
    assert(df.schema("start").dataType === TimestampType)
    assert(rows(df) === Seq(Seq(ts("1969-12-31 23:59:58"), 2L), Seq(ts("1970-01-01 00:00:00"), 1L)))
  }

  test("BIGINT ticks, with the window column typed BIGINT and NULL keys grouped together") {
    val df = sql(
      """SELECT k, window, count(*) AS n FROM VALUES
        |  (CAST(NULL AS STRING), -7L), (CAST(NULL AS STRING), -6L), ('x', -6L) AS t(k, t)
        |GROUP BY k, tumbling_window(t, 4L) ORDER BY k NULLS FIRST""".stripMargin)
    assert(df.schema("window").dataType.asInstanceOf[StructType].map(_.dataType) ===
      Seq(LongType, LongType))
    assert(rows(df.selectExpr("k", "window.start", "window.end", "n")) === Seq(
      Seq(null, -8L, -4L, 2L),
      Seq("x", -8L, -4L, 1L)))
  }
}
