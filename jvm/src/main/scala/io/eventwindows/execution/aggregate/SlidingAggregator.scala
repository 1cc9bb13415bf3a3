package io.eventwindows.execution.aggregate

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The aggregate of a changing set of partial aggregates, kept in a segment tree of Spark
 * aggregation buffers: every window family keeps its window contents here.
 *
 * Entries are appended in arrival order and may leave in any order (events leave windows by end
 * time, not by start time). Each leaf holds the partial aggregate of one entry (several rows may
 * be folded into one entry: a pane); each inner node holds the merge of its children, left to
 * right, so order-sensitive functions (first, last, collect_list) see the entries in arrival order.
 * Appending or removing an entry marks the nodes above its leaf stale; a node is re-merged when a
 * query needs it, so entries appended or removed between two queries share the re-merges of
 * their common ancestors: at most O(log n) merges per entry, never a pass over the window. When
 * the leaves run out, the live ones are packed to the left (growing the tree when more than half
 * are live), so packing costs O(1) merges per appended entry, amortized. The aggregate of a range
 * of entries (in arrival order) takes O(log n) merges, besides re-merging stale nodes.
 *
 * Memory: the nodes' buffers are a [[BufferArray]] (bytes in pages for fixed-width layouts), of
 * which only the nodes over entries are ever allocated; entries are named by their arrival
 * number (an `Entry`, a long), which stays theirs when packing moves them; everything is reserved
 * through [[WindowMemory]]. An entry's time is kept only if asked for (`withTimes`).
 */
