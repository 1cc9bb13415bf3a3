package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Expression, GenericInternalRow, JoinedRow, Literal, Predicate, UnsafeProjection,
  UnsafeRow
}
import org.apache.spark.sql.catalyst.plans.{
  FullOuter, JoinType, LeftAnti, LeftOuter, LeftSemi, RightOuter
}
import org.apache.spark.sql.execution.metric.SQLMetric

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.plans.JoinLifetime

/**
 * The sweep of a range join: the second kind of consumer of the sorted sweep (the first being a
 * window's [[SweepPolicy]]). Its input is two sides sorted as the windows' input is, by
 * [[KeyTimeSorter]]s (here sharing `ordinals`, as the ASOF join's): each key's rows together, the
 * keys in one order on both sides ([[KeyOrder]]), each key's rows by the `lo` of their closed
 * lifetime `[lo, hi]` (see [[io.eventwindows.plans.RangeJoinShape]]). It merges them by
 * (key, lo) and keeps, for the current key, the active events of each side ([[ActiveEvents]]).
 * When an event x arrives (the least (key, lo) of both heads), the other side's active events
 * whose `hi` is before x's `lo` leave (no later event starts before x), and every other one is a
 * candidate: its `lo` came no later than x's and its `hi` is not before it, so their closed
 * lifetimes overlap. The join's condition is evaluated on each candidate pair. Then x becomes
 * active itself, unless the other side's next event starts after x's `hi` (then no later one can
 * meet x). Every pair whose closed lifetimes overlap is met exactly once: by whichever of the two
 * arrives second.
 * {{{
 *   left   a [0, 4]        c [6, 9]         sweep: a in; b meets a (a.hi 4 >= 2);
 *   right      b [2, 7]                            c evicts a (4 < 6), meets b (7 >= 6)
 * }}}
 * An event that leaves (evicted, at its key's end, or at once when its `hi` is before its `lo`)
 * without having matched is its side's unmatched row where the join type keeps those (outer
 * joins, left anti); a left row of a semi join is emitted at its first match, and a left row of a
 * semi or anti join leaves at its first match. Rows with a NULL key or a NULL bound match nothing
 * and leave as they are read.
 *
 * Cost: O(n + m + candidate pairs); a side's own active events are also pruned whenever they have
 * doubled, so that memory is the events that are active, not all those of a key. Output is lazy:
 * each step does one piece of work, so no output is ever buffered.
 *
 * **Replayed** (`replaying`): a consumer that keeps events from one sweep to the next (a
 * stream's, per key from one micro-batch to the next: the
 * `execution.streaming.StreamingRangeJoinProcessor`) sweeps its kept events again with the new
 * ones, one key at a time, through [[replay]], saying which rows are kept ([[ReplayedSide]]). Each
 * side then holds its kept and its new active events apart, and a kept event that arrives meets
 * the other side's new active events alone: so only the pairs with at least one new event are
 * met (the pairs of two kept events were met by an earlier sweep) and cost anything. No
 * unmatched row is emitted (an event outlives the sweep: the consumer knows when nothing more
 * can meet it); each row that meets a pair is marked in its side's [[ReplayedSide]] instead.
 * {{{
 *   left   a [0, 4] kept      c [6, 9] new      a arrives: nothing active on the right;
 *   right      b [2, 7] kept                    b arrives: meets the left's new events, none;
 *                                               c arrives: meets b (7 >= 6): (c, b) out, both marked
 * }}}
 */
