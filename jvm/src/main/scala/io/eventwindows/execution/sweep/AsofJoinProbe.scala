package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Expression, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.unsafe.Platform

import io.eventwindows.execution.aggregate.WindowMemory

/**
 * The probe of an ASOF join: each left row, in the order it comes (straight from the shuffle,
 * not sorted), finds the candidates of its key and time in the task's [[AsofRightIndex]] (two
 * binary searches of its key's times) and is output once, with the right row [[AsofRule]]
 * chooses among them, or NULLs. So only the right side is sorted; the left side is read once,
 * and a task costs O(m log m) for the right side's sort and O(n log m) for the n left rows.
 *
 * For example, with the right rows of key 'a' at times 1, 3, 3, 6 (the second row at 3 the later
 * in the right side's tie order) and left rows ('a', 5), ('b', 2), ('a', 3) in that order, backward
 * with exact matches: ('a', 5) finds the rows at 3 and 6 around it and gets the second row at 3,
 * ('b', 2) finds no key 'b' among the right rows and gets NULLs, ('a', 3) finds the rows at 3 and
 * gets the second of them. The rows come out in the left side's order.
 *
 * The left rows go in batches of [[AsofJoinProbe.BatchRows]], each step for every row of the batch
 * before the next (find the key, read the times where its search will end, search, read the
 * right row chosen, then output): what one step reads lies at random places in the index, and
 * reading it for many rows in a row lets the processor fetch them from memory at once instead of
 * one after the other (in profiles of benchmark (w), joining each left row with its right row,
 * which first reads the right row, took 25-29% of the executor's samples one row at a time, 5-6%
 * in batches).
 *
 * Rows with a NULL key or time: a left one is output with NULLs (the index holds no right row with
 * one). Memory: the index's, reserved when it was built, and the batch's copies of the left rows,
 * reserved through [[WindowMemory]] as the batch grows.
 */
private[execution] final class AsofJoinProbe(
    leftInput: Iterator[InternalRow],
    index: AsofRightIndex,
    leftKeys: Seq[Expression],
    leftTime: Expression,
    rule: AsofRule,
    leftAttributes: Seq[Attribute],
    rightAttributes: Seq[Attribute],
    memory: WindowMemory,
    numOutputRows: SQLMetric) extends Iterator[InternalRow] {
  import AsofJoinProbe.{BatchRows, NoRows}

  private val keyProjection = UnsafeProjection.create(leftKeys, leftAttributes)
  private val timeProjection = UnsafeProjection.create(Seq(leftTime), leftAttributes)
  private val joined = new AsofJoinedRows(leftAttributes, rightAttributes)

  /** A batch of left rows (copies, end to end), with the right row each is matched with (or -1). */
  private var batch = new Array[Long](0)
  private val offsets = new Array[Int](BatchRows + 1)
  private val matches = new Array[Int](BatchRows)

  /** Each batch row's time and its key's rows in the index (`NoRows`: a NULL key or time). */
  private val times = new Array[Long](BatchRows)
  private val rows = new Array[Long](BatchRows)
  private var batchSize = 0
  private var position = 0
  private val left = new UnsafeRow(leftAttributes.size)

  /** What the batch's reads of the right rows summed, kept so that they are not left out. */
  private var fetched = 0L

  override def hasNext: Boolean = position < batchSize || leftInput.hasNext

  override def next(): InternalRow = {
    if (position == batchSize) readBatch()
    left.pointTo(
      batch,
      Platform.LONG_ARRAY_OFFSET + offsets(position),
      offsets(position + 1) - offsets(position))
    val right = if (matches(position) < 0) null else index.row(matches(position))
    position += 1
    numOutputRows += 1
    joined(left, right)
  }

  /**
   * Reads the next left rows and finds their keys' rows, then reads the times their searches
   * will end in, then searches, then reads the right rows they are matched with (see the class's
   * comment).
   */
  private def readBatch(): Unit = {
    batchSize = 0
    position = 0
    while (batchSize < BatchRows && leftInput.hasNext) {
      val row = leftInput.next().asInstanceOf[UnsafeRow]
      keep(row)
      val key = keyProjection(row)
      val time = timeProjection(row)
      if (key.anyNull || time.isNullAt(0)) {
        rows(batchSize) = NoRows
      } else {
        times(batchSize) = time.getLong(0)
        rows(batchSize) = index.rowsOf(key)
      }
      batchSize += 1
    }
    var i = 0
    while (i < batchSize) {
      if (rows(i) != NoRows) fetched += index.touchTimes(times(i), rows(i))
      i += 1
    }
    i = 0
    while (i < batchSize) {
      val t = times(i)
      matches(i) =
        if (rows(i) == NoRows) -1 else index.chosen(rule.choose(t, index.search(t, rows(i))))
      i += 1
    }
    i = 0
    while (i < batchSize) {
      if (matches(i) >= 0) fetched += index.firstWord(matches(i))
      i += 1
    }
  }

  /** Copies `row` to the end of the batch. */
  private def keep(row: UnsafeRow): Unit = {
    val offset = offsets(batchSize)
    val end = offset + row.getSizeInBytes
    if (end > 8L * batch.length) {
      val words = Math.max(2 * batch.length, (end + 7) / 8)
      memory.reserve(8L * (words - batch.length))
      batch = java.util.Arrays.copyOf(batch, words)
    }
    row.writeToMemory(batch, Platform.LONG_ARRAY_OFFSET + offset)
    offsets(batchSize + 1) = end
  }
}

