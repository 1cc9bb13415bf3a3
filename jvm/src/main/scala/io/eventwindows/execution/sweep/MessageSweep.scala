package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow

import io.eventwindows.execution.aggregate.{AggregateBuffers, FifoAggregator, WindowMemory}
import io.eventwindows.plans.{IndexWindow, MessageFamily, RelativeTimeWindow, WindowFields}
import io.eventwindows.time.TimeArithmetic

/**
 * The policy of \psi's windows anchored at every message (point events, in time order):
 * [[IndexWindow]] and [[RelativeTimeWindow]].
 *
 * Each message is an anchor and a possible member of other anchors' windows. An anchor's window is
 * the messages whose key (their index for index windows, their time for time windows) lies in
 * `[lower, upper]`, bounds that never decrease from one anchor to the next; so the window contents
 * slide first in first out, in a [[FifoAggregator]]. Messages are added to it as they arrive,
 * waiting; an anchor is computed once a message with a key beyond its upper bound has arrived (or
 * the group ends): the waiting messages up to `upper` are included, the oldest ones below `lower`
 * evicted, and the result emitted as a point event at the anchor. Cost: amortized O(1) merges per
 * message and one evaluation per anchor; memory: the messages from the oldest one still needed to
 * the newest, i.e. the window's span.
 *
 * On a stream, a running window's group can continue after messages it is no longer handed
 * ([[seedGroup]]): their aggregate starts every window, and indexes continue after them.
 */
private[execution] final class MessageSweep(
    family: MessageFamily,
    buffers: AggregateBuffers,
    memory: WindowMemory,
    lineMax: Long) extends SeedingSweep {
  import TimeArithmetic.add

  private val window = new FifoAggregator(buffers, memory)

  /** The times of the anchors not computed yet, oldest first. */
  private val anchors = new LongQueue

  /** The index of the oldest pending anchor. */
  private var anchorIndex = 0L

  private val byIndex = family.isInstanceOf[IndexWindow]
  private val running = family match {
    case IndexWindow(lo, _) => lo.isEmpty
    case _ => false
  }

  /** The number of messages before the group's first one, already merged (see [[seedGroup]]). */
  private var forgotten = 0L

  /** The time of the first of the `forgotten` messages: the first message of every window. */
  private var forgottenFirstTime = 0L

  /**
   * The next group of a running window continues after `count` messages it is not handed, the
   * first one at `firstTime`, their aggregation buffer `merged` (taken over, see
   * [[FifoAggregator.seed]]): indexes continue after them and every window includes them. Anchors
   * whose window ends among them were computed before they were forgotten, and are not again.
   */
  override def seedGroup(count: Long, firstTime: Long, merged: InternalRow): Unit = {
    require(running, "only a running window's group continues after forgotten messages")
    window.seed(count, merged)
    anchorIndex = count
    forgotten = count
    forgottenFirstTime = firstTime
  }

  /**
   * Inclusive key bounds of the window of anchor (index, time). An exclusive end that saturates at
   * the end of the line it would step over leaves no key: its window is empty ([[emptyWindow]]).
   */
  private val (lowerOf, upperOf): ((Long, Long) => Long, (Long, Long) => Long) = family match {
    case IndexWindow(lo, hi) =>
      (
        lo.map(l => (p: Long, _: Long) => add(p, l)).getOrElse((_: Long, _: Long) => Long.MinValue),
        (p: Long, _: Long) => add(p, hi))
    case w: RelativeTimeWindow =>
      ((_: Long, t: Long) => w.lowerTime(t), (_: Long, t: Long) => w.upperTime(t))
  }

  /**
   * True if a window by relative time lies wholly past the end or before the start of the line
   * (its bounds would saturate onto the messages there), or an exclusive end leaves it no tick.
   */
  private def emptyWindow(t: Long): Boolean = family match {
    case RelativeTimeWindow(lo, hi, bounds) =>
      (lo > 0 && t > Long.MaxValue - lo) ||
      (hi < 0 && t < Long.MinValue - hi) ||
      (!bounds.lowerInclusive && add(t, lo) == Long.MaxValue) ||
      (!bounds.upperInclusive && add(t, hi) == Long.MinValue)
    case _ => false
  }

  /** A buffer that stays at the initial values: the results of an empty window. */
  private val noMessages = buffers.newBuffer()

  /** Messages are point events: no end column, so never open-ended. */
  override def openEnd(start: Long): Long = TimeArithmetic.pointEventEnd(start, lineMax)

  override def messages: Boolean = true

  override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    // Every anchor whose upper bound this message passes has its whole window.
    val key = keyOf(window.tailIndex, start)
    while (!anchors.isEmpty && upperOf(anchorIndex, anchors.first) < key) computeAnchor(out)
    window.add(start, row)
    anchors.add(start)
  }

  override def finishGroup(out: SweepOutput): Unit = {
    while (!anchors.isEmpty) computeAnchor(out)
    window.clear()
    anchorIndex = 0L
    forgotten = 0L
  }

  private def computeAnchor(out: SweepOutput): Unit = {
    val p = anchorIndex
    val t = anchors.removeFirst()
    anchorIndex += 1
    val upper = upperOf(p, t)
    // A window emptied by saturation must not move the bounds the next anchors slide from.
    if (!emptyWindow(t)) slideTo(lowerOf(p, t), upper)
    family match {
      case IndexWindow(lo, _) =>
        // Full windows only: the window's first and last messages exist (and its last is not
        // forgotten).
        val first = lo.map(add(p, _)).getOrElse(0L)
        if (first >= 0 && first <= upper && upper >= forgotten && window.waitingIndex > upper) {
          val firstTime = if (forgotten > 0) forgottenFirstTime else window.headTime
          out.emitRow(
            window.results(),
            WindowFields.firstAndLast(t, pointEnd(t), firstTime, window.lastIncludedTime))
        }
      case _: RelativeTimeWindow =>
        val results = if (emptyWindow(t)) buffers.results(noMessages) else window.results()
        out.emitRow(results, WindowFields.lifetime(t, pointEnd(t)))
    }
  }

  /** Includes the waiting messages up to `upper`, evicts the oldest ones below `lower`. */
  private def slideTo(lower: Long, upper: Long): Unit = {
    while (window.hasWaiting && keyOf(window.waitingIndex, window.waitingTime) <= upper) {
      window.include()
    }
    while (!window.isEmpty && keyOf(window.headIndex, window.headTime) < lower) window.evict()
  }

  private def keyOf(index: Long, time: Long): Long = if (byIndex) index else time

  private def pointEnd(t: Long): Long = TimeArithmetic.pointEventEnd(t, lineMax)
}
