package io.eventwindows.execution

import java.util.PriorityQueue

import io.eventwindows.expressions.TimeArithmetic
import io.eventwindows.plans.{CountWindow, OutputPolicy}

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The policy of StreamInsight's count windows: for n consecutive distinct start times
 * s_i..s_k, the window `[s_i, s_k + 1 tick)` holds every event with start <= s_k and end > s_i.
 *
 * Events arrive by start and enter the [[SlidingAggregator]] on arrival (consecutive events with
 * the same end share an entry). Once every event starting at s_k has arrived (a later start
 * arrives, or the group ends) and n distinct starts exist, the events ending at or before s_i
 * leave (a heap ordered by end; s_i never decreases) and the window is evaluated. Cost: O(log n)
 * merges per entry and one evaluation per distinct start; memory: the events of the current window
 * and the last n distinct starts.
 */
final class CountSweep(family: CountWindow, buffers: AggregateBuffers, lineMax: Long)
  extends SweepPolicy {

  private val sliding = new SlidingAggregator(buffers)

  /** An entry of the sliding aggregate and the end of its events. */
  private final class Held(val end: Long, val entry: sliding.Entry)
  private val held = new PriorityQueue[Held](64,
    (a: Held, b: Held) => java.lang.Long.compare(a.end, b.end))

  /** The last n distinct starts of the group, oldest first; the newest is the current one. */
  private val starts = new LongQueue
  private var open: sliding.Entry = _
  private var openEnd = 0L

  /** An open-ended event lasts to the end of time: it never leaves. */
  override def openEnd(start: Long): Long = lineMax

  override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    if (starts.isEmpty || start != starts.last) {
      if (!starts.isEmpty) completeStart(out)
      starts.add(start)
      if (starts.size > family.n) starts.removeFirst()
    }
    if (open == null || openEnd != end) {
      sealOpen()
      open = sliding.append(start)
      openEnd = end
    }
    sliding.update(open, row)
  }

  override def finishGroup(out: SweepOutput): Unit = {
    if (!starts.isEmpty) completeStart(out)
    sealOpen()
    while (!held.isEmpty) sliding.remove(held.poll().entry)
    sliding.restart()
    starts.clear()
  }

  private def sealOpen(): Unit = if (open != null) {
    sliding.seal(open)
    held.add(new Held(openEnd, open))
    open = null
  }

  /** Every event starting at the newest distinct start has arrived: emit its window, if any. */
  private def completeStart(out: SweepOutput): Unit = if (starts.size == family.n) {
    sealOpen()
    val first = starts.first
    val last = starts.last
    while (!held.isEmpty && held.peek().end <= first) sliding.remove(held.poll().entry)
    val outputStart = if (family.output == OutputPolicy.Point) last else first
    out.emitRow(sliding.results(),
      Array(outputStart, TimeArithmetic.pointEventEnd(last, lineMax), first, last))
  }
}
