package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.Expression

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.expressions.FunctionArguments.{
  axisArguments, axisParameters, lifetimeArguments, register
}
import io.eventwindows.plans.Cumulating
import io.eventwindows.time.{CalendarCumulating, ExactCumulating}

/**
 * Apache Flink's windows: cumulating windows follow the `CUMULATE` window table-valued function of
 * Flink's "Windowing TVF" documentation (buckets of `size`, each with the windows from its start
 * to every `step`), with the output policies, calendar units and lifetimes of hopping windows.
 */
private[expressions] object FlinkFunctions {

  val cumulateWindow: Registration = register(
    "cumulate_window",
    classOf[EventWindow],
    """
    _FUNC_(start[, end], step, size[, alignment[, output[, horizon[, time_zone]]]]) - Groups
      events into cumulating windows, as Flink's CUMULATE: the time line is cut into buckets
      [alignment + n * size, alignment + (n + 1) * size), and each bucket has the windows
      [bucket start, bucket start + k * step) for k = 1, 2, ..., size / step (the bucket so far,
      every step). An event belongs to every window its lifetime intersects, and aggregates see
      it in each. Use it in GROUP BY; it yields the column `window` (struct of `start` and `end`:
      the lifetime of the output row). Empty windows give no row.
    """,
    s"""
    Arguments:$lifetimeArguments
      * step - how much each window of a bucket is longer than the one before: a day-time
          interval, a string such as '1 minute' or '1 day' or a year-month interval (for BIGINT time
          an integer number of ticks; for timestamps an integer is no duration); positive.
      * size - the bucket length, like `step`; a multiple of `step` (for calendar windows: not
          shorter than `step`, and with months if `step` has any).
      * alignment - optional, a time of the type of `start` (or a timestamp string) on which
          some bucket starts (Flink's offset); for timestamps also an offset from the epoch, as
          window() takes its start time: an interval string such as '15 minutes', a day-time
          interval or an integer number of microseconds. NULL or absent: the Unix epoch.
          Calendar windows align on a local time (a string is a wall clock): by default
          1970-01-01 00:00, for buckets of whole weeks Monday 1970-01-05 00:00 (ISO weeks).
      * output - optional, 'window' (default: a row per non-empty window, its lifetime the
          window), 'point' (a point event at each non-empty window's end) or 'changes' (a row per
          run of consecutive windows holding the same events, its lifetime the time over which
          that result holds: a row only when the cumulated result changes).
      * horizon - optional, the last time open-ended events cover under 'window' and 'point', of
          the type of `start` (or a timestamp string); NULL or absent: the latest finite time in
          the input.
      * time_zone - optional, a time zone ID such as 'Europe/Berlin' (SQL may write time_zone =>
          'Europe/Berlin'): the windows are calendar windows of that zone. TIMESTAMP time only.
    Calendar windows: when the step or the size has months or years, or a time_zone is given,
      bucket n starts at alignment + n * size, and its window k ends at alignment + (n * size +
      k * step) or at the bucket's end if that comes first, with + stepping the local clock of
      the time zone (the session's if none is given): months, then days, then hours and smaller
      units. So '1 day' steps through a '1 month' bucket end at local midnights, 28 to 31
      windows, the last the whole month. A local time is read as the first instant the clock
      reads it or later: where the clocks spring forward, the instant they jump past it; where
      they fall back, its first reading. Over TIMESTAMP_NTZ time the wall clock is stepped as it
      is.
    Cost: as hopping windows with as many windows per event; 'changes' costs one row per change.
    """,
    """
    Examples:
      > SELECT window.start, window.end, count(*) FROM VALUES (1L), (3L), (4L), (8L) AS t(ts) GROUP BY _FUNC_(ts, 2, 6) ORDER BY 1, 2;
        0	2	1
        0	4	2
        0	6	3
        6	10	1
        6	12	1
      > SELECT window.start, window.end, count(*) FROM VALUES (1L), (3L), (4L), (8L) AS t(ts) GROUP BY _FUNC_(ts, 2, 6, output => 'changes') ORDER BY 1;
        2	4	1
        4	6	2
        6	8	3
        10	14	1
    """,
    named = axisParameters)(cumulateBuilder)

  private def cumulateBuilder(args: Seq[Expression]): Expression = {
    val name = "cumulate_window"
    val axis = axisArguments(name, args, Seq("step", "size"))
    val windows = axis.windows(
      calendar = (step, size) => {
        if (step.months > 0 && size.months == 0) {
          throw EventWindowsErrors.invalidParameter(
            name,
            s"`size` must have months when `step` has them (a " +
              s"bucket of whole months or years cumulated by months), got step $step, size $size")
        }
        if (!step.atMost(size)) {
          throw EventWindowsErrors.invalidParameter(
            name,
            s"`step` must not be longer than `size`, got step $step, " +
              s"size $size")
        }
        val alignment = axis.calendarAlignment(period = size)
        val windows = CalendarCumulating(size, step, alignment, axis.calendarZone)
        if (windows.perBucket > MaxWindowsPerBucket) {
          throw EventWindowsErrors.invalidParameter(
            name,
            s"`step` $step cuts `size` $size into up to " +
              s"${windows.perBucket} windows, more than $MaxWindowsPerBucket; use a longer step")
        }
        windows
      },
      exact = (step, size) => {
        if (size % step != 0) {
          val Seq(stepArgument, sizeArgument) = axis.lengthArguments.map(_.sql)
          throw EventWindowsErrors.invalidParameter(
            name,
            s"`size` must be a multiple of `step` (as Flink's CUMULATE " +
              s"requires), got step $stepArgument, size $sizeArgument")
        }
        // The windows depend only on the alignment modulo the size; the smallest keeps every
        // window number within Long for as long as it can be.
        ExactCumulating(size, step, Math.floorMod(axis.alignmentTicks, size))
      })
    EventWindow(axis.start, axis.end, Cumulating(windows, axis.output, axis.horizon))
  }

  /** The most windows a calendar bucket may have: positions are numbered per bucket. */
  private val MaxWindowsPerBucket = 1000000L
}
