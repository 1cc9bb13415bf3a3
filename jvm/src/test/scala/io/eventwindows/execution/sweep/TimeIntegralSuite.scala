package io.eventwindows.execution.sweep

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import scala.collection.mutable.ArrayBuffer
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.eventwindows.TestMemory

import io.eventwindows.SlowTest
import io.eventwindows.execution.aggregate.WindowMemory

/**
 * [[TimeIntegral]] on hand-worked windows, and against exact arithmetic (BigDecimal over every
 * event for every window) on random events anywhere on the long line with the window sequences
 * the sweeps make (hopping, snapshot, count-like, arbitrary), interleaved with adds as the
 * contract allows; non-finite values; a long history before small windows; bounded memory.
 */
class TimeIntegralSuite extends AnyFunSuite {
  import TimeIntegralSuite._

  private def newMemory(): WindowMemory =
    new WindowMemory(TestMemory.taskMemoryManager(), "TimeIntegralSuite")

  /** The window `[a, b)` over `events` by brute force, in exact arithmetic. */
  private def exact(events: Seq[Event], a: Long, b: Long): Exact = {
    var sum = JBigDecimal.ZERO
    var weight = BigInteger.ZERO
    var nan = false
    var positive = false
    var negative = false
    for (e <- events if e.start < b && e.end > a) {
      val ticks = BigInteger.valueOf(Math.min(e.end, b))
        .subtract(BigInteger.valueOf(Math.max(e.start, a)))
      weight = weight.add(ticks)
      if (e.value.isNaN) nan = true
      else if (e.value == Double.PositiveInfinity) positive = true
      else if (e.value == Double.NegativeInfinity) negative = true
      else sum = sum.add(new JBigDecimal(e.value).multiply(new JBigDecimal(ticks)))
    }
    val special = if (nan || (positive && negative)) Some(Double.NaN)
    else if (positive) Some(Double.PositiveInfinity)
    else if (negative) Some(Double.NegativeInfinity)
    else None
    Exact(sum, weight, special)
  }

  /** The error of `actual` relative to `exact`; infinite unless exact when `exact` is 0. */
  private def relativeError(actual: Double, exact: JBigDecimal): Double =
    if (actual.isNaN || actual.isInfinite) Double.PositiveInfinity
    else if (exact.signum == 0) (if (actual == 0) 0.0 else Double.PositiveInfinity)
    else new JBigDecimal(actual).subtract(exact).abs
      .divide(exact.abs, java.math.MathContext.DECIMAL64).doubleValue

  private def assertClose(actual: Double, exact: JBigDecimal, where: => String): Unit =
    assert(relativeError(actual, exact) <= 1e-12, s"$where: $actual, exact $exact")

  private def check(
      integral: TimeIntegral,
      events: Seq[Event],
      a: Long,
      b: Long,
      where: => String): Unit = {
    val expected = exact(events, a, b)
    expected.special match {
      case Some(special) if special.isNaN => assert(integral.sum.isNaN, s"$where: ${integral.sum}")
      case Some(special) => assert(integral.sum === special, where)
      case None => assertClose(integral.sum, expected.sum, s"$where: sum")
    }
    assertClose(integral.weight, new JBigDecimal(expected.weight), s"$where: weight")
  }

  /**
   * One key as a sweep would run it: `events` (sorted by start) and `windows` (starts
   * non-decreasing). Before each window come the events starting before its end and, at random,
   * a few more (their starts are at or after the ends of the windows before); each result is
   * checked against exact arithmetic. Then the key ends (clear).
   */
  private def sweep(
      integral: TimeIntegral,
      events: IndexedSeq[Event],
      windows: Seq[(Long, Long)],
      random: Random,
      where: String): Unit = {
    var next = 0
    def addNext(): Unit = {
      val e = events(next)
      integral.add(e.start, e.end, e.value)
      next += 1
    }
    for (((a, b), w) <- windows.zipWithIndex) {
      while (next < events.length && events(next).start < b) addNext()
      while (next < events.length && random.nextInt(3) == 0) addNext()
      integral.query(a, b)
      check(integral, events, a, b, s"$where, window $w [$a, $b)")
    }
    while (next < events.length) addNext()
    integral.clear()
  }

