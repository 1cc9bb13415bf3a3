package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow

import io.eventwindows.time.TimeArithmetic

/**
 * A policy that a stream resumes instead of replaying (see `StreamingReplay`): IBM Streams SPL
 * windows, whose firings depend on every earlier arrival of their partition (a count's phase, a
 * delta's reference, a time policy's instants), so they cannot be replayed from a suffix. A firing
 * puts the window's tuples back as they were, without triggering or evicting, continues the
 * trigger state, and consumes only the new tuples; at its end the group is suspended, not ended.
 *
 * What both SPL policies share lives here: tuples are point events (messages) at their order, the
 * policy columns are read before each tuple ([[SplAttributes]]), and the trigger state
 * ([[ResumingSweep.TriggerState]]) is these fields.
 */
private[execution] trait ResumingSweep extends SweepPolicy {
  import ResumingSweep._

  /** The end of the time line of the order column. */
  protected val lineMax: Long

  /**
   * True if the window fires at time instants between arrivals (a time trigger, a time
   * eviction of a tumbling window): on a stream those fire once the watermark passes them.
   */
  def firesBetweenArrivals: Boolean

  /** The policy columns a tuple is read for (delta attributes, the punctuation column). */
  protected val attributes: SplAttributes

  /**
   * The trigger state: the group's arrivals and the last one's order, a time policy's next
   *  instant, a delta policy's reference tuple (its attribute, exact or as a double).
   */
  protected var arrivals = 0L
  protected var lastArrival = 0L
  protected var nextInstant = 0L
  protected var hasReference = false
  protected var referenceExact = 0L
  protected var referenceDouble = 0.0

  /** Tuples still to be put back into the window (not arrivals: no trigger, no eviction). */
  protected var restoring = 0L

  /** Set by [[resumeGroup]]: the next group suspends (at `instantsBefore`) instead of ending. */
  protected var resuming: Resume = null
  private var suspension: Suspended = null

  /**
   * The next group continues a suspended one: its first `resume.restored` tuples are the window's
   * contents (in arrival order), put back as they were; the triggers continue from
   * `resume.state`; at its end, the time instants before `resume.instantsBefore` are passed and
   * the group is suspended ([[takeSuspended]]), not ended.
   */
  final def resumeGroup(resume: Resume): Unit = {
    resuming = resume
    restoring = resume.restored
    restore(resume.state)
  }

  /** The suspension of the last resumed group: its trigger state and the window's tuples. */
  final def takeSuspended(): Suspended = {
    val taken = suspension
    suspension = null
    taken
  }

  /** The limit of the time instants a group's end passes: before `instantsBefore` if resumed. */
  protected final def instantsLimit(afterLastArrival: Long): Long =
    if (resuming != null) resuming.instantsBefore.getOrElse(afterLastArrival) else afterLastArrival

  /** At the end of a group: suspends it if it was resumed, keeping `window` (tuple numbers). */
  protected final def suspendIfResumed(window: => Array[Long]): Unit = if (resuming != null) {
    suspension = Suspended(state, window)
    resuming = null
  }

  override def openEnd(start: Long): Long = TimeArithmetic.pointEventEnd(start, lineMax)

  override def messages: Boolean = true

  final override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    if (!attributes.isEmpty) attributes.read(row)
    if (restoring > 0) {
      // A tuple of the window a suspended group left: put back as it was.
      restoring -= 1
      insert(start, row)
    } else {
      arrive(row, start, out)
    }
  }

  /** A tuple arrives at order `start`: the policy's triggers, eviction and insertion. */
  protected def arrive(row: InternalRow, start: Long, out: SweepOutput): Unit

  /** Inserts a tuple into the window, as an arrival does and as a resumed group puts it back. */
  protected def insert(start: Long, row: InternalRow): Unit

  /** Continues from a suspended group's trigger state. */
  private def restore(state: TriggerState): Unit = {
    arrivals = state.arrivals
    lastArrival = state.lastArrival
    nextInstant = state.nextInstant
    hasReference = state.hasReference
    referenceExact = state.referenceExact
    referenceDouble = state.referenceDouble
  }

  /** The trigger state to suspend with. */
  private def state: TriggerState = TriggerState(
    arrivals,
    lastArrival,
    nextInstant,
    hasReference,
    referenceExact,
    referenceDouble)
}

private[execution] object ResumingSweep {

  /** The trigger state of a group between two firings of a stream. */
  final case class TriggerState(
      arrivals: Long,
      lastArrival: Long,
      nextInstant: Long,
      hasReference: Boolean,
      referenceExact: Long,
      referenceDouble: Double)

  object TriggerState {

    /** A group that has seen no tuple yet. */
    val initial: TriggerState = TriggerState(0L, 0L, 0L, hasReference = false, 0L, 0.0)
  }

  /**
   * How a group resumes: its first `restored` tuples are the window's contents, the triggers
   * continue from `state`, and the group suspends after passing the time instants before
   * `instantsBefore` (None: up to its last arrival, as a group that ends).
   */
  final case class Resume(restored: Long, state: TriggerState, instantsBefore: Option[Long])

  /** A suspended group: its trigger state and the numbers of the tuples in its window. */
  final case class Suspended(state: TriggerState, window: Array[Long])
}
