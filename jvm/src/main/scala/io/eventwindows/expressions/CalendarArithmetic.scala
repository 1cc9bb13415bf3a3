package io.eventwindows.expressions

import java.time.{DateTimeException, Instant, LocalDateTime, ZonedDateTime, ZoneId, ZoneOffset}

import org.apache.spark.unsafe.types.CalendarInterval

/**
 * An interval as Spark adds it to a timestamp: `months`, then `days` (calendar days, which a time
 * zone's changes lengthen or shorten), then `micros` (exact). No part is negative.
 */
case class CalendarStep(months: Int, days: Int, micros: Long) {
  require(months >= 0 && days >= 0 && micros >= 0, s"a negative part in $this")

  /**
   * True if this step is nowhere longer than `other`: no part of it is larger than the same part
   * of `other`, or its longest length is at most the shortest of `other` (a month lasts 28 to 31
   * days, a calendar day 22 to 26 hours: zones that skip or repeat a whole day aside).
   */
  def atMost(other: CalendarStep): Boolean =
    (months <= other.months && days <= other.days && micros <= other.micros) ||
      longestMicros <= other.shortestMicros

  private def longestMicros: BigInt =
    BigInt(months) * 31 * CalendarStep.DayMicros + BigInt(days) * 26 * CalendarStep.HourMicros +
      micros

  private def shortestMicros: BigInt =
    BigInt(months) * 28 * CalendarStep.DayMicros + BigInt(days) * 22 * CalendarStep.HourMicros +
      micros

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
 * Calendar windows: window n is `[alignment + n*hop, alignment + n*hop + size)` for every integer
 * n, where `+` is Spark's timestamp plus interval in `zone`: the months of n hops (and of the
 * size, for the end) are added to the local `alignment` (a day of month that the month lacks
 * becomes its last day), then the days, the local result is taken as an instant of the zone (a
 * local time in a gap moves forward by the gap, as java.time moves it; an ambiguous one takes the
 * earlier instant), and then the microseconds are added. So a day runs from local midnight to
 * local midnight, 23 or 25 hours across a change of daylight saving time, and a month from the
 * 1st to the 1st. For TIMESTAMP_NTZ time the zone is UTC: the wall clock is stepped as it is.
 *
 * A window's number is its position on the window operator's axis. Its bounds are computed from
 * its number, and the number of the window holding a time from an estimate (the time's local
 * distance from the alignment over the hop's average length, exact for a hop of microseconds only)
 * that a few steps correct: the months' lengths and the zone's offsets stray a few days at most
 * from the estimate. Consecutive calls mostly ask about one window (the sweep reads events in time
 * order), which is remembered, and the boundaries computed last are kept by window number (Spark's
 * hash aggregate reads events in any order, mostly over few windows).
 *
 * @param alignment microseconds of the local time (a wall clock) on which window 0 starts
 * @param zone      the time zone's ID (normalized as Spark's `DateTimeUtils.getZoneId` reads it)
 */
case class CalendarWindows(size: CalendarStep, hop: CalendarStep, alignment: Long, zone: String) {
  require(hop != CalendarStep.Zero && size != CalendarStep.Zero, s"an empty step in $this")

  @transient private lazy val zoneId: ZoneId = ZoneId.of(zone)
  @transient private lazy val localAlignment: LocalDateTime = CalendarWindows.local(alignment)

  /** The start of window `n`, saturated to the range of Long. */
  def start(n: Long): Long = lastStarts.at(n)

  /** The exclusive end of window `n`, saturated to the range of Long. */
  def end(n: Long): Long = lastEnds.at(n)

  /** True if no two windows overlap: a time lies in one window at most. */
  def disjoint: Boolean = size.atMost(hop)

  /** The number of the last window starting at or before `t`. */
  def lastStartingBy(t: Long): Long = lastStarts.numberAt(t)

  /** The number of the first window ending after `t`. */
  def firstEndingAfter(t: Long): Long = lastEnds.numberAt(t) + 1

  @transient private lazy val lastStarts = new Boundaries(CalendarStep.Zero)
  @transient private lazy val lastEnds = new Boundaries(size)

  /** `alignment + (n*hop + plus)`, months first, then days, then microseconds. */
  private def boundary(n: Long, plus: CalendarStep): Long = {
    val local = try {
      localAlignment
        .plusMonths(Math.addExact(Math.multiplyExact(n, hop.months.toLong), plus.months.toLong))
        .plusDays(Math.addExact(Math.multiplyExact(n, hop.days.toLong), plus.days.toLong))
    } catch {
      case _: ArithmeticException | _: DateTimeException => return saturated(n)
    }
    // ofLocal: a time in a gap moves forward by the gap, an ambiguous one takes the earlier offset.
    val instant = ZonedDateTime.ofLocal(local, zoneId, null).toInstant
    val micros = try {
      Math.addExact(Math.multiplyExact(n, hop.micros), plus.micros)
    } catch {
      case _: ArithmeticException => return saturated(n)
    }
    TimeArithmetic.add(CalendarWindows.micros(instant), micros)
  }

  private def saturated(n: Long): Long = if (n < 0) Long.MinValue else Long.MaxValue

  /**
   * The windows' boundaries `alignment + (n*hop + plus)` (their starts, or their ends), and which
   * is the last at or before a time. Both are remembered in objects that are never changed, so
   * that threads sharing this (generated code's reference objects) see whole ones.
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

    def numberAt(t: Long): Long = {
      val found = last
      if (found.from <= t && t < found.until) return found.number
      var n = estimate(t)
      var from = at(n)
      while (from > t) { n -= 1; from = at(n) }
      var until = at(n + 1)
      while (until <= t) { n += 1; from = until; until = at(n + 1) }
      last = new Found(n, from, until)
      n
    }

    /** A number near that of the last boundary at or before `t`. */
    private def estimate(t: Long): Long =
      if (hop.months == 0 && hop.days == 0) {
        // Boundaries lie exactly hop.micros apart from window 0's.
        val first = at(0L)
        val distance = t - first
        // Subtraction overflows iff t and first differ in sign and the result has first's.
        if (((t ^ first) & (t ^ distance)) < 0) Math.floor((t.toDouble - first) / hop.micros).toLong
        else Math.floorDiv(distance, hop.micros)
      } else {
        val local = CalendarWindows.micros(LocalDateTime.ofInstant(
          CalendarWindows.instant(t), zoneId).toInstant(ZoneOffset.UTC))
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
