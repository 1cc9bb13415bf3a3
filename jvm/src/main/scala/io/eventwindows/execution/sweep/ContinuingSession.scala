package io.eventwindows.execution.sweep

/**
 * A policy whose next group can continue an open session after events it is not handed: a
 * session with a maximum duration on a stream keeps only the events of its first open piece
 * (see `StreamingReplay`), and the session's start, from which its pieces are counted, and the
 * end that the events no longer kept hold it open to. E.g. a gap of 30 s, pieces of 10 minutes,
 * a session from 00:00 whose piece [00:20, 00:30) is open: the events ending by 00:20 are gone,
 * and the next replay continues the session from 00:00, open at least to the latest of their
 * ends plus the gap.
 */
private[execution] trait ContinuingSession extends SweepPolicy {

  /**
   * The next group's first session began at `start` and is open at least to `end` (exclusive),
   * held there by events it is not handed.
   */
  def continueSession(start: Long, end: Long): Unit

  /** The start of the last session of the last group (of the group now, within one). */
  def lastSessionStart: Long

  /** The end (exclusive) to which an event ending at `end` holds its session open. */
  def heldOpenTo(end: Long): Long

  /** The start of the piece of a session starting at `sessionStart` that holds time `t`. */
  def pieceHolding(sessionStart: Long, t: Long): Long
}