private[execution] object AsofJoinProbe {

  /** Left rows a batch holds. */
  val BatchRows = 256

  /** What a batch row with a NULL key or time has in place of its key's rows. */
  val NoRows: Long = -1L
}

/**
 * The right side of one task of an ASOF join held in memory, for the [[AsofJoinProbe]]: built
 * from the right rows as a [[KeyTimeSorter]] returns them, by (key ordinal, key, time, tie order),
 * it holds
 *
 *  - the rows' bytes, end to end in pages of longs (each row after a word holding its size), pages
 *    growing from 16 KB to 1 MB;
 *  - per row, in that order, its time (`times`) and its place in the pages (`addresses`, page and
 *    offset): two contiguous long arrays, so each key's times lie together, in order;
 *  - per key, the range of its rows: by the ordinal the right sorter gave it in the task's
 *    [[KeyOrdinals]] (`ranges`), and for the keys sharing the last ordinal (past 65,535 keys in a
 *    task), the first row of each, in key order (`sharedStarts`), found by a binary search of
 *    their keys.
 *
 * A left row of key k at time t finds k's range [from, until), then `lower`, the first row of it
 * at or after t, and `upper`, the first after t, by two binary searches of the times: the row
 * before is lower - 1 (if at least from), the rows at t are [lower, upper), the row after is upper
 * (if before until). For example, key 'a' holding rows 10 to 13 at times 1, 3, 3, 6 and a left row
 * at 3: lower = 11, upper = 13, so before is row 10, exact rows 11 and 12, after row 13; for a left
 * row at 4, lower = upper = 13: before row 12, no exact row, after row 13. [[AsofRule]] chooses.
 *
 * Rows with a NULL key or time are left out (they match nothing). Every byte is reserved through
 * [[WindowMemory]] before it is allocated, at most `limit` bytes: when the memory manager refuses
 * a reservation (after asking the task's other consumers, such as the right sorter, to spill) or
 * the limit is reached, [[AsofRightIndex.build]] gives back the right rows, in their order, for the
 * task to merge instead ([[AsofJoinSweep]]), and gives the memory back as those rows are read.
 * Costs: a row's bytes and a word in the pages, and 16.5 bytes in the arrays (its time, its
 * address and a sixteenth of a sample).
 */
