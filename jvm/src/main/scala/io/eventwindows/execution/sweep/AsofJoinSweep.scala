package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Expression, Literal, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeRowJoiner
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.metric.SQLMetric

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.plans.{AsofDirection, JoinLifetime}

/**
 * The merge of an ASOF join, which a task runs when the [[AsofJoinProbe]]'s index of its right
 * rows is refused memory (both sides then sort, and spill, through Spark's sorter), a third
 * consumer of the sorted sweep: the two sides sorted by
 * [[KeyTimeSorter]]s sharing their [[KeyOrdinals]] (so by (ordinal, key, time), the right one also
 * by its other columns), are merged in that order as [[RangeJoinSweep]] merges its sides (each
 * side's head read by a [[JoinSide]], an event lasting one tick), and each left row is output
 * once, with the right row an [[AsofMatch]] of its key chooses for it, or NULLs. The right side
 * is read once: each left row's match starts from where the one before (of its key) left it.
 *
 * Rows with a NULL key or time: a left one is output with NULLs, a right one is skipped (both
 * sort first). Memory: the rows the match holds (copies), reserved through [[WindowMemory]].
 */
private[execution] final class AsofJoinSweep(
    leftInput: Iterator[InternalRow],
    rightInput: Iterator[InternalRow],
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    leftTime: Expression,
    rightTime: Expression,
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean,
    leftAttributes: Seq[Attribute],
    rightAttributes: Seq[Attribute],
    ordinals: KeyOrdinals,
    memory: WindowMemory,
    numOutputRows: SQLMetric) extends Iterator[InternalRow] {

  private val keyOrder = new KeyOrder(leftKeys, ordinals)
  private val left = new JoinSide(
    leftInput,
    leftKeys,
    JoinLifetime(leftTime, leftTime),
    leftAttributes,
    preserved = true,
    keyOrder,
    memory)
  private val right = new JoinSide(
    rightInput,
    rightKeys,
    JoinLifetime(rightTime, rightTime),
    rightAttributes,
    preserved = false,
    keyOrder,
    memory)

  private val joined = new AsofJoinedRows(leftAttributes, rightAttributes)
  private val matching =
    new AsofMatch(direction, tolerance, allowExactMatches, rightAttributes.size, memory)

  /** The key of the left rows being swept, and its ordinal; null before the first. */
  private var key: UnsafeRow = _
  private var keyOrdinal = 0

  /** The right side's rows of the current key, as the match reads them. */
  private object rightOfKey extends AsofRightRows {
    override def headOfKey: Boolean = {
      while (!right.exhausted && (!right.live || compareToKey(right) < 0)) right.advance()
      !right.exhausted && compareToKey(right) == 0
    }
    override def headTime: Long = right.lo
    override def headRow: UnsafeRow = right.row
    override def advance(): Unit = right.advance()
  }

  memory.holder = () =>
    if (leftKeys.isEmpty || key == null) "the right rows it holds"
    else "the right rows it holds for the key " + leftKeys.zipWithIndex.map { case (k, i) =>
      s"${k.sql}=${Literal(key.get(i, k.dataType), k.dataType)}"
    }.mkString("(", ", ", ")")

  private var started = false

  override def hasNext: Boolean = {
    if (!started) {
      left.advance()
      right.advance()
      started = true
    }
    !left.exhausted
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val chosen = if (left.live) choose() else null
    val row = joined(left.row, chosen)
    left.advance()
    numOutputRows += 1
    row
  }

  /** The right row for the left head (live), after reading the right side up to its time. */
  private def choose(): UnsafeRow = {
    if (key == null || compareToKey(left) != 0) {
      key = left.key.copy()
      keyOrdinal = left.ordinal
      matching.reset()
    }
    matching.readTo(left.lo, rightOfKey)
    matching.choose(left.lo, rightOfKey)
  }

  /** A side's head key's place against the current key in the sides' order. */
  private def compareToKey(side: JoinSide): Int =
    keyOrder.compare(side.ordinal, side.key, keyOrdinal, key)
}

/**
 * The right rows of one key, in the order an [[AsofMatch]] reads them: by time, rows tying on it
 * in the right side's tie order (`AsofJoin.rightTieBreak`). The batch sweep reads them from the
 * sorted partition (skipping the rows of other keys and those with a NULL key or time), the
 * stream's processor from a key's state.
 */
private[execution] trait AsofRightRows {

  /** Whether there is a next row of the key (skipping what comes before it). */
  def headOfKey: Boolean

  /** The next row's time and columns, while [[headOfKey]]. */
  def headTime: Long
  def headRow: UnsafeRow

  /** Moves past the next row. */
  def advance(): Unit
}

