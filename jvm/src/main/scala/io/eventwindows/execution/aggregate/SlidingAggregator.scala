package io.eventwindows.execution.aggregate

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The aggregate of a changing set of partial aggregates, kept as one Spark aggregation buffer per
 * entry under a segment tree over blocks of entries: every window family keeps its window
 * contents here.
 *
 * Entries are appended in arrival order and may leave in any order (events leave windows by end
 * time, not by start time). Each leaf holds the partial aggregate of one entry (several rows may
 * be folded into one entry: a pane). The leaves are grouped in blocks of B consecutive leaves (8,
 * or 16 in a large aggregator), and a segment tree is kept over the blocks alone: its bottom
 * nodes hold the merge of their block's live leaves, each node above the merge of its two
 * children, always left to right, so order-sensitive functions (first, last, collect_list) see
 * the entries in arrival order. Sealing an entry merges it into its block's
 * node (it is the block's last) and marks the nodes above stale; removing one marks its block's
 * node stale too. A stale node is re-merged when a query needs it (a block from its live leaves),
 * so entries appended or removed between two queries share the re-merges of their common
 * ancestors: O(B + log n) merges per entry, never a pass over the window. When the leaves run
 * out, the live ones are packed to the left (growing the capacity when more than half are live),
 * so packing costs O(1) merges per appended entry, amortized. The aggregate of a range of
 * entries (in arrival order) merges the leaves of the blocks at its two ends and O(log n) nodes
 * over the blocks between, besides re-merging stale nodes.
 *
 * Memory: a buffer per leaf and ~2/B per leaf for the tree, each a [[BufferArray]] (bytes in
 * pages for fixed-width layouts) in which only the slots over entries are ever allocated, where
 * a full binary tree over the leaves would take two buffers per leaf; per leaf, besides, a live
 * bit and its entry. Entries are named by their arrival number (an `Entry`, a long), which stays
 * theirs when packing moves them. An entry's time is kept only if asked for (`withTimes`).
 * Everything is reserved through [[WindowMemory]], and [[restart]] gives back what a large key
 * made the aggregator grow to.
 */
private[execution] final class SlidingAggregator(
    buffers: AggregateBuffers,
    memory: WindowMemory,
    withTimes: Boolean = false) {
  import SlidingAggregator._

  /** How many leaves there are: a power of two, at least a block. */
  private var capacity = InitialCapacity

  /** The leaves per block, `1 << blockBits`, set with the capacity. */
  private var blockBits = blockBitsFor(capacity)

  /** How many blocks there are; node `blocks + b` of the tree is block b's. */
  private var blocks = capacity >> blockBits
  private def blockSize: Int = 1 << blockBits

  /** Each leaf's buffer: its entry's partial aggregate, initial if it has none. */
  private val leaves = BufferArray(buffers, memory)
  leaves.ensure(capacity)

  /** The tree's nodes, from 1; node i's children are 2i and 2i + 1. */
  private val nodes = BufferArray(buffers, memory)
  nodes.ensure(2 * blocks)

  /** Live entries below each node. */
  private var counts = memory.ints(2 * blocks)

  /**
   * Nodes whose buffer is not the merge of what is below them; the ancestors of a stale node are
   * stale too, so marking stops at the first one that already is.
   */
  private var stale = newFlags(2 * blocks)

  /** A bit per leaf, set for the leaves of sealed entries; a block's bits lie in one long. */
  private var live = memory.longs(liveWords(capacity))

  /** Each leaf's entry (increasing from leaf to leaf) and, if kept, its time. */
  private val entries = new LongPages(memory)
  private val times = if (withTimes) new LongPages(memory) else null
  private var nextLeaf = 0
  private var nextEntry = 0L
  private var liveCount = 0

  def isEmpty: Boolean = liveCount == 0

  /** Appends an empty entry at `time`; fill it with [[update]], then call [[seal]]. */
  def append(time: Long): Entry = {
    if (nextLeaf == capacity) pack()
    val entry = nextEntry
    nextEntry += 1
    entries.ensure(nextLeaf + 1)
    entries(nextLeaf) = entry
    if (withTimes) {
      times.ensure(nextLeaf + 1)
      times(nextLeaf) = time
    }
    nextLeaf += 1
    entry
  }

  /** Folds one input row into an entry that is not sealed yet. */
  def update(entry: Entry, row: InternalRow): Unit =
    buffers.update(leaves.row(leafOf(entry), 0), row)

  /** Sets an entry just appended to the aggregation buffer `buffer`, which rows then update. */
  def assign(entry: Entry, buffer: InternalRow): Unit =
    buffers.assign(leaves.row(leafOf(entry), 0), buffer)

  /** Makes an entry's rows part of the aggregate. */
  def seal(entry: Entry): Unit = {
    val leaf = leafOf(entry)
    val block = leaf >> blockBits
    live(leaf >>> 6) |= 1L << (leaf & 63)
    liveCount += 1
    addCount(blocks + block, 1)
    // An entry after every other of its block extends the block's merge; else it is re-merged.
    if (!stale(blocks + block) && liveBits(block) >>> (leaf & (blockSize - 1)) == 1L) {
      buffers.merge(nodes.row(blocks + block, 0), leaves.read(leaf, 1))
      markStaleAbove(blocks + block)
    } else {
      markStale(blocks + block)
    }
  }

  /** Removes a sealed entry. */
  def remove(entry: Entry): Unit = {
    val leaf = leafOf(entry)
    require(isLive(leaf), s"entry $entry is not in the aggregate")
    val node = blocks + (leaf >> blockBits)
    leaves.clear(leaf, leaf + 1)
    live(leaf >>> 6) &= ~(1L << (leaf & 63))
    liveCount -= 1
    addCount(node, -1)
    if (counts(node) == 0) {
      // An empty block reads as the initial buffer: nothing to re-merge.
      nodes.clear(node, node + 1)
      stale(node) = false
      markStaleAbove(node)
    } else {
      markStale(node)
    }
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
    while (node < blocks) {
      val first = if (leftFirst) 2 * node else 2 * node + 1
      node = if (counts(first) > 0) first else first ^ 1
    }
    val block = node - blocks
    val bits = liveBits(block)
    (block << blockBits) +
      (if (leftFirst) java.lang.Long.numberOfTrailingZeros(bits)
       else 63 - java.lang.Long.numberOfLeadingZeros(bits))
  }

  /** The results of the aggregate functions over all sealed entries (a reused row). */
  def results(): InternalRow = {
    refresh(1)
    buffers.results(nodes.read(1, 0))
  }

  /** The accumulator of range queries. */
  private val range = buffers.newBuffer()

  /** The nodes of a range query's right side, merged after the left side's, last first. */
  private val rightNodes = new Array[Int](64)

  /**
   * The results over the sealed entries from `first` to `last` (inclusive, in arrival order), or
   * over no entry if `first` is [[SlidingAggregator.NoEntry]].
   */
  def rangeResults(first: Entry, last: Entry): InternalRow =
    buffers.results(rangeBuffer(first, last))

  /**
   * The aggregation buffer of the sealed entries from `first` to `last` (inclusive, in arrival
   * order), or of no entry if `first` is [[SlidingAggregator.NoEntry]]: the live leaves the
   * range holds of the blocks at its two ends and the O(log n) nodes covering the blocks between
   * (and the end blocks the range holds whole), merged left to right. The buffer is reused by
   * the next query.
   */
  def rangeBuffer(first: Entry, last: Entry): InternalRow = {
    buffers.reset(range)
    if (first != NoEntry) {
      val from = leafOf(first)
      val to = leafOf(last)
      val firstBlock = from >> blockBits
      val lastBlock = to >> blockBits
      // An end block is merged leaf by leaf only if the range leaves out some of its entries.
      val head = (liveBits(firstBlock) & ((1L << (from & (blockSize - 1))) - 1)) != 0
      val tail = (liveBits(lastBlock) >>> (to & (blockSize - 1)) >>> 1) != 0
      if (firstBlock == lastBlock && (head || tail)) {
        mergeLeaves(from, to)
      } else {
        if (head) mergeLeaves(from, (firstBlock << blockBits) + blockSize - 1)
        val lastWhole = if (tail) lastBlock - 1 else lastBlock
        mergeBlocks(if (head) firstBlock + 1 else firstBlock, lastWhole + 1)
        if (tail) mergeLeaves(lastBlock << blockBits, to)
      }
    }
    range
  }

  /** Merges into `range` the live leaves from `from` to `to`, inclusive, in one block. */
  private def mergeLeaves(from: Int, to: Int): Unit = {
    val offset = from & (blockSize - 1)
    var bits = liveBits(from >> blockBits) >>> offset & ((2L << (to - from)) - 1)
    while (bits != 0) {
      buffers.merge(range, leaves.read(from + java.lang.Long.numberOfTrailingZeros(bits), 0))
      bits &= bits - 1
    }
  }

  /** Merges into `range` the blocks from `from` until `until`, through the tree, in order. */
  private def mergeBlocks(from: Int, until: Int): Unit = {
    var l = blocks + from
    var r = blocks + until
    var right = 0
    while (l < r) {
      if ((l & 1) == 1) {
        refresh(l)
        buffers.merge(range, nodes.read(l, 0))
        l += 1
      }
      if ((r & 1) == 1) {
        r -= 1
        rightNodes(right) = r
        right += 1
      }
      l >>= 1
      r >>= 1
    }
    while (right > 0) {
      right -= 1
      refresh(rightNodes(right))
      buffers.merge(range, nodes.read(rightNodes(right), 0))
    }
  }

  /**
   * Forgets every entry; the aggregator must be empty of sealed entries (the sweep has evicted
   * all). What it grew to is given back: it starts over at its initial capacity.
   */
  def restart(): Unit = {
    assert(isEmpty, "restarting a sliding aggregate that still holds entries")
    // An entry appended but never sealed leaves its leaf written; stale nodes keep old merges.
    leaves.clear(0, nextLeaf)
    nodes.clear(0, 2 * blocks)
    if (capacity == InitialCapacity) {
      java.util.Arrays.fill(stale, false)
    } else {
      releaseBookkeeping()
      capacity = InitialCapacity
      blockBits = blockBitsFor(capacity)
      blocks = capacity >> blockBits
      allocateBookkeeping()
      entries.truncate(0)
      if (withTimes) times.truncate(0)
    }
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

  private def isLive(leaf: Int): Boolean = (live(leaf >>> 6) >>> (leaf & 63) & 1L) != 0

  /** The live bits of a block, its first leaf's lowest. */
  private def liveBits(block: Int): Long = {
    val leaf = block << blockBits
    live(leaf >>> 6) >>> (leaf & 63) & ((1L << blockSize) - 1)
  }

  private def addCount(node: Int, delta: Int): Unit = {
    var n = node
    while (n >= 1) {
      counts(n) += delta
      n >>= 1
    }
  }

  private def markStale(node: Int): Unit = if (!stale(node)) {
    stale(node) = true
    markStaleAbove(node)
  }

  private def markStaleAbove(node: Int): Unit = {
    var n = node >> 1
    while (n >= 1 && !stale(n)) {
      stale(n) = true
      n >>= 1
    }
  }

  /**
   * Re-merges node `i` if it is stale: a block from its live leaves, any other node from its
   * children (their stale descendants first).
   */
  private def refresh(i: Int): Unit = if (stale(i)) {
    stale(i) = false
    if (i >= blocks) {
      val target = nodes.row(i, 0)
      buffers.reset(target)
      val first = (i - blocks) << blockBits
      var bits = liveBits(i - blocks)
      while (bits != 0) {
        buffers.merge(target, leaves.read(first + java.lang.Long.numberOfTrailingZeros(bits), 1))
        bits &= bits - 1
      }
    } else {
      refresh(2 * i)
      refresh(2 * i + 1)
      // Empty subtrees read as initial buffers, so merging them changes nothing.
      buffers.combine(nodes.row(i, 0), nodes.read(2 * i, 1), nodes.read(2 * i + 1, 2))
    }
  }

  /**
   * Packs the live leaves to the left, in order (in place), doubling the capacity if over half
   * are live. The tree is laid out anew over the blocks: nodes over live leaves become stale, the
   * others are cleared, so their pages are freed, as are the leaves' past the packed ones.
   */
  private def pack(): Unit = {
    val newCapacity = if (liveCount * 2 > capacity) capacity * 2 else capacity
    leaves.ensure(newCapacity)
    var packed = 0
    var i = 0
    while (i < capacity) {
      if (isLive(i)) {
        if (packed != i) {
          leaves.move(i, packed)
          entries(packed) = entries(i)
          if (withTimes) times(packed) = times(i)
        }
        packed += 1
      }
      i += 1
    }
    leaves.clear(packed, capacity)

    releaseBookkeeping()
    capacity = newCapacity
    blockBits = blockBitsFor(capacity)
    blocks = capacity >> blockBits
    nodes.ensure(2 * blocks)
    allocateBookkeeping()
    var w = 0
    while (w < (packed >>> 6)) {
      live(w) = -1L
      w += 1
    }
    if ((packed & 63) != 0) live(w) = (1L << (packed & 63)) - 1
    var level = blocks
    var span = blockSize
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
    nextLeaf = packed
  }

  /** Reserves the counts and flags for the current capacity, all zero. */
  private def allocateBookkeeping(): Unit = {
    counts = memory.ints(2 * blocks)
    stale = newFlags(2 * blocks)
    live = memory.longs(liveWords(capacity))
  }

  /** Releases what [[allocateBookkeeping]] reserved. */
  private def releaseBookkeeping(): Unit =
    memory.release(4L * 2 * blocks + 2L * blocks + 8L * liveWords(capacity))

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

  private val InitialCapacity = 16

  /**
   * The leaves per block (B) at a capacity, as a power of two: a block is re-merged in O(B)
   * merges and the tree takes ~2/B buffers per leaf, so 8 while the tree is small (its O(log n)
   * merges are few, the tree's buffers take little memory), 16 from 65,536 leaves on. A block's
   * live bits lie in one long.
   */
  private def blockBitsFor(capacity: Int): Int = if (capacity < (1 << 16)) 3 else 4

  private def liveWords(capacity: Int): Int = (capacity + 63) >>> 6
}
