package io.eventwindows.execution.slices

import java.lang.{Long => JLong}
import java.util.Arrays

/**
 * Finds the slice of a time in a key without a binary search over the key's boundaries (which
 * costs a cache miss and a mispredicted branch per step, per message): each key's span, from its
 * first boundary to its last, is cut into a power of two of equal buckets, about as many as it
 * has boundaries, and each bucket records the slice its first instant lies in. A time's bucket is
 * a subtraction and a shift away; the few boundaries inside that bucket are then stepped over
 * (or binary searched, where boundaries crowd into one bucket).
 *
 * `boundaries`: every key's sorted distinct boundaries, key after key; key `o`'s are at indexes
 * `firstSlices(o)` until `firstSlices(o + 1)`, at least one each.
 */
private[slices] final class SliceDirectory(boundaries: Array[Long], firstSlices: Array[Int]) {

  private val keys = firstSlices.length - 1
  private val shifts = new Array[Int](keys)
  /** Key `o`'s buckets are at indexes `firstBuckets(o)` until `firstBuckets(o + 1)`. */
  private val firstBuckets = new Array[Int](keys + 1)
  private val buckets: Array[Int] = {
    val sizes = (0 until keys).map { o =>
      val (from, to) = (firstSlices(o), firstSlices(o + 1))
      // Times are compared unsigned from the first boundary: a span may exceed Long.MaxValue.
      val span = boundaries(to - 1) - boundaries(from)
      val target = Integer.highestOneBit(to - from) * 2
      var shift = 0
      while (JLong.compareUnsigned(span >>> shift, target) >= 0) shift += 1
      shifts(o) = shift
      (span >>> shift).toInt + 1
    }
    sizes.indices.foreach(o => firstBuckets(o + 1) = firstBuckets(o) + sizes(o))
    val all = new Array[Int](firstBuckets(keys))
    (0 until keys).foreach { o =>
      val (from, to, first) = (firstSlices(o), firstSlices(o + 1), boundaries(firstSlices(o)))
      var slice = from
      (0 until sizes(o)).foreach { b =>
        val bucketStart = first + (b.toLong << shifts(o))
        while (slice + 1 < to &&
            JLong.compareUnsigned(boundaries(slice + 1) - first, bucketStart - first) <= 0) {
          slice += 1
        }
        all(firstBuckets(o) + b) = slice
      }
    }
    all
  }

  /** The slice of key `o` holding `time`: the index of its greatest boundary at or before it. */
  def floor(o: Int, time: Long): Int = {
    val from = firstSlices(o)
    val first = boundaries(from)
    if (time < first) return -1
    val bucket = (time - first) >>> shifts(o)
    val (firstBucket, lastBucket) = (firstBuckets(o), firstBuckets(o + 1) - 1)
    if (JLong.compareUnsigned(bucket, lastBucket - firstBucket) > 0) return firstSlices(o + 1) - 1
    val b = firstBucket + bucket.toInt
    var slice = buckets(b)
    val last = if (b < lastBucket) buckets(b + 1) else firstSlices(o + 1) - 1
    if (last - slice > 8) {
      val i = Arrays.binarySearch(boundaries, slice, last + 1, time)
      if (i >= 0) i else -i - 2
    } else {
      while (slice < last && boundaries(slice + 1) <= time) slice += 1
      slice
    }
  }
}
