package io.eventwindows.time

import java.time.{DateTimeException, Instant, LocalDateTime, ZonedDateTime, ZoneId, ZoneOffset}
import java.time.temporal.ChronoUnit

import org.apache.spark.unsafe.types.CalendarInterval

/**
 * An interval as calendar windows step it on a zone's local clock: `months`, then `days`, then
 * `micros`, all on the wall clock, where a day is 24 hours and a month 28 to 31 days. No part is
 * negative.
 */
case class CalendarStep(months: Int, days: Int, micros: Long) {
  require(months >= 0 && days >= 0 && micros >= 0, s"a negative part in $this")

  /**
   * True if this step is nowhere longer than `other`: no part of it is larger than the same part
   * of `other`, or its longest length is at most the shortest of `other`.
   */
  def atMost(other: CalendarStep): Boolean =
    (months <= other.months && days <= other.days && micros <= other.micros) ||
      longestMicros <= other.shortestMicros

  /** The longest length this step can have on the local clock, in microseconds. */
  def longestMicros: BigInt =
    BigInt(months) * 31 * CalendarStep.DayMicros + BigInt(days) * CalendarStep.DayMicros + micros

  /** The shortest length this step can have on the local clock, in microseconds. */
  def shortestMicros: BigInt =
    BigInt(months) * 28 * CalendarStep.DayMicros + BigInt(days) * CalendarStep.DayMicros + micros

  /** A length this step has on average, in microseconds (a month of 30.436875 days). */
  def averageMicros: Double =
    months * CalendarStep.AverageMonthMicros + days * CalendarStep.DayMicros.toDouble + micros

  override def toString: String = new CalendarInterval(months, days, micros).toString
}

object CalendarStep {
  val Zero: CalendarStep = CalendarStep(0, 0, 0L)
  val HourMicros: Long = 3600L * 1000000L
  val DayMicros: Long = 24 * HourMicros

  /** The Gregorian calendar's 146097 days in 4800 months. */
  private val AverageMonthMicros: Double = 146097.0 / 4800 * DayMicros
}

/**
 * Calendar windows: window n is `[start_n, start_n + size)` with `start_n = alignment + n*hop`,
 * where every `+` steps the zone's local clock (the wall clock) and the result is then read in
 * `zone`. A step adds its months (a day of month that the month lacks becomes its last day), then
 * its days, then its microseconds, all on the local clock, so a day runs from local midnight to
 * local midnight (23 or 25 hours across a change of daylight saving time), a month from the 1st to
 * the 1st, and an hour from a local full hour to the next, whatever the zone's offset. For
 * TIMESTAMP_NTZ time the zone is UTC: the wall clock is stepped as it is.
 *
 * Two rules make tumbling windows tile the time line. When the hop has months, the months of the
 * hops and of the size are counted together from the alignment, before the days and the
 * microseconds: the month aligned on Jan 31 that starts on Feb 29 ends on Mar 31, where the next
 * one starts (Feb 29 plus a month would be Mar 29), and windows of 1 month and 1 day end where the
 * next starts. A hop without months is a fixed stretch of the local clock, and the size is added
 * to each start. And a local time is read as the first instant at which the zone's clock reads it
 * or later ([[CalendarWindows.instantOf]]): one the clocks skip (they spring forward) is the
 * instant they jump past it, one they read twice (they fall back) the first reading. So in Berlin
 * the window of local 02:00-03:00 on the last Sunday of March is empty and on the last Sunday of
 * October lasts two hours; in Lord Howe's half-hour changes the local hour holding them lasts 30
 * or 90 minutes.
 *
 * For example, a month every day (`size` 1 month, `hop` 1 day, alignment 1970-01-01 00:00) in
 * Berlin: window 17948 starts on the local 2019-02-21 00:00 (17948 days after the alignment) and
 * ends a month later, on 2019-03-21 00:00 local, 28 days; the window of 2019-03-21 ends on
 * 2019-04-21, 31 days less the hour the clocks skip on March 31.
 *
 * A window's number is its position on the window operator's axis. Its bounds are computed from
 * its number, and the number of the window holding a time from an estimate (the time's local
 * distance from the alignment over the hop's average length) that a search corrects: galloping
 * from the estimate, then bisecting (bounds never decrease with the number). Consecutive calls
 * mostly ask about one window (the sweep reads events in time order), which is remembered, and
 * the boundaries computed last are kept by window number (Spark's hash aggregate reads events in
 * any order, mostly over few windows).
 *
 * @param alignment microseconds of the local time (a wall clock) on which window 0 starts
 * @param zone      the time zone's ID (normalized as Spark's `DateTimeUtils.getZoneId` reads it)
 */
