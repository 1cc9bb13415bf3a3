package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow

import io.eventwindows.execution.aggregate.{AggregateBuffers, WindowMemory}
import io.eventwindows.plans.{CountWindow, OutputPolicy, WindowFields}
import io.eventwindows.time.TimeArithmetic

/**
 * The policy of StreamInsight's count windows: for n consecutive distinct start times
 * s_i..s_k, the window `[s_i, s_k + 1 tick)` holds every event with start <= s_k and end > s_i.
 *
 * Events arrive by start and enter [[LeavingPanes]] keyed by their end on arrival (consecutive
 * events with the same end share a pane). Once every event starting at s_k has arrived (a later
 * start arrives, or the group ends) and n distinct starts exist, the events ending at or before
 * s_i leave (in end order; s_i never decreases) and the window is evaluated. Cost: O(log n)
 * merges per entry and one evaluation per distinct start; memory: the events of the current window
 * and the last n distinct starts.
 *
 * An event leaves by later starts, not by its own lifetime alone: that is why count windows have no
 * [[io.eventwindows.plans.WindowAxis]].
 */
private[sweep] final class CountSweep(
    family: CountWindow,
    buffers: AggregateBuffers,
    memory: WindowMemory,
    lineMax: Long)
    extends SweepPolicy {

  /** The events, keyed by their end. */
  private val panes = new LeavingPanes(buffers, memory)

  /** The last n distinct starts of the group, oldest first; the newest is the current one. */
  private val starts = new LongQueue

  /** An open-ended event lasts to the end of time: it never leaves. */
  override def openEnd(start: Long): Long = lineMax

  override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    if (starts.isEmpty || start != starts.last) {
      if (!starts.isEmpty) completeStart(out)
      starts.add(start)
      if (starts.size > family.n) starts.removeFirst()
    }
    panes.add(row, start, end)
  }

  override def finishGroup(out: SweepOutput): Unit = {
    if (!starts.isEmpty) completeStart(out)
    panes.clear()
    starts.clear()
  }

  /** Every event starting at the newest distinct start has arrived: emit its window, if any. */
  private def completeStart(out: SweepOutput): Unit = if (starts.size == family.n) {
    panes.seal()
    val first = starts.first
    val last = starts.last
    panes.removeUpTo(first)
    val outputStart = if (family.output == OutputPolicy.Point) last else first
    val end = TimeArithmetic.pointEventEnd(last, lineMax)
    out.emitClipping(
      panes.results(),
      WindowFields.firstAndLast(outputStart, end, first, last),
      first,
      end)
  }
}
