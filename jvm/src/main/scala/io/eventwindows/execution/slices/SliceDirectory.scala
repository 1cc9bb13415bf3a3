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

  /**
   * What a lookup reads of key `o`, together in `Header` longs from `o * Header` (so mostly in one
   * cache line, where separate arrays would cost a cache miss each): its first boundary, the
   * shift from a time's offset to its bucket, its first bucket's index and its number of buckets
   * less one (one long), and its last slice.
   */
  private val headers = new Array[Long](keys * SliceDirectory.Header)
  private val buckets: Array[Int] = {
    val sizes = (0 until keys).map { o =>
      val (from, to) = (firstSlices(o), firstSlices(o + 1))
      // Times are compared unsigned from the first boundary: a span may exceed Long.MaxValue.
      val span = boundaries(to - 1) - boundaries(from)
      val target = Integer.highestOneBit(to - from) * 2
      var shift = 0
      while (JLong.compareUnsigned(span >>> shift, target) >= 0) shift += 1
      headers(o * SliceDirectory.Header + 1) = shift
      (span >>> shift).toInt + 1
    }
    val firstBuckets = sizes.scanLeft(0)(_ + _)
    val all = new Array[Int](firstBuckets(keys))
    (0 until keys).foreach { o =>
      val (from, to, first) = (firstSlices(o), firstSlices(o + 1), boundaries(firstSlices(o)))
      val header = o * SliceDirectory.Header
      headers(header) = first
      headers(header + 2) = (firstBuckets(o).toLong << 32) | (sizes(o) - 1)
      headers(header + 3) = to - 1
      val shift = headers(header + 1).toInt
      var slice = from
      (0 until sizes(o)).foreach { b =>
        val bucketStart = first + (b.toLong << shift)
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
    val header = o * SliceDirectory.Header
    val first = headers(header)
    if (time < first) return -1
    val bucket = (time - first) >>> headers(header + 1).toInt
    val bucketsOfKey = headers(header + 2)
    val lastSlice = headers(header + 3).toInt
    val lastBucket = bucketsOfKey & 0xFFFFFFFFL
    if (JLong.compareUnsigned(bucket, lastBucket) > 0) return lastSlice
    val b = (bucketsOfKey >>> 32).toInt + bucket.toInt
    val slice = buckets(b)
    // Most buckets hold no boundary after their first instant's slice starts.
    if (slice == lastSlice || time < boundaries(slice + 1)) return slice
    val last = if (bucket < lastBucket) buckets(b + 1) else lastSlice
    if (last - slice > 8) {
      val i = Arrays.binarySearch(boundaries, slice + 1, last + 1, time)
      if (i >= 0) i else -i - 2
    } else {
      var s = slice + 1
      while (s < last && boundaries(s + 1) <= time) s += 1
      s
    }
  }
}

private object SliceDirectory {

  /** Longs per key in `headers`. */
  final val Header = 4
}