/**
 * The merge's reading of the right rows of one key for its left rows, in order of time: it keeps
 * their [[AsofCandidates]] as it goes, and [[AsofRule]] chooses among them, for the batch merge
 * ([[AsofJoinSweep]]) and the stream's processor alike.
 *
 * For a left row at time t, [[readTo]] has read the right rows up to t: it holds `before`, the
 * last right row of the key before t, and `exact`, the first and last right rows at t (read
 * through when the right head reaches t), and the right head is the first row after t. For
 * example, right rows at 1, 3, 3, 6 and a left row at 3: before is the row at 1, exact the two at
 * 3, the head the row at 6. The next left row, at 3 or later, starts from there: the right rows
 * are read once.
 */
private[execution] final class AsofMatch(
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean,
    rightWidth: Int,
    memory: WindowMemory) {
  private val rule = new AsofRule(direction, tolerance, allowExactMatches)
  private val before = new HeldRow(rightWidth, memory)
  private val exactFirst = new HeldRow(rightWidth, memory)
  private val exactLast = new HeldRow(rightWidth, memory)

  /** The candidates of the left row read to, the right side's head being the row after. */
  private object candidates extends AsofCandidates {
    var right: AsofRightRows = _
    override def hasBefore: Boolean = before.held
    override def beforeTime: Long = before.time
    override def hasExact: Boolean = exactLast.held
    override def hasAfter: Boolean = right.headOfKey
    override def afterTime: Long = right.headTime
  }

  /** Forgets the rows held, for the left rows of another key. */
  def reset(): Unit = Seq(before, exactFirst, exactLast).foreach(_.clear())

  /** Reads `right` up to `t`, the time of the next left row (at or after the one before). */
  def readTo(t: Long, right: AsofRightRows): Unit = {
    candidates.right = right
    if (exactLast.held && exactLast.time < t) {
      before.hold(exactLast.row, exactLast.time)
      exactFirst.clear()
      exactLast.clear()
    }
    while (right.headOfKey && right.headTime < t) {
      before.hold(right.headRow, right.headTime)
      right.advance()
    }
    if (!exactLast.held && right.headOfKey && right.headTime == t) {
      exactFirst.hold(right.headRow, t)
      while (right.headOfKey && right.headTime == t) {
        exactLast.hold(right.headRow, t)
        right.advance()
      }
    }
  }

  /** The backward row of a left row at `t` within the tolerance, or null (after `readTo(t)`). */
  def backward(t: Long): HeldRow = rule.backward(t, candidates) match {
    case AsofRule.ExactLast => exactLast
    case AsofRule.Before => before
    case _ => null
  }

  /** Whether a left row at `t` has a forward row, the tolerance aside (after `readTo(t)`). */
  def hasForward(right: AsofRightRows): Boolean = rule.exact(candidates) || right.headOfKey

  /** Its time, where [[hasForward]]. */
  def forwardTime(t: Long, right: AsofRightRows): Long =
    if (rule.exact(candidates)) t else right.headTime

  /** The right row `direction` gives a left row at `t`, or null (after `readTo(t, right)`). */
  def choose(t: Long, right: AsofRightRows): UnsafeRow = rule.choose(t, candidates) match {
    case AsofRule.Before => before.row
    case AsofRule.ExactFirst => exactFirst.row
    case AsofRule.ExactLast => exactLast.row
    case AsofRule.After => right.headRow
    case _ => null
  }
}

/**
 * A right row an [[AsofMatch]] keeps past its side's head, with its time: one buffer, copied
 * into ([[UnsafeRow.copyFrom]]), its largest size reserved through [[WindowMemory]].
 */
private[execution] final class HeldRow(numFields: Int, memory: WindowMemory) {
  val row = new UnsafeRow(numFields)
  row.pointTo(new Array[Byte](0), 0)
  var time = 0L
  var held = false
  private var reserved = 0L

  def hold(from: UnsafeRow, at: Long): Unit = {
    if (from.getSizeInBytes > reserved) {
      memory.reserve(from.getSizeInBytes - reserved)
      reserved = from.getSizeInBytes
    }
    row.copyFrom(from)
    time = at
    held = true
  }

  def clear(): Unit = held = false
}

/**
 * An ASOF join's output row: the left row's bytes, then the right row's or NULLs, joined by
 * Spark's `UnsafeRowJoiner` (no per-column projection). The row is reused: copy it to keep it.
 */
private[sweep] final class AsofJoinedRows(
    leftAttributes: Seq[Attribute],
    rightAttributes: Seq[Attribute]) {
  private val joiner = GenerateUnsafeRowJoiner.create(
    DataTypeUtils.fromAttributes(leftAttributes),
    DataTypeUtils.fromAttributes(rightAttributes))
  private val nullRight =
    UnsafeProjection.create(rightAttributes.map(a => Literal(null, a.dataType)))(null).copy()

  /** `left` with `right`, or with NULLs where `right` is null. */
  def apply(left: UnsafeRow, right: UnsafeRow): UnsafeRow =
    joiner.join(left, if (right == null) nullRight else right)
}