  /** A uniform time in `[lo, hi]`. */
  private def uniform(random: Random, lo: Long, hi: Long): Long =
    (BigInt(lo) + BigInt(72, random).mod(BigInt(hi) - BigInt(lo) + 1)).toLong

  /** Small integers (exact) or doubles of mixed sign across nine decades. */
  private def randomValue(random: Random): Double =
    if (random.nextInt(4) == 0) random.nextInt(21) - 10
    else (random.nextDouble() * 2 - 1) * Math.pow(10, random.nextInt(9) - 4)

  /**
   * `n` events sorted by start within `[lo, hi]`, some starting together: a few ticks long, a few
   * times the mean gap, anywhere up to `hi`, or exactly to `hi`. With `special`, some values are
   * NaN or infinite.
   */
  private def randomEvents(
      random: Random,
      n: Int,
      lo: Long,
      hi: Long,
      special: Boolean = false): IndexedSeq[Event] = {
    val starts = ArrayBuffer.empty[Long]
    for (i <- 0 until n) {
      val tied = i > 0 && random.nextInt(5) == 0
      starts += (if (tied) starts(i - 1) else uniform(random, lo, hi - 1))
    }
    val medium = (BigInt(hi) - BigInt(lo)) / n * 5 + 1
    starts.sorted.toIndexedSeq.map { start =>
      val room = BigInt(hi) - start
      val length = random.nextInt(4) match {
        case 0 => BigInt(1 + random.nextInt(10))
        case 1 => 1 + BigInt(72, random).mod(medium)
        case 2 => 1 + BigInt(72, random).mod(room)
        case _ => room
      }
      val value = if (special && random.nextInt(10) == 0) {
        Seq(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity)(random.nextInt(3))
      } else {
        randomValue(random)
      }
      Event(start, (start + length.min(room)).toLong, value)
    }
  }

  /** Windows between the events' ends, times next to them and random times, in any lengths. */
  private def randomWindows(
      events: IndexedSeq[Event],
      lo: Long,
      hi: Long,
      random: Random): Seq[(Long, Long)] = {
    val points =
      (events.flatMap(e => Seq(e.start, e.end)) ++
        Seq.fill(events.size)(uniform(random, lo, hi)) ++ Seq(lo, hi))
        .flatMap(p =>
          Seq(p) ++ (if (p > lo) Seq(p - 1) else Nil) ++
            (if (p < hi) Seq(p + 1) else Nil))
        .distinct.sorted.toIndexedSeq
    val windows = ArrayBuffer.empty[(Long, Long)]
    var i = 0
    while (i < points.size - 1) {
      val j = if (random.nextInt(5) == 0) i + 1 + random.nextInt(points.size - 1 - i)
      else Math.min(points.size - 1, i + 1 + random.nextInt(8))
      windows += ((points(i), points(j)))
      i += random.nextInt(4)
    }
    windows.toSeq
  }

  /** Hopping windows over `[lo, hi]`, the first reaching before it, with gaps or overlaps. */
  private def hoppingWindows(
      events: IndexedSeq[Event],
      lo: Long,
      hi: Long,
      random: Random): Seq[(Long, Long)] = {
    val hop = ((BigInt(hi) - BigInt(lo)) / (20 + random.nextInt(60))).max(1)
    val size = (if (random.nextBoolean()) hop * (1 + random.nextInt(3)) else hop / 2).max(1)
    var a = (BigInt(lo) - BigInt(72, random).mod(size)).max(BigInt(Long.MinValue))
    val windows = ArrayBuffer.empty[(Long, Long)]
    while (a < hi) {
      windows += ((a.toLong, (a + size).min(BigInt(Long.MaxValue)).toLong))
      a += hop
    }
    windows.toSeq
  }

