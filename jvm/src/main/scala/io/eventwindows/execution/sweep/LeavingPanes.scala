package io.eventwindows.execution.sweep

import java.util.PriorityQueue

import io.eventwindows.execution.aggregate.{AggregateBuffers, SlidingAggregator}

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Window contents whose events each carry the key at which they leave (a window index, an end
 * time), kept in a [[SlidingAggregator]]: consecutive events with the same key share one entry (a
 * pane), and entries leave in key order through a heap, whatever their arrival order. Used by the
 * policies whose events leave by their end rather than oldest first.
 */
private[sweep] final class LeavingPanes(buffers: AggregateBuffers) {

  private val sliding = new SlidingAggregator(buffers)

  /** An entry of the sliding aggregate and where it leaves. */
  private final class Held(val leave: Long, val entry: sliding.Entry)
  private val held = new PriorityQueue[Held](64,
    (a: Held, b: Held) => java.lang.Long.compare(a.leave, b.leave))

  private var open: sliding.Entry = _
  private var openLeave = 0L

  /** Adds an event that arrived at `time` and leaves at `leave`. */
  def add(row: InternalRow, time: Long, leave: Long): Unit = {
    if (open == null || openLeave != leave) {
      seal()
      open = sliding.append(time)
      openLeave = leave
    }
    sliding.update(open, row)
  }

  /** Makes the added events part of the aggregate (the open pane takes no more events). */
  def seal(): Unit = if (open != null) {
    sliding.seal(open)
    held.add(new Held(openLeave, open))
    open = null
  }

  /** True if no sealed event is held. */
  def isEmpty: Boolean = sliding.isEmpty

  /** The smallest leave key held; only when not empty. */
  def nextLeave: Long = held.peek().leave

  /** Removes the sealed events that leave at or before `key`. */
  def removeUpTo(key: Long): Unit =
    while (!held.isEmpty && held.peek().leave <= key) sliding.remove(held.poll().entry)

  /** The results over the sealed events (a reused row). */
  def results(): InternalRow = sliding.results()

  /** Forgets every event, for the next key group. */
  def clear(): Unit = {
    seal()
    removeUpTo(Long.MaxValue)
    sliding.restart()
  }
}
