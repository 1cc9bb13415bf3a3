package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow

import io.eventwindows.execution.aggregate.{AggregateBuffers, SlidingAggregator, WindowMemory}

/**
 * Window contents whose events each carry the key at which they leave (a window index, an end
 * time), kept in a [[SlidingAggregator]]: consecutive events with the same key share one entry (a
 * pane), and entries leave in key order through a heap, whatever their arrival order. Used by the
 * policies whose events leave by their end rather than oldest first.
 */
private[sweep] final class LeavingPanes(buffers: AggregateBuffers, memory: WindowMemory) {

  private val sliding = new SlidingAggregator(buffers, memory)

  /** The sealed entries of the sliding aggregate, by where they leave. */
  private val held = new LongPairHeap(memory)

  private var open = SlidingAggregator.NoEntry
  private var openLeave = 0L

  /** Adds an event that arrived at `time` and leaves at `leave`. */
  def add(row: InternalRow, time: Long, leave: Long): Unit = {
    if (open == SlidingAggregator.NoEntry || openLeave != leave) newPane(time, leave)
    sliding.update(open, row)
  }

  /**
   * Adds events that arrived up to `time` and leave at `leave`, given as their aggregation
   * buffer `folded` (a session's events folded on a stream, see [[ContinuingSession]]): a new
   * pane, which the next events leaving there join, updating the buffer as if it held them.
   */
  def addFolded(folded: InternalRow, time: Long, leave: Long): Unit = {
    newPane(time, leave)
    sliding.assign(open, folded)
  }

  /** Seals the open pane, if any, and opens one for events leaving at `leave`. */
  private def newPane(time: Long, leave: Long): Unit = {
    seal()
    open = sliding.append(time)
    openLeave = leave
  }

  /** Makes the added events part of the aggregate (the open pane takes no more events). */
  def seal(): Unit = if (open != SlidingAggregator.NoEntry) {
    sliding.seal(open)
    held.add(openLeave, open)
    open = SlidingAggregator.NoEntry
  }

  /** True if no sealed event is held. */
  def isEmpty: Boolean = sliding.isEmpty

  /** The smallest leave key held; only when not empty. */
  def nextLeave: Long = held.peekKey

  /** Removes the sealed events that leave at or before `key`. */
  def removeUpTo(key: Long): Unit =
    while (!held.isEmpty && held.peekKey <= key) {
      sliding.remove(held.peekValue)
      held.removeFirst()
    }

  /** The results over the sealed events (a reused row). */
  def results(): InternalRow = sliding.results()

  /** Forgets every event, for the next key group. */
  def clear(): Unit = {
    seal()
    removeUpTo(Long.MaxValue)
    sliding.restart()
  }
}
