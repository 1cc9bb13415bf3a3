package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import io.eventwindows.execution.aggregate.WindowMemory

/**
 * The active events of one side of a [[RangeJoinSweep]]: rows (copies) whose closed lifetime may
 * still meet an event of the other side, each with its `hi`, whether it has matched and its
 * position among its side's rows (which a replayed sweep reports matches by, see
 * [[ReplayedSide]]). Unordered: the sweep reads all of them for each event of the other side
 * anyway, and drops those whose `hi` has passed as it reads them ([[removeAt]] moves the last one
 * into the hole), so keeping them ordered by `hi` (a heap) would cost a logarithm and save nothing.
 *
 * Each row's bytes and slot are reserved through [[WindowMemory]] before they are kept, and
 * given back when it leaves.
 */
private[sweep] final class ActiveEvents(memory: WindowMemory) {
  import ActiveEvents.SlotBytes

  private var rows = new Array[UnsafeRow](16)
  private var his = new Array[Long](16)
  private var matched = new Array[Boolean](16)
  private var positions = new Array[Int](16)
  private var count = 0

  /** The size at which the sweep prunes these events next (of those whose `hi` has passed). */
  var pruneAt: Int = ActiveEvents.FirstPrune

  def size: Int = count

  def row(i: Int): UnsafeRow = rows(i)

  def hi(i: Int): Long = his(i)

  def hasMatched(i: Int): Boolean = matched(i)

  def markMatched(i: Int): Unit = matched(i) = true

  def position(i: Int): Int = positions(i)

  /**
   * Keeps a copy of `row`, the rest of whose events of the other side are still to come, the
   * `position`-th row of its side.
   */
  def add(row: UnsafeRow, hi: Long, hasMatched: Boolean, position: Int): Unit = {
    val copy = row.copy()
    memory.reserve(copy.getSizeInBytes + SlotBytes)
    if (count == rows.length) {
      rows = java.util.Arrays.copyOf(rows, count * 2)
      his = java.util.Arrays.copyOf(his, count * 2)
      matched = java.util.Arrays.copyOf(matched, count * 2)
      positions = java.util.Arrays.copyOf(positions, count * 2)
    }
    rows(count) = copy
    his(count) = hi
    matched(count) = hasMatched
    positions(count) = position
    count += 1
  }

  /** Drops event `i`; the last one takes its place. */
  def removeAt(i: Int): Unit = {
    memory.release(rows(i).getSizeInBytes + SlotBytes)
    count -= 1
    rows(i) = rows(count)
    his(i) = his(count)
    matched(i) = matched(count)
    positions(i) = positions(count)
    rows(count) = null
  }
}

private[sweep] object ActiveEvents {

  /** What a slot holds besides the row's bytes: its reference, `hi`, flag, position, row header. */
  val SlotBytes = 52L

  /** The size at which a side's active events are first pruned. */
  val FirstPrune = 64
}
