package io.eventwindows.plans

import io.eventwindows.{EventWindowsConf, EventWindowsInputException}
import io.eventwindows.expressions.{CalendarWindows, TimeArithmetic}

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.types.DataType

/**
 * How the positions of a run along an axis become output rows: each position its own row (a
 * window), or the whole run one row (a snapshot interval), and each row's output lifetime and
 * extent. Shared by the axes of the families and the pieces of a session, which the sweep walks
 * the same way.
 */
trait AxisRows {

  /** True if every axis position of a run is a row (a window), false if a run is one row. */
  def rowPerPosition: Boolean

  /** The output lifetime's start for a row at `position` of a run ending at `runEnd`. */
  def outputStart(position: Long, runEnd: Long): Long

  /** The output lifetime's end for a row at `position` of a run ending at `runEnd`. */
  def outputEnd(position: Long, runEnd: Long): Long

  /**
   * The start of the window of a row at `position` of a run ending at `runEnd`: where its events'
   * lifetimes are clipped (for point output not the output lifetime, which is a point).
   */
  def extentStart(position: Long, runEnd: Long): Long

  /** The end of the window of a row at `position` of a run ending at `runEnd`. */
  def extentEnd(position: Long, runEnd: Long): Long
}

/**
 * How one window family maps events onto the line the sweep walks, and runs of that line back
 * onto output rows. This is the whole of a family's run-time behaviour: the sweep, the aggregate
 * buffers and the operator are shared. An [[AxisFamily]] gives its axis.
 *
 * An event `[start, end)` occupies the axis interval `[enter, leave)` (nothing if it belongs to no
 * window). `enter` must not decrease as `start` grows, since the sweep reads events sorted by
 * start. Between two consecutive enter/leave points the contents are constant: a run.
 */
sealed trait WindowAxis extends AxisRows with Serializable {

  /** Where the event enters the axis; only meaningful if [[leave]] is greater. */
  def enter(start: Long, end: Long): Long

  /** Where the event leaves the axis (exclusive). */
  def leave(start: Long, end: Long): Long

  /** The end given to an open-ended event (a NULL end). */
  def openEnd(start: Long): Long

  /**
   * The most rows a point event can be in. With a row per position and one at most, a point's
   * window is a function of the point: Spark's own hash aggregate can group by it.
   */
  def maxWindowsOfPoint: Long
}

object WindowAxis {

  /**
   * Fails, naming the event `[start, end)`, if it lies in more than `limit` windows
   * `[enter, leave)` of an axis with a row per position: each window is a row (see
   * [[EventWindowsConf.MaxWindowsPerEvent]]). Positions may lie more than Long apart.
   */
  def checkWindowCount(
      family: WindowFamily,
      enter: Long,
      leave: Long,
      limit: Long,
      start: Long,
      end: Long,
      timeType: DataType): Unit =
    if (leave > enter && java.lang.Long.compareUnsigned(leave - enter, limit) > 0) {
      throw new EventWindowsInputException(s"${family.functionName}: the event from " +
        s"${Literal(start, timeType)} to ${Literal(end, timeType)} lies in " +
        s"${BigInt(leave) - enter} windows, more than the limit of $limit for one event " +
        s"(${EventWindowsConf.MaxWindowsPerEvent}): each window is a row. Use output 'changes', " +
        "whose cost does not grow with the event's length, or raise the limit")
    }
}

/** Snapshot windows: the axis is time itself; a run is a snapshot interval. */
case class SnapshotAxis(lineMax: Long) extends WindowAxis {
  override def enter(start: Long, end: Long): Long = start
  override def leave(start: Long, end: Long): Long = end
  override def openEnd(start: Long): Long = lineMax
  override def maxWindowsOfPoint: Long = 1L
  override def rowPerPosition: Boolean = false
  override def outputStart(position: Long, runEnd: Long): Long = position
  override def outputEnd(position: Long, runEnd: Long): Long = runEnd
  override def extentStart(position: Long, runEnd: Long): Long = position
  override def extentEnd(position: Long, runEnd: Long): Long = runEnd
}

/**
 * Hopping windows with per-window output: the axis is the window index n of
 * `[alignment + n*hop, alignment + n*hop + size)`, shifted so that the first window that reaches
 * into the time line (it may start before it: it is clipped there) is at `Long.MinValue`. An
 * event enters at the first window whose end lies after its start and leaves after the last
 * window that starts before its end; with gaps (hop > size) that range can be empty.
 *
 * The shift gives every window of the line a position when there are at most 2^64 of them: always
 * for TIMESTAMP time, and for BIGINT time unless the hop is one tick and the size more than two
 * (then the windows that start within `size - 2` ticks of the end of the line have none, and an
 * event in one fails the query, naming it, instead of sharing a position with another window).
 */