  /** Snapshot-like windows: between consecutive distinct starts and ends. */
  private def snapshotWindows(
      events: IndexedSeq[Event],
      lo: Long,
      hi: Long,
      random: Random): Seq[(Long, Long)] = {
    val points = events.flatMap(e => Seq(e.start, e.end)).distinct.sorted
    points.zip(points.tail)
  }

  /** Count-like windows `[s_i, s_k + 1)` over distinct starts, k >= i varying (b goes back). */
  private def countWindows(
      events: IndexedSeq[Event],
      lo: Long,
      hi: Long,
      random: Random): Seq[(Long, Long)] = {
    val starts = events.map(_.start).distinct
    starts.indices.map { i =>
      (starts(i), starts(Math.min(starts.size - 1, i + random.nextInt(5))) + 1)
    }
  }

  private val windowKinds =
    Seq[(String, (IndexedSeq[Event], Long, Long, Random) => Seq[(Long, Long)])](
      "random" -> randomWindows,
      "hopping" -> hoppingWindows,
      "snapshot" -> snapshotWindows,
      "count" -> countWindows)

  test("one event spanning many windows") {
    val integral = new TimeIntegral(newMemory())
    integral.add(0L, 100L, 2.0)
    // Hopping windows of 30 ticks: 2 * 30 = 60 in each full one, 2 * 10 in [90, 120).
    val expected = Seq(
      -30L -> (0.0, 0.0),
      0L -> (60.0, 30.0),
      30L -> (60.0, 30.0),
      60L -> (60.0, 30.0),
      90L -> (20.0, 10.0),
      120L -> (0.0, 0.0))
    for ((a, (sum, weight)) <- expected) {
      integral.query(a, a + 30)
      assert((integral.sum, integral.weight) === ((sum, weight)), s"[$a, ${a + 30})")
    }
  }

  test("events starting and ending on window boundaries") {
    val integral = new TimeIntegral(newMemory())
    val expected = Seq(
      (0L, 10L) -> (0.0, 0.0), // nothing yet
      (10L, 20L) -> (10.0, 10.0), // [10, 20) of 1
      (20L, 30L) -> (25.0, 15.0), // [20, 30) of 3: 30, [20, 25) of -1: -5; [10, 20) ended at 20
      (25L, 30L) -> (15.0, 5.0), // [20, 30) of 3 only: 15
      (30L, 40L) -> (5.0, 10.0), // [30, 40) of 0.5: 5
      (40L, 50L) -> (0.0, 0.0)
    ) // everything ended at 40
    integral.add(10L, 20L, 1.0)
    integral.add(20L, 30L, 3.0)
    integral.add(20L, 25L, -1.0)
    for (((a, b), (sum, weight)) <- expected) {
      if (a == 30L) integral.add(30L, 40L, 0.5)
      integral.query(a, b)
      assert((integral.sum, integral.weight) === ((sum, weight)), s"[$a, $b)")
    }
  }

  test("windows whose ends go back, as count windows do") {
    val integral = new TimeIntegral(newMemory())
    integral.add(0L, 10L, 1.0)
    integral.add(5L, 15L, 2.0)
    val expected = Seq(
      (0L, 15L) -> (30.0, 20.0), // 1 * 10 + 2 * 10
      (5L, 10L) -> (15.0, 10.0), // 1 * 5 + 2 * 5
      (8L, 12L) -> (10.0, 6.0), // 1 * 2 + 2 * 4
      (12L, 13L) -> (2.0, 1.0)
    ) // 2 * 1
    for (((a, b), (sum, weight)) <- expected) {
      integral.query(a, b)
      assert((integral.sum, integral.weight) === ((sum, weight)), s"[$a, $b)")
    }
  }

