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
 * active itself. Every pair whose closed lifetimes overlap is met exactly once: by whichever of the
 * two arrives second.
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
    numOutputRows: SQLMetric) extends Iterator[InternalRow] {

  private val keyOrder = new KeyOrder(leftKeys, ordinals)
  private val left = new JoinSide(
    leftInput,
    leftKeys,
    leftLifetime,
    leftAttributes,
    preserved = Seq(LeftOuter, FullOuter, LeftAnti).contains(joinType),
    keyOrder,
    memory)
  private val right = new JoinSide(
    rightInput,
    rightKeys,
    rightLifetime,
    rightAttributes,
    preserved = Seq(RightOuter, FullOuter).contains(joinType),
    keyOrder,
    memory)

  /** Semi and anti joins: the output is left rows, each decided by its first match. */
  private val existence = joinType == LeftSemi || joinType == LeftAnti

  private val predicate = condition.map(Predicate.create(_, leftAttributes ++ rightAttributes))
  private val pair = new JoinedRow
  private lazy val project = UnsafeProjection.create(output, output)
  private val nullLeft = new GenericInternalRow(leftAttributes.size)
  private val nullRight = new GenericInternalRow(rightAttributes.size)

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

  /** The event being swept in, the other side, and the next of that side's events to meet. */
  private var arriving: JoinSide = _
  private var other: JoinSide = _
  private var scan = 0
  private var arrivingMatched = false

  /** The side whose own active events are being pruned: those whose `hi` is before `pruneBefore`. */
  private var pruning: JoinSide = _
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
    val anyActive = left.active.size + right.active.size > 0
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
    scan = 0
    arrivingMatched = false
    true
  }

  /** The heads' order by (key, lo). */
  private def comparePositions(): Int = {
    val byKey = keyOrder.compare(left.ordinal, left.key, right.ordinal, right.key)
    if (byKey != 0) byKey else java.lang.Long.compare(left.lo, right.lo)
  }

  /** Meets the next active event of the other side, or ends the arrival. */
  private def scanStep(): Boolean = {
    val actives = other.active
    val decided = existence && (arriving eq left) && arrivingMatched
    if (scan >= actives.size || decided) {
      finishArrival()
    } else if (actives.hi(scan) < arriving.lo) {
      evict(other, scan)
    } else {
      val (l, r) =
        if (arriving eq left) (arriving.row, actives.row(scan))
        else (actives.row(scan), arriving.row)
      if (predicate.forall(_.eval(pair(l, r)))) {
        arrivingMatched = true
        if (!existence) {
          actives.markMatched(scan)
          pending = project(pair(l, r))
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
    if (s.hi >= s.lo && !decided) {
      s.active.add(s.row, s.hi, arrivingMatched)
    } else if (!arrivingMatched && s.preserved) {
      pending = unmatched(s, s.row)
    }
    arriving = null
    toAdvance = s
    if (s.active.size >= s.pruneAt) {
      pruning = s
      pruneBefore = s.lo
      scan = 0
    }
  }

  /** Drops the side's own events that no later event can meet (their `hi` is before its last lo). */
  private def pruneStep(): Boolean = {
    val actives = pruning.active
    if (scan < actives.size) {
      if (actives.hi(scan) < pruneBefore) evict(pruning, scan) else scan += 1
    } else {
      pruning.pruneAt = Math.max(JoinSide.FirstPrune, 2 * actives.size)
      pruning = null
    }
    true
  }

  /** The key is done: its active events leave, one per step. */
  private def flushStep(): Boolean = {
    val side = if (left.active.size > 0) left else if (right.active.size > 0) right else null
    if (side == null) {
      flushing = false
      groupKey = null
    } else {
      evict(side, side.active.size - 1)
    }
    true
  }

  /** Active event `i` of `side` leaves: its unmatched row if it never matched and the side keeps it. */
  private def evict(side: JoinSide, i: Int): Unit = {
    val actives = side.active
    if (!actives.hasMatched(i) && side.preserved) pending = unmatched(side, actives.row(i))
    actives.removeAt(i)
  }

  private def unmatched(side: JoinSide, row: InternalRow): InternalRow =
    if (existence) row
    else if (side eq left) project(pair(row, nullRight))
    else project(pair(nullLeft, row))
}

/**
 * One side of a [[RangeJoinSweep]] or [[AsofJoinSweep]]: its sorted rows with the head row's key
 * (and the key's place in the sides' [[KeyOrder]]) and closed lifetime read, and its active
 * events.
 */
private[sweep] final class JoinSide(
    input: Iterator[InternalRow],
    keys: Seq[Expression],
    lifetime: JoinLifetime,
    attributes: Seq[Attribute],
    val preserved: Boolean,
    keyOrder: KeyOrder,
    memory: WindowMemory) {
  private val keyProjection = UnsafeProjection.create(keys, attributes)
  private val lifetimeProjection =
    UnsafeProjection.create(Seq(lifetime.lo, lifetime.hi), attributes)

  val active = new ActiveEvents(memory)

  /** The size of `active` at which it is pruned next. */
  var pruneAt: Int = JoinSide.FirstPrune

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

  def exhausted: Boolean = row == null

  def advance(): Unit = if (input.hasNext) {
    row = input.next().asInstanceOf[UnsafeRow]
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

private[sweep] object JoinSide {
  val FirstPrune = 64
}