private[execution] final class AsofRightIndex private (
    keys: Seq[Expression],
    time: Expression,
    attributes: Seq[Attribute],
    ordinals: KeyOrdinals,
    memory: WindowMemory,
    limit: Long) {
  import AsofRightIndex._
  import KeyTimeSorter.SharedOrdinal

  private val keyProjection = UnsafeProjection.create(keys, attributes)
  private val timeProjection = UnsafeProjection.create(Seq(time), attributes)
  private val keyOrder = new KeyOrder(keys, ordinals)

  /** The bytes reserved. */
  private var held = 0L

  private var pages = new Array[Array[Long]](16)
  private var pageFills = new Array[Int](16)
  private var pageCount = 0

  private var times = Array.emptyLongArray

  /** Every [[SampleStride]]-th time (of rows 0, 16, 32, ...): the first level of a search. */
  private var samples = Array.emptyLongArray
  private var addresses = Array.emptyLongArray
  private var count = 0

  /** Key ordinal o's rows are `ranges(2 o)` until `ranges(2 o + 1)`; none where both are 0. */
  private var ranges = Array.emptyIntArray

  /** The first row of each key sharing the last ordinal, in key order; those rows come last. */
  private var sharedStarts = Array.emptyIntArray
  private var sharedCount = 0

  /** The key whose rows are being added (a copy), and its ordinal; null before the first. */
  private var addingKey: UnsafeRow = _
  private var addingOrdinal = 0

  /** The bytes the index holds. */
  def bytes: Long = held

  /** Adds a right row (sorted after the one before), or returns false if refused memory. */
  private def add(row: UnsafeRow): Boolean = {
    val key = keyProjection(row)
    val t = timeProjection(row)
    if (key.anyNull || t.isNullAt(0)) true
    else (addingKey != null && key.equals(addingKey) || startKey(key)) && append(row, t.getLong(0))
  }

  /** Starts the rows of a new key (after the last one's), or returns false if refused memory. */
  private def startKey(key: UnsafeRow): Boolean = {
    endKey()
    addingKey = key.copy()
    addingOrdinal = ordinals.ordinal(key)
    if (addingOrdinal == SharedOrdinal) {
      if (sharedCount == sharedStarts.length) {
        val more = grown(sharedStarts, sharedCount + 1)
        if (more == null) return false
        sharedStarts = more
      }
      sharedStarts(sharedCount) = count
      sharedCount += 1
    } else {
      if (2 * addingOrdinal + 1 >= ranges.length) {
        val more = grown(ranges, 2 * addingOrdinal + 2)
        if (more == null) return false
        ranges = more
      }
      ranges(2 * addingOrdinal) = count
    }
    true
  }

  /** Closes the range of the key being added. */
  private def endKey(): Unit =
    if (addingKey != null && addingOrdinal != SharedOrdinal) ranges(2 * addingOrdinal + 1) = count

  /** Copies the row into the pages, and its time and address into the arrays. */
  private def append(row: UnsafeRow, t: Long): Boolean = {
    val size = row.getSizeInBytes
    if (count == times.length && !growRows()) return false
    if (pageCount == 0 ||
      pageFills(pageCount - 1) + SizeBytes + size > 8L * pages(pageCount - 1).length) {
      if (!newPage(SizeBytes + size)) return false
    }
    val page = pages(pageCount - 1)
    val offset = pageFills(pageCount - 1)
    Platform.putLong(page, Platform.LONG_ARRAY_OFFSET + offset, size)
    Platform.copyMemory(
      row.getBaseObject,
      row.getBaseOffset,
      page,
      Platform.LONG_ARRAY_OFFSET + offset + SizeBytes,
      size)
    pageFills(pageCount - 1) = offset + SizeBytes + size
    times(count) = t
    if ((count & (SampleStride - 1)) == 0) samples(count >>> SampleBits) = t
    addresses(count) = (pageCount - 1).toLong << 32 | (offset + SizeBytes)
    count += 1
    true
  }

  private def reserve(bytes: Long): Boolean =
    held + bytes <= limit && memory.tryReserve(bytes) && { held += bytes; true }

  private def release(bytes: Long): Unit = {
    memory.release(bytes)
    held -= bytes
  }

  /** Doubles the arrays of times, samples and addresses. */
  private def growRows(): Boolean = {
    val capacity = Math.max(FirstRows, 2 * times.length)
    reserve(rowArrayBytes(capacity)) && {
      release(rowArrayBytes(times.length))
      times = java.util.Arrays.copyOf(times, capacity)
      samples = java.util.Arrays.copyOf(samples, capacity >>> SampleBits)
      addresses = java.util.Arrays.copyOf(addresses, capacity)
      true
    }
  }

  /** The bytes of the arrays of times, samples and addresses for `capacity` rows. */
  private def rowArrayBytes(capacity: Int): Long = 16L * capacity + 8L * (capacity >>> SampleBits)

  /** `ints` with room for at least `size`, reserved; null if refused memory. */
  private def grown(ints: Array[Int], size: Int): Array[Int] = {
    val capacity = Math.max(size, 2 * ints.length)
    if (!reserve(4L * capacity)) return null
    release(4L * ints.length)
    java.util.Arrays.copyOf(ints, capacity)
  }

  /** A page for a row of `needed` bytes (its own if larger than the page size). */
  private def newPage(needed: Int): Boolean = {
    val size = Math.max(FirstPageBytes.toLong << Math.min(pageCount, MaxPageDoublings), needed)
    val words = ((size + 7) / 8).toInt
    reserve(8L * words) && {
      if (pageCount == pages.length) {
        pages = java.util.Arrays.copyOf(pages, 2 * pageCount)
        pageFills = java.util.Arrays.copyOf(pageFills, 2 * pageCount)
      }
      pages(pageCount) = new Array[Long](words)
      pageCount += 1
      true
    }
  }

  /** The rows of `key`, `from << 32 | until` (from = until where it has none). */
  def rowsOf(key: UnsafeRow): Long = {
    findKey(key)
    found.from.toLong << 32 | found.until
  }

  /**
   * Reads the times where [[search]] for `t` among rows `rows` ([[rowsOf]]) will end, and
   * returns one (read them for many rows first, and the search finds them in the cache).
   */
  def touchTimes(t: Long, rows: Long): Long = {
    val from = (rows >>> 32).toInt
    val until = rows.toInt
    if (from == until) return 0L
    val block = sampledBlock(t, from, until, strictlyAfter = false)
    val first = (block >>> 32).toInt
    val end = block.toInt
    if (first < end) times(first) + times(end - 1) else 0L
  }

  /**
   * The candidates of a left row at `t` among rows `rows` ([[rowsOf]]) (one object, reused:
   * read before the next).
   */
  def search(t: Long, rows: Long): AsofCandidates = {
    found.from = (rows >>> 32).toInt
    found.until = rows.toInt
    found.lower = firstFrom(t, found.from, found.until, strictlyAfter = false)
    found.upper =
      if (found.lower < found.until && times(found.lower) == t) {
        firstFrom(t, found.lower, found.until, strictlyAfter = true)
      } else {
        found.lower
      }
    found
  }

  /** The row a choice of [[AsofRule]] names among the last [[search]]'s candidates, or -1. */
  def chosen(choice: Int): Int = choice match {
    case AsofRule.Before => found.lower - 1
    case AsofRule.ExactFirst => found.lower
    case AsofRule.ExactLast => found.upper - 1
    case AsofRule.After => found.upper
    case _ => -1
  }

  /** Row `i`, as a view into its page (reused: read before the next). */
  def row(i: Int): UnsafeRow = rowAt(i)

  /** The first word of row `i`'s bytes (reading it brings the row into the processor's cache). */
  def firstWord(i: Int): Long = {
    val address = addresses(i)
    Platform.getLong(
      pages((address >>> 32).toInt),
      Platform.LONG_ARRAY_OFFSET + (address & 0xFFFFFFFFL))
  }

  /** The candidates found: the key's rows [from, until), the rows at t [lower, upper). */
  private object found extends AsofCandidates {
    var from = 0
    var until = 0
    var lower = 0
    var upper = 0
    override def hasBefore: Boolean = lower > from
    override def beforeTime: Long = times(lower - 1)
    override def hasExact: Boolean = upper > lower
    override def hasAfter: Boolean = upper < until
    override def afterTime: Long = times(upper)
  }

  /** Sets `found`'s range to the rows of `key` (empty if it has none). */
  private def findKey(key: UnsafeRow): Unit = {
    val ordinal = ordinals.ordinal(key)
    found.from = 0
    found.until = 0
    if (ordinal != SharedOrdinal) {
      if (2 * ordinal + 1 < ranges.length) {
        found.from = ranges(2 * ordinal)
        found.until = ranges(2 * ordinal + 1)
      }
    } else {
      var lo = 0
      var hi = sharedCount
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        val order = keyOrder.compare(SharedOrdinal, key, SharedOrdinal, keyAt(sharedStarts(mid)))
        if (order == 0) {
          found.from = sharedStarts(mid)
          found.until = if (mid + 1 < sharedCount) sharedStarts(mid + 1) else count
          return
        } else if (order < 0) {
          hi = mid
        } else {
          lo = mid + 1
        }
      }
    }
  }

  /**
   * The first row of [from, until) whose time is at or after `t` (or `strictlyAfter` it): a
   * binary search of the samples within the range (every 16th time, few enough to stay in the
   * processor's cache), then of the times between the two samples around it (two cache lines).
   */
  private def firstFrom(t: Long, from: Int, until: Int, strictlyAfter: Boolean): Int = {
    val block = sampledBlock(t, from, until, strictlyAfter)
    var first = (block >>> 32).toInt
    var end = block.toInt
    while (first < end) {
      val mid = (first + end) >>> 1
      if (isBefore(times(mid), t, strictlyAfter)) first = mid + 1 else end = mid
    }
    first
  }

  /**
   * The rows `first << 32 | end` between the two samples around the first row of [from, until)
   * at or after `t` (or `strictlyAfter` it), which lies in [first, end] (end: none before it).
   */
  private def sampledBlock(t: Long, from: Int, until: Int, strictlyAfter: Boolean): Long = {
    val sampledFrom = (from + SampleStride - 1) >>> SampleBits
    val sampledUntil = (until + SampleStride - 1) >>> SampleBits
    var lo = sampledFrom
    var hi = sampledUntil
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (isBefore(samples(mid), t, strictlyAfter)) lo = mid + 1 else hi = mid
    }
    // Samples before lo are before t; sample lo (the row lo * 16), if within range, is not.
    val first = if (lo > sampledFrom) ((lo - 1) << SampleBits) + 1 else from
    val end = if (lo < sampledUntil) lo << SampleBits else until
    first.toLong << 32 | end
  }

  private def isBefore(time: Long, t: Long, orAt: Boolean): Boolean = time < t || orAt && time == t

  private val view = new UnsafeRow(attributes.size)

  /** Row `i`, as a view into its page (reused: read before the next). */
  private def rowAt(i: Int): UnsafeRow = {
    val address = addresses(i)
    val page = pages((address >>> 32).toInt)
    val offset = Platform.LONG_ARRAY_OFFSET + (address & 0xFFFFFFFFL)
    view.pointTo(page, offset, Platform.getLong(page, offset - SizeBytes).toInt)
    view
  }

  private def keyAt(i: Int): UnsafeRow = keyProjection(rowAt(i))

  /**
   * The rows held, in their order, for a merge instead: the arrays are given back at once, each
   * page once its rows are read. The index is not used after.
   */
  private def drain(): Iterator[UnsafeRow] = {
    release(rowArrayBytes(times.length) + 4L * (ranges.length + sharedStarts.length))
    times = null
    samples = null
    addresses = null
    ranges = null
    sharedStarts = null
    new Iterator[UnsafeRow] {
      private var page = 0
      private var offset = 0

      override def hasNext: Boolean = {
        while (page < pageCount && offset >= pageFills(page)) {
          release(8L * pages(page).length)
          pages(page) = null
          page += 1
          offset = 0
        }
        page < pageCount
      }

      override def next(): UnsafeRow = {
        if (!hasNext) throw new NoSuchElementException
        val base = Platform.LONG_ARRAY_OFFSET + offset
        val size = Platform.getLong(pages(page), base).toInt
        view.pointTo(pages(page), base + SizeBytes, size)
        offset += SizeBytes + size
        view
      }
    }
  }
}