  test("keys one after the other through clear") {
    val integral = new TimeIntegral(newMemory())
    integral.add(100L, 200L, 4.0)
    integral.query(150L, 250L)
    assert((integral.sum, integral.weight) === ((200.0, 50.0))) // 4 * 50
    integral.clear()
    // The next key starts earlier in time.
    integral.add(-50L, -10L, 1.5)
    integral.add(-40L, 0L, 2.0)
    integral.query(-60L, -20L)
    assert((integral.sum, integral.weight) === ((85.0, 50.0))) // 1.5 * 30 + 2 * 20
    integral.query(-20L, 20L)
    assert((integral.sum, integral.weight) === ((55.0, 30.0))) // 1.5 * 10 + 2 * 20
    integral.clear()
    // A key without events.
    integral.query(0L, 10L)
    assert((integral.sum, integral.weight) === ((0.0, 0.0)))
  }

  test("the whole long line: a difference of 2^64 - 1 ticks and small windows at its end") {
    val integral = new TimeIntegral(newMemory())
    integral.add(Long.MinValue, Long.MaxValue, 1.0)
    integral.add(Long.MaxValue - 10, Long.MaxValue, 0.25)
    integral.query(Long.MinValue, Long.MaxValue)
    // (2^64 - 1) * 1 + 10 * 0.25 and 2^64 - 1 + 10, both 2^64 as doubles.
    assert((integral.sum, integral.weight) === ((18446744073709551616.0, 18446744073709551616.0)))
    integral.query(Long.MaxValue - 4, Long.MaxValue)
    // 4 * 1 + 4 * 0.25, where the running integral is near 2^64 (doubles there are 4096 apart).
    assert((integral.sum, integral.weight) === ((5.0, 8.0)))
    integral.clear()

    // 0.1 over 2^63 ticks, then -0.1 over 2^63 - 1: the products must be exact to leave 0.1.
    integral.add(Long.MinValue, 0L, 0.1)
    integral.add(0L, Long.MaxValue, -0.1)
    integral.query(Long.MinValue, Long.MaxValue)
    assert((integral.sum, integral.weight) === ((0.1, 18446744073709551616.0)))
    integral.clear()

    integral.add(Long.MinValue + 1, Long.MaxValue - 1, 0.1)
    integral.query(Long.MaxValue - 4, Long.MaxValue)
    // 3 ticks of the double nearest 0.1.
    assertClose(integral.sum, new JBigDecimal(0.1).multiply(new JBigDecimal(3)), "sum")
    assert(integral.weight === 3.0)
  }

  test("NaN and infinite values make only the windows they overlap non-finite") {
    val integral = new TimeIntegral(newMemory())
    integral.add(0L, 100L, 1.0)
    integral.add(10L, 20L, Double.NaN)
    integral.add(30L, 40L, Double.PositiveInfinity)
    integral.add(35L, 50L, Double.NegativeInfinity)
    integral.add(60L, 70L, Double.PositiveInfinity)
    // Windows of 10: 1 * 10 from [0, 100), unless a non-finite event overlaps; the weight counts
    // every event.
    val expected = Seq(
      0L -> (10.0, 10.0),
      10L -> (Double.NaN, 20.0),
      20L -> (10.0, 10.0),
      30L -> (Double.NaN, 25.0), // +Infinity and -Infinity
      40L -> (Double.NegativeInfinity, 20.0),
      50L -> (10.0, 10.0),
      60L -> (Double.PositiveInfinity, 20.0),
      70L -> (10.0, 10.0),
      80L -> (10.0, 10.0),
      90L -> (10.0, 10.0),
      100L -> (0.0, 0.0))
    for ((a, (sum, weight)) <- expected) {
      integral.query(a, a + 10)
      if (sum.isNaN) assert(integral.sum.isNaN, s"[$a, ${a + 10})")
      else assert(integral.sum === sum, s"[$a, ${a + 10})")
      assert(integral.weight === weight, s"[$a, ${a + 10})")
    }
  }

