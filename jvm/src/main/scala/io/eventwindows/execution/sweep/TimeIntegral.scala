package io.eventwindows.execution.sweep

import java.lang.Double.{doubleToRawLongBits, isFinite, longBitsToDouble}

import io.eventwindows.execution.aggregate.{LongPages, WindowMemory}
import io.eventwindows.time.TimeArithmetic

/**
 * The time-weighted aggregates of windows `[a, b)` over interval events `[start, end)` with a
 * value v, in O(log n) per event and per window whatever the events' lengths:
 *  - the sum, of v * (the ticks of [start, end) within [a, b)) over the events overlapping the
 *    window (value * ticks),
 *  - the weight, of the ticks of [start, end) within [a, b) over the same events.
 *
 * With f(t) the sum of the values of the events active at t (a step function) and H(x) the
 * integral of f up to x, a window's sum is H(b) - H(a); its weight is the same with the number of
 * active events instead of f. The events active at the sweep's time are in a heap by end, and a
 * queue holds one entry per distinct time t at which f changes: t, H(t) and f just after t (and
 * the same for the other channels below). Between entries H is linear: for the last entry t <= x,
 * H(x) = H(t) + f(t) * (x - t), found by binary search. For example, events [0, 10) of 1 and
 * [5, 15) of 2 give the entries (0: H 0, f 1), (5: H 5, f 3), (10: H 20, f 2), (15: H 30, f 0),
 * and the window [8, 12) has the sum H(12) - H(8) = (20 + 2 * 2) - (5 + 3 * 3) = 10.
 *
 * Precision: times cover the whole long range (a difference of two times is read as unsigned, up
 * to 2^64 - 1) and H grows with the key's history, so H(b) - H(a) of a small window late in a
 * long history would cancel catastrophically in doubles. A window's sum is taken from its own
 * pieces instead (f over [a, the first entry after a), the stored H between that entry and the
 * last at or before b, f over [that entry, b); in the example, 3 * 2 + 0 + 2 * 2); f and H are
 * double-double values (hi + lo, about 106 bits) kept with error-free transformations; and a time
 * difference is split into two halves that doubles hold exactly before it multiplies f. Rounding
 * thus stays near 2^-104 of the magnitudes involved (the values active together, the stored H):
 * a finite sum agrees with the exact one to about 1e-12 relative unless it cancels by more than
 * about 1e18 against them. The count channel is exact in 128-bit integers until the weight is
 * rounded to a double at the end. The limit: a stored H overflows if the integral of |f| over the
 * entries since the queue last compacted (below) exceeds Double.MaxValue.
 *
 * Non-finite values never enter f, where f += v then f -= v would leave NaN for good: the queue
 * counts the NaN, +Infinity and -Infinity events that started and ended up to each entry, so the
 * events of each kind overlapping a window are `starts before b - ends at or before a`. A window's
 * sum is then what the naive sum of v * length gives in IEEE arithmetic: NaN if a NaN event
 * overlaps, or both a +Infinity and a -Infinity event; otherwise the infinity that overlaps, or
 * the finite integral.
 *
 * Memory: the heap and the queue are in pages reserved through `memory`; each window drops the
 * entries before the last one at or before its start, and the queue moves its live entries to the
 * front once the dropped ones outnumber them (amortized O(1) per entry), so it holds the entries
 * between the latest window start and the sweep's time, not the key's history.
 */
