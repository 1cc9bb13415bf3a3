package io.eventwindows.execution.sweep

import io.eventwindows.execution.aggregate.{AggregateBuffers, WindowMemory}
import io.eventwindows.plans.{AxisFamily, WindowAxis}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.types.DataType

/**
 * The policy of hopping, tumbling and snapshot windows: each event occupies an interval
 * `[enter, leave)` of the family's [[WindowAxis]], known from its lifetime alone.
 *
 * The sweep walks the axis from one enter/leave point to the next: at an enter point it adds the
 * events entering there to [[LeavingPanes]] keyed by their leave point (consecutive events with
 * the same interval share one pane), at a leave point it removes the events leaving. Between two points the contents are constant; that run is evaluated
 * once and becomes output rows through the axis (one row for a snapshot interval, one per window
 * for hopping windows). Cost: O(log n) merges per entry and one evaluation per run.
 */
private[sweep] final class IntervalSweep(
    family: AxisFamily,
    axis: WindowAxis,
    buffers: AggregateBuffers,
    memory: WindowMemory,
    maxWindows: Long,
    timeType: DataType) extends SweepPolicy {

  private val panes = new LeavingPanes(buffers, memory)

  private var position = 0L
  private var started = false

  override def openEnd(start: Long): Long = axis.openEnd(start)

  // An event in a gap between windows changes nothing, so it closes no run.
  override def emitBefore(start: Long, end: Long, out: SweepOutput): Boolean = {
    val enter = axis.enter(start, end)
    started && axis.leave(start, end) > enter && step(enter, out)
  }

  override def emitAtEnd(out: SweepOutput): Boolean = started && step(Long.MaxValue, out)

  override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    val enter = axis.enter(start, end)
    val leave = axis.leave(start, end)
    if (leave <= enter) return // In a gap between windows.
    if (axis.rowPerPosition) {
      WindowAxis.checkWindowCount(family, enter, leave, maxWindows, start, end, timeType)
    }
    // emitBefore has brought the sweep to the event's enter point.
    if (!started) {
      position = enter
      started = true
    }
    panes.add(row, start, leave)
  }

  override def finishGroup(out: SweepOutput): Unit = {
    panes.clear()
    started = false
  }

  /**
   * Emits the next run before `target`, removing the events that leave at its end; false, with
   * the sweep at `target`, once no run is left before it.
   */
  private def step(target: Long, out: SweepOutput): Boolean = {
    if (target <= position) return false
    panes.seal()
    if (panes.isEmpty) {
      position = target
      false
    } else {
      val runEnd = Math.min(panes.nextLeave, target)
      out.emit(new AxisRun(out.groupKey, out.copyResults(panes.results()), position, runEnd))
      position = runEnd
      panes.removeUpTo(position)
      true
    }
  }

  /** The rows of axis positions `[from, to)`, all with the same results. */
  private final class AxisRun(key: UnsafeRow, results: UnsafeRow, from: Long, to: Long)
    extends SweepRun(key, results) {
    private var next = from

    override def nextWindow(window: InternalRow): Boolean = next < to && {
      window.setLong(0, axis.outputStart(next, to))
      window.setLong(1, axis.outputEnd(next, to))
      extentStart = axis.extentStart(next, to)
      extentEnd = axis.extentEnd(next, to)
      next = if (axis.rowPerPosition) next + 1 else to
      true
    }
  }
}
