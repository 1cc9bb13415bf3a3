package io.eventwindows.time

/**
 * Windows known by their number n, whose starts and ends never decrease as n grows: calendar
 * windows ([[CalendarWindows]]) and cumulating windows ([[CumulatingWindows]]). An event's windows
 * are then the numbers from the first window ending after its start to the last one starting
 * before its end, which is what snapping its lifetime to them takes ([[SnapToWindows]], output
 * 'changes'). Times are microseconds (or ticks), saturated to the range of Long.
 */
trait NumberedWindows extends Serializable {

  /** The start of window `n`. */
  def start(n: Long): Long

  /** The exclusive end of window `n`. */
  def end(n: Long): Long

  /** The number of the last window starting at or before `t`. */
  def lastStartingBy(t: Long): Long

  /** The number of the first window ending after `t`. */
  def firstEndingAfter(t: Long): Long
}
