package io.eventwindows.plans

import io.eventwindows.expressions.TimeArithmetic

/**
 * How one window family maps events onto the line the sweep walks, and runs of that line back
 * onto output rows. This is the whole of a family's run-time behaviour: the sweep, the aggregate
 * buffers and the operator are shared.
 *
 * An event `[start, end)` occupies the axis interval `[enter, leave)` (nothing if it belongs to no
 * window). `enter` must not decrease as `start` grows, since the sweep reads events sorted by
 * start. Between two consecutive enter/leave points the contents are constant: a run.
 */
sealed trait WindowAxis extends Serializable {

  /** Where the event enters the axis; only meaningful if [[leave]] is greater. */
  def enter(start: Long, end: Long): Long

  /** Where the event leaves the axis (exclusive). */
  def leave(start: Long, end: Long): Long

  /** The end given to an open-ended event (a NULL end). */
  def openEnd(start: Long): Long

  /** True if every axis position of a run is a row (a window), false if a run is one row. */
  def rowPerPosition: Boolean

  /** The output lifetime's start for a row at `position` of a run ending at `runEnd`. */
  def outputStart(position: Long, runEnd: Long): Long

  /** The output lifetime's end for a row at `position` of a run ending at `runEnd`. */
  def outputEnd(position: Long, runEnd: Long): Long
}

object WindowAxis {

  /**
   * The axis of a family. `horizon` is the last tick open-ended events cover under per-window
   * output, when the family has not set one.
   */
  def apply(family: AxisFamily, lineMin: Long, lineMax: Long, horizon: => Long): WindowAxis =
    family match {
      case h: Hopping =>
        require(h.output != OutputPolicy.Changes, "'changes' is planned as a snapshot window")
        // The windows depend only on the alignment modulo the hop; the smallest such alignment
        // keeps every window index within Long.
        HoppingAxis(h.size, h.hop, Math.floorMod(h.alignment, h.hop), h.output == OutputPolicy.Point,
          h.horizon.getOrElse(horizon), lineMin, lineMax)
      case Snapshot => SnapshotAxis(lineMax)
    }
}

/** Snapshot windows: the axis is time itself; a run is a snapshot interval. */
case class SnapshotAxis(lineMax: Long) extends WindowAxis {
  override def enter(start: Long, end: Long): Long = start
  override def leave(start: Long, end: Long): Long = end
  override def openEnd(start: Long): Long = lineMax
  override def rowPerPosition: Boolean = false
  override def outputStart(position: Long, runEnd: Long): Long = position
  override def outputEnd(position: Long, runEnd: Long): Long = runEnd
}

/**
 * Hopping windows with per-window output: the axis is the window index n of
 * `[alignment + n*hop, alignment + n*hop + size)`. An event enters at the first window whose end
 * lies after its start and leaves after the last window that starts before its end; with gaps
 * (hop > size) that range can be empty.
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

  override def enter(start: Long, end: Long): Long =
    add(boundaryIndex(subtract(start, size), alignment, hop), 1L)

  override def leave(start: Long, end: Long): Long =
    add(boundaryIndex(subtract(end, 1L), alignment, hop), 1L)

  /** Open-ended events last through the horizon tick (and at least their own start tick). */
  override def openEnd(start: Long): Long = add(Math.max(start, horizon), 1L)

  override def rowPerPosition: Boolean = true

  private def windowStart(n: Long): Long = boundary(n, alignment, hop, lineMin, lineMax)
  private def windowEnd(n: Long): Long = clamp(add(windowStart(n), size), lineMin, lineMax)

  override def outputStart(position: Long, runEnd: Long): Long =
    if (pointOutput) windowEnd(position) else windowStart(position)

  override def outputEnd(position: Long, runEnd: Long): Long =
    if (pointOutput) clamp(add(windowEnd(position), 1L), lineMin, lineMax) else windowEnd(position)
}
