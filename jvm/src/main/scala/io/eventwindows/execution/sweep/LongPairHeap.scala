package io.eventwindows.execution.sweep

import io.eventwindows.execution.aggregate.{LongPages, WindowMemory}

/**
 * A binary min-heap of (key, value) pairs of longs, ordered by key, in reserved pages
 * ([[LongPages]]): no object per element, and growing copies nothing.
 */
private[sweep] final class LongPairHeap(memory: WindowMemory) {
  private val keys = new LongPages(memory)
  private val values = new LongPages(memory)
  private var count = 0L

  def isEmpty: Boolean = count == 0

  /** The smallest key; only when not empty. */
  def peekKey: Long = keys(0)

  /** The value of the smallest key; only when not empty. */
  def peekValue: Long = values(0)

  def add(key: Long, value: Long): Unit = {
    keys.ensure(count + 1)
    values.ensure(count + 1)
    var i = count
    count += 1
    // Sift up: parents with greater keys move down into the hole.
    while (i > 0 && keys((i - 1) / 2) > key) {
      val parent = (i - 1) / 2
      keys(i) = keys(parent)
      values(i) = values(parent)
      i = parent
    }
    keys(i) = key
    values(i) = value
  }

  /** Removes the pair with the smallest key. */
  def removeFirst(): Unit = {
    count -= 1
    if (count == 0) return
    val key = keys(count)
    val value = values(count)
    // Sift down the last pair from the root.
    var i = 0L
    var done = false
    while (!done) {
      val left = 2 * i + 1
      if (left >= count) {
        done = true
      } else {
        val child = if (left + 1 < count && keys(left + 1) < keys(left)) left + 1 else left
        if (keys(child) < key) {
          keys(i) = keys(child)
          values(i) = values(child)
          i = child
        } else {
          done = true
        }
      }
    }
    keys(i) = key
    values(i) = value
  }
}
