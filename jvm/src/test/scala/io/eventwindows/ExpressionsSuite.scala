package io.eventwindows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.sql.execution.WholeStageCodegenExec
import org.apache.spark.sql.execution.debug.codegenString
import org.apache.spark.sql.types.{DayTimeIntervalType, LongType, TimestampNTZType, TimestampType}

import io.eventwindows.expressions.{AdjustEndTime, AdjustStartTime, EventTime, SnapToBoundary}

class ExpressionsSuite extends EventWindowsSuite {

  /** Evaluates `e` on `input` both interpreted and through generated code; they must agree. */
  private def evaluate(e: Expression, input: InternalRow): Any = {
    val interpreted = e.eval(input)
    val projection =
      GenerateUnsafeProjection.generate(Seq(e), subexpressionEliminationEnabled = false)
    val generated = projection(input)
    val fromCode = if (generated.isNullAt(0)) null else generated.getLong(0)
    assert(interpreted === fromCode, s"interpreted and generated code disagree on $e")
    interpreted
  }

  private val t = BoundReference(0, LongType, nullable = true)
  private val ts = BoundReference(0, TimestampType, nullable = true)

  test("snap_to_boundary: floor modulo for BIGINT, interpreted and generated") {
    val rnd = new scala.util.Random(7)
    for (_ <- 1 to 500) {
      val time = rnd.nextInt(2000) - 1000L
      val alignment = rnd.nextInt(200) - 100L
      val period = rnd.nextInt(30) + 1L
      val expected = alignment + Math.floorDiv(time - alignment, period) * period
      val e = SnapToBoundary(t, Literal(alignment), Literal(period))
      assert(evaluate(e, InternalRow(time)) === expected, s"t=$time a=$alignment p=$period")
    }
    assert(evaluate(SnapToBoundary(t, Literal(0L), Literal(5L)), InternalRow(null)) === null)
  }

  test("snap_to_boundary on timestamps before 1970 and before the alignment") {
    val second = 1000000L
    val alignment = Literal(3 * second, TimestampType) // 1970-01-01 00:00:03
    val period = Literal(2 * second, DayTimeIntervalType())
    val e = SnapToBoundary(ts, alignment, period)
    assert(evaluate(e, InternalRow(-1L)) === -2 * second + second) // 1969-12-31 23:59:59.999999
    assert(evaluate(e, InternalRow(-second)) === -second) // on a boundary: itself
    assert(evaluate(e, InternalRow(3 * second)) === 3 * second)
    assert(evaluate(e, InternalRow(3 * second - 1)) === second)
  }

  test("adjust_start_time / adjust_end_time, with NULL end as the end of time") {
    val start = AdjustStartTime(t, 5L, 2L, 0L)
    val end = AdjustEndTime(t, 5L, 2L, 0L)
    assert(evaluate(start, InternalRow(3L)) === 5L)
    assert(evaluate(start, InternalRow(-1L)) === 1L) // windows [-4,1) and [-2,3) hold -1
    assert(evaluate(end, InternalRow(10L)) === 15L)
    assert(evaluate(end, InternalRow(null)) === Long.MaxValue)
    assert(evaluate(AdjustEndTime(ts, 5L, 2L, 0L), InternalRow(null)) === EventTime.TimestampMax)
    assert(evaluate(start, InternalRow(null)) === null)
  }

  test("the SQL functions are compiled inside whole-stage codegen") {
    val df = sql("""SELECT snap_to_boundary(id - 50, 3L, 7L) AS a,
                   |  adjust_start_time(id, 5L, 2L) AS b, adjust_end_time(id, 5L, 2L) AS c
                   |FROM range(100)""".stripMargin)
    val plan = df.queryExecution.executedPlan
    assert(plan.exists(_.isInstanceOf[WholeStageCodegenExec]))
    val code = codegenString(plan)
    assert(code.contains("TimeArithmetic.snapToBoundary"))
    assert(code.contains("TimeArithmetic.adjustStartTime"))
    assert(code.contains("TimeArithmetic.adjustEndTime"))
    val results = rows(df)
    assert(results.map(_.head) === (0L until 100L).map(i => 3L + Math.floorDiv(i - 50 - 3, 7L) * 7))
  }

  test("timestamp strings, intervals and NTZ through SQL") {
    val r = rows(sql(
      """SELECT snap_to_boundary(TIMESTAMP '1969-12-31 23:59:59', '1970-01-01 00:00:00', '2 seconds'),
        |  snap_to_boundary(TIMESTAMP_NTZ '2024-05-05 10:07:00', TIMESTAMP_NTZ '2024-01-01 00:00:00',
        |    INTERVAL 5 MINUTES),
        |  adjust_start_time(TIMESTAMP '2012-06-28 00:00:00', INTERVAL 5 SECONDS, '2 seconds',
        |    '2012-03-15 12:00:00')""".stripMargin)).head
    assert(r(0) === ts("1969-12-31 23:59:58"))
    assert(r(1) === java.time.LocalDateTime.parse("2024-05-05T10:05:00"))
    assert(r(2) === ts("2012-06-28 00:00:01"))
  }

  test("DESCRIBE FUNCTION EXTENDED shows usage and examples") {
    for (name <- Seq(
        "hopping_window",
        "tumbling_window",
        "snapshot_window",
        "snap_to_boundary",
        "adjust_start_time",
        "adjust_end_time")) {
      val text = rows(sql(s"DESCRIBE FUNCTION EXTENDED $name")).map(_.head.toString).mkString("\n")
      assert(text.contains(s"Function: $name"))
      assert(text.contains("Examples:"), text)
    }
  }
}
