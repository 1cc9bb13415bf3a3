package io.eventwindows.execution.aggregate

/**
 * A growable array of longs in pages reserved through [[WindowMemory]]: growing adds pages and
 * copies nothing, so a large array never needs its old and new copies at once. New slots hold 0.
 */
private[execution] final class LongPages(memory: WindowMemory) {
  import LongPages._

  private var pages = new Array[Array[Long]](4)
  private var pageCount = 0

  /** How many slots the pages hold. */
  def length: Long = pageCount.toLong << PageBits

  def apply(i: Long): Long = pages((i >>> PageBits).toInt)((i & PageMask).toInt)

  def update(i: Long, value: Long): Unit =
    pages((i >>> PageBits).toInt)((i & PageMask).toInt) = value

  /** Makes slots `[0, n)` exist. */
  def ensure(n: Long): Unit = while (length < n) {
    if (pageCount == pages.length) pages = java.util.Arrays.copyOf(pages, pageCount * 2)
    pages(pageCount) = memory.longs(PageSize)
    pageCount += 1
  }

  /** Frees the pages past those slots `[0, n)` lie in; slots kept hold what they held. */
  def truncate(n: Long): Unit = {
    val kept = ((n + PageMask) >>> PageBits).toInt
    while (pageCount > kept) {
      pageCount -= 1
      pages(pageCount) = null
      memory.release(8L * PageSize)
    }
  }
}

private object LongPages {
  val PageBits = 13
  val PageSize: Int = 1 << PageBits
  val PageMask: Long = PageSize - 1
}
