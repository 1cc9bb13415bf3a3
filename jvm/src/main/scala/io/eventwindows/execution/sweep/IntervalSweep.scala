package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.DataType

import io.eventwindows.execution.aggregate.{AggregateBuffers, WindowMemory}
import io.eventwindows.plans.{AxisFamily, WindowAxis}

/**
 * The policy of the axis families (hopping, tumbling and snapshot windows): each event occupies
 * an interval `[enter, leave)` of the family's [[WindowAxis]], known from its lifetime alone.
 *
 * The sweep walks the axis ([[AxisWalk]]) from one enter/leave point to the next: at an enter
 * point it adds the events entering there to [[LeavingPanes]] keyed by their leave point
 * (consecutive events with the same interval share one pane), at a leave point it removes the
 * events leaving. Between two points the contents are constant; that run is evaluated once and
 * becomes output rows through the axis (one row for a snapshot interval, one per window for
 * hopping windows). Cost: O(log n) merges per entry and one evaluation per run.
 */
private[sweep] final class IntervalSweep(
    family: AxisFamily,
    axis: WindowAxis,
    buffers: AggregateBuffers,
    memory: WindowMemory,
    maxWindows: Long,
    timeType: DataType) extends SweepPolicy {

  private val panes = new LeavingPanes(buffers, memory)
  private val walk = new AxisWalk(panes, axis)

  private var started = false

  override def openEnd(start: Long): Long = axis.openEnd(start)

  // An event in a gap between windows changes nothing, so it closes no run.
  override def emitBefore(start: Long, end: Long, out: SweepOutput): Boolean = {
    val enter = axis.enter(start, end)
    started && axis.leave(start, end) > enter && walk.step(enter, out)
  }

  override def emitAtEnd(out: SweepOutput): Boolean = started && walk.step(Long.MaxValue, out)

  override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    val enter = axis.enter(start, end)
    val leave = axis.leave(start, end)
    if (leave <= enter) return // In a gap between windows.
    if (axis.rowPerPosition) {
      WindowAxis.checkWindowCount(family, enter, leave, maxWindows, start, end, timeType)
    }
    // emitBefore has brought the sweep to the event's enter point.
    if (!started) {
      walk.startAt(enter)
      started = true
    }
    panes.add(row, start, leave)
  }

  override def finishGroup(out: SweepOutput): Unit = {
    panes.clear()
    started = false
  }
}
