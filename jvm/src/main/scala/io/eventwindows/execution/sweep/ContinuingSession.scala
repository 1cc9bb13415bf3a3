package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A policy whose next group can continue an open session after events it is not handed: a
 * session with a maximum duration on a stream keeps only the events of its first open piece
 * (see `StreamingReplay`), and the session's start, from which its pieces are counted, and the
 * end that the events no longer kept hold it open to. E.g. a gap of 30 s, pieces of 10 minutes,
 * a session from 00:00 whose piece [00:20, 00:30) is open: the events ending by 00:20 are gone,
 * and the next replay continues the session from 00:00, open at least to the latest of their
 * ends plus the gap.
 *
 * A session without a maximum duration is one piece, every event in it until it ends: its events
 * no longer kept are folded instead, in order, into one aggregation buffer that the continued
 * session starts with ([[continueFolded]]). E.g. a gap of 30 s, events every 10 s from 00:00 and
 * a watermark at 00:35: the events from 00:00 to 00:20 are one buffer, the session starts at
 * 00:00 and is open at least to 00:50, and the event at 00:30 is handed to the next group.
 */
private[execution] trait ContinuingSession extends SweepPolicy {

  /**
   * The next group's first session began at `start` and is open at least to `end` (exclusive),
   * held there by events it is not handed.
   */
  def continueSession(start: Long, end: Long): Unit

  /**
   * As [[continueSession]], for a session without a maximum duration whose events not handed are
   * `folded`, their aggregation buffer (taken over): they precede every event of the next group,
   * which continues their aggregate (its events update the buffer as they would have); under
   * output 'changes' its first row starts at its first event (the rows before were emitted).
   */
  def continueFolded(start: Long, end: Long, folded: InternalRow): Unit

  /** The start of the last session of the last group (of the group now, within one). */
  def lastSessionStart: Long

  /** The end (exclusive) to which an event ending at `end` holds its session open. */
  def heldOpenTo(end: Long): Long

  /** The start of the piece of a session starting at `sessionStart` that holds time `t`. */
  def pieceHolding(sessionStart: Long, t: Long): Long
}
