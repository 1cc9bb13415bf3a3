package io.eventwindows.time

/**
 * Time arithmetic on long ticks, free of Spark so that `eval`, generated code and the window
 * operator all call the same functions.
 *
 * Every result is saturated to the time line `[lineMin, lineMax]` of the column's type: arithmetic
 * never overflows or wraps, it sticks to the beginning or the end of time. Rounding to window
 * boundaries is floor rounding, right for times before the alignment and before 1970 (the
 * StreamInsight `SnapToBoundary` it replaces is one period off for a time exactly on a boundary at
 * or before the alignment).
 */
object TimeArithmetic {

  /** `a + b`, saturated to the range of Long. */
  def add(a: Long, b: Long): Long = {
    val r = a + b
    // Overflow happened iff both operands have the sign opposite to the result.
    if (((a ^ r) & (b ^ r)) < 0) { if (a < 0) Long.MinValue else Long.MaxValue }
    else r
  }

  /** The exclusive end of a point event at `t`: one tick later, but not past the end of time. */
  def pointEventEnd(t: Long, lineMax: Long): Long = Math.min(add(t, 1L), lineMax)

  /** `a - b`, saturated to the range of Long. */
  def subtract(a: Long, b: Long): Long = {
    val r = a - b
    if (((a ^ b) & (a ^ r)) < 0) { if (a < 0) Long.MinValue else Long.MaxValue }
    else r
  }

  /**
   * The length `end - start` of a lifetime (`end >= start`) as a double: the difference of two
   * longs may exceed Long (a lifetime across the whole BIGINT line), never 2^64.
   */
  def length(start: Long, end: Long): Double = unsignedToDouble(end - start)

  /** `value` read as unsigned, rounded to the nearest double. */
  def unsignedToDouble(value: Long): Double =
    // Halving keeps the lowest bit as a sticky bit, so the one rounding is still to nearest.
    if (value >= 0) value.toDouble else ((value >>> 1) | (value & 1)).toDouble * 2.0

  /**
   * The first millisecond at or after `micros` (floor rounding, right before 1970 too): the
   * time of an event-time timer, which Spark keeps in milliseconds, that fires once the
   * watermark has reached `micros`; e.g. 1,500 µs -> 2 ms, -1,500 µs -> -1 ms, 2,000 µs -> 2 ms.
   */
  def ceilMillis(micros: Long): Long =
    Math.floorDiv(micros, 1000L) + (if (Math.floorMod(micros, 1000L) == 0) 0L else 1L)

  /** `t` clamped to `[lineMin, lineMax]`. */
  def clamp(t: Long, lineMin: Long, lineMax: Long): Long = Math.max(lineMin, Math.min(lineMax, t))

  /**
   * The index n of the last boundary `alignment + n * period <= t`, i.e.
   * `floor((t - alignment) / period)`, computed without overflowing `t - alignment`.
   */
  def boundaryIndex(t: Long, alignment: Long, period: Long): Long = {
    val whole = subtract(Math.floorDiv(t, period), Math.floorDiv(alignment, period))
    add(whole, Math.floorDiv(Math.floorMod(t, period) - Math.floorMod(alignment, period), period))
  }

  /**
   * The boundary `alignment + n * period` for index n, saturated to the time line. Exact: only the
   * result saturates, not the product, which may overflow where the sum does not.
   */
  def boundary(n: Long, alignment: Long, period: Long, lineMin: Long, lineMax: Long): Long =
    boundaryPlus(n, 0L, alignment, period, 0L, lineMin, lineMax)

  /**
   * `alignment + (n + shift) * period + offset` (e.g. the end of the window n positions past
   * index `shift`, `offset` its size), saturated to the time line. Exact: the products and sums
   * are 128-bit and only the result saturates, so a window that starts before the line still
   * ends where it ends, and `n + shift` may lie beyond Long.
   */
  def boundaryPlus(
      n: Long,
      shift: Long,
      alignment: Long,
      period: Long,
      offset: Long,
      lineMin: Long,
      lineMax: Long): Long = {
    val nLow = n * period
    val sLow = shift * period
    val low1 = nLow + sLow
    val high1 = Math.multiplyHigh(n, period) + Math.multiplyHigh(shift, period) + carry(nLow, low1)
    val low2 = low1 + alignment
    val high2 = high1 + (alignment >> 63) + carry(low1, low2)
    val low = low2 + offset
    val high = high2 + (offset >> 63) + carry(low2, low)
    val exact = if (high == (low >> 63)) low else if (high < 0) Long.MinValue else Long.MaxValue
    clamp(exact, lineMin, lineMax)
  }

