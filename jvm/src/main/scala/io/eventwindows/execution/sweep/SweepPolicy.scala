package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute

import io.eventwindows.execution.aggregate.{AggregateBuffers, WindowMemory}
import io.eventwindows.plans.{
  AnchorWindow, AxisFamily, CountWindow, MessageFamily, SessionWindow, SlidingWindow,
  SplTumblingWindow, WindowDefinition
}

/**
 * A window family's work on the events of one key group, which the shared
 * [[WindowSweepIterator]] hands it in sorted order (by start; ties as [[KeyTimeSorter]] orders
 * them). A policy decides where an event enters the window contents, when it leaves them and when
 * a result is emitted; the contents live in a [[SlidingAggregator]] or [[FifoAggregator]] of
 * Spark's aggregation buffers ([[AggregateBuffers]]).
 */
private[execution] trait SweepPolicy {

  /** The end given to an open-ended event (a NULL end). */
  def openEnd(start: Long): Long

  /**
   * True if the events are messages (points that matter by their time alone), so that one at the
   * end of time, whose one tick is cut to nothing, is still an event; false if an empty lifetime
   * is in no window.
   */
  def messages: Boolean = false

  /**
   * Emits the next run that an event `[start, end)` about to be consumed closes, if any: called
   * until it returns false, then the event is consumed. A policy whose contents change at points
   * other than arrivals (leave points) emits those runs here, one per call, so that they reach the
   * output as they are made instead of piling up in memory.
   */
  def emitBefore(start: Long, end: Long, out: SweepOutput): Boolean = false

  /** As [[emitBefore]], at the end of the group: called until false, then [[finishGroup]]. */
  def emitAtEnd(out: SweepOutput): Boolean = false

  /** One event `[start, end)` (non-empty) of the current group, and its row. */
  def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit

  /** The current group has no more events: emit what is left and forget the group. */
  def finishGroup(out: SweepOutput): Unit
}

private[execution] object SweepPolicy {

  /**
   * Makes the policies of a window, one per partition, from that partition's aggregate buffers:
   * the one place that maps a family to its run-time behaviour. The window's values are read over
   * `input`. `horizon` is the last tick open-ended events cover under per-window hopping output,
   * when the family has not set one; only axis families ask for it, here, once. `maxWindows` is
   * the most windows one event may lie in under per-window output (and pieces of a session), and
   * the most rows an SPL time trigger may fire between two arrivals.
   */
  def factory(
      window: WindowDefinition,
      input: Seq[Attribute],
      lineMin: Long,
      lineMax: Long,
      horizon: => Long,
      maxWindows: Long): (AggregateBuffers, WindowMemory) => SweepPolicy = {
    val (values, timeType) = (window.values, window.timeType)
    window.family match {
      case f: AxisFamily =>
        val axis = f.axis(lineMin, lineMax, horizon)
        new IntervalSweep(f, axis, _, _, maxWindows, timeType)
      case f: CountWindow => new CountSweep(f, _, _, lineMax)
      case f: MessageFamily => new MessageSweep(f, _, _, lineMax)
      case f: SlidingWindow => new SlidingSweep(f, _, _, values, input, lineMax, maxWindows)
      case f: SplTumblingWindow => (b, _) => new SplTumblingSweep(f, b, values, input, lineMax)
      case f: SessionWindow => new SessionSweep(f, _, _, lineMax, maxWindows, timeType)
      case f: AnchorWindow => new AnchorSweep(f, _, _, values, input, timeType)
    }
  }
}
