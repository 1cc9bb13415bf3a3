package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.types.DataType

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.time.{CalendarWindows, CumulatingWindows, NumberedWindows, TimeArithmetic}

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

  /**
   * With a row per position, the position of the row after the one at `position`: the next,
   * unless some positions are no window (cumulating windows on a calendar, whose buckets hold
   * different numbers of windows). Runs start and end at positions that are windows.
   */
  def nextPosition(position: Long): Long = position + 1
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
      throw EventWindowsErrors.tooManyWindows(s"${family.functionName}: the event from " +
        s"${Literal(start, timeType)} to ${Literal(end, timeType)} lies in " +
        s"${BigInt(leave) - enter} windows, more than the limit of $limit for one event " +
        s"(${EventWindowsConf.MaxWindowsPerEvent}): each window is a row. Use output 'changes', " +
        "whose cost does not grow with the event's length, or raise the limit")
    }
}

/** Snapshot windows: the axis is time itself; a run is a snapshot interval. */
private[plans] case class SnapshotAxis(lineMax: Long) extends WindowAxis {
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
 * An axis whose every position is a window, each a row (per-window output): a row's extent is its
 * window, clipped to the time line, and its output lifetime the window, or under output 'point'
 * the tick at the window's end. The axes of hopping, calendar and cumulating windows give the
 * bounds of their windows.
 */
sealed trait PerWindowAxis extends WindowAxis {
  import TimeArithmetic._

  /** True if each row is a point event at its window's end (output 'point'). */
  def pointOutput: Boolean

  /** The last tick that open-ended events cover. */
  def horizon: Long

  /** The time line's first tick. */
  def lineMin: Long

  /** The time line's last tick. */
  def lineMax: Long

  /** The start of the window at `position`, within the time line. */
  protected def windowStart(position: Long): Long

  /** The exclusive end of the window at `position`, within the time line. */
  protected def windowEnd(position: Long): Long

  /**
   * The position of the last window starting before `end`, the exclusive end of an event
   * starting at `start`: its last window, if it lies in any ([[leave]] after [[enter]]).
   */
  protected def lastPosition(start: Long, end: Long): Long

  /**
   * The end of the output lifetime of the last row of the event `[start, end)`, or None if it lies
   * in no window: a row is still open while the watermark is before its end (as Spark's streaming
   * aggregation keeps a `window` until the watermark passes its `end`), so the event still counts
   * somewhere while the watermark is before this. E.g. windows of 5 every 1: an event at 7 lies in
   * `[3, 8)` to `[7, 12)`, its last row ends at 12 (at 13 under output 'point', a row `[12, 13)`).
   */
  final def lastRowEnd(start: Long, end: Long): Option[Long] = {
    val leave = this.leave(start, end)
    if (end == start || leave <= enter(start, end)) None
    else Some(outputEnd(lastPosition(start, end), leave))
  }

  /** Open-ended events last through the horizon tick (and at least their own start tick). */
  override final def openEnd(start: Long): Long = add(Math.max(start, horizon), 1L)

  override final def rowPerPosition: Boolean = true

  override final def outputStart(position: Long, runEnd: Long): Long =
    if (pointOutput) windowEnd(position) else windowStart(position)

  override final def outputEnd(position: Long, runEnd: Long): Long =
    if (pointOutput) clamp(add(windowEnd(position), 1L), lineMin, lineMax) else windowEnd(position)

  override final def extentStart(position: Long, runEnd: Long): Long = windowStart(position)
  override final def extentEnd(position: Long, runEnd: Long): Long = windowEnd(position)
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
private[plans] case class HoppingAxis(
    size: Long,
    hop: Long,
    alignment: Long,
    pointOutput: Boolean,
    horizon: Long,
    lineMin: Long,
    lineMax: Long) extends PerWindowAxis {
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

  override protected def lastPosition(start: Long, end: Long): Long =
    position(boundaryIndex(subtract(end, 1L), alignment, hop), 0L, start)

  /** The position of window `index + plus`; `start` names the event when it has none. */
  private def position(index: Long, plus: Long, start: Long): Long =
    try exactSum(index, -shift, plus)
    catch {
      case _: ArithmeticException => throw EventWindowsErrors.invalidInput(
          s"hopping_window: the event starting at $start lies in windows past the last one that " +
            s"can be numbered (hop $hop tick, size $size ticks: more than 2^64 windows reach into " +
            "the BIGINT time line); use a hop of more than one tick, or times further from the end")
    }

  override def maxWindowsOfPoint: Long = size / hop + (if (size % hop == 0) 0 else 1)

  // Both ends from the window's exact index: a window starting before the line keeps its end.
  override protected def windowStart(position: Long): Long =
    boundaryPlus(position, shift, alignment, hop, 0L, lineMin, lineMax)

  override protected def windowEnd(position: Long): Long =
    boundaryPlus(position, shift, alignment, hop, size, lineMin, lineMax)
}

/**
 * An axis of windows known by number ([[NumberedWindows]]): the positions are the numbers. An
 * event enters at the first window ending after its start and leaves at the window after the last
 * one starting before its end ([[nextPosition]]), each bound computed by the windows. Windows
 * reaching past the time line are clipped to it.
 */
private[plans] sealed trait NumberedAxis extends PerWindowAxis {
  import TimeArithmetic._

  /** The windows, by number. */
  def windows: NumberedWindows

  override final def enter(start: Long, end: Long): Long = windows.firstEndingAfter(start)

  override final def leave(start: Long, end: Long): Long =
    nextPosition(lastPosition(start, end))

  override protected final def lastPosition(start: Long, end: Long): Long =
    windows.lastStartingBy(subtract(end, 1L))

  override protected final def windowStart(position: Long): Long =
    clamp(windows.start(position), lineMin, lineMax)

  override protected final def windowEnd(position: Long): Long =
    clamp(windows.end(position), lineMin, lineMax)
}

/**
 * Calendar windows with per-window output: the axis is the window number n of
 * [[CalendarWindows]], each number a window. An event's windows are those of a [[HoppingAxis]],
 * with each bound computed on the zone's calendar.
 */
private[plans] case class CalendarAxis(
    windows: CalendarWindows,
    pointOutput: Boolean,
    horizon: Long,
    lineMin: Long,
    lineMax: Long) extends NumberedAxis {

  /**
   * One if windows cannot overlap; otherwise no bound is taken: a calendar day is as short as a
   * zone's change makes it.
   */
  override def maxWindowsOfPoint: Long = if (windows.disjoint) 1L else Long.MaxValue
}

/**
 * Cumulating windows with per-window output: the axis is the window number of
 * [[CumulatingWindows]] (bucket b's window k at `b * perBucket + k - 1`). An event enters at the
 * first window ending after its start, which is in its start's bucket, and leaves at the first
 * window of the bucket after its last tick's: every window of a later bucket starts at its bucket's
 * start, so the event's windows are contiguous. Numbers that are no window (a calendar bucket with
 * fewer windows than `perBucket`) are skipped by [[nextPosition]]; enter and leave points are
 * always windows.
 */
private[plans] case class CumulateAxis(
    windows: CumulatingWindows,
    pointOutput: Boolean,
    horizon: Long,
    lineMin: Long,
    lineMax: Long) extends NumberedAxis {

  override def nextPosition(position: Long): Long = windows.nextWindow(position)

  /** A point lies in the windows of its bucket that end after it. */
  override def maxWindowsOfPoint: Long = windows.perBucket
}
