package io.eventwindows.plans

import org.apache.spark.unsafe.types.CalendarInterval

import io.eventwindows.time.{
  CalendarCumulating, CalendarStep, CalendarWindows, ExactCumulating, NumberedWindows
}

/**
 * A window family as a stream's checkpoint keeps it (in the stored definition that
 * `io.eventwindows.analysis.StateDefinition` writes): its parameters, written field by field here,
 * so that renaming a family's class or fields changes no checkpoint, and a new family must be
 * given its text (the match is over the sealed families).
 *
 * Version 1 is the text of the releases so far (the case classes' `toString` of release 0.1.0),
 * e.g. `Hopping(5000000,1000000,0,window,None)` for `hopping_window(ts, '5 seconds', '1 second')`
 * and `CountWindow(3,point)` for `count_window(ts, 3, 'point')`.
 */
object FamilyEncoding {

  /** A family, by its parameters. */
  def of(f: WindowFamily): String = f match {
    case Hopping(size, hop, alignment, output, horizon) =>
      fields("Hopping", size, hop, alignment, output, horizon)
    case CalendarHopping(windows, output, horizon) =>
      fields("CalendarHopping", windows, output, horizon)
    case Cumulating(windows, output, horizon) => fields("Cumulating", windows, output, horizon)
    case Snapshot => "Snapshot"
    case CountWindow(n, output) => fields("CountWindow", n, output)
    case IndexWindow(lo, hi) => fields("IndexWindow", lo, hi)
    case RelativeTimeWindow(lo, hi, bounds) => fields("RelativeTimeWindow", lo, hi, bounds)
    case SlidingWindow(eviction, trigger) => fields("SlidingWindow", eviction, trigger)
    case SplTumblingWindow(eviction, flushAtEnd) =>
      fields("SplTumblingWindow", eviction, flushAtEnd)
    case SessionWindow(gap, maxDuration, output) =>
      fields("SessionWindow", gap, maxDuration, output)
    // Lookbacks came later: a window without one is written as before them.
    case AnchorWindow(bounds, lookback) =>
      s"AnchorWindow(${value(bounds)}${lookback.map(l => s", lookback $l").getOrElse("")})"
  }

  /** Windows known by number (of a calendar hopping or a cumulating family, or a horizon). */
  def of(w: NumberedWindows): String = w match {
    case CalendarWindows(size, hop, alignment, zone) =>
      fields("CalendarWindows", size, hop, alignment, zone)
    case ExactCumulating(size, step, alignment) => fields("ExactCumulating", size, step, alignment)
    case CalendarCumulating(size, step, alignment, zone) =>
      fields("CalendarCumulating", size, step, alignment, zone)
  }

  /** `name(field,field,...)`, each field as [[value]] writes it. */
  def fields(name: String, values: Any*): String =
    values.map(value).mkString(s"$name(", ",", ")")

  /** One parameter. */
  private def value(v: Any): String = v match {
    case Some(x) => s"Some(${value(x)})"
    case None => "None"
    case x @ (_: Long | _: Int | _: Boolean | _: String) => x.toString
    case p: OutputPolicy => p.sqlName
    case b: Bounds => b.sqlName
    case p: SplPolicy => p.sql
    case s: CalendarStep => new CalendarInterval(s.months, s.days, s.micros).toString
    case w: NumberedWindows => of(w)
    case other => throw new IllegalArgumentException(s"no encoding for $other")
  }
}
