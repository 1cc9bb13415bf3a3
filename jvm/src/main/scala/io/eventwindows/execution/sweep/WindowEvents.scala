package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import io.eventwindows.execution.aggregate.WindowMemory

/**
 * The events of a key group that a window may still hold, in arrival order, for aggregates that
 * read each event once per window ([[ClippedResults]]): copies of their rows (only the columns
 * those aggregates read) with their lifetimes, reserved through [[WindowMemory]].
 *
 * Windows are visited with non-decreasing starts, so an event ending at or before a window's
 * start is in no later window: [[foreachIn]] drops it while it walks the events, and what a walk
 * costs is the window's events plus those that left since the last one.
 *
 * Left to do: every window re-reads its events, also hopping windows whose contents did not change
 * (a long run of windows over the same long events), where a run could share the work.
 */
private[sweep] final class WindowEvents(memory: WindowMemory) {
  private var rows = new Array[UnsafeRow](16)
  private var starts = new Array[Long](16)
  private var ends = new Array[Long](16)
  private var count = 0

  /** The bytes reserved for the rows held (the arrays' own stay reserved for the task). */
  private var rowBytes = 0L

  /** Adds an event (the row is kept as it is: pass a copy). */
  def add(row: UnsafeRow, start: Long, end: Long): Unit = {
    val bytes = WindowEvents.bytesOf(row)
    memory.reserve(bytes)
    rowBytes += bytes
    if (count == rows.length) grow()
    rows(count) = row
    starts(count) = start
    ends(count) = end
    count += 1
  }

  /**
   * Calls `f(row, start, end)` for each event intersecting `[from, to)`, in arrival order, after
   * forgetting the events that end at or before `from`.
   */
  def foreachIn(from: Long, to: Long)(f: (UnsafeRow, Long, Long) => Unit): Unit = {
    var kept = 0
    var i = 0
    while (i < count) {
      val row = rows(i)
      val start = starts(i)
      val end = ends(i)
      if (end <= from) {
        val bytes = WindowEvents.bytesOf(row)
        memory.release(bytes)
        rowBytes -= bytes
      } else {
        rows(kept) = row
        starts(kept) = start
        ends(kept) = end
        kept += 1
        if (start < to) f(row, start, end)
      }
      i += 1
    }
    java.util.Arrays.fill(rows.asInstanceOf[Array[AnyRef]], kept, count, null)
    count = kept
  }

  /** Forgets every event. */
  def clear(): Unit = {
    java.util.Arrays.fill(rows.asInstanceOf[Array[AnyRef]], 0, count, null)
    count = 0
    memory.release(rowBytes)
    rowBytes = 0L
  }

  private def grow(): Unit = {
    val n = rows.length * 2
    // The arrays' growth is reserved too: a reference and two longs per slot.
    memory.reserve(20L * rows.length)
    rows = java.util.Arrays.copyOf(rows, n)
    starts = java.util.Arrays.copyOf(starts, n)
    ends = java.util.Arrays.copyOf(ends, n)
  }
}

private object WindowEvents {

  /** What a kept row takes: its bytes, the row object and the byte array's header. */
  def bytesOf(row: UnsafeRow): Long = row.getSizeInBytes + 64L
}
