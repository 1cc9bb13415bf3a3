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
 */
private[execution] final class SlidingAggregator(buffers: AggregateBuffers) {

  /** A live entry, appended at `time`; `leaf` moves when the tree is packed. */
  final class Entry private[SlidingAggregator] (
      private[SlidingAggregator] var leaf: Int,
      val time: Long)

  private var capacity = 16
  private var nodes: Array[InternalRow] = Array.fill(2 * capacity)(buffers.newBuffer())
  /** Live entries below each node. */
  private var counts = new Array[Int](2 * capacity)
  /**
   * Inner nodes whose buffer is not the merge of their children's; the ancestors of a stale node
   * are stale too, so marking stops at the first one that already is.
   */
  private var stale = new Array[Boolean](capacity)
  private var entries = new Array[Entry](capacity)
  private var nextLeaf = 0

  def isEmpty: Boolean = counts(1) == 0

  /** Appends an empty entry at `time`; fill it with [[update]], then call [[seal]]. */
  def append(time: Long): Entry = {
    if (nextLeaf == capacity) pack()
    val entry = new Entry(nextLeaf, time)
    entries(nextLeaf) = entry
    nextLeaf += 1
    entry
  }

  /** Folds one input row into an entry that is not sealed yet. */
  def update(entry: Entry, row: InternalRow): Unit =
    buffers.update(nodes(capacity + entry.leaf), row)

  /** Makes an entry's rows part of the aggregate. */
  def seal(entry: Entry): Unit = {
    var node = capacity + entry.leaf
    while (node >= 1) {
      counts(node) += 1
      node >>= 1
    }
    markStaleAbove(capacity + entry.leaf)
  }

  /** Removes a sealed entry. */
  def remove(entry: Entry): Unit = {
    val leaf = capacity + entry.leaf
    buffers.reset(nodes(leaf))
    entries(entry.leaf) = null
    var node = leaf
    while (node >= 1) {
      counts(node) -= 1
      node >>= 1
    }
    markStaleAbove(leaf)
  }

  /** The oldest sealed entry (the leftmost live leaf): O(log n). */
  def oldest: Entry = entries(liveLeaf(leftFirst = true))

  /** The newest sealed entry (the rightmost live leaf): O(log n). */
  def newest: Entry = entries(liveLeaf(leftFirst = false))

  private def liveLeaf(leftFirst: Boolean): Int = {
    require(!isEmpty, "no entry")
    var node = 1
    while (node < capacity) {
      val first = if (leftFirst) 2 * node else 2 * node + 1
      node = if (counts(first) > 0) first else first ^ 1
    }
    node - capacity
  }

  /** The results of the aggregate functions over all sealed entries (a reused row). */
  def results(): InternalRow = buffers.results(node(1))

  // Accumulators of range queries, and a spare to merge into (merges are not in place).
  private var rangeLeft = buffers.newBuffer()
  private var rangeRight = buffers.newBuffer()
  private var rangeSpare = buffers.newBuffer()

  /**
   * The results over the sealed entries from `first` to `last` (inclusive, in arrival order), or
   * over no entry if `first` is null.
   */
  def rangeResults(first: Entry, last: Entry): InternalRow = buffers.results(rangeBuffer(first, last))

  /**
   * The aggregation buffer of the sealed entries from `first` to `last` (inclusive, in arrival
   * order), or of no entry if `first` is null: the O(log n) nodes covering the range, merged left
   * to right. The buffer is reused by the next query.
   */
  def rangeBuffer(first: Entry, last: Entry): InternalRow = {
    buffers.reset(rangeLeft)
    buffers.reset(rangeRight)
    if (first != null) {
      var l = capacity + first.leaf
      var r = capacity + last.leaf + 1
      while (l < r) {
        if ((l & 1) == 1) {
          buffers.combine(rangeSpare, rangeLeft, node(l))
          val t = rangeLeft; rangeLeft = rangeSpare; rangeSpare = t
          l += 1
        }
        if ((r & 1) == 1) {
          r -= 1
          buffers.combine(rangeSpare, node(r), rangeRight)
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
    java.util.Arrays.fill(entries.asInstanceOf[Array[AnyRef]], null)
    nextLeaf = 0
  }

  private def markStaleAbove(leaf: Int): Unit = {
    var node = leaf >> 1
    while (node >= 1 && !stale(node)) {
      stale(node) = true
      node >>= 1
    }
  }

  /** The buffer of a node, re-merged first (with its stale descendants) if it is stale. */
  private def node(i: Int): InternalRow = {
    if (i < capacity && stale(i)) {
      stale(i) = false
      remerge(i)
    }
    nodes(i)
  }

  /** Empty subtrees hold initial buffers, so merging them changes nothing. */
  private def remerge(i: Int): Unit = buffers.combine(nodes(i), node(2 * i), node(2 * i + 1))

  /** Packs the live leaves to the left, in order, doubling the capacity if over half are live. */
  private def pack(): Unit = {
    val live = counts(1)
    val newCapacity = if (live * 2 > capacity) capacity * 2 else capacity
    val newNodes = new Array[InternalRow](2 * newCapacity)
    val newEntries = new Array[Entry](newCapacity)
    val newCounts = new Array[Int](2 * newCapacity)
    // Live leaf buffers move with their entries; the others are already back at initial values.
    val spare = Iterator.range(0, capacity).filter(i => entries(i) == null).map(i => nodes(capacity + i))
    var packed = 0
    var i = 0
    while (i < capacity) {
      val entry = entries(i)
      if (entry != null) {
        newNodes(newCapacity + packed) = nodes(capacity + i)
        newCounts(newCapacity + packed) = 1
        newEntries(packed) = entry
        entry.leaf = packed
        packed += 1
      }
      i += 1
    }
    var leaf = newCapacity + packed
    while (leaf < 2 * newCapacity) {
      newNodes(leaf) = if (spare.hasNext) spare.next() else buffers.newBuffer()
      leaf += 1
    }
    var node = newCapacity - 1
    while (node >= 1) {
      newNodes(node) = if (node < capacity) nodes(node) else buffers.newBuffer()
      newCounts(node) = newCounts(2 * node) + newCounts(2 * node + 1)
      node -= 1
    }
    nodes = newNodes
    counts = newCounts
    entries = newEntries
    capacity = newCapacity
    nextLeaf = packed
    // Every inner node is stale now; marking them re-merges each once, when first needed.
    stale = Array.fill(newCapacity)(true)
  }
}
