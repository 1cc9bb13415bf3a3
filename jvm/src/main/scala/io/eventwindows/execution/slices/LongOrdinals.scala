package io.eventwindows.execution.slices

/**
 * The ordinals of keys that are longs (and possibly one NULL key), looked up without boxing: open
 * addressing with linear probing over a power-of-two table at most half full. `keys(i)` has
 * ordinal i; keys are distinct.
 */
private[slices] final class LongOrdinals(keys: Array[Option[Long]]) {

  private val bits = 32 - Integer.numberOfLeadingZeros(math.max(keys.length, 1) * 2)
  private val mask = (1 << bits) - 1
  private val values = new Array[Long](mask + 1)

  /** Ordinal + 1 at each slot; 0 for an empty slot. */
  private val ordinals = new Array[Int](mask + 1)

  /** The ordinal of the NULL key, or -1. */
  val ordinalOfNull: Int = keys.indexOf(None)

  keys.zipWithIndex.foreach {
    case (Some(key), ordinal) =>
      var i = slotOf(key)
      while (ordinals(i) != 0) i = (i + 1) & mask
      values(i) = key
      ordinals(i) = ordinal + 1
    case _ =>
  }

  /** The ordinal of a key, or -1 if it is not one of the keys. */
  def ordinalOf(key: Long): Int = {
    var i = slotOf(key)
    while (ordinals(i) != 0 && values(i) != key) i = (i + 1) & mask
    ordinals(i) - 1
  }

  // Fibonacci hashing: the top bits of the golden-ratio multiple spread consecutive keys.
  private def slotOf(key: Long): Int = ((key * 0x9E3779B97F4A7C15L) >>> (64 - bits)).toInt
}
