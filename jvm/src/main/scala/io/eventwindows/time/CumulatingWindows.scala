package io.eventwindows.time

import io.eventwindows.errors.EventWindowsErrors

/**
 * Cumulating windows, as Flink's `CUMULATE`: the time line is cut into buckets
 * `[alignment + b*size, alignment + (b+1)*size)`, and bucket b has the windows
 * `[bucket start, min(alignment + b*size + k*step, bucket end))` for k = 1, 2, ..., as long as the
 * previous one ends before the bucket does: the bucket so far, every step. With exact durations
 * (size a multiple of step) a bucket has size/step windows; on a calendar ([[CalendarWindows]]'
 * arithmetic: the month so far, every day) their number varies from bucket to bucket.
 *
 * Window (b, k) has the number `b * perBucket + (k - 1)`, `perBucket` the most windows a bucket
 * can have, so that starts and ends never decrease with the number ([[NumberedWindows]]). A
 * number past its bucket's last window names no window of its own: its bounds are that last
 * window's, and [[nextWindow]] skips it. An event's windows are then the numbers from the first
 * window ending after its start (in its start's bucket) to the last window of its last tick's
 * bucket: every window of a later bucket starts at its bucket's start, so it holds the event.
 *
 * The limits of that numbering: `spark.eventwindows.maxWindowsPerEvent` counts numbers, not
 * windows, so a calendar event (31 numbers a month cumulated daily) may be refused with up to
 * `perBucket` less its bucket's windows counted too many per bucket, and the message gives that
 * count; and the numbers have no shift as the hopping axis' positions have, so an event whose
 * numbers lie beyond Long (a step of one tick near an end of the BIGINT line) fails the query,
 * naming the bucket.
 */
sealed trait CumulatingWindows extends NumberedWindows {

  /** The most windows a bucket has. */
  def perBucket: Long

  /** The bucket holding `t`. */
  protected def bucketOf(t: Long): Long

  /** The start of bucket `b`. */
  protected def bucketStart(b: Long): Long

  /** The exclusive end of bucket `b`. */
  protected def bucketEnd(b: Long): Long

  /** `alignment + b*size + k*step`: the end of window k of bucket b before the bucket cuts it. */
  protected def stepEnd(b: Long, k: Long): Long

  /** The first k (1 to [[perBucket]]) whose window of bucket `b` ends after `t`, in bucket b. */
  protected def firstStepAfter(b: Long, t: Long): Long

  override final def start(n: Long): Long = bucketStart(Math.floorDiv(n, perBucket))

  override final def end(n: Long): Long = {
    val b = Math.floorDiv(n, perBucket)
    Math.min(stepEnd(b, Math.floorMod(n, perBucket) + 1), bucketEnd(b))
  }

  override final def lastStartingBy(t: Long): Long = number(bucketOf(t), perBucket)

  override final def firstEndingAfter(t: Long): Long = {
    val b = bucketOf(t)
    number(b, firstStepAfter(b, t))
  }

  /** True if number `n` is a window: the first of its bucket, or the one before ends earlier. */
  final def exists(n: Long): Boolean = {
    val k = Math.floorMod(n, perBucket)
    k == 0 || {
      val b = Math.floorDiv(n, perBucket)
      stepEnd(b, k) < bucketEnd(b)
    }
  }

  /** The number of the window after window `n`: the next number, or the next bucket's first. */
  final def nextWindow(n: Long): Long =
    if (n != Long.MaxValue && exists(n + 1)) n + 1 else number(Math.floorDiv(n, perBucket) + 1, 1L)

  /** The number of window k of bucket b; an error if it lies beyond Long. */
  private def number(b: Long, k: Long): Long =
    try Math.addExact(Math.multiplyExact(b, perBucket), k - 1)
    catch {
      case _: ArithmeticException => throw EventWindowsErrors.invalidInput(
          s"cumulate_window: the windows of bucket $b cannot be numbered ($perBucket windows per " +
            s"bucket, $this): more than 2^64 windows reach into the time line; use a longer step, " +
            "or times further from the ends of the time line")
    }
}

