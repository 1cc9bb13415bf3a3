package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{DataType, LongType}

/**
 * The snapped lifetimes of the blog post "Taming Hopping Windows": for hopping windows
 * `[a + n*hop, a + n*hop + size)` with `0 < hop <= size`, an event `[start, end)` is moved to
 * `[adjust_start_time(start), adjust_end_time(end))`, which covers one hop-long interval per window
 * it intersects. A snapshot window over the moved events then gives one row per change of the
 * hopping windows' contents. Results saturate to the time line.
 */
sealed trait AdjustLifetime extends UnaryExpression {
  def time: Expression
  def size: Long
  def hop: Long
  def alignment: Long

  override def child: Expression = time
  override def dataType: DataType = time.dataType

  protected def lineMin: Long = EventTime.lineMin(time.dataType)
  protected def lineMax: Long = EventTime.lineMax(time.dataType)

  /** The name of the [[TimeArithmetic]] function this expression calls. */
  protected def arithmeticFunction: String

  protected def arithmeticCall(t: String): String =
    s"${TimeArithmetic.getClass.getName.stripSuffix("$")}.$arithmeticFunction(" +
      s"$t, ${size}L, ${hop}L, ${alignment}L, ${lineMin}L, ${lineMax}L)"

  override def toString: String = {
    def show(ticks: Long) = if (time.dataType == LongType) ticks.toString else s"${ticks}us"
    s"$prettyName($time, size=${show(size)}, hop=${show(hop)}, alignment=$alignment)"
  }
}

/** `adjust_start_time(t, size, hop[, alignment])`: the end of the earliest window holding `t`. */
case class AdjustStartTime(time: Expression, size: Long, hop: Long, alignment: Long)
  extends AdjustLifetime {

  override def prettyName: String = "adjust_start_time"
  override def nullIntolerant: Boolean = true
  override protected def arithmeticFunction: String = "adjustStartTime"

  override protected def nullSafeEval(t: Any): Any =
    TimeArithmetic.adjustStartTime(t.asInstanceOf[Long], size, hop, alignment, lineMin, lineMax)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, t => arithmeticCall(t))

  override protected def withNewChildInternal(newChild: Expression): AdjustStartTime =
    copy(time = newChild)
}

/**
 * `adjust_end_time(t, size, hop[, alignment])`: one hop past the end of the latest window starting
 * before `t`. A NULL end is an open-ended event: the result is the end of time.
 */
case class AdjustEndTime(time: Expression, size: Long, hop: Long, alignment: Long)
  extends AdjustLifetime {

  override def prettyName: String = "adjust_end_time"
  override def nullable: Boolean = false
  override protected def arithmeticFunction: String = "adjustEndTime"

  override def eval(input: InternalRow): Any = {
    val t = time.eval(input)
    if (t == null) lineMax
    else TimeArithmetic.adjustEndTime(t.asInstanceOf[Long], size, hop, alignment, lineMin, lineMax)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val t = time.genCode(ctx)
    ev.copy(code = code"""
      ${t.code}
      long ${ev.value} = ${t.isNull} ? ${lineMax}L : ${arithmeticCall(t.value.toString)};""",
      isNull = FalseLiteral)
  }

  override protected def withNewChildInternal(newChild: Expression): AdjustEndTime =
    copy(time = newChild)
}
