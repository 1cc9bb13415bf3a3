package io.eventwindows.execution.sweep

/** A first-in first-out queue of longs in a growing ring, without boxing. */
private[sweep] final class LongQueue {
  private var values = new Array[Long](16)
  private var head = 0L
  private var tail = 0L

  def size: Int = (tail - head).toInt
  def isEmpty: Boolean = head == tail

  def add(value: Long): Unit = {
    if (size == values.length) grow()
    values((tail & (values.length - 1)).toInt) = value
    tail += 1
  }

  /** The oldest value. */
  def first: Long = {
    if (isEmpty) throw new NoSuchElementException("empty queue")
    values((head & (values.length - 1)).toInt)
  }

  /** The value `i` places after the oldest. */
  def apply(i: Long): Long = {
    if (i < 0 || i >= size) throw new NoSuchElementException(s"no value $i in a queue of $size")
    values(((head + i) & (values.length - 1)).toInt)
  }

  /** The newest value. */
  def last: Long = {
    if (isEmpty) throw new NoSuchElementException("empty queue")
    values(((tail - 1) & (values.length - 1)).toInt)
  }

  def removeFirst(): Long = {
    val value = first
    head += 1
    value
  }

  def clear(): Unit = {
    head = 0L
    tail = 0L
  }

  private def grow(): Unit = {
    val grown = new Array[Long](values.length * 2)
    var i = head
    while (i < tail) {
      grown((i & (grown.length - 1)).toInt) = values((i & (values.length - 1)).toInt)
      i += 1
    }
    values = grown
  }
}
