package io.eventwindows.execution.aggregate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * A growable array of aggregation buffers of one layout, the storage of the aggregators, reserved
 * through [[WindowMemory]].
 *
 * A slot is read or written through a view: `row(i, cursor)` points the view `cursor` (0, 1 or 2,
 * so that a merge can hold its target and both sides) at slot i. Slots never written hold the
 * initial buffer; [[clear]] gives slots back their initial values, freeing whole pages of them.
 */
private[execution] sealed abstract class BufferArray {

  /** Slot `i` as a buffer to write; with fixed-width buffers the row is view `cursor`, reused. */
  def row(i: Int, cursor: Int): InternalRow

  /** Slot `i` as a buffer to read, without allocating for a slot never written. */
  def read(i: Int, cursor: Int): InternalRow

  /** Makes slots `[0, n)` exist. */
  def ensure(n: Int): Unit

  /** Slot `to` takes the buffer of slot `from`, which is left holding anything: clear it. */
  def move(from: Int, to: Int): Unit

  /** Gives slots `[from, until)` their initial values. */
  def clear(from: Int, until: Int): Unit
}

private[execution] object BufferArray {

  /** Fixed-width layouts as bytes in pages; others as buffer objects. */
  def apply(buffers: AggregateBuffers, memory: WindowMemory): BufferArray =
    if (buffers.fixedWidth) new PagedBuffers(buffers, memory)
    else new ObjectBuffers(buffers, memory)
}

/**
 * Buffers whose fields are all fixed-width and updatable in place (as Spark's hash aggregation
 * requires of its buffers): each slot is an `UnsafeRow` of the same size, and the slots lie end to
 * end in pages of long arrays. A page is allocated when one of its slots is first written and
 * freed when [[clear]] covers it; until then its slots read as the shared initial buffer.
 */
private final class PagedBuffers(buffers: AggregateBuffers, memory: WindowMemory)
    extends BufferArray {

  private val initial: Array[Long] = buffers.initialWords
  private val slotWords = initial.length
  private val slotBytes = slotWords * 8
  private val pageBytes = 8L * slotWords * PagedBuffers.PageSlots
  private val fieldCount = buffers.bufferTypes.length

  private var pages = new Array[Array[Long]](4)
  private val views = Array.fill(3)(new UnsafeRow(fieldCount))
  private val initialView = {
    val view = new UnsafeRow(fieldCount)
    view.pointTo(initial, Platform.LONG_ARRAY_OFFSET, slotBytes)
    view
  }

  override def row(i: Int, cursor: Int): InternalRow = {
    val page = writablePage(i)
    val view = views(cursor)
    view.pointTo(
      page,
      Platform.LONG_ARRAY_OFFSET + 8L * slotWords * (i & PagedBuffers.Mask),
      slotBytes)
    view
  }

  override def read(i: Int, cursor: Int): InternalRow =
    if (pageOf(i) == null) initialView else row(i, cursor)

  override def ensure(n: Int): Unit = {
    val needed = (n + PagedBuffers.Mask) >>> PagedBuffers.PageBits
    if (needed > pages.length)
      pages = java.util.Arrays.copyOf(pages, Math.max(needed, 2 * pages.length))
  }

  override def move(from: Int, to: Int): Unit = {
    val source = pageOf(from)
    if (source == null) {
      clear(to, to + 1)
    } else {
      System.arraycopy(
        source,
        slotWords * (from & PagedBuffers.Mask),
        writablePage(to),
        slotWords * (to & PagedBuffers.Mask),
        slotWords)
    }
  }

  override def clear(from: Int, until: Int): Unit = {
    var i = from
    while (i < until) {
      val p = i >>> PagedBuffers.PageBits
      val page = pages(p)
      if (page == null) {
        i = (p + 1) << PagedBuffers.PageBits
      } else if ((i & PagedBuffers.Mask) == 0 && until - i >= PagedBuffers.PageSlots) {
        pages(p) = null
        memory.release(pageBytes)
        i += PagedBuffers.PageSlots
      } else {
        System.arraycopy(initial, 0, page, slotWords * (i & PagedBuffers.Mask), slotWords)
        i += 1
      }
    }
  }

  private def pageOf(i: Int): Array[Long] = pages(i >>> PagedBuffers.PageBits)

  private def writablePage(i: Int): Array[Long] = {
    val p = i >>> PagedBuffers.PageBits
    if (pages(p) == null) {
      memory.reserve(pageBytes)
      val page = new Array[Long](slotWords * PagedBuffers.PageSlots)
      var s = 0
      while (s < PagedBuffers.PageSlots) {
        System.arraycopy(initial, 0, page, s * slotWords, slotWords)
        s += 1
      }
      pages(p) = page
    }
    pages(p)
  }
}

private object PagedBuffers {
  val PageBits = 10
  val PageSlots: Int = 1 << PageBits
  val Mask: Int = PageSlots - 1
}

/**
 * Buffers with variable-width fields or objects (strings, arrays, the objects of `collect_list`
 * or `Aggregator` UDAFs): one buffer object per slot, each reserved at the estimated size of an
 * initial buffer. What the objects grow to as they take rows is not measured.
 */
private final class ObjectBuffers(buffers: AggregateBuffers, memory: WindowMemory)
    extends BufferArray {

  private var slots = new Array[InternalRow](16)
  private val initial = buffers.newBuffer()

  override def row(i: Int, cursor: Int): InternalRow = {
    if (slots(i) == null) {
      memory.reserve(buffers.estimatedObjectBytes)
      slots(i) = buffers.newBuffer()
    }
    slots(i)
  }

  override def ensure(n: Int): Unit =
    if (n > slots.length) slots = java.util.Arrays.copyOf(slots, Math.max(n, 2 * slots.length))

  override def read(i: Int, cursor: Int): InternalRow = if (slots(i) == null) initial else slots(i)

  override def move(from: Int, to: Int): Unit = {
    if (slots(to) != null) memory.release(buffers.estimatedObjectBytes)
    slots(to) = slots(from)
    // The buffer now lives in `to` alone: a fresh one takes its place when `from` is next written.
    slots(from) = null
  }

  override def clear(from: Int, until: Int): Unit = {
    var i = from
    while (i < until && i < slots.length) {
      if (slots(i) != null) {
        slots(i) = null
        memory.release(buffers.estimatedObjectBytes)
      }
      i += 1
    }
  }
}