private[execution] final class SlidingAggregator(
    buffers: AggregateBuffers,
    memory: WindowMemory,
    withTimes: Boolean = false) {
  import SlidingAggregator.Entry

  private var capacity = 16
  private val nodes = BufferArray(buffers, memory)
  nodes.ensure(2 * capacity)
  /** Live entries below each inner node. */
  private var counts = memory.ints(capacity)
  /** True for the leaves of sealed entries. */
  private var live = newFlags(capacity)
  /**
   * Inner nodes whose buffer is not the merge of their children's; the ancestors of a stale node
   * are stale too, so marking stops at the first one that already is.
   */
  private var stale = newFlags(capacity)
  /** Each leaf's entry (increasing from leaf to leaf) and, if kept, its time. */
  private val entries = new LongPages(memory)
  private val times = if (withTimes) new LongPages(memory) else null
  entries.ensure(capacity)
  if (withTimes) times.ensure(capacity)
  private var nextLeaf = 0
  private var nextEntry = 0L
  private var liveCount = 0

  def isEmpty: Boolean = liveCount == 0

  /** Appends an empty entry at `time`; fill it with [[update]], then call [[seal]]. */
  def append(time: Long): Entry = {
    if (nextLeaf == capacity) pack()
    val entry = nextEntry
    nextEntry += 1
    entries(nextLeaf) = entry
    if (withTimes) times(nextLeaf) = time
    nextLeaf += 1
    entry
  }

  /** Folds one input row into an entry that is not sealed yet. */
  def update(entry: Entry, row: InternalRow): Unit =
    buffers.update(nodes.row(capacity + leafOf(entry), 0), row)

  /** Makes an entry's rows part of the aggregate. */
  def seal(entry: Entry): Unit = {
    val leaf = leafOf(entry)
    live(leaf) = true
    liveCount += 1
    var node = (capacity + leaf) >> 1
    while (node >= 1) {
      counts(node) += 1
      node >>= 1
    }
    markStaleAbove(capacity + leaf)
  }

  /** Removes a sealed entry. */
  def remove(entry: Entry): Unit = {
    val leaf = leafOf(entry)
    require(live(leaf), s"entry $entry is not in the aggregate")
    nodes.clear(capacity + leaf, capacity + leaf + 1)
    live(leaf) = false
    liveCount -= 1
    var node = (capacity + leaf) >> 1
    while (node >= 1) {
      counts(node) -= 1
      node >>= 1
    }
    markStaleAbove(capacity + leaf)
  }

  /** The oldest sealed entry (the leftmost live leaf): O(log n). */
  def oldest: Entry = entries(liveLeaf(leftFirst = true))

  /** The newest sealed entry (the rightmost live leaf): O(log n). */
  def newest: Entry = entries(liveLeaf(leftFirst = false))

  /** The time an entry was appended at; only `withTimes`. */
  def timeOf(entry: Entry): Long = times(leafOf(entry))

  private def liveLeaf(leftFirst: Boolean): Int = {
    require(!isEmpty, "no entry")
    var node = 1
    while (node < capacity) {
      val first = if (leftFirst) 2 * node else 2 * node + 1
      node = if (liveBelow(first)) first else first ^ 1
    }
    node - capacity
  }

  private def liveBelow(node: Int): Boolean =
    if (node >= capacity) live(node - capacity) else counts(node) > 0

  /** The results of the aggregate functions over all sealed entries (a reused row). */
  def results(): InternalRow = {
    refresh(1)
    buffers.results(nodes.read(1, 0))
  }

  // Accumulators of range queries, and a spare to merge into (merges are not in place).
  private var rangeLeft = buffers.newBuffer()
  private var rangeRight = buffers.newBuffer()
  private var rangeSpare = buffers.newBuffer()

  /**
   * The results over the sealed entries from `first` to `last` (inclusive, in arrival order), or
   * over no entry if `first` is [[SlidingAggregator.NoEntry]].
   */
  def rangeResults(first: Entry, last: Entry): InternalRow =
    buffers.results(rangeBuffer(first, last))

  /**
   * The aggregation buffer of the sealed entries from `first` to `last` (inclusive, in arrival
   * order), or of no entry if `first` is [[SlidingAggregator.NoEntry]]: the O(log n) nodes
   * covering the range, merged left to right. The buffer is reused by the next query.
   */
  def rangeBuffer(first: Entry, last: Entry): InternalRow = {
    buffers.reset(rangeLeft)
    buffers.reset(rangeRight)
    if (first != SlidingAggregator.NoEntry) {
      var l = capacity + leafOf(first)
      var r = capacity + leafOf(last) + 1
      while (l < r) {
        if ((l & 1) == 1) {
          refresh(l)
          buffers.combine(rangeSpare, rangeLeft, nodes.read(l, 0))
          val t = rangeLeft; rangeLeft = rangeSpare; rangeSpare = t
          l += 1
        }
        if ((r & 1) == 1) {
          r -= 1
          refresh(r)
          buffers.combine(rangeSpare, nodes.read(r, 0), rangeRight)
          val t = rangeRight; rangeRight = rangeSpare; rangeSpare = t
        }
        l >>= 1
        r >>= 1
      }
    }
    buffers.combine(rangeSpare, rangeLeft, rangeRight)
    rangeSpare
  }

  /** Forgets every entry; the tree must be empty of sealed entries (the sweep has evicted all). */
  def restart(): Unit = {
    assert(isEmpty, "restarting a sliding aggregate that still holds entries")
    // An entry appended but never sealed leaves its leaf written.
    nodes.clear(capacity, capacity + nextLeaf)
    nextLeaf = 0
  }

  /** The leaf of an entry: the newest is the usual one, any other is found by binary search. */
  private def leafOf(entry: Entry): Int = {
    if (nextLeaf > 0 && entries(nextLeaf - 1) == entry) return nextLeaf - 1
    var lo = 0
    var hi = nextLeaf - 1
    while (lo <= hi) {
      val mid = (lo + hi) >>> 1
      val e = entries(mid)
      if (e < entry) lo = mid + 1 else if (e > entry) hi = mid - 1 else return mid
    }
    throw new IllegalStateException(s"entry $entry is not held")
  }

  private def markStaleAbove(node: Int): Unit = {
    var n = node >> 1
    while (n >= 1 && !stale(n)) {
      stale(n) = true
      n >>= 1
    }
  }

  /** Re-merges node `i` from its children (their stale descendants first) if it is stale. */
  private def refresh(i: Int): Unit = if (i < capacity && stale(i)) {
    stale(i) = false
    refresh(2 * i)
    refresh(2 * i + 1)
    // Empty subtrees read as initial buffers, so merging them changes nothing.
    buffers.combine(nodes.row(i, 0), nodes.read(2 * i, 1), nodes.read(2 * i + 1, 2))
  }

  /**
   * Packs the live leaves to the left, in order, doubling the capacity if over half are live: in
   * place, first within the old leaves, then (when growing) shifted to the new leaves. Inner
   * nodes over live leaves become stale; the others are cleared, so their pages are freed.
   */
  private def pack(): Unit = {
    val newCapacity = if (liveCount * 2 > capacity) capacity * 2 else capacity
    nodes.ensure(2 * newCapacity)
    entries.ensure(newCapacity)
    if (withTimes) times.ensure(newCapacity)
    var packed = 0
    var i = 0
    while (i < capacity) {
      if (live(i)) {
        if (packed != i) {
          nodes.move(capacity + i, capacity + packed)
          entries(packed) = entries(i)
          if (withTimes) times(packed) = times(i)
        }
        packed += 1
      }
      i += 1
    }
    if (newCapacity != capacity) {
      // Backwards: each leaf moves right, past the ones still to move.
      var j = packed - 1
      while (j >= 0) {
        nodes.move(capacity + j, newCapacity + j)
        j -= 1
      }
    }
    nodes.clear(newCapacity + packed, 2 * newCapacity)

    memory.release(4L * capacity + 2L * capacity)
    counts = memory.ints(newCapacity)
    live = newFlags(newCapacity)
    stale = newFlags(newCapacity)
    java.util.Arrays.fill(live, 0, packed, true)
    var level = newCapacity >> 1
    var span = 2
    while (level >= 1) {
      val needed = (packed + span - 1) / span
      var n = level
      while (n < level + needed) {
        stale(n) = true
        counts(n) = Math.min(span, packed - (n - level) * span)
        n += 1
      }
      nodes.clear(level + needed, 2 * level)
      level >>= 1
      span <<= 1
    }
    capacity = newCapacity
    nextLeaf = packed
  }

  private def newFlags(n: Int): Array[Boolean] = {
    memory.reserve(n)
    new Array[Boolean](n)
  }
}

private[execution] object SlidingAggregator {
  /** An entry: its arrival number in the aggregator. */
  type Entry = Long

  /** No entry, for an empty range. */
  val NoEntry: Entry = -1L
}
