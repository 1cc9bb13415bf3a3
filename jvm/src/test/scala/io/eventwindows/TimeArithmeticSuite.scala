package io.eventwindows

import org.scalatest.funsuite.AnyFunSuite

import io.eventwindows.expressions.EventTime
import io.eventwindows.time.TimeArithmetic
import io.eventwindows.time.TimeArithmetic._

class TimeArithmeticSuite extends AnyFunSuite {
  private val Min = Long.MinValue
  private val Max = Long.MaxValue

  /** The obvious definition, by search, for small values. */
  private def snapBySearch(t: Long, a: Long, p: Long): Long = (-1000L to 1000L).map(n =>
    a + n * p).filter(_ <= t).max

  test("snap_to_boundary rounds down, also before the alignment and on boundaries") {
    for (t <- -60L to 60L; a <- Seq(-7L, 0L, 3L, 10L); p <- Seq(1L, 2L, 5L, 7L)) {
      assert(snapToBoundary(t, a, p, Min, Max) === snapBySearch(t, a, p), s"t=$t a=$a p=$p")
    }
  }

  test("the hopping-windows post's SnapToBoundary is a period off on a boundary at or before a") {
    def post(t: Long, a: Long, p: Long) = t - ((t - a) % p) - (if (t > a) 0L else p)
    assert(post(10L, 10L, 5L) === 5L) // the post says 5 for t == a
    assert(snapToBoundary(10L, 10L, 5L, Min, Max) === 10L)
    assert(post(-5L, 0L, 5L) === -10L)
    assert(snapToBoundary(-5L, 0L, 5L, Min, Max) === -5L)
    assert(post(12L, 10L, 5L) === snapToBoundary(12L, 10L, 5L, Min, Max)) // right for t > a
  }

  test("ceilMillis is the first millisecond at or after a time, before 1970 too") {
    val cases = Seq(
      0L -> 0L,
      1L -> 1L,
      999L -> 1L,
      1000L -> 1L,
      1500L -> 2L,
      -1L -> 0L,
      -999L -> 0L,
      -1000L -> -1L,
      -1500L -> -1L,
      Max -> 9223372036854776L, // ...775,807 µs
      Min -> -9223372036854775L // ...775,808 µs before 1970: 192 µs after ms -...776
    )
    for ((micros, ms) <- cases) assert(ceilMillis(micros) === ms, s"micros=$micros")
    // By its definition: the least ms with ms * 1000 >= micros.
    for (micros <- -3001L to 3001L) {
      val ms = ceilMillis(micros)
      assert(ms * 1000 >= micros && (ms - 1) * 1000 < micros, s"micros=$micros")
    }
  }

  test("arithmetic saturates instead of wrapping") {
    assert(add(Max, 1L) === Max)
    assert(add(Min, -1L) === Min)
    assert(subtract(Min, 1L) === Min)
    assert(subtract(Max, -1L) === Max)
    assert(snapToBoundary(Min, 0L, 7L, Min, Max) === Min)
    assert(snapToBoundary(Max, 3L, 7L, Min, Max) <= Max)
    assert(boundaryIndex(Max, Min, 1L) === Max)
    assert(boundaryIndex(Min, Max, 1L) === Min)
  }

  test("boundaryIndex is floor((t - a) / p) without overflow") {
    for (t <- -30L to 30L; a <- Seq(-9L, 0L, 4L); p <- Seq(1L, 3L, 4L)) {
      assert(boundaryIndex(t, a, p) === Math.floorDiv(t - a, p))
    }
    assert(boundaryIndex(Max, -1L, Max) === 1L)
  }

  test("boundary is exact where the product overflows but the boundary does not") {
    val rng = new scala.util.Random(7)
    for (_ <- 1 to 2000) {
      val (n, a, p) = (rng.nextLong(), rng.nextLong(), 1L + rng.nextInt(1000))
      val exact = BigInt(a) + BigInt(n) * p
      assert(boundary(n, a, p, Min, Max) === exact.max(BigInt(Min)).min(BigInt(Max)).toLong)
    }
    // 922337203685477581 * 10 = Max + 3; plus an alignment of -Max: the window starting at 3.
    assert(boundary(922337203685477581L, -Max, 10L, Min, Max) === 3L)
    assert(boundary(-1L, 2L, 7L, 0L, 10L) === 0L) // clamped to the time line
  }