  /**
   * `a + b + c`, exact, or an `ArithmeticException` if it lies beyond Long. The two terms of
   * opposite signs (if any) are added first: their sum cannot overflow, so the last addition
   * overflows only where the whole does.
   */
  def exactSum(a: Long, b: Long, c: Long): Long =
    if ((a ^ b) < 0) Math.addExact(a + b, c)
    else if ((a ^ c) < 0) Math.addExact(a + c, b)
    else Math.addExact(Math.addExact(a, b), c)

  /** The carry out of the low 64 bits of a 128-bit addition that turned `before` into `after`. */
  private def carry(before: Long, after: Long): Long =
    if (java.lang.Long.compareUnsigned(after, before) < 0) 1L else 0L

  /**
   * `t + d + step` for a step of -1, 0 or 1 (an exclusive bound made inclusive), saturated only
   * at the end: stepping off a saturated `t + d` would move a bound at the end of the line.
   */
  def addStep(t: Long, d: Long, step: Long): Long = {
    val dStep = d + step
    // d + step overflows only where d is at an end of Long and the step leads out of it; then
    // t + d is exact wherever the whole is.
    if (((d ^ dStep) & (step ^ dStep)) < 0) add(add(t, d), step) else add(t, dStep)
  }

  /** The largest `alignment + n * period <= t` (floor modulo), saturated to the time line. */
  def snapToBoundary(t: Long, alignment: Long, period: Long, lineMin: Long, lineMax: Long): Long = {
    clamp(subtract(t, offsetPastBoundary(t, alignment, period)), lineMin, lineMax)
  }

  /**
   * `AdjustStartTime` of "Taming Hopping Windows": the end of the earliest window
   * `[a + n*hop, a + n*hop + size)` that contains t. Window ends are aligned at `a + size`, and the
   * earliest window containing t is the first whose end lies after t: `t + (hop - offset)`, where
   * offset is t's distance past the last end at or before it, so nothing saturates before the
   * result (that end may lie before the line).
   */
  def adjustStartTime(
      t: Long,
      size: Long,
      hop: Long,
      alignment: Long,
      lineMin: Long,
      lineMax: Long): Long = {
    val endAlignment = addModulo(Math.floorMod(alignment, hop), Math.floorMod(size, hop), hop)
    clamp(add(t, hop - offsetPastBoundary(t, endAlignment, hop)), lineMin, lineMax)
  }

  /**
   * `AdjustEndTime` of "Taming Hopping Windows": one hop past the end of the latest window that
   * starts before t (an exclusive end): `(t - 1 - offset) + hop + size`, summed so that nothing
   * saturates before the result. The end of time stays the end of time.
   */
  def adjustEndTime(
      t: Long,
      size: Long,
      hop: Long,
      alignment: Long,
      lineMin: Long,
      lineMax: Long): Long = {
    if (t >= lineMax) {
      lineMax
    } else {
      val last = subtract(t, 1L)
      clamp(add(add(last, hop - offsetPastBoundary(last, alignment, hop)), size), lineMin, lineMax)
    }
  }

  /** `(x + y) mod m` for x and y in `[0, m)`, without overflowing `x + y`. */
  private def addModulo(x: Long, y: Long, m: Long): Long = if (x >= m - y) x - (m - y) else x + y

  /** How far `t` lies past the last boundary `alignment + n * period` at or before it. */
  def offsetPastBoundary(t: Long, alignment: Long, period: Long): Long =
    Math.floorMod(Math.floorMod(t, period) - Math.floorMod(alignment, period), period)
}
