package io.eventwindows.execution.aggregate

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The aggregate of a window whose entries leave in the order they came, first in first out, in
 * amortized O(1) merges per entry whatever the window's length: the "two stacks" sliding-window
 * aggregation, on a ring of Spark aggregation buffers.
 *
 * Entries are numbered in arrival order and kept from [[headIndex]] (the oldest) to the newest.
 * Each holds the partial aggregate of one input row. The entries from the head up to
 * [[waitingIndex]] are in the aggregate; later ones are waiting to be [[include]]d, which lets a
 * window be computed after rows beyond it have arrived (windows that look ahead).
 *
 * The included entries are split at `flip`: the older ones (the "front") each hold the aggregate of
 * themselves and every included entry after them up to `flip` (a suffix aggregate), the newer ones
 * (the "back") are merged into one running buffer. Including an entry is one merge into the back;
 * evicting the oldest drops it from the front; when the front is empty, one pass from newest to
 * oldest turns the back into a front (one merge per entry, once per entry). The result is the
 * front's oldest suffix merged with the back: one merge. Order is kept (older entries on the left
 * of every merge), so first, last and collect_list see arrival order.
 *
 * An aggregator that never evicts (a running window) can be [[seed]]ed with the [[merged]] buffer
 * of the entries before a given index, and continues from there as if it still held them.
 *
 * Memory: the entries' and suffixes' buffers are [[BufferArray]]s (bytes in pages for fixed-width
 * layouts) and their times a reserved array, all through [[WindowMemory]].
 */
private[execution] final class FifoAggregator(buffers: AggregateBuffers, memory: WindowMemory) {

  private var capacity = 16
  private var times = memory.longs(capacity)
  private val leaves = BufferArray(buffers, memory)
  private val suffixes = BufferArray(buffers, memory)
  leaves.ensure(capacity)
  suffixes.ensure(capacity)

  private var head = 0L
  private var flip = 0L
  private var included = 0L
  private var tail = 0L

  /** The merge of the back, and a spare buffer to merge into (merges are not in place). */
  private var back = buffers.newBuffer()
  private var spare = buffers.newBuffer()
  private val scratch = buffers.newBuffer()
  private val empty = buffers.newBuffer()

  /** True if the entries before `head` are a seeded prefix, merged into `back` for good. */
  private var seeded = false

  /** The index of the oldest entry held. */
  def headIndex: Long = head

  /** The index of the oldest waiting entry (the number of entries ever included). */
  def waitingIndex: Long = included

  /** The index the next entry added will have (the number of entries ever added). */
  def tailIndex: Long = tail

  /** True if no entry is in the aggregate. */
  def isEmpty: Boolean = head == included

  def hasWaiting: Boolean = included < tail

  /** The time of the oldest entry held. */
  def headTime: Long = times(slot(head))

  /** The time of the oldest waiting entry. */
  def waitingTime: Long = times(slot(included))

  /** The time of the newest entry in the aggregate. */
  def lastIncludedTime: Long = times(slot(included - 1))

  /** Adds an entry holding `row` at `time`, waiting. */
  def add(time: Long, row: InternalRow): Unit = {
    if (tail - head == capacity) grow()
    val i = slot(tail)
    times(i) = time
    val leaf = leaves.row(i, 0)
    buffers.reset(leaf)
    buffers.update(leaf, row)
    tail += 1
  }

  /** The oldest waiting entry joins the aggregate. */
  def include(): Unit = {
    buffers.combine(spare, back, leaves.read(slot(included), 0))
    val merged = spare
    spare = back
    back = merged
    included += 1
  }

  /** Drops the oldest entry of the aggregate. */
  def evict(): Unit = {
    require(head < included, "no entry to evict")
    require(!seeded, "a seeded aggregator cannot evict: its prefix is merged with every entry")
    if (head == flip) turnBackIntoFront()
    head += 1
  }

  /** The results of the aggregate functions over the included entries (a reused row). */
  def results(): InternalRow = {
    if (head == flip) {
      buffers.results(back)
    } else {
      buffers.combine(scratch, suffixes.read(slot(head), 0), back)
      buffers.results(scratch)
    }
  }

  /** Forgets every entry. */
  def clear(): Unit = {
    head = 0L
    flip = 0L
    included = 0L
    tail = 0L
    seeded = false
    buffers.reset(back)
  }

  /**
   * Starts over after `count` entries that are included but no longer held, whose merge is
   * `prefix` (a buffer the aggregator takes over, as [[merged]] gave it): the next entry added has
   * index `count`, and every result includes the prefix. A seeded aggregator cannot evict.
   */
  def seed(count: Long, prefix: InternalRow): Unit = {
    clear()
    head = count
    flip = count
    included = count
    tail = count
    seeded = true
    back = prefix
  }

  /**
   * The merge of every entry included (after the seeded prefix, if any), for an aggregator that
   * never evicted; it is the aggregator's own buffer, valid until the next change.
   */
  def merged: InternalRow = {
    require(flip == 0L || seeded, "an aggregator that evicted no longer holds every entry's merge")
    back
  }

  private def slot(index: Long): Int = (index & (capacity - 1)).toInt

  /** Suffix aggregates over the back, newest first; the back becomes empty. */
  private def turnBackIntoFront(): Unit = {
    var i = included - 1
    while (i >= head) {
      val s = slot(i)
      val right = if (i == included - 1) empty else suffixes.read(slot(i + 1), 2)
      buffers.combine(suffixes.row(s, 0), leaves.read(s, 1), right)
      i -= 1
    }
    flip = included
    buffers.reset(back)
  }

  /** Doubles the ring: each held slot stays or moves up by the old capacity, into a new slot. */
  private def grow(): Unit = {
    val grown = capacity * 2
    leaves.ensure(grown)
    suffixes.ensure(grown)
    val newTimes = memory.longs(grown)
    var i = 0
    while (i < capacity) {
      val index = if (i >= slot(head)) head - slot(head) + i else head - slot(head) + capacity + i
      val to = (index & (grown - 1)).toInt
      newTimes(to) = times(i)
      if (to != i) {
        leaves.move(i, to)
        suffixes.move(i, to)
      }
      i += 1
    }
    memory.release(8L * capacity)
    times = newTimes
    capacity = grown
  }
}