/**
 * Cumulating windows of exact durations in ticks of the time column: `size` a multiple of `step`,
 * `alignment` a tick on which a bucket starts. Bounds saturate to the range of Long.
 */
final case class ExactCumulating(size: Long, step: Long, alignment: Long)
    extends CumulatingWindows {
  import TimeArithmetic._
  require(size > 0 && step > 0 && size % step == 0, s"size not a multiple of step in $this")

  override val perBucket: Long = size / step

  override protected def bucketOf(t: Long): Long = boundaryIndex(t, alignment, size)

  override protected def bucketStart(b: Long): Long = stepEnd(b, 0L)

  override protected def bucketEnd(b: Long): Long = stepEnd(b, perBucket)

  // k * step is at most size: only the sum may saturate.
  override protected def stepEnd(b: Long, k: Long): Long =
    boundaryPlus(b, 0L, alignment, size, k * step, Long.MinValue, Long.MaxValue)

  override protected def firstStepAfter(b: Long, t: Long): Long =
    offsetPastBoundary(t, alignment, size) / step + 1
}

/**
 * Cumulating windows on the calendar of a time zone: buckets are the [[CalendarWindows]] of
 * `size` (hopping by `size`), and window k of bucket b ends k steps after the bucket's start on
 * the local clock ([[CalendarWindows.boundary]]), or at the bucket's end if that comes first. So a
 * month cumulated daily has 28 to 31 windows, each ending at a local midnight, and a day
 * cumulated every 6 hours ends them at local 06:00, 12:00, 18:00 and midnight.
 */
final case class CalendarCumulating(
    size: CalendarStep,
    step: CalendarStep,
    alignment: Long,
    zone: String) extends CumulatingWindows {
  require(step != CalendarStep.Zero && step.atMost(size), s"a step longer than the size in $this")

  private val buckets = CalendarWindows(size, size, alignment, zone)

  /**
   * Whole days through months and days (local dates do not depend on the zone's changes), whole
   * months through months; otherwise the longest size over the shortest step.
   */
  override val perBucket: Long = {
    def ceilDiv(a: BigInt, b: BigInt): BigInt = (a + b - 1) / b
    val bound =
      if (step.months == 0 && step.micros == 0 && size.micros == 0) {
        ceilDiv(BigInt(size.months) * 31 + size.days, step.days)
      } else if (step.days == 0 && step.micros == 0 && size.days == 0 && size.micros == 0) {
        ceilDiv(size.months, step.months)
      } else ceilDiv(size.longestMicros, step.shortestMicros)
    if (bound.isValidLong) bound.toLong else Long.MaxValue
  }

  override protected def bucketOf(t: Long): Long = buckets.lastStartingBy(t)
  override protected def bucketStart(b: Long): Long = buckets.start(b)
  override protected def bucketEnd(b: Long): Long = buckets.end(b)
  override protected def stepEnd(b: Long, k: Long): Long = buckets.boundary(b, step, k)

  /** The window found last, and the times `[from, until)` for which it is the first ending after. */
  private final class Found(val bucket: Long, val k: Long, val from: Long, val until: Long)
  @transient @volatile private var last: Found = null

  // An estimate from the step's average length, corrected by a few steps either way.
  override protected def firstStepAfter(b: Long, t: Long): Long = {
    val known = last
    if (known != null && known.bucket == b && known.from <= t && t < known.until) return known.k
    val bucketEnds = bucketEnd(b)
    def endOf(k: Long) = Math.min(stepEnd(b, k), bucketEnds)
    val from = bucketStart(b)
    var k = Math.max(
      1L,
      Math.min(
        perBucket,
        Math.floor((t.toDouble - from) / step.averageMicros).toLong + 1))
    while (k > 1 && endOf(k - 1) > t) k -= 1
    // The bucket ends after t, so some k does; the bound only guards saturated bounds.
    while (k < perBucket && endOf(k) <= t) k += 1
    last = new Found(b, k, if (k == 1) from else endOf(k - 1), endOf(k))
    k
  }
}