  test("rounding left by values that came and went does not outlive them") {
    val integral = new TimeIntegral(newMemory())
    integral.add(0L, 10L, 1e30)
    integral.add(0L, 20L, 1e-20)
    // f = 1e30 + 1e-20 + 1 rounds the 1e-20 away; after 1e30 and 1e-20 leave, f holds -1e-20.
    integral.add(0L, 30L, 1.0)
    integral.query(25L, 30L)
    assert((integral.sum, integral.weight) === ((5.0, 5.0))) // 1 * 5
    // Once no event is active, f is exactly 0 again.
    integral.query(30L, 40L)
    assert((integral.sum, integral.weight) === ((0.0, 0.0)))
  }

  test("values near Double.MaxValue over a long history: the running integral stays finite") {
    val integral = new TimeIntegral(newMemory())
    // Events of 1e303 for 1,000 ticks each, one after the other: the integral over the key is
    // 1e309, beyond Double.MaxValue, while a window of 2,500 ticks sums 2.5e306 across two or
    // three change points.
    var next = 0L
    for (a <- 0L until 1000000L by 500L) {
      while (next * 1000L < a + 2500) {
        integral.add(next * 1000L, (next + 1) * 1000L, 1e303)
        next += 1
      }
      integral.query(a, a + 2500)
      assertClose(integral.sum, new JBigDecimal(1e303).multiply(new JBigDecimal(2500)), s"$a")
    }
    // A window within an event as long as the line: 1e303 * 2^64 overflows in any arithmetic.
    integral.clear()
    integral.add(Long.MinValue, Long.MaxValue, 1e303)
    integral.query(Long.MaxValue - 2, Long.MaxValue)
    assertClose(integral.sum, new JBigDecimal(1e303).multiply(new JBigDecimal(2)), "late")
  }

  test("calls outside the contract fail") {
    val integral = new TimeIntegral(newMemory())
    integral.add(10L, 20L, 1.0)
    intercept[AssertionError](integral.add(5L, 30L, 1.0)) // an earlier start
    intercept[AssertionError](integral.add(20L, 20L, 1.0)) // empty
    integral.query(0L, 15L)
    intercept[AssertionError](integral.add(12L, 30L, 1.0)) // before the window's end
    intercept[AssertionError](integral.query(-1L, 5L)) // an earlier window start
    intercept[AssertionError](integral.query(3L, 3L)) // empty
  }

  private val regions = Seq(
    ("near 0, crowded", -300L, 300L),
    ("near 0", 0L, 1000000L),
    ("near Long.MinValue", Long.MinValue, Long.MinValue + 1000000L),
    ("near Long.MaxValue", Long.MaxValue - 1000000L, Long.MaxValue),
    ("across the whole line", Long.MinValue, Long.MaxValue))

  for ((region, lo, hi) <- regions)
    test(s"random events and windows agree with exact arithmetic: $region", SlowTest) {
      val integral = new TimeIntegral(newMemory())
      val random = new Random(region.hashCode)
      for (round <- 0 until 3; (kind, windows) <- windowKinds) {
        val events = randomEvents(random, 150, lo, hi)
        sweep(integral, events, windows(events, lo, hi, random), random, s"$kind round $round")
      }
    }

  test("random events near both ends of the line and across it, in one key", SlowTest) {
    val integral = new TimeIntegral(newMemory())
    val random = new Random(64)
    for (round <- 0 until 3; (kind, windows) <- windowKinds) {
      val spanning = Seq.fill(4) {
        Event(
          uniform(random, Long.MinValue, Long.MinValue + 1000),
          uniform(random, Long.MaxValue - 1000, Long.MaxValue),
          randomValue(random))
      }
      val events =
        (randomEvents(random, 80, Long.MinValue, Long.MinValue + 100000) ++
          spanning ++ randomEvents(random, 80, Long.MaxValue - 100000, Long.MaxValue))
          .sortBy(_.start)
      sweep(
        integral,
        events,
        windows(events, Long.MinValue, Long.MaxValue, random),
        random,
        s"$kind round $round")
    }
  }