case class CalendarWindows(size: CalendarStep, hop: CalendarStep, alignment: Long, zone: String)
    extends NumberedWindows {
  require(hop != CalendarStep.Zero && size != CalendarStep.Zero, s"an empty step in $this")

  @transient private lazy val zoneId: ZoneId = ZoneId.of(zone)
  @transient private lazy val localAlignment: LocalDateTime = CalendarWindows.local(alignment)

  /** The start of window `n`, saturated to the range of Long. */
  override def start(n: Long): Long = lastStarts.at(n)

  /** The exclusive end of window `n`, saturated to the range of Long. */
  override def end(n: Long): Long = lastEnds.at(n)

  /** True if no two windows overlap: a time lies in one window at most. */
  def disjoint: Boolean = size.atMost(hop)

  /** The number of the last window starting at or before `t`. */
  override def lastStartingBy(t: Long): Long = lastStarts.numberAt(t)

  /** The number of the first window ending after `t`. */
  override def firstEndingAfter(t: Long): Long = lastEnds.numberAt(t) + 1

  @transient private lazy val lastStarts = new Boundaries(CalendarStep.Zero)
  @transient private lazy val lastEnds = new Boundaries(size)

  /** `start_n + plus`, read in the zone. */
  private def boundary(n: Long, plus: CalendarStep): Long = boundary(n, plus, 1L)

  /**
   * `start_n + k*step` (k >= 0), read in the zone and saturated to the range of Long (by the sign
   * of n), on the local clock: a hop with months counts the months of n hops and k steps from the
   * alignment, then adds the days and microseconds of both; a hop without months adds the k steps
   * (months, days, microseconds) to the local start `alignment + n*hop`. Cumulating windows step
   * through a window this way ([[CumulatingWindows]]).
   */
  def boundary(n: Long, step: CalendarStep, k: Long): Long = {
    val local = try {
      val stepMonths = Math.multiplyExact(k, step.months.toLong)
      val start =
        if (hop.months == 0) {
          CalendarWindows.plusDaysAndMicros(localAlignment, n, hop).plusMonths(stepMonths)
        } else {
          val hopMonths = Math.multiplyExact(n, hop.months.toLong)
          CalendarWindows.plusDaysAndMicros(
            localAlignment.plusMonths(Math.addExact(hopMonths, stepMonths)),
            n,
            hop)
        }
      CalendarWindows.plusDaysAndMicros(start, k, step)
    } catch {
      case _: ArithmeticException | _: DateTimeException => return saturated(n)
    }
    CalendarWindows.micros(CalendarWindows.instantOf(local, zoneId))
  }

  private def saturated(n: Long): Long = if (n < 0) Long.MinValue else Long.MaxValue

  /**
   * The windows' boundaries `start_n + plus` (their starts, or their ends), and which is the last
   * at or before a time. Both are remembered in objects that are never changed, so that threads
   * sharing this (generated code's reference objects) see whole ones.
   */
  private final class Boundaries(plus: CalendarStep) {

    /** Window `number`'s boundary is at or before the times in `[from, until)`, the next after. */
    private final class Found(val number: Long, val from: Long, val until: Long)
    @volatile private var last: Found = new Found(0L, 0L, 0L)

    private final class Known(val number: Long, val boundary: Long)
    private val known = new Array[Known](CalendarWindows.RememberedBoundaries)

    /** Window `n`'s boundary. */
    def at(n: Long): Long = {
      val slot = (n & (CalendarWindows.RememberedBoundaries - 1)).toInt
      val k = known(slot)
      if (k != null && k.number == n) k.boundary
      else {
        val b = boundary(n, plus)
        known(slot) = new Known(n, b)
        b
      }
    }

    /**
     * The number of the last boundary at or before `t`: from the estimate, gallop (steps of 1, 2,
     * 4, ...) until the boundaries bracket `t`, then bisect. The estimate is a few windows off at
     * most, but for short windows after the clocks fall back (a minute's windows in Berlin's
     * repeated hour all end at its first reading) it can be many.
     */
    def numberAt(t: Long): Long = {
      val found = last
      if (found.from <= t && t < found.until) return found.number
      val guess = estimate(t)
      // The boundary of `low` is at or before t, that of `high` after it.
      var (low, high) = if (at(guess) <= t) (guess, gallop(guess, 1L, t))
      else
        (gallop(guess, -1L, t), guess)
      // high - low, read unsigned, is the distance even across the whole range of Long.
      while (java.lang.Long.compareUnsigned(high - low, 1L) > 0) {
        val middle = low + ((high - low) >>> 1)
        if (at(middle) <= t) low = middle else high = middle
      }
      last = new Found(low, at(low), at(high))
      low
    }

    /**
     * The first number from `from` in `direction` (1 or -1) whose boundary is past `t` that way,
     * in steps that double; the numbers saturate at the ends of Long, where boundaries do too.
     */
    private def gallop(from: Long, direction: Long, t: Long): Long = {
      def past(n: Long) = if (direction > 0) at(n) > t else at(n) <= t
      var distance = 1L
      var n = TimeArithmetic.add(from, direction)
      while (!past(n) && n != Long.MaxValue && n != Long.MinValue) {
        distance = Math.min(distance * 2, Long.MaxValue / 2)
        n = TimeArithmetic.add(n, direction * distance)
      }
      n
    }

    /** A number near that of the last boundary at or before `t`. */
    private def estimate(t: Long): Long = {
      val local = CalendarWindows.micros(LocalDateTime.ofInstant(
        CalendarWindows.instant(t),
        zoneId).toInstant(ZoneOffset.UTC))
      val elapsed = (local.toDouble - alignment) - plus.averageMicros
      Math.floor(elapsed / hop.averageMicros).toLong
    }
  }
}