case class HoppingAxis(
    size: Long,
    hop: Long,
    alignment: Long,
    pointOutput: Boolean,
    horizon: Long,
    lineMin: Long,
    lineMax: Long) extends WindowAxis {
  import TimeArithmetic._

  /**
   * The index of the first window that ends after the line's first tick, minus Long.MinValue. If
   * that is beyond Long, the first index is at least 0 (a hop longer than the line before the
   * epoch): the indices themselves are positions.
   */
  private val shift: Long = {
    // floor((lineMin - size - alignment) / hop) + 1, exactly.
    val first = (BigInt(lineMin) - size - alignment) / hop
    val floored = if ((BigInt(lineMin) - size - alignment) % hop < 0) first - 1 else first
    val exact = floored + 1 - Long.MinValue
    if (exact.isValidLong) exact.toLong else 0L
  }

  override def enter(start: Long, end: Long): Long = {
    // start = alignment + q * hop + r, 0 <= r < hop: the first window ending after it is
    // q + floor((r - size) / hop) + 1 (r - size cannot overflow).
    val r = offsetPastBoundary(start, alignment, hop)
    position(boundaryIndex(start, alignment, hop), Math.floorDiv(r - size, hop) + 1, start)
  }

  override def leave(start: Long, end: Long): Long =
    position(boundaryIndex(subtract(end, 1L), alignment, hop), 1L, start)

  /** The position of window `index + plus`; `start` names the event when it has none. */
  private def position(index: Long, plus: Long, start: Long): Long =
    try exactSum(index, -shift, plus) catch {
      case _: ArithmeticException => throw new EventWindowsInputException(
        s"hopping_window: the event starting at $start lies in windows past the last one that " +
        s"can be numbered (hop $hop tick, size $size ticks: more than 2^64 windows reach into " +
        "the BIGINT time line); use a hop of more than one tick, or times further from the end")
    }

  /** Open-ended events last through the horizon tick (and at least their own start tick). */
  override def openEnd(start: Long): Long = add(Math.max(start, horizon), 1L)

  override def rowPerPosition: Boolean = true

  override def maxWindowsOfPoint: Long = size / hop + (if (size % hop == 0) 0 else 1)

  // Both ends from the window's exact index: a window starting before the line keeps its end.
  private def windowStart(p: Long): Long = boundaryPlus(p, shift, alignment, hop, 0L, lineMin, lineMax)
  private def windowEnd(p: Long): Long = boundaryPlus(p, shift, alignment, hop, size, lineMin, lineMax)

  override def outputStart(position: Long, runEnd: Long): Long =
    if (pointOutput) windowEnd(position) else windowStart(position)

  override def outputEnd(position: Long, runEnd: Long): Long =
    if (pointOutput) clamp(add(windowEnd(position), 1L), lineMin, lineMax) else windowEnd(position)

  override def extentStart(position: Long, runEnd: Long): Long = windowStart(position)
  override def extentEnd(position: Long, runEnd: Long): Long = windowEnd(position)
}

/**
 * Calendar windows with per-window output: the axis is the window number n of
 * [[CalendarWindows]]. An event enters at the first window ending after its start and leaves after
 * the last window starting before its end, as on a [[HoppingAxis]], with each bound computed on
 * the zone's calendar. Windows reaching past the time line are clipped to it.
 */
case class CalendarAxis(
    windows: CalendarWindows,
    pointOutput: Boolean,
    horizon: Long,
    lineMin: Long,
    lineMax: Long) extends WindowAxis {
  import TimeArithmetic._

  override def enter(start: Long, end: Long): Long = windows.firstEndingAfter(start)

  override def leave(start: Long, end: Long): Long = windows.lastStartingBy(subtract(end, 1L)) + 1

  /** Open-ended events last through the horizon tick (and at least their own start tick). */
  override def openEnd(start: Long): Long = add(Math.max(start, horizon), 1L)

  override def rowPerPosition: Boolean = true

  /**
   * One if windows cannot overlap; otherwise no bound is taken: a calendar day is as short as a
   * zone's change makes it.
   */
  override def maxWindowsOfPoint: Long = if (windows.disjoint) 1L else Long.MaxValue

  private def windowStart(p: Long): Long = clamp(windows.start(p), lineMin, lineMax)
  private def windowEnd(p: Long): Long = clamp(windows.end(p), lineMin, lineMax)

  override def outputStart(position: Long, runEnd: Long): Long =
    if (pointOutput) windowEnd(position) else windowStart(position)

  override def outputEnd(position: Long, runEnd: Long): Long =
    if (pointOutput) clamp(add(windowEnd(position), 1L), lineMin, lineMax) else windowEnd(position)

  override def extentStart(position: Long, runEnd: Long): Long = windowStart(position)
  override def extentEnd(position: Long, runEnd: Long): Long = windowEnd(position)
}