  test("adjusted lifetimes of the hopping-windows post (ticks, alignment 0, size 5, hop 2)") {
    // Windows [2n, 2n + 5). Start 3 lies in [0,5) and [2,7): the earliest ends at 5.
    assert(adjustStartTime(3L, 5L, 2L, 0L, Min, Max) === 5L)
    assert(adjustStartTime(4L, 5L, 2L, 0L, Min, Max) === 5L)
    assert(adjustStartTime(5L, 5L, 2L, 0L, Min, Max) === 7L) // [0,5) no longer holds 5
    // End 10 (exclusive): the last window starting before 10 is [8,13); + hop = 15.
    assert(adjustEndTime(10L, 5L, 2L, 0L, Min, Max) === 15L)
    assert(adjustEndTime(11L, 5L, 2L, 0L, Min, Max) === 17L)
    assert(adjustEndTime(Max, 5L, 2L, 0L, Min, Max) === Max) // the end of time stays
    val line = (EventTime.TimestampMin, EventTime.TimestampMax)
    assert(TimeArithmetic.adjustEndTime(line._2 - 3, 5L, 2L, 0L, line._1, line._2) === line._2)
    assert(TimeArithmetic.adjustStartTime(line._1, 5L, 2L, 0L, line._1, line._2) >= line._1)
  }

  test("boundaryPlus is exact where the index lies beyond Long and the window before the line") {
    val rng = new scala.util.Random(11)
    for (_ <- 1 to 2000) {
      val (n, shift, a, off) = (
        rng.nextLong(),
        rng.nextLong() >> rng.nextInt(64),
        rng.nextLong(),
        rng.nextLong() >> rng.nextInt(64))
      val p = 1L + rng.nextInt(1000)
      val exact = BigInt(a) + (BigInt(n) + shift) * p + off
      assert(
        boundaryPlus(n, shift, a, p, off, Min, Max) ===
          exact.max(BigInt(Min)).min(BigInt(Max)).toLong,
        s"n=$n shift=$shift a=$a p=$p off=$off")
    }
    // The window [Min - 9, Min + 1) of hop 1, size 10: clipped start, exact end.
    assert(boundaryPlus(Min, -9L, 0L, 1L, 0L, Min, Max) === Min)
    assert(boundaryPlus(Min, -9L, 0L, 1L, 10L, Min, Max) === Min + 1)
  }

  test("exactSum adds three longs exactly or fails") {
    assert(exactSum(Max, Min, 5L) === 4L)
    assert(exactSum(Min, 9L, -9L) === Min)
    assert(exactSum(Max, 1L, -1L) === Max)
    intercept[ArithmeticException](exactSum(Max, 1L, 1L))
    intercept[ArithmeticException](exactSum(Min, -1L, 0L))
  }

  test("addStep steps an exclusive bound inward without stepping off a saturated sum") {
    assert(addStep(Min, -1L, 1L) === Min) // (Min - 1, ...: the first inclusive tick is Min
    assert(addStep(Max, 5L, -1L) === Max) // ..., Max + 5): the last inclusive tick is Max
    assert(addStep(Min, -5L, 1L) === Min)
    assert(addStep(Max, Max, 1L) === Max)
    assert(addStep(-1L, Max, 1L) === Max)
    assert(addStep(0L, Min, -1L) === Min)
    assert(addStep(3L, 4L, -1L) === 6L)
  }

  test("adjusted lifetimes are exact where the windows start before the line") {
    // Windows [7n, 7n + 100), Min = 6 (mod 7): the earliest holding Min starts at Min - 97 and
    // ends at Min + 3; the latest starting before Min + 1 starts at Min - 6 and ends at Min + 94.
    assert(adjustStartTime(Min, 100L, 7L, 0L, Min, Max) === Min + 3)
    assert(adjustEndTime(Min + 1, 100L, 7L, 0L, Min, Max) === Min + 101)
    for (t <- Seq(Min, Min + 1, Min + 6, Min + 7, Min + 1000); size <- Seq(1L, 7L, 100L);
      hop <- Seq(1L, 3L, 7L) if hop <= size) {
      val byIndex = (BigInt(t) - size) / hop - 2 to (BigInt(t) / hop + 2)
      val firstEnd = byIndex.map(_ * hop + size).filter(e => e - size <= t && e > t).min
      assert(adjustStartTime(t, size, hop, 0L, Min, Max) === firstEnd.min(BigInt(Max)).toLong)
    }
  }
}