private[execution] object AsofRightIndex {

  /** The word before each row in the pages, holding its size. */
  private val SizeBytes = 8

  private val FirstRows = 1024

  /** Rows per sample of their times (see `firstFrom`). */
  private val SampleBits = 4
  private val SampleStride = 1 << SampleBits
  private val FirstPageBytes = 16 * 1024

  /** Pages double from the first's size up to 1 MB. */
  private val MaxPageDoublings = 6

  /**
   * The index of the right rows `sorted` by a [[KeyTimeSorter]] with `ordinals`, or, if it is
   * refused memory (or would hold more than `limit` bytes), the same rows again in the same order
   * (those it held, then the rest), for the merge.
   */
  def build(
      sorted: Iterator[InternalRow],
      keys: Seq[Expression],
      time: Expression,
      attributes: Seq[Attribute],
      ordinals: KeyOrdinals,
      memory: WindowMemory,
      limit: Long): Either[Iterator[InternalRow], AsofRightIndex] = {
    val index = new AsofRightIndex(keys, time, attributes, ordinals, memory, limit)
    while (sorted.hasNext) {
      val row = sorted.next().asInstanceOf[UnsafeRow]
      if (!index.add(row)) return Left(index.drain() ++ Iterator.single(row) ++ sorted)
    }
    index.endKey()
    Right(index)
  }
}
