package io.eventwindows.expressions

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
    if (((a ^ r) & (b ^ r)) < 0) { if (a < 0) Long.MinValue else Long.MaxValue } else r
  }

  /** The exclusive end of a point event at `t`: one tick later, but not past the end of time. */
  def pointEventEnd(t: Long, lineMax: Long): Long = Math.min(add(t, 1L), lineMax)

  /** `a - b`, saturated to the range of Long. */
  def subtract(a: Long, b: Long): Long = {
    val r = a - b
    if (((a ^ b) & (a ^ r)) < 0) { if (a < 0) Long.MinValue else Long.MaxValue } else r
  }

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
  def boundary(n: Long, alignment: Long, period: Long, lineMin: Long, lineMax: Long): Long = {
    // The 128-bit sum (high, low) of the 128-bit product and the sign-extended alignment.
    val productLow = n * period
    val low = productLow + alignment
    val carry = if (java.lang.Long.compareUnsigned(low, productLow) < 0) 1L else 0L
    val high = Math.multiplyHigh(n, period) + (alignment >> 63) + carry
    val exact = if (high == (low >> 63)) low else if (high < 0) Long.MinValue else Long.MaxValue
    clamp(exact, lineMin, lineMax)
  }

  /** The largest `alignment + n * period <= t` (floor modulo), saturated to the time line. */
  def snapToBoundary(t: Long, alignment: Long, period: Long, lineMin: Long, lineMax: Long): Long = {
    val offset = Math.floorMod(Math.floorMod(t, period) - Math.floorMod(alignment, period), period)
    clamp(subtract(t, offset), lineMin, lineMax)
  }

  /**
   * Seed 000's `AdjustStartTime`: the end of the earliest window `[a + n*hop, a + n*hop + size)`
   * that contains t. Window ends are aligned at `a + size`, and the earliest window containing t
   * is the first whose end lies after t.
   */
  def adjustStartTime(
      t: Long, size: Long, hop: Long, alignment: Long, lineMin: Long, lineMax: Long): Long = {
    val endAlignment = add(alignment, Math.floorMod(size, hop))
    clamp(add(snapToBoundary(t, endAlignment, hop, Long.MinValue, Long.MaxValue), hop),
      lineMin, lineMax)
  }

  /**
   * Seed 000's `AdjustEndTime`: one hop past the end of the latest window that starts before t (an
   * exclusive end). The end of time stays the end of time.
   */
  def adjustEndTime(
      t: Long, size: Long, hop: Long, alignment: Long, lineMin: Long, lineMax: Long): Long = {
    if (t >= lineMax) {
      lineMax
    } else {
      val lastStart = snapToBoundary(subtract(t, 1L), alignment, hop, Long.MinValue, Long.MaxValue)
      clamp(add(add(lastStart, hop), size), lineMin, lineMax)
    }
  }
}
