package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{
  CodegenContext, CodeGenerator, ExprCode, FalseLiteral
}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{DataType, LongType}

import io.eventwindows.plans.LifetimeSnap
import io.eventwindows.time.{NumberedWindows, TimeArithmetic}

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

object AdjustLifetime {

  /**
   * The snapped start and exclusive end of the lifetime `[start, end)` under `snap`: for hopping
   * windows [[AdjustStartTime]] and [[AdjustEndTime]], for windows known by number
   * [[SnapToWindows]].
   */
  def snapped(snap: LifetimeSnap, start: Expression, end: Expression): (Expression, Expression) =
    snap match {
      case LifetimeSnap.ToHops(size, hop, alignment) =>
        (AdjustStartTime(start, size, hop, alignment), AdjustEndTime(end, size, hop, alignment))
      case LifetimeSnap.ToWindows(windows) =>
        (SnapToWindows(start, windows, toEnd = false), SnapToWindows(end, windows, toEnd = true))
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
    ev.copy(
      code = code"""
      ${t.code}
      long ${ev.value} = ${t.isNull} ? ${lineMax}L : ${arithmeticCall(t.value.toString)};""",
      isNull = FalseLiteral)
  }

  override protected def withNewChildInternal(newChild: Expression): AdjustEndTime =
    copy(time = newChild)
}

/**
 * The snapped lifetimes of windows known by number ([[NumberedWindows]]: calendar windows,
 * cumulating windows), as [[AdjustStartTime]] and [[AdjustEndTime]] snap those of hopping windows:
 * an event's start moves to the end of the first window ending after it, its exclusive end to the
 * end of the window after the last one starting before it (NULL, an open end, to the end of
 * time). The event then covers, for each window it intersects, the interval from that window's
 * end to the next window's end, so a snapshot window over the moved events gives one row per
 * change of the windows' contents.
 */
case class SnapToWindows(time: Expression, windows: NumberedWindows, toEnd: Boolean)
    extends UnaryExpression {

  override def child: Expression = time
  override def dataType: DataType = time.dataType
  override def nullable: Boolean = time.nullable && !toEnd
  override def prettyName: String = "snap_to_windows"
  override def toString: String =
    s"$prettyName($time, $windows, ${if (toEnd) "end" else "start"})"

  private def lineMin: Long = EventTime.lineMin(time.dataType)
  private def lineMax: Long = EventTime.lineMax(time.dataType)

  /** The snapped time of `t` (a start, or an exclusive end before the end of time). */
  def snap(t: Long): Long = SnapToWindows.snap(windows, toEnd, t, lineMin, lineMax)

  override def eval(input: InternalRow): Any = {
    val t = time.eval(input)
    if (t == null) { if (toEnd) lineMax else null }
    else if (toEnd && t.asInstanceOf[Long] >= lineMax) lineMax
    else snap(t.asInstanceOf[Long])
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = ctx.addReferenceObj("snap", this, classOf[SnapToWindows].getName)
    val t = time.genCode(ctx)
    val value = if (toEnd) s"${t.value} >= ${lineMax}L ? ${lineMax}L : $self.snap(${t.value})"
    else s"$self.snap(${t.value})"
    val isNull = if (toEnd) FalseLiteral else t.isNull
    ev.copy(
      code = code"""
      ${t.code}
      long ${ev.value} = ${CodeGenerator.defaultValue(dataType)};
      if (${t.isNull}) { ${if (toEnd) s"${ev.value} = ${lineMax}L;" else ""} }
      else { ${ev.value} = $value; }""",
      isNull = isNull)
  }

  override protected def withNewChildInternal(newChild: Expression): SnapToWindows =
    copy(time = newChild)
}

object SnapToWindows {

  /** The snapped start (or, `toEnd`, exclusive end before the end of time) `t` of `windows`. */
  def snap(windows: NumberedWindows, toEnd: Boolean, t: Long, lineMin: Long, lineMax: Long)
      : Long = {
    val window =
      if (toEnd) windows.lastStartingBy(TimeArithmetic.subtract(t, 1L)) + 1
      else windows.firstEndingAfter(t)
    TimeArithmetic.clamp(windows.end(window), lineMin, lineMax)
  }
}