private[sweep] final class TimeIntegral(memory: WindowMemory) {
  import TimeIntegral._

  /** The active events by end; each value is the raw bits of the event's double. */
  private val active = new LongPairHeap(memory)

  /** The queue of change points, [[Stride]] longs each, live from `head` (inclusive) to `tail`. */
  private val points = new LongPages(memory)
  private var head = 0L
  private var tail = 0L

  /** The latest time the sweep has reached: the greatest start added or window end queried. */
  private var swept = Long.MinValue

  /** The start of the last window. */
  private var lastStart = Long.MinValue

  private var lastSum = 0.0
  private var lastWeight = 0.0

  // The results of the arithmetic helpers below, instead of a tuple per operation: a
  // double-double (hi + lo) and a 128-bit integer (wideHi * 2^64 + unsigned wideLo).
  private var hi = 0.0
  private var lo = 0.0
  private var wideHi = 0L
  private var wideLo = 0L

  clear()

  /**
   * Adds the event `[start, end)` of `value` (finite or not), after the events active before it
   * that end at or before `start` leave. `end > start`; starts never decrease between calls of
   * [[clear]], and every start is at or after the end `b` of every window queried before.
   */
  def add(start: Long, end: Long, value: Double): Unit = {
    assert(end > start, s"event [$start, $end) is empty")
    assert(start >= swept, s"event starting at $start added after the sweep reached $swept")
    sweepTo(start)
    change(start, value, entering = true)
    active.add(end, doubleToRawLongBits(value))
  }

  /**
   * Computes the [[sum]] and [[weight]] of the window `[a, b)`, `a < b`, after sweeping to `b`
   * (the events ending at or before b leave), then forgets what later windows cannot need. Every
   * event starting before b must have been added; `a` never decreases between calls of [[clear]]
   * (b may: the sweep stays where it is if b is behind it).
   */
  def query(a: Long, b: Long): Unit = {
    assert(a < b, s"window [$a, $b) is empty")
    assert(a >= lastStart, s"window starting at $a queried after one starting at $lastStart")
    sweepTo(b)
    lastStart = a
    val first = lastAtOrBefore(a, head)
    val last = lastAtOrBefore(b, first)
    // The last entry before b, for the events starting before b: entries have distinct times.
    val beforeEnd = if (points(last * Stride + Time) == b) last - 1 else last

    val nan = overlapping(NaNChannel, first, beforeEnd)
    val positive = overlapping(PositiveChannel, first, beforeEnd)
    val negative = overlapping(NegativeChannel, first, beforeEnd)
    lastSum = if (nan || (positive && negative)) {
      Double.NaN
    } else if (positive) {
      Double.PositiveInfinity
    } else if (negative) {
      Double.NegativeInfinity
    } else if (first == last) {
      rateTimes(first, b - a)
      hi
    } else {
      // H(b) - H(a) as the window's own pieces, so that nothing before a enters the sum: f over
      // [a, the next entry), the stored H from there to the last entry, f over [the last, b).
      val next = first + 1
      rateTimes(first, points(next * Stride + Time) - a)
      val startHi = hi
      val startLo = lo
      rateTimes(last, b - points(last * Stride + Time))
      addDoubleDouble(hi, lo, startHi, startLo)
      if (next < last) {
        val edgesHi = hi
        val edgesLo = lo
        addDoubleDouble(
          longBitsToDouble(points(last * Stride + IntegralHi)),
          longBitsToDouble(points(last * Stride + IntegralLo)),
          -longBitsToDouble(points(next * Stride + IntegralHi)),
          -longBitsToDouble(points(next * Stride + IntegralLo)))
        addDoubleDouble(hi, lo, edgesHi, edgesLo)
      }
      hi
    }

    ticksAt(last, b)
    val endHi = wideHi
    val endLo = wideLo
    ticksAt(first, a)
    val low = endLo - wideLo
    val high = endHi - wideHi - (if (java.lang.Long.compareUnsigned(endLo, wideLo) < 0) 1 else 0)
    lastWeight = high.toDouble * TwoTo64 + TimeArithmetic.unsignedToDouble(low)

    head = first
    if (head > tail - head) compact()
  }

  /** The sum of value * ticks over the last window's events, as a double. */
  def sum: Double = lastSum

  /** The ticks of the last window's events within the window, as a double. */
  def weight: Double = lastWeight

  /** Forgets every event and window, for the next key group; the pages stay reserved for it. */
  def clear(): Unit = {
    while (!active.isEmpty) active.removeFirst()
    // A first entry at the start of time, where nothing is active, so that every time has an
    // entry at or before it.
    points.ensure(Stride)
    var c = 0
    while (c < Stride) {
      points(c) = 0L
      c += 1
    }
    points(Time) = Long.MinValue
    head = 0L
    tail = 1L
    swept = Long.MinValue
    lastStart = Long.MinValue
    lastSum = 0.0
    lastWeight = 0.0
  }

  /** Makes the events ending at or before `time` leave, in end order. */
  private def sweepTo(time: Long): Unit = {
    while (!active.isEmpty && active.peekKey <= time) {
      change(active.peekKey, longBitsToDouble(active.peekValue), entering = false)
      active.removeFirst()
    }
    if (time > swept) swept = time
  }

  /** Records that an event of `value` starts (`entering`) or ends at `time`, the latest entry's. */
  private def change(time: Long, value: Double, entering: Boolean): Unit = {
    if (points((tail - 1) * Stride + Time) != time) append(time)
    val p = (tail - 1) * Stride
    points(p + Count) += (if (entering) 1 else -1)
    if (isFinite(value)) {
      if (finiteActive(p) == 0) {
        // The exact sum of no values: rounding left by events that came and went goes with them.
        points(p + RateHi) = 0L
        points(p + RateLo) = 0L
      } else {
        val rateHi = longBitsToDouble(points(p + RateHi))
        val rateLo = longBitsToDouble(points(p + RateLo))
        addDoubleDouble(rateHi, rateLo, if (entering) value else -value, 0.0)
        points(p + RateHi) = doubleToRawLongBits(hi)
        points(p + RateLo) = doubleToRawLongBits(lo)
      }
    } else {
      val channel =
        if (value.isNaN) NaNChannel else if (value > 0) PositiveChannel else NegativeChannel
      points(p + channel + (if (entering) 0 else 1)) += 1
    }
  }

  /** The number of active finite events just after entry `p` (an offset). */
  private def finiteActive(p: Long): Long = {
    var count = points(p + Count)
    var channel = NaNChannel
    while (channel <= NegativeChannel) {
      count -= points(p + channel) - points(p + channel + 1)
      channel += 2
    }
    count
  }

  /** Appends an entry at `time`, after the latest, with the same rates and counts. */
  private def append(time: Long): Unit = {
    val from = tail - 1
    points.ensure((tail + 1) * Stride)
    val p = tail * Stride
    rateTimes(from, time - points(from * Stride + Time))
    addDoubleDouble(
      longBitsToDouble(points(from * Stride + IntegralHi)),
      longBitsToDouble(points(from * Stride + IntegralLo)),
      hi,
      lo)
    ticksAt(from, time)
    var c = 0
    while (c < Stride) {
      points(p + c) = points(from * Stride + c)
      c += 1
    }
    points(p + Time) = time
    points(p + IntegralHi) = doubleToRawLongBits(hi)
    points(p + IntegralLo) = doubleToRawLongBits(lo)
    points(p + TicksHi) = wideHi
    points(p + TicksLo) = wideLo
    tail += 1
  }

  /** The index of the last entry at or before `time`, searching from entry `from` (one is). */
  private def lastAtOrBefore(time: Long, from: Long): Long = {
    var low = from
    var high = tail - 1
    while (low < high) {
      val middle = (low + high + 1) >>> 1
      if (points(middle * Stride + Time) <= time) low = middle else high = middle - 1
    }
    low
  }

  /**
   * True if an event of the non-finite `channel` overlaps the window from entry `first` (the last
   * at or before its start) to entry `beforeEnd` (the last before its end): one started before
   * the end and did not end at or before the start.
   */
  private def overlapping(channel: Int, first: Long, beforeEnd: Long): Boolean =
    points(beforeEnd * Stride + channel) > points(first * Stride + channel + 1)

  /**
   * Sets (hi, lo) to f just after entry `i` times `ticks` (unsigned). The ticks are split into
   * their high and low 32 bits, which doubles hold exactly, so that the products with f's high
   * part are exact (fma gives their rounding errors).
   */
  private def rateTimes(i: Long, ticks: Long): Unit = {
    val p = i * Stride
    val rateHi = longBitsToDouble(points(p + RateHi))
    val rateLo = longBitsToDouble(points(p + RateLo))
    val upper = (ticks >>> 32).toDouble * TwoTo32
    val lower = (ticks & LowBits).toDouble
    val upperProduct = rateHi * upper
    val lowerProduct = rateHi * lower
    addDoubleDouble(
      upperProduct,
      Math.fma(rateHi, upper, -upperProduct) + rateLo * upper,
      lowerProduct,
      Math.fma(rateHi, lower, -lowerProduct) + rateLo * lower)
  }

  /**
   * Sets (wideHi, wideLo) to the integral of the number of active events up to `time` from entry
   * `i`, the last at or before `time`, exactly: at most 2^63 events over at most 2^64 ticks.
   */
  private def ticksAt(i: Long, time: Long): Unit = {
    val p = i * Stride
    val ticks = time - points(p + Time)
    val count = points(p + Count)
    val low = count * ticks
    // The signed high product reads an unsigned ticks >= 2^63 as ticks - 2^64; count >= 0.
    val high = Math.multiplyHigh(count, ticks) + (if (ticks < 0) count else 0L)
    wideLo = points(p + TicksLo) + low
    wideHi = points(p + TicksHi) + high +
      (if (java.lang.Long.compareUnsigned(wideLo, low) < 0) 1 else 0)
  }

  /**
   * Moves the live entries to the front of the pages, measuring H from the first of them: the
   * dropped entries outnumber the live ones, so the moves cost O(1) per entry, and H holds the
   * integral since the last compaction rather than over the key's history.
   */
  private def compact(): Unit = {
    val baseHi = longBitsToDouble(points(head * Stride + IntegralHi))
    val baseLo = longBitsToDouble(points(head * Stride + IntegralLo))
    var i = head
    while (i < tail) {
      val from = i * Stride
      val to = (i - head) * Stride
      var c = 0
      while (c < Stride) {
        points(to + c) = points(from + c)
        c += 1
      }
      addDoubleDouble(
        longBitsToDouble(points(to + IntegralHi)),
        longBitsToDouble(points(to + IntegralLo)),
        -baseHi,
        -baseLo)
      points(to + IntegralHi) = doubleToRawLongBits(hi)
      points(to + IntegralLo) = doubleToRawLongBits(lo)
      i += 1
    }
    tail -= head
    head = 0L
  }

  /**
   * Sets (hi, lo) to (aHi + aLo) + (bHi + bLo) within about 3 * 2^-106 of the result, normalized
   * (hi is the sum rounded to a double): the accurate double-double addition of Joldes, Muller
   * and Popescu (TwoSum of the high and of the low parts, then two renormalizations).
   */
  private def addDoubleDouble(aHi: Double, aLo: Double, bHi: Double, bLo: Double): Unit = {
    val s = aHi + bHi
    val sb = s - aHi
    val sError = (aHi - (s - sb)) + (bHi - sb)
    val t = aLo + bLo
    val tb = t - aLo
    val tError = (aLo - (t - tb)) + (bLo - tb)
    val c = sError + t
    val v = s + c
    val vError = c - (v - s)
    val w = tError + vError
    hi = v + w
    lo = w - (hi - v)
  }
}

private object TimeIntegral {
  // The columns of an entry. f just after the time is RateHi + RateLo, H at the time is
  // IntegralHi + IntegralLo; Count is the number of events active just after the time, whatever
  // their value, and Ticks (TicksHi * 2^64 + unsigned TicksLo) is its integral. Each non-finite
  // channel counts the events of its kind that started at or before the time, and its next
  // column those that ended at or before it.
  val Time = 0
  val IntegralHi = 1
  val IntegralLo = 2
  val RateHi = 3
  val RateLo = 4
  val Count = 5
  val TicksHi = 6
  val TicksLo = 7
  val NaNChannel = 8
  val PositiveChannel = 10
  val NegativeChannel = 12
  val Stride = 14

  val LowBits = 0xFFFFFFFFL
  val TwoTo32 = 4294967296.0
  val TwoTo64 = 18446744073709551616.0
}
