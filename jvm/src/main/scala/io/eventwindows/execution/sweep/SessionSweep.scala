package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.types.DataType

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.aggregate.{AggregateBuffers, WindowMemory}
import io.eventwindows.plans.{AxisRows, OutputPolicy, SessionWindow, WindowFields}

/**
 * The policy of sessions over events (`event_session_window`). Events arrive by start; a session
 * `[S, E)` is open while they start at or before E, which each event pushes to its own
 * `end - 1 tick + gap` ([[SessionWindow.sessionEnd]]); the first event starting after E closes it.
 *
 * A session is cut into pieces of `maxDuration` from S (one piece without it), numbered as
 * unsigned offsets from S shifted by `Long.MinValue`, so that signed comparisons order them and
 * a session across the whole time line fits. Each event occupies the pieces its lifetime
 * intersects, `[enter, leave)`, and sits in [[LeavingPanes]] keyed by `leave`: without cuts every
 * event of a session shares one pane, updated in place (O(1) per event). The pieces are an axis
 * with a row per position, walked by the same [[AxisWalk]] as [[IntervalSweep]] walks a family's:
 * between two events' enter points the contents change only at leave points, so a run of pieces
 * with the same events is one evaluation and emits a row per piece. Under output 'changes' a row
 * also ends at every later distinct start inside a piece: the events started so far, each
 * lifetime extended to the piece's end (Trill's progressive sessions). Cost: O(1) merges per event for whole sessions, O(log n) with cuts or
 * 'changes'; memory: the events of the open session.
 *
 * A group can continue a session begun before its first event ([[ContinuingSession]]): its
 * pieces are counted from that start, and its end is at least the one given. A session without
 * a maximum duration may continue the aggregate of events it is not handed: their buffer is the
 * first pane, which the events that share it go on updating.
 */
