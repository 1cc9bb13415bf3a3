package io.eventwindows.execution.streaming

import io.eventwindows.expressions.SnapToWindows
import io.eventwindows.time.{NumberedWindows, TimeArithmetic}

/**
 * How far the operator's start times are known once the event-time watermark is w (in
 * microseconds of the watermarked column): Spark drops every later row at or before w as late, so
 * every event whose time is at or before w is known and final. The operator's start is that time
 * itself, or a function of it that never decreases (the snapped start of hopping output
 * 'changes').
 */
sealed trait EventTimeHorizon extends Serializable {

  /** The latest operator start whose events are all known at watermark `watermark`. */
  def horizon(watermark: Long): Long

  /**
   * A watermark at or before the first one whose horizon reaches `start` (a timer set there may
   * fire early, never late).
   */
  def watermarkReaching(start: Long): Long
}

/** The operator's start is the watermarked column. */
case object StartIsEventTime extends EventTimeHorizon {
  override def horizon(watermark: Long): Long = watermark
  override def watermarkReaching(start: Long): Long = start
}

/**
 * The operator's start is `adjust_start_time(t, size, hop, alignment)` of the watermarked column
 * t (hopping output 'changes'): the end of the earliest window holding t, which never decreases
 * with t and lies in `(t, t + hop]`. Rows after the watermark w snap to `adjust_start_time(w + 1)`
 * or later, so every snapped start before that is known.
 */
final case class SnappedStart(size: Long, hop: Long, alignment: Long, lineMin: Long, lineMax: Long)
    extends EventTimeHorizon {
  override def horizon(watermark: Long): Long = TimeArithmetic.add(
    TimeArithmetic.adjustStartTime(
      TimeArithmetic.add(watermark, 1L),
      size,
      hop,
      alignment,
      lineMin,
      lineMax),
    -1L)

  override def watermarkReaching(start: Long): Long = TimeArithmetic.subtract(start, hop)
}

/**
 * The operator's start is the snapped start of windows known by number (calendar and cumulating
 * windows) with output 'changes' ([[SnapToWindows]]) of the watermarked column t: the end of the
 * first window ending after t, which never decreases with t. As for [[SnappedStart]], every
 * snapped start before that of w + 1 is known.
 */
final case class SnappedToWindows(windows: NumberedWindows, lineMin: Long, lineMax: Long)
    extends EventTimeHorizon {
  private def snap(t: Long): Long =
    SnapToWindows.snap(windows, toEnd = false, t, lineMin, lineMax)

  override def horizon(watermark: Long): Long =
    TimeArithmetic.add(snap(TimeArithmetic.add(watermark, 1L)), -1L)

  /** The end of the window before the one ending at `start`: times after it snap to `start`. */
  override def watermarkReaching(start: Long): Long =
    TimeArithmetic.subtract(
      windows.end(windows.firstEndingAfter(
        TimeArithmetic.subtract(start, 1L)) - 1),
      1L)
}

/**
 * Hopping, tumbling and cumulating windows with per-window output: the watermarked column is the
 * end of each event's last row ([[io.eventwindows.expressions.LastRowEnd]]), so Spark drops an
 * event only once all of its rows have closed, and one behind the watermark still counts in the
 * windows still open, as under Spark's streaming aggregation of `window()`. A row is final once
 * the watermark w reaches its end: under output 'window' its window's end e, under 'point' the
 * end of `[e, e + 1)`. Rows close at e - 1
 * ([[io.eventwindows.plans.StreamingRules.HoppingWindows]]), so at w every row closing at or
 * before w - 1 (w - 2 under 'point') is final. Every event that
 * can still arrive lies in a row that is not: it starts after that horizon.
 */
final case class RowEndIsEventTime(pointOutput: Boolean) extends EventTimeHorizon {

  /** How far a row's end lies after its close time: the window's end, and one more for 'point'. */
  private def rowEndAfterClose: Long = if (pointOutput) 2L else 1L

  override def horizon(watermark: Long): Long =
    TimeArithmetic.subtract(watermark, rowEndAfterClose)

  override def watermarkReaching(start: Long): Long = TimeArithmetic.add(start, rowEndAfterClose)
}