private[execution] final class RangeJoinSweep(
    leftInput: Iterator[InternalRow],
    rightInput: Iterator[InternalRow],
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    leftLifetime: JoinLifetime,
    rightLifetime: JoinLifetime,
    condition: Option[Expression],
    joinType: JoinType,
    leftAttributes: Seq[Attribute],
    rightAttributes: Seq[Attribute],
    output: Seq[Attribute],
    ordinals: KeyOrdinals,
    memory: WindowMemory,
    numOutputRows: SQLMetric,
    replaying: Boolean = false) extends Iterator[InternalRow] {

  /** Semi and anti joins: the output is left rows, each decided by its first match. */
  private val existence = joinType == LeftSemi || joinType == LeftAnti
  require(!(replaying && existence), s"a replayed range join pairs rows: not a $joinType join")

  private val keyOrder = new KeyOrder(leftKeys, ordinals)
  private val left = new JoinSide(
    leftInput,
    leftKeys,
    leftLifetime,
    leftAttributes,
    preserved = !replaying && Seq(LeftOuter, FullOuter, LeftAnti).contains(joinType),
    keyOrder,
    memory)
  private val right = new JoinSide(
    rightInput,
    rightKeys,
    rightLifetime,
    rightAttributes,
    preserved = !replaying && Seq(RightOuter, FullOuter).contains(joinType),
    keyOrder,
    memory)

  private val predicate = condition.map(Predicate.create(_, leftAttributes ++ rightAttributes))
  private val pair = new JoinedRow
  private lazy val joined = new JoinedRows(leftAttributes.size, rightAttributes.size, output)

  /** The key whose events are active, and its ordinal. */
  private var groupKey: UnsafeRow = _
  private var groupOrdinal = 0
  memory.holder = () =>
    if (leftKeys.isEmpty || groupKey == null) "the active events of its range of time"
    else "the active events of the key " + leftKeys.zipWithIndex.map { case (k, i) =>
      s"${k.sql}=${Literal(groupKey.get(i, k.dataType), k.dataType)}"
    }.mkString("(", ", ", ")")

  private var started = false

  /** The side whose head row the last output may be: read its next row at the next step. */
  private var toAdvance: JoinSide = _

  /** True while the key's active events leave, one per step. */
  private var flushing = false

  /**
   * The event being swept in, the other side, the other side's active events it is meeting (its
   * new ones, then, for a new event, its kept ones) and the next of them to meet.
   */
  private var arriving: JoinSide = _
  private var other: JoinSide = _
  private var scanning: ActiveEvents = _
  private var scan = 0
  private var arrivingMatched = false

  /**
   * The side whose own active events (`pruned`, its new or its kept ones) are being pruned: those
   * whose `hi` is before `pruneBefore`.
   */
  private var pruning: JoinSide = _
  private var pruned: ActiveEvents = _
  private var pruneBefore = 0L

  private var pending: InternalRow = _

  override def hasNext: Boolean = {
    while (pending == null && step()) {}
    pending != null
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = pending
    pending = null
    numOutputRows += 1
    row
  }

  /**
   * A replayed sweep (see the class's comment) over the rows of one key, each side's sorted by
   * `lo`, `leftReplayed` and `rightReplayed` saying which of them are kept events; it marks there
   * the rows that meet a pair. The pairs it meets are this iterator's next rows (read them all
   * before the next replay, which starts over; the generated code is the same for every key).
   */
  def replay(
      leftRows: Iterator[InternalRow],
      leftReplayed: ReplayedSide,
      rightRows: Iterator[InternalRow],
      rightReplayed: ReplayedSide): Iterator[InternalRow] = {
    require(replaying, "a range join's sweep replays only when made to")
    left.restart(leftRows, leftReplayed)
    right.restart(rightRows, rightReplayed)
    started = false
    groupKey = null
    this
  }

  /** One piece of work, which may set `pending`; false when nothing is left. */
  private def step(): Boolean = {
    if (!started) {
      left.advance()
      right.advance()
      started = true
      true
    } else if (toAdvance != null) {
      toAdvance.advance()
      toAdvance = null
      true
    } else if (flushing) {
      flushStep()
    } else if (arriving != null) {
      scanStep()
    } else if (pruning != null) {
      pruneStep()
    } else {
      nextEvent()
    }
  }

  /** Chooses the next event to sweep in, or ends the key (or the input). */
  private def nextEvent(): Boolean = {
    // Rows that can meet nothing leave as they are read.
    val dead = if (!left.exhausted && !left.live) left
    else if (!right.exhausted && !right.live) right else null
    if (dead != null) {
      if (dead.preserved) pending = unmatched(dead, dead.row)
      toAdvance = dead
      return true
    }
    val anyActive = left.activeCount + right.activeCount > 0
    if (left.exhausted && right.exhausted) {
      flushing = anyActive
      return anyActive
    }
    val s = if (right.exhausted) left
    else if (left.exhausted) right
    else if (comparePositions() <= 0) left
    else right
    if (groupKey != null && keyOrder.compare(s.ordinal, s.key, groupOrdinal, groupKey) != 0) {
      if (anyActive) {
        flushing = true
        return true
      }
      groupKey = null
    }
    if (groupKey == null) {
      groupKey = s.key.copy()
      groupOrdinal = s.ordinal
    }
    arriving = s
    other = if (s eq left) right else left
    scanning = other.active
    scan = 0
    arrivingMatched = false
    true
  }

  /** The heads' order by (key, lo). */
  private def comparePositions(): Int = {
    val byKey = keyOrder.compare(left.ordinal, left.key, right.ordinal, right.key)
    if (byKey != 0) byKey else java.lang.Long.compare(left.lo, right.lo)
  }

  /**
   * Meets the next active event of the other side (its new ones, then, for a new event, its kept
   * ones), or ends the arrival.
   */
  private def scanStep(): Boolean = {
    val actives = scanning
    val decided = existence && (arriving eq left) && arrivingMatched
    if (decided) {
      finishArrival()
    } else if (scan >= actives.size) {
      if ((actives eq other.active) && !arriving.kept) {
        scanning = other.keptActive
        scan = 0
      } else {
        finishArrival()
      }
    } else if (actives.hi(scan) < arriving.lo) {
      evict(other, actives, scan)
    } else {
      val (l, r) =
        if (arriving eq left) (arriving.row, actives.row(scan))
        else (actives.row(scan), arriving.row)
      if (predicate.forall(_.eval(pair(l, r)))) {
        arrivingMatched = true
        if (!existence) {
          other.markMatched(actives, scan)
          pending = joined.pair(l, r)
        } else if (arriving eq left) {
          if (joinType == LeftSemi) pending = l
        } else {
          // A left row of a semi or anti join is decided: it leaves (and the next takes its slot).
          if (joinType == LeftSemi) pending = l
          actives.removeAt(scan)
          return true
        }
      }
      scan += 1
    }
    true
  }

  /** The arriving event becomes active, or leaves at once; its side reads its next row. */
  private def finishArrival(): Unit = {
    val s = arriving
    val decided = existence && (s eq left) && arrivingMatched
    if (arrivingMatched) s.markHeadMatched()
    if (s.hi >= s.lo && !decided && mayMeetLater(s)) {
      val actives = if (s.kept) s.keptActive else s.active
      actives.add(s.row, s.hi, arrivingMatched, s.position)
      if (actives.size >= actives.pruneAt) {
        pruning = s
        pruned = actives
        pruneBefore = s.lo
        scan = 0
      }
    } else if (!arrivingMatched && s.preserved) {
      pending = unmatched(s, s.row)
    }
    arriving = null
    toAdvance = s
  }

  /**
   * Whether an event of the other side still to come may meet `s`, which has arrived: the other
   * side's head (no earlier than `s` in (key, lo)) is of `s`'s key and starts no later than `s`'s
   * hi, or is a row that can meet nothing (it may hide one that can). Otherwise no later event
   * starts before `s`'s hi, and `s` leaves at once instead of becoming active: a point joined
   * with intervals is kept only when an interval starts at that very point.
   */
  private def mayMeetLater(s: JoinSide): Boolean = {
    val o = if (s eq left) right else left
    !o.exhausted &&
    (!o.live ||
      (keyOrder.compare(o.ordinal, o.key, groupOrdinal, groupKey) == 0 && o.lo <= s.hi))
  }

  /** Drops the side's own events that no later event can meet (their `hi` is before its last lo). */
  private def pruneStep(): Boolean = {
    val actives = pruned
    if (scan < actives.size) {
      if (actives.hi(scan) < pruneBefore) evict(pruning, actives, scan) else scan += 1
    } else {
      actives.pruneAt = Math.max(ActiveEvents.FirstPrune, 2 * actives.size)
      pruning = null
    }
    true
  }

  /** The key is done: its active events leave, one per step. */
  private def flushStep(): Boolean = {
    val side = if (left.activeCount > 0) left else if (right.activeCount > 0) right else null
    if (side == null) {
      flushing = false
      groupKey = null
    } else {
      val actives = if (side.active.size > 0) side.active else side.keptActive
      evict(side, actives, actives.size - 1)
    }
    true
  }

  /**
   * Event `i` of `actives`, active events of `side`, leaves: its unmatched row if it never matched
   * and the side keeps it.
   */
  private def evict(side: JoinSide, actives: ActiveEvents, i: Int): Unit = {
    if (!actives.hasMatched(i) && side.preserved) pending = unmatched(side, actives.row(i))
    actives.removeAt(i)
  }

  private def unmatched(side: JoinSide, row: InternalRow): InternalRow =
    if (existence) row
    else if (side eq left) joined.leftAlone(row)
    else joined.rightAlone(row)
}