object CalendarWindows {

  /** How many boundaries of each kind are remembered (a power of two): about 3 years of days. */
  private val RememberedBoundaries = 1024

  /** The local time (wall clock) of `micros` since 1970-01-01 00:00. */
  def local(micros: Long): LocalDateTime =
    LocalDateTime.ofInstant(instant(micros), ZoneOffset.UTC)

  /**
   * The first instant at which `zone`'s clock reads `local` or later: the instant of `local` if the
   * clock reads it once, the first of the two if it reads it twice (the earlier offset, as Spark
   * and java.time take it), and the instant the clock jumps past it if it skips it (java.time
   * would move it forward by the gap's length, which puts a boundary inside the gap after a later
   * one: 02:30 in Berlin's skipped hour at 03:30, after 03:00).
   */
  def instantOf(local: LocalDateTime, zone: ZoneId): Instant = {
    val transition = zone.getRules.getTransition(local)
    if (transition != null && transition.isGap) transition.getInstant
    else ZonedDateTime.ofLocal(local, zone, null).toInstant
  }

  /** `local` plus `n` times the days and the microseconds of `step`. */
  private def plusDaysAndMicros(local: LocalDateTime, n: Long, step: CalendarStep)
      : LocalDateTime =
    local.plusDays(Math.multiplyExact(n, step.days.toLong))
      .plus(Math.multiplyExact(n, step.micros), ChronoUnit.MICROS)

  private def instant(micros: Long): Instant =
    Instant.ofEpochSecond(Math.floorDiv(micros, 1000000L), Math.floorMod(micros, 1000000L) * 1000L)

  /** Microseconds since the epoch of `instant`, saturated to the range of Long. */
  private def micros(instant: Instant): Long = {
    val seconds = instant.getEpochSecond
    if (seconds > Long.MaxValue / 1000000L) Long.MaxValue
    else if (seconds < Long.MinValue / 1000000L) Long.MinValue
    else TimeArithmetic.add(seconds * 1000000L, instant.getNano / 1000L)
  }
}
