package io.eventwindows.expressions

import io.eventwindows.EventWindowsInputException
import io.eventwindows.plans.{Hopping, OutputPolicy, WindowAxis}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}
import org.apache.spark.sql.types.{ArrayType, DataType}

/**
 * Every window of one event under hopping or tumbling windows with per-window output ('window' or
 * 'point'), as an array of `window` structs. On a stream,
 * [[io.eventwindows.analysis.EventWindowAggregation]] plans such windows as Spark's own streaming
 * aggregation grouped by this array exploded, one row per event and window, as Spark expands each
 * event into its windows for `window()`: Spark keeps the state, drops late rows, evicts a window
 * once the watermark passes its end and offers every output mode.
 *
 * The windows come from the family's [[WindowAxis]], the one the batch operator sweeps, so both
 * plans give the same windows. No window for a NULL start, an empty lifetime or an event in a gap
 * between windows. An end before the start fails the query; so does an open-ended event (NULL end)
 * unless the family has a horizon, since a stream has no latest time to stop its windows at.
 */
case class EventWindowsOf(
    start: Expression,
    end: Option[Expression],
    family: Hopping,
    maxWindows: Long) extends Expression {
  require(family.output != OutputPolicy.Changes, "'changes' is planned as a snapshot window")

  override def children: Seq[Expression] = start +: end.toSeq
  override def dataType: DataType =
    ArrayType(EventWindow.windowType(start.dataType), containsNull = false)
  override def nullable: Boolean = false
  override def prettyName: String = "event_windows_of"
  override def toString: String = s"$prettyName(${children.mkString(", ")}, $family)"

  private def timeType: DataType = start.dataType
  private def lineMax: Long = EventTime.lineMax(timeType)

  // The horizon only matters to open-ended events, which without the family's own horizon fail.
  @transient private lazy val axis =
    WindowAxis(family, EventTime.lineMin(timeType), lineMax, horizon = lineMax)

  override def eval(input: InternalRow): Any = {
    val s = start.eval(input)
    if (s == null) EventWindowsOf.NoWindows
    else {
      val e = end.map(_.eval(input)).orNull
      windowsOf(s.asInstanceOf[Long], end.isDefined && e == null,
        if (e == null) 0L else e.asInstanceOf[Long])
    }
  }

  /** The windows of the event from `start` to `end` (ignored for point events or if NULL). */
  def windowsOf(start: Long, endIsNull: Boolean, end: Long): ArrayData = {
    val exclusiveEnd =
      if (this.end.isEmpty) TimeArithmetic.pointEventEnd(start, lineMax)
      else if (endIsNull) openEnd(start)
      else { CheckedEnd.check(start, end, timeType); end }
    val first = axis.enter(start, exclusiveEnd)
    val leave = axis.leave(start, exclusiveEnd)
    if (exclusiveEnd == start || leave <= first) return EventWindowsOf.NoWindows
    WindowAxis.checkWindowCount(family, first, leave, maxWindows, start, exclusiveEnd, timeType)
    new GenericArrayData(Array.tabulate[Any]((leave - first).toInt) { i =>
      new GenericInternalRow(Array[Any](
        axis.outputStart(first + i, leave), axis.outputEnd(first + i, leave)))
    })
  }

  private def openEnd(start: Long): Long = {
    if (family.horizon.isEmpty) EventWindowsOf.openEndedOnStream(family, start, timeType)
    axis.openEnd(start)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = ctx.addReferenceObj("eventWindowsOf", this, classOf[EventWindowsOf].getName)
    val s = start.genCode(ctx)
    val e = end.map(_.genCode(ctx))
    val endIsNull = e.map(_.isNull.toString).getOrElse("false")
    val endValue = e.map(_.value.toString).getOrElse("0L")
    ev.copy(code = code"""
      ${s.code}
      ${e.map(_.code.toString).getOrElse("")}
      final boolean ${ev.isNull} = false;
      final ${classOf[ArrayData].getName} ${ev.value} = ${s.isNull}
        ? ${EventWindowsOf.getClass.getName.stripSuffix("$")}.NoWindows()
        : $self.windowsOf(${s.value}, $endIsNull, $endValue);""")
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): EventWindowsOf =
    copy(start = newChildren.head, end = end.map(_ => newChildren(1)))
}

object EventWindowsOf {
  val NoWindows: ArrayData = new GenericArrayData(Array.empty[Any])

  /**
   * The error for an open-ended event (NULL end) under per-window output on a stream, without the
   * family's horizon: there is no latest time to stop its windows at.
   */
  def openEndedOnStream(family: Hopping, start: Long, timeType: DataType): Nothing =
    throw new EventWindowsInputException(s"${family.functionName}: the event starting at " +
      s"${Literal(start, timeType)} is open-ended (NULL end): on a stream it would lie in " +
      "windows without end. Give the window function a horizon (its last argument), or the " +
      "event an end")
}
