package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.DataType

import io.eventwindows.plans.{AxisFamily, WindowAxis}
import io.eventwindows.time.TimeArithmetic

/**
 * The window of a point event under a family whose axis has a row per position and gives a point
 * at most one of them ([[PointEventWindow.atMostOneWindow]]: hopping windows that cannot overlap,
 * `hop >= size`, tumbling windows or windows with gaps, under per-window output). The window is
 * then a function of the row, and
 * [[io.eventwindows.analysis.EventWindowAggregation]] plans the query as Spark's own hash
 * aggregate grouped by this column (with partial aggregation before the shuffle), as Spark plans
 * `window()`, instead of shuffling and sorting every event for the window operator.
 *
 * The window comes from the family's [[WindowAxis]], the one the operator uses, so both plans give
 * the same rows. NULL when the event is in no window: a NULL start, a start at the end of time
 * (an empty lifetime) or a start in a gap between windows.
 */
case class PointEventWindow(start: Expression, family: AxisFamily) extends UnaryExpression {

  override def child: Expression = start
  override def dataType: DataType = EventWindow.windowType(start.dataType)
  override def nullable: Boolean = true
  override def prettyName: String = "point_event_window"
  override def toString: String = s"$prettyName($start, $family)"

  private def lineMax: Long = EventTime.lineMax(start.dataType)

  // Point events are never open-ended, so no horizon is needed.
  @transient private lazy val axis = {
    val axis = family.axis(EventTime.lineMin(start.dataType), lineMax, horizon = lineMax)
    require(PointEventWindow.atMostOneWindow(axis), s"$family may give a point several windows")
    axis
  }

  override protected def nullSafeEval(t: Any): Any =
    PointEventWindow.windowOf(axis, lineMax, t.asInstanceOf[Long])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val axisRef = ctx.addReferenceObj("axis", axis, classOf[WindowAxis].getName)
    val self = PointEventWindow.getClass.getName.stripSuffix("$")
    nullSafeCodeGen(
      ctx,
      ev,
      t =>
        s"""${ev.value} = $self.windowOf($axisRef, ${lineMax}L, $t);
         |${ev.isNull} = ${ev.value} == null;""".stripMargin)
  }

  override protected def withNewChildInternal(newChild: Expression): PointEventWindow =
    copy(start = newChild)
}

object PointEventWindow {

  /** True if a point event is in at most one window of `axis`, each window a row. */
  def atMostOneWindow(axis: WindowAxis): Boolean =
    axis.rowPerPosition && axis.maxWindowsOfPoint == 1

  /** The output lifetime (start, end) of the window of the point event at `start`, or null. */
  def windowOf(axis: WindowAxis, lineMax: Long, start: Long): InternalRow = {
    val end = TimeArithmetic.pointEventEnd(start, lineMax)
    if (end == start) return null
    val window = axis.enter(start, end)
    val leave = axis.leave(start, end)
    if (leave <= window) null
    else new GenericInternalRow(Array[Any](
      axis.outputStart(window, leave),
      axis.outputEnd(window, leave)))
  }
}