/**
 * One side's rows in a replayed [[RangeJoinSweep]], by their position in the order the sweep reads
 * them: whether each is a kept event, swept before (`kept`), and whether it met a pair in this
 * sweep (`matched`, which the sweep sets).
 */
private[execution] final class ReplayedSide(val kept: Array[Boolean]) {
  val matched = new Array[Boolean](kept.length)
}

/**
 * A range join's output rows, one layout for the batch sweep and a stream's processor: a pair of
 * a left and a right row, or one side's row with NULLs for the other's columns, projected to
 * `output` (the left's columns, then the right's) by generated code. The row is reused: copy it
 * to keep it.
 */
private[execution] final class JoinedRows(leftWidth: Int, rightWidth: Int, output: Seq[Attribute]) {
  private val joined = new JoinedRow
  private val project = UnsafeProjection.create(output, output)
  private val nullLeft = new GenericInternalRow(leftWidth)
  private val nullRight = new GenericInternalRow(rightWidth)

  def pair(left: InternalRow, right: InternalRow): UnsafeRow = project(joined(left, right))

  def leftAlone(left: InternalRow): UnsafeRow = pair(left, nullRight)

  def rightAlone(right: InternalRow): UnsafeRow = pair(nullLeft, right)
}

/**
 * One side of a [[RangeJoinSweep]] or [[AsofJoinSweep]]: its sorted rows with the head row's key
 * (and the key's place in the sides' [[KeyOrder]]), closed lifetime and position read, and its
 * active events: a replay's kept ones apart (see [[RangeJoinSweep]]).
 */