  test("random events with NaN and infinite values agree with IEEE on the windows", SlowTest) {
    val integral = new TimeIntegral(newMemory())
    val random = new Random(754)
    for ((region, lo, hi) <- regions; (kind, windows) <- windowKinds) {
      val events = randomEvents(random, 150, lo, hi, special = true)
      sweep(integral, events, windows(events, lo, hi, random), random, s"$region $kind")
    }
  }

  test("a long history does not cancel small windows late in it") {
    val random = new Random(20000)
    var start = Long.MaxValue / 2
    // 20,000 events of up to 10^9 ticks, about 2,000 at once, values up to 10^6: H reaches about
    // 10^19. Then a burst of short events, one a tick, so that a window of a few ticks sums
    // about 10^9 from the H stored at several change points.
    val history = IndexedSeq.fill(20000) {
      start += random.nextInt(1000000)
      Event(start, start + 1 + random.nextInt(1000000000), random.nextDouble() * 1e6)
    }
    val burst = IndexedSeq.tabulate(200) { i =>
      Event(start + i, start + i + 1 + random.nextInt(3), random.nextDouble() * 1e6)
    }
    val events = history ++ burst
    val windows = (0 until 60).map { k =>
      val a = start + 3 * k
      (a, a + 1 + random.nextInt(5))
    }
    sweep(new TimeIntegral(newMemory()), events, windows, random, "late windows")

    // What the difference of running integrals in doubles would give: far from 1e-12.
    def naive(x: Long): Double = events.foldLeft(0.0) { (h, e) =>
      if (e.start >= x) h else h + e.value * (Math.min(e.end, x) - e.start)
    }
    val naiveError = windows.map { case (a, b) =>
      relativeError(naive(b) - naive(a), exact(events, a, b).sum)
    }.max
    assert(naiveError > 1e-9)
  }

  test("memory stays bounded while events pass through, and is reused by the next key") {
    val memory = newMemory()
    val integral = new TimeIntegral(memory)
    val random = new Random(3)
    var usedByFirstKey = 0L
    for (key <- 0 until 2) {
      // 200,000 events of up to 50 ticks, a few active at a time, under hopping windows of 40
      // ticks every 10: their change points (112 bytes each) kept in full would take tens of MB.
      var start = 0L
      var a = -40L
      for (_ <- 0 until 200000) {
        start += random.nextInt(4)
        while (a + 40 <= start) {
          integral.query(a, a + 40)
          a += 10
        }
        integral.add(start, start + 1 + random.nextInt(50), random.nextDouble())
        assert(memory.getUsed <= (1L << 20))
      }
      integral.clear()
      if (key == 0) usedByFirstKey = memory.getUsed
      else assert(memory.getUsed === usedByFirstKey)
    }
  }

  test("the active events and change points are in reserved memory") {
    val memory = newMemory()
    val integral = new TimeIntegral(memory)
    // 100,000 events all active at once: 16 bytes each in the heap, 112 per change point.
    for (i <- 0 until 100000) integral.add(i.toLong, 1000000L, 1.0)
    assert(memory.getUsed >= 100000L * (16 + 112))
    integral.query(0L, 1000000L)
    // Event i lasts 1,000,000 - i ticks: sum and weight are 1,000,000 * 100,000 - 4,999,950,000.
    assert((integral.sum, integral.weight) === ((95000050000.0, 95000050000.0)))
    val used = memory.getUsed
    integral.clear()
    assert(memory.getUsed === used)
  }
}

private object TimeIntegralSuite {
  final case class Event(start: Long, end: Long, value: Double)

  /** The exact aggregates of a window, and its sum if that is not finite (as IEEE gives it). */
  final case class Exact(sum: JBigDecimal, weight: BigInteger, special: Option[Double])
}
