package io.eventwindows.execution.streaming

import io.eventwindows.expressions.{CalendarWindows, SnapToCalendarWindows, TimeArithmetic}

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
    TimeArithmetic.adjustStartTime(TimeArithmetic.add(watermark, 1L), size, hop, alignment,
      lineMin, lineMax), -1L)

  override def watermarkReaching(start: Long): Long = TimeArithmetic.subtract(start, hop)
}

/**
 * The operator's start is the snapped start of calendar windows with output 'changes'
 * ([[SnapToCalendarWindows]]) of the watermarked column t: the end of the first window ending
 * after t, which never decreases with t. As for [[SnappedStart]], every snapped start before that
 * of w + 1 is known.
 */
final case class CalendarSnappedStart(windows: CalendarWindows, lineMin: Long, lineMax: Long)
  extends EventTimeHorizon {
  private def snap(t: Long): Long =
    SnapToCalendarWindows.snap(windows, toEnd = false, t, lineMin, lineMax)

  override def horizon(watermark: Long): Long =
    TimeArithmetic.add(snap(TimeArithmetic.add(watermark, 1L)), -1L)

  /** The end of the window before the one ending at `start`: times after it snap to `start`. */
  override def watermarkReaching(start: Long): Long =
    TimeArithmetic.subtract(windows.end(windows.firstEndingAfter(
      TimeArithmetic.subtract(start, 1L)) - 1), 1L)
}