private[sweep] final class JoinSide(
    private var input: Iterator[InternalRow],
    keys: Seq[Expression],
    lifetime: JoinLifetime,
    attributes: Seq[Attribute],
    val preserved: Boolean,
    keyOrder: KeyOrder,
    memory: WindowMemory) {
  private val keyProjection = UnsafeProjection.create(keys, attributes)
  private val lifetimeProjection =
    UnsafeProjection.create(Seq(lifetime.lo, lifetime.hi), attributes)

  /** The active events: all of them, but in a replay the new ones. */
  val active = new ActiveEvents(memory)

  /** A replay's kept events that are active, which the other side's new events alone meet. */
  val keptActive = new ActiveEvents(memory)

  /** Which rows of a replay are kept events, and which meet a pair; null but in a replay. */
  private var replayed: ReplayedSide = _

  /** The head row; null once the side is read. */
  var row: UnsafeRow = _
  var key: UnsafeRow = _

  /** The key's ordinal, as the sorters of both sides gave it. */
  var ordinal = 0

  /**
   * The last live key whose ordinal was looked up (a copy): the rows come sorted by key, so most
   * rows have the key of the one before and reuse its ordinal instead of hashing it again.
   */
  private var ordinalOf: UnsafeRow = _

  /** Whether the head can meet anything: no NULL key, both bounds known. */
  var live = false
  var lo = 0L
  var hi = 0L

  /** The head's position among the side's rows (read only in a replay), and whether it is kept. */
  var position: Int = -1
  var kept = false

  def exhausted: Boolean = row == null

  def activeCount: Int = active.size + keptActive.size

  /** Reads `rows` from their first, a replay's (its active events have all left). */
  def restart(rows: Iterator[InternalRow], replay: ReplayedSide): Unit = {
    input = rows
    replayed = replay
    position = -1
  }

  /** Marks event `i` of `actives`, this side's, and (in a replay) its row as having met a pair. */
  def markMatched(actives: ActiveEvents, i: Int): Unit = {
    actives.markMatched(i)
    if (replayed != null) replayed.matched(actives.position(i)) = true
  }

  /** Marks the head row as having met a pair, in a replay. */
  def markHeadMatched(): Unit = if (replayed != null) replayed.matched(position) = true

  def advance(): Unit = if (input.hasNext) {
    row = input.next().asInstanceOf[UnsafeRow]
    position += 1
    kept = replayed != null && replayed.kept(position)
    key = keyProjection(row)
    val bounds = lifetimeProjection(row)
    live = !key.anyNull && !bounds.isNullAt(0) && !bounds.isNullAt(1)
    if (live) {
      if (ordinalOf == null || !key.equals(ordinalOf)) {
        ordinal = keyOrder.ordinal(key)
        ordinalOf = key.copy()
      }
      lo = bounds.getLong(0)
      hi = bounds.getLong(1)
    }
  } else {
    row = null
  }
}