private[sweep] final class SessionSweep(
    family: SessionWindow,
    buffers: AggregateBuffers,
    memory: WindowMemory,
    lineMax: Long,
    maxPieces: Long,
    timeType: DataType) extends ContinuingSession {

  private val panes = new LeavingPanes(buffers, memory)
  private val changes = family.output == OutputPolicy.Changes

  /** The rows of the open session's pieces: each piece a row, its extent its lifetime. */
  private object Pieces extends AxisRows {
    override def rowPerPosition: Boolean = true
    override def outputStart(position: Long, runEnd: Long): Long = pieceStart(position)
    override def outputEnd(position: Long, runEnd: Long): Long = pieceEnd(position)
    override def extentStart(position: Long, runEnd: Long): Long = pieceStart(position)
    override def extentEnd(position: Long, runEnd: Long): Long = pieceEnd(position)
  }

  /** The walk along the pieces; its position is the piece the sweep is in. */
  private val walk = new AxisWalk(panes, Pieces)

  private var open = false
  private var sessionStart = 0L
  private var sessionEnd = 0L

  /** The session the next group's first event continues, if any: its start and end. */
  private var continued: Option[(Long, Long)] = None

  /** The aggregation buffer of the continued session's events not handed, or null. */
  private var folded: InternalRow = null

  /** Where the next row starts: the start of the walk's piece, or its last change. */
  private var from = 0L

  /** An open-ended event keeps its session open to the end of time. */
  override def openEnd(start: Long): Long = lineMax

  override def emitBefore(start: Long, end: Long, out: SweepOutput): Boolean = open && {
    if (start > sessionEnd) closing(out) else advance(piece(start), start, out)
  }

  override def emitAtEnd(out: SweepOutput): Boolean = open && closing(out)

  override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    if (!open) {
      open = true
      val (begun, heldTo) = continued.getOrElse((start, Long.MinValue))
      continued = None
      sessionStart = begun
      sessionEnd = Math.max(heldTo, family.sessionEnd(end, lineMax))
      walk.startAt(piece(start))
      from = pieceStart(walk.position)
      if (folded != null) {
        // One piece, which every event of the session leaves after.
        panes.addFolded(folded, begun, lastPiece + 1)
        if (changes) from = start
        folded = null
      }
    } else {
      sessionEnd = Math.max(sessionEnd, family.sessionEnd(end, lineMax))
    }
    val enter = piece(start)
    val leave = piece(end - 1) + 1
    checkPieces(enter, leave, start, end)
    panes.add(row, start, leave)
  }

  override def finishGroup(out: SweepOutput): Unit = {
    panes.clear()
    open = false
    continued = None
    folded = null
  }

  override def continueSession(start: Long, end: Long): Unit = continued = Some((start, end))

  override def continueFolded(start: Long, end: Long, folded: InternalRow): Unit = {
    require(family.maxDuration.isEmpty, "only a session of one piece continues folded events")
    continueSession(start, end)
    this.folded = folded
  }

  override def lastSessionStart: Long = sessionStart

  override def heldOpenTo(end: Long): Long = family.sessionEnd(end, lineMax)

  override def pieceHolding(sessionStart: Long, t: Long): Long = family.maxDuration match {
    case Some(d) => sessionStart + java.lang.Long.divideUnsigned(t - sessionStart, d) * d
    case None => sessionStart
  }

  /** Emits what is left of the session, one run per call; false once it is closed. */
  private def closing(out: SweepOutput): Boolean =
    advance(lastPiece + 1, Long.MinValue, out) || {
      panes.clear()
      open = false
      false
    }

  /** The piece holding time `t` of the open session. */
  private def piece(t: Long): Long = family.maxDuration match {
    case Some(d) => java.lang.Long.divideUnsigned(t - sessionStart, d) + Long.MinValue
    case None => Long.MinValue
  }

  private def lastPiece: Long = piece(sessionEnd - 1)

  /** The start of piece `p`; past the last piece the value is never used as a time. */
  private def pieceStart(p: Long): Long = family.maxDuration match {
    // Exact where it is used: the true offset is below 2^64 and the sum on the time line.
    case Some(d) => sessionStart + (p - Long.MinValue) * d
    case None => sessionStart
  }

  private def pieceEnd(p: Long): Long = if (p == lastPiece) sessionEnd else pieceStart(p + 1)

  /**
   * Emits the next run before piece `targetPiece` (and, under 'changes', before `targetTime` in
   * it), removing the events that leave where it ends; false, with the sweep there, once no run
   * is left before it.
   */
  private def advance(targetPiece: Long, targetTime: Long, out: SweepOutput): Boolean = {
    while (walk.position < targetPiece) {
      panes.seal()
      if (!panes.isEmpty && from != pieceStart(walk.position)) {
        // 'changes': the rest of a piece after its last change.
        emitRow(from, pieceEnd(walk.position), out)
        moveTo(walk.position + 1)
        return true
      }
      val emitted = walk.step(targetPiece, out)
      from = pieceStart(walk.position)
      if (emitted) return true
    }
    if (changes && targetTime > from) {
      panes.seal()
      val rowStart = from
      from = targetTime
      if (!panes.isEmpty) {
        emitRow(rowStart, targetTime, out)
        return true
      }
    }
    false
  }

  private def moveTo(p: Long): Unit = {
    walk.moveTo(p)
    from = pieceStart(p)
  }

  private def emitRow(start: Long, end: Long, out: SweepOutput): Unit =
    out.emitClipping(panes.results(), WindowFields.lifetime(start, end), start, end)

  /** Each piece is a row: an event may lie in at most `maxPieces` of them. */
  private def checkPieces(enter: Long, leave: Long, start: Long, end: Long): Unit =
    if (java.lang.Long.compareUnsigned(leave - enter, maxPieces) > 0) {
      val until = if (end == lineMax) "the end of time" else Literal(end, timeType).toString
      throw EventWindowsErrors.tooManyWindows(s"${family.functionName}: the event from " +
        s"${Literal(start, timeType)} to $until lies in ${BigInt(leave) - enter} pieces of " +
        s"max_duration, more than the limit of $maxPieces for one event " +
        s"(${EventWindowsConf.MaxWindowsPerEvent}): each piece is a row. Use a longer " +
        "max_duration, or raise the limit")
    }
}
