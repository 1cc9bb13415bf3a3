package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{TypeCheckFailure, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{Expression, TernaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, LongType}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.time.TimeArithmetic

/**
 * `snap_to_boundary(t, alignment, period)`: the largest `alignment + n * period <= t` over all
 * integers n (floor modulo, right before the alignment and before 1970), saturated to the time
 * line. `t` and `alignment` have the same time type; `period` is a day-time interval for
 * timestamps and a number of ticks for BIGINT time. NULL in, NULL out.
 */
case class SnapToBoundary(time: Expression, alignment: Expression, period: Expression)
    extends TernaryExpression {

  override def first: Expression = time
  override def second: Expression = alignment
  override def third: Expression = period
  override def dataType: DataType = time.dataType
  override def nullIntolerant: Boolean = true
  override def prettyName: String = "snap_to_boundary"

  override def checkInputDataTypes(): TypeCheckResult = {
    if (!EventTime.isTimeType(time.dataType)) {
      TypeCheckFailure(s"`t` must be ${EventTime.allowedTypes}, got ${time.dataType.sql}")
    } else if (alignment.dataType != time.dataType) {
      TypeCheckFailure(s"`alignment` must have the type of `t` (${time.dataType.sql}), got " +
        alignment.dataType.sql)
    } else if (!periodTypeFits) {
      val expected = if (time.dataType == LongType) "BIGINT" else "a day-time interval"
      TypeCheckFailure(s"`period` must be $expected for ${time.dataType.sql} time, got " +
        period.dataType.sql)
    } else {
      TypeCheckSuccess
    }
  }

  private def periodTypeFits: Boolean = (time.dataType, period.dataType) match {
    case (LongType, LongType) => true
    case (LongType, _) => false
    case (_, _: DayTimeIntervalType) => true
    case _ => false
  }

  private def lineMin = EventTime.lineMin(time.dataType)
  private def lineMax = EventTime.lineMax(time.dataType)

  override protected def nullSafeEval(t: Any, a: Any, p: Any): Any =
    TimeArithmetic.snapToBoundary(
      t.asInstanceOf[Long],
      a.asInstanceOf[Long],
      SnapToBoundary.checkedPeriod(p.asInstanceOf[Long]),
      lineMin,
      lineMax)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val arithmetic = TimeArithmetic.getClass.getName.stripSuffix("$")
    val self = SnapToBoundary.getClass.getName.stripSuffix("$")
    nullSafeCodeGen(
      ctx,
      ev,
      (t, a, p) =>
        s"${ev.value} = $arithmetic.snapToBoundary($t, $a, $self.checkedPeriod($p), " +
          s"${lineMin}L, ${lineMax}L);")
  }

  override protected def withNewChildrenInternal(
      newFirst: Expression,
      newSecond: Expression,
      newThird: Expression): SnapToBoundary =
    copy(time = newFirst, alignment = newSecond, period = newThird)
}

object SnapToBoundary {

  /** A period read from a column at run time must be positive too. */
  def checkedPeriod(period: Long): Long = {
    if (period <= 0) {
      throw EventWindowsErrors.invalidInput(
        s"snap_to_boundary: `period` must be positive, got $period")
    }
    period
  }
}
