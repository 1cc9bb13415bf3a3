package io.eventwindows.execution.sweep

import io.eventwindows.plans.AsofDirection

/**
 * What a left row at time t can be matched with, among the right rows of its key in their order
 * (by time, rows tying on it in the right side's tie order, `AsofJoin.rightTieBreak`):
 *
 *  - before: the last right row before t;
 *  - exact: the first and the last right rows at t;
 *  - after: the first right row after t.
 *
 * The merge ([[AsofMatch]]) knows them from the rows it holds and the right side's head, the probe
 * ([[AsofRightIndex]]) from two binary searches of the key's times; [[AsofRule]] chooses among
 * them.
 */
private[execution] trait AsofCandidates {
  def hasBefore: Boolean

  /** The time of the row before, where [[hasBefore]]. */
  def beforeTime: Long

  /** Whether there is a right row at t. */
  def hasExact: Boolean

  def hasAfter: Boolean

  /** The time of the row after, where [[hasAfter]]. */
  def afterTime: Long
}

/**
 * The choice of an ASOF join: the one place that says which of a left row's [[AsofCandidates]]
 * `direction`, `tolerance` and `allowExactMatches` give it (pandas `merge_asof`'s rule), for the
 * batch probe ([[AsofJoinProbe]]), the batch merge ([[AsofJoinSweep]]) and the stream's processor
 * alike:
 * {{{
 *   backward: the last row at t if exact matches are allowed and there is one, else the one before
 *   forward:  the first row at t if allowed and there is one, else the one after
 *   nearest:  the nearer of those two, backward at equal distance
 * }}}
 * each only within `tolerance`. For example, right rows at 1, 3, 3, 6 and a left row at 3: before
 * is the row at 1, exact the two at 3, after the row at 6; with exact matches backward gives the
 * second row at 3 and forward the first; without them backward gives the row at 1, forward the
 * row at 6, and nearest the row at 1 (both 2 away). Distances are compared as unsigned, so times
 * at both ends of the BIGINT line do not overflow.
 */
private[execution] final class AsofRule(
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean) {
  import AsofRule._

  /** Whether a left row at t is matched at t, where its candidates are `c`. */
  def exact(c: AsofCandidates): Boolean = allowExactMatches && c.hasExact

  /** A left row's backward candidate within the tolerance: `ExactLast`, `Before` or `NoMatch`. */
  def backward(t: Long, c: AsofCandidates): Int =
    if (exact(c)) ExactLast
    else if (c.hasBefore && within(t - c.beforeTime)) Before
    else NoMatch

  /** A left row's forward candidate within the tolerance: `ExactFirst`, `After` or `NoMatch`. */
  def forward(t: Long, c: AsofCandidates): Int =
    if (exact(c)) ExactFirst
    else if (c.hasAfter && within(c.afterTime - t)) After
    else NoMatch

  /** The candidate `direction` gives a left row at `t`: one of the constants below. */
  def choose(t: Long, c: AsofCandidates): Int = direction match {
    case AsofDirection.Backward => backward(t, c)
    case AsofDirection.Forward => forward(t, c)
    case AsofDirection.Nearest =>
      val back = backward(t, c)
      val ahead = forward(t, c)
      if (back == NoMatch) ahead
      else if (ahead == After && back == Before &&
        java.lang.Long.compareUnsigned(c.afterTime - t, t - c.beforeTime) < 0) ahead
      else back
  }

  /** The longest distance allowed, unsigned: without a tolerance, the largest (-1). */
  private val maxDistance = tolerance.getOrElse(-1L)

  /** A distance (unsigned: the two times may be at the two ends of the line) within tolerance. */
  private def within(distance: Long): Boolean =
    java.lang.Long.compareUnsigned(distance, maxDistance) <= 0
}

private[execution] object AsofRule {

  /** What [[AsofRule.choose]] gives: no row, or which of the [[AsofCandidates]]. */
  final val NoMatch = 0
  final val Before = 1
  final val ExactFirst = 2
  final val ExactLast = 3
  final val After = 4
}
