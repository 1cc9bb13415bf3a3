package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import io.eventwindows.plans.{AxisRows, WindowFields}

/**
 * The walk along an axis that [[IntervalSweep]] (a family's [[io.eventwindows.plans.WindowAxis]])
 * and [[SessionSweep]] (the pieces of a session) share. Events sit in [[LeavingPanes]] keyed by the
 * position where they leave; between two leave points the contents are constant, so a run of
 * positions is one evaluation, which `rows` turns into output rows (a row per position, or one for
 * the run), expanded lazily.
 */
private[sweep] final class AxisWalk(panes: LeavingPanes, rows: AxisRows) {

  private var at = 0L

  /** The position the walk is at. */
  def position: Long = at

  /** Starts a walk at `p`, with nothing held. */
  def startAt(p: Long): Unit = at = p

  /** Moves to `p`, removing the events that leave at or before it. */
  def moveTo(p: Long): Unit = {
    at = p
    panes.removeUpTo(p)
  }

  /**
   * Emits the run from the position to the next leave point or `target`, whichever comes first,
   * and moves there; false, with the walk at `target`, once no run is left before it.
   */
  def step(target: Long, out: SweepOutput): Boolean = {
    if (target <= at) return false
    panes.seal()
    if (panes.isEmpty) {
      moveTo(target)
      false
    } else {
      val runEnd = Math.min(panes.nextLeave, target)
      out.emit(new AxisRun(out.groupKey, out.copyResults(panes.results()), at, runEnd))
      moveTo(runEnd)
      true
    }
  }

  /** The rows of axis positions `[from, to)`, all with the same results. */
  private final class AxisRun(key: UnsafeRow, results: UnsafeRow, from: Long, to: Long)
      extends SweepRun(key, results) {
    private var next = from

    override def nextWindow(window: InternalRow): Boolean = next < to && {
      WindowFields.setLifetime(window, rows.outputStart(next, to), rows.outputEnd(next, to))
      extentStart = rows.extentStart(next, to)
      extentEnd = rows.extentEnd(next, to)
      next = if (rows.rowPerPosition) rows.nextPosition(next) else to
      true
    }
  }
}
