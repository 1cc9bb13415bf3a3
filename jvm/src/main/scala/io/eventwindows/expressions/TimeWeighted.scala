package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{
  Add, AttributeReference, BinaryExpression, Cast, Coalesce, Divide, EqualTo, Expression, If,
  IsNull, Literal, Multiply
}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, DoubleType, LongType}

import io.eventwindows.time.TimeArithmetic

/**
 * `time_weighted_sum(v)` and `time_weighted_avg(v)`: v weighted by the length of each event's
 * lifetime clipped to the window (seconds for TIMESTAMP and TIMESTAMP_NTZ time, ticks for BIGINT),
 * over the events whose v is not NULL.
 *
 * Written as declarative aggregates over `v`, `clipped_start()` and `clipped_end()`, which is what
 * they mean and how they run where each input row already knows its window (Spark's aggregation
 * of events exploded into their windows). The window operator does not feed them event by event:
 * it integrates v over time once per key ([[io.eventwindows.execution.sweep.TimeIntegral]]), so a
 * window costs O(log n) whatever its events' lengths.
 */
abstract class TimeWeighted extends DeclarativeAggregate {
  def value: Expression
  def clippedStart: Expression
  def clippedEnd: Expression

  override def children: Seq[Expression] = Seq(value, clippedStart, clippedEnd)
  override def dataType: DataType = DoubleType
  override def nullable: Boolean = true

  /** Ticks per unit of the result: a second of microseconds, or one BIGINT tick. */
  def ticksPerUnit: Double = if (clippedStart.dataType == LongType) 1.0 else 1e6

  /** v is numeric (the function's builder checks it). */
  protected def valueAsDouble: Expression = Cast(value, DoubleType)

  /** The event's clipped length in ticks. */
  protected def length: Expression = ClippedLength(clippedStart, clippedEnd)

  // Named by the value alone: the clipped lifetime is implied.
  override def sql(isDistinct: Boolean): String = s"$prettyName(${value.sql})"
  override def toAggString(isDistinct: Boolean): String = s"$prettyName($value)"
}

/** `time_weighted_sum(v)`: the sum of v x clipped length; NULL if every v is NULL. */
private[expressions] case class TimeWeightedSum(
    value: Expression,
    clippedStart: Expression,
    clippedEnd: Expression)
    extends TimeWeighted {

  private lazy val sum = AttributeReference("sum", DoubleType)()
  private def weighted: Expression = {
    val ticks = Multiply(valueAsDouble, length)
    if (ticksPerUnit == 1.0) ticks else Divide(ticks, Literal(ticksPerUnit))
  }

  override def prettyName: String = TimeWeighted.SumName
  override lazy val aggBufferAttributes: Seq[AttributeReference] = Seq(sum)
  override lazy val initialValues: Seq[Expression] = Seq(Literal(null, DoubleType))
  override lazy val updateExpressions: Seq[Expression] =
    Seq(If(IsNull(value), sum, Add(Coalesce(Seq(sum, Literal(0.0))), weighted)))
  // As Spark's Sum: NULL only while both sides are.
  override lazy val mergeExpressions: Seq[Expression] =
    Seq(Coalesce(Seq(Add(Coalesce(Seq(sum.left, Literal(0.0))), sum.right), sum.left)))
  override lazy val evaluateExpression: Expression = sum

  override protected def withNewChildrenInternal(children: IndexedSeq[Expression])
      : TimeWeightedSum =
    copy(value = children(0), clippedStart = children(1), clippedEnd = children(2))
}

/**
 * `time_weighted_avg(v)`: the sum of v x clipped length over the summed clipped lengths of the
 * events whose v is not NULL; NULL if there are none.
 */
case class TimeWeightedAvg(value: Expression, clippedStart: Expression, clippedEnd: Expression)
    extends TimeWeighted {

  private lazy val weighted = AttributeReference("weighted", DoubleType, nullable = false)()
  private lazy val weight = AttributeReference("weight", DoubleType, nullable = false)()

  override def prettyName: String = TimeWeighted.AvgName
  override lazy val aggBufferAttributes: Seq[AttributeReference] = Seq(weighted, weight)
  override lazy val initialValues: Seq[Expression] = Seq(Literal(0.0), Literal(0.0))
  override lazy val updateExpressions: Seq[Expression] = Seq(
    If(IsNull(value), weighted, Add(weighted, Multiply(valueAsDouble, length))),
    If(IsNull(value), weight, Add(weight, length)))
  override lazy val mergeExpressions: Seq[Expression] =
    Seq(Add(weighted.left, weighted.right), Add(weight.left, weight.right))
  // Every event in a window has a positive clipped length: a zero weight means no value.
  override lazy val evaluateExpression: Expression =
    If(EqualTo(weight, Literal(0.0)), Literal(null, DoubleType), Divide(weighted, weight))

  override protected def withNewChildrenInternal(children: IndexedSeq[Expression])
      : TimeWeightedAvg =
    copy(value = children(0), clippedStart = children(1), clippedEnd = children(2))
}

object TimeWeighted {
  final val SumName = "time_weighted_sum"
  final val AvgName = "time_weighted_avg"
}

/** The length in ticks, as a double, of a clipped lifetime `[start, end)`. */
private[expressions] case class ClippedLength(start: Expression, end: Expression)
    extends BinaryExpression {
  override def left: Expression = start
  override def right: Expression = end
  override def dataType: DataType = DoubleType
  override def prettyName: String = "clipped_length"

  override protected def nullSafeEval(s: Any, e: Any): Any =
    TimeArithmetic.length(s.asInstanceOf[Long], e.asInstanceOf[Long])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(
      ctx,
      ev,
      (s, e) =>
        s"${TimeArithmetic.getClass.getName.stripSuffix("$")}.length($s, $e)")

  override protected def withNewChildrenInternal(
      newLeft: Expression,
      newRight: Expression): ClippedLength = copy(newLeft, newRight)
}
