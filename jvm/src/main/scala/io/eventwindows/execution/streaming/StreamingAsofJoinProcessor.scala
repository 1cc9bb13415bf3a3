package io.eventwindows.execution.streaming

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Attribute, BaseOrdering, Expression, GenericInternalRow, JoinedRow, RowOrdering,
  SortOrder, UnsafeRow
}
import org.apache.spark.sql.streaming.{
  ExpiredTimerInfo, ListState, OutputMode, StatefulProcessor, TimeMode, TimerValues, TTLConfig
}
import org.apache.spark.sql.types.StructType

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.streaming.StreamingRangeJoinProcessor.JoinSide
import io.eventwindows.time.TimeArithmetic.ceilMillis
import io.eventwindows.plans.{AsofDirection, JoinLifetime}

/**
 * An ASOF join of two streams ([[io.eventwindows.plans.AsofJoin]]) as Spark's `TransformWithState`
 * runs it, over the same union of both sides as [[StreamingRangeJoinProcessor]] (the keys, the
 * side tag, a struct per side, the side's time with its watermark).
 *
 * @param left              the left side's columns
 * @param right             the right side's columns
 * @param leftTime          the left row's time in ticks (microseconds: a watermarked timestamp)
 * @param rightTime         the right row's time
 * @param rightTieBreak     the right columns ordering rows tying on time ([[io.eventwindows.plans.AsofJoin.rightTieBreak]])
 * @param direction         backward, forward or nearest
 * @param tolerance         the longest distance between the two times, if any
 * @param allowExactMatches false to leave out right rows at the left row's time
 * @param input             the union's columns: the keys, then [[InputColumns]]
 * @param output            the join's output columns: the left's, then the right's (nullable)
 * @param definition        what a restart from a checkpoint must find unchanged
 *                          (`analysis.StateDefinition.ofAsofJoin`), stored with each key's state
 */
case class StreamingAsofJoinSpec(
    left: Seq[Attribute],
    right: Seq[Attribute],
    leftTime: Expression,
    rightTime: Expression,
    rightTieBreak: Seq[Attribute],
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean,
    input: StructType,
    output: StructType,
    definition: String)

/**
 * Gives each left row of a stream the right row of another stream that pandas' `merge_asof`
 * (and the batch `AsofJoinSweep`, with its tie rules) gives it over all the rows accepted, once
 * the watermark shows that no right row still to come could change it. With `w` the watermark
 * when timers fire (every row still to come has its time after `w`: Spark drops the others as
 * late) and a left row at `t`, per key:
 *
 *  - backward: the last right row at or before `t` (before `t` without exact matches) is final
 *    once `w >= t`; so is one within a tolerance (the tolerance only filters);
 *  - forward: with `f` the time of the first right row at or after `t` held so far, a better one
 *    would come before `f` (or at `f`, first of a tie): final once `w >= f`, or, with a
 *    tolerance, once `w >= t + tolerance` (nothing within it can still come: NULLs if `f` is
 *    beyond it); without either it waits;
 *  - nearest: the backward row (at distance `d`) is final once `w >= t`; a forward row still to
 *    come is nearer only before `t + d` (the backward row wins at equal distance) and within the
 *    tolerance: final once `w >= min(f, t + d, t + tolerance)` (each at or after `t`).
 *
 * Each such emission time only comes sooner as right rows arrive; a timer at it (registered
 * again as rows arrive) emits the row. For example, backward, rights at 1 and 4, a left at 3: the
 * left row waits, since a right row at 2 or 3 may still come; once `w >= 3` it is emitted with
 * the row at 1 (or with one at 2 or 3 that came meanwhile).
 *
 * The state per key: the left rows not emitted yet, and the right rows that can still be chosen:
 * those after `w` (a left row to come or waiting may choose them) and, but for forward, the last
 * at or before `w` (the backward row of every left row to come) and the backward row of each
 * waiting left row; a timer at each right row's time prunes them. A left row with a NULL key or
 * time is emitted with NULLs at once, a right one is dropped (both match nothing, as in batch).
 * With them, the join's definition ([[StoredJoinDefinition]]): a query restarted from the
 * checkpoint of another join of two streams (another direction, say) fails with
 * `EVENTWINDOWS_CHECKPOINT_MISMATCH` where it finds a key's state, rather than give wrong rows.
 */
final class StreamingAsofJoinProcessor(spec: StreamingAsofJoinSpec)
    extends StatefulProcessor[Row, Row, Row] {
  import StreamingAsofJoinProcessor._

  @transient private var leftRows: ListState[Array[Byte]] = _
  @transient private var rightRows: ListState[Array[Byte]] = _
  @transient private var definition: StoredJoinDefinition = _
  @transient private lazy val leftSide = new JoinSide(
    spec.left,
    JoinLifetime(spec.leftTime, spec.leftTime),
    keepsUnmatched = true)
  @transient private lazy val rightSide = new JoinSide(
    spec.right,
    JoinLifetime(spec.rightTime, spec.rightTime),
    keepsUnmatched = false)
  @transient private lazy val tieOrder: BaseOrdering =
    RowOrdering.create(spec.rightTieBreak.map(SortOrder(_, Ascending)), spec.right)
  @transient private lazy val toInternal = ExpressionEncoder(spec.input).createSerializer()
  @transient private lazy val toRow =
    ExpressionEncoder(spec.output).resolveAndBind().createDeserializer()
  @transient private lazy val pair = new JoinedRow
  @transient private lazy val noRight = new GenericInternalRow(spec.right.size)

  override def init(outputMode: OutputMode, timeMode: TimeMode): Unit = {
    leftRows = getHandle.getListState[Array[Byte]]("left", Encoders.BINARY, TTLConfig.NONE)
    rightRows = getHandle.getListState[Array[Byte]]("right", Encoders.BINARY, TTLConfig.NONE)
    definition = new StoredJoinDefinition(getHandle, "asof_join", spec.definition)
  }

  /** Holds the arriving rows, and sets a timer at each waiting left row's emission time. */
  override def handleInputRows(
      key: Row,
      inputRows: Iterator[Row],
      timerValues: TimerValues): Iterator[Row] = {
    definition.check()
    val (waiting, rights) = (loadLefts(), loadRights())
    val out = ArrayBuffer.empty[Row]
    val sideOrdinal = spec.input.fieldIndex(InputColumns.Side)
    val (leftOrdinal, rightOrdinal) =
      (spec.input.fieldIndex(InputColumns.Left), spec.input.fieldIndex(InputColumns.Right))
    inputRows.foreach { input =>
      val internal = toInternal(input)
      if (internal.getInt(sideOrdinal) == 0) {
        val row = leftSide.copy(internal.getStruct(leftOrdinal, spec.left.size))
        leftSide.lo(row) match {
          case Some(t) if !key.anyNull => waiting += Timed(row, t)
          case _ => out += joined(row, null)
        }
      } else {
        val row = rightSide.copy(internal.getStruct(rightOrdinal, spec.right.size))
        rightSide.lo(row).filter(_ => !key.anyNull).foreach { t =>
          rights += Timed(row, t)
          getHandle.registerTimer(ceilMillis(t))
        }
      }
    }
    val sorted = rights.sortWith((a, b) =>
      a.time < b.time ||
        (a.time == b.time && tieOrder.compare(a.row, b.row) < 0))
    waiting.foreach(l =>
      emissionTime(l.time, sorted).foreach(e => getHandle.registerTimer(ceilMillis(e))))
    save(leftRows, waiting)
    save(rightRows, sorted)
    definition.keep(waiting.nonEmpty || sorted.nonEmpty)
    out.iterator
  }

  /** Emits the left rows whose right row is final, and forgets the right rows no longer needed. */
  override def handleExpiredTimer(
      key: Row,
      timerValues: TimerValues,
      expiredTimerInfo: ExpiredTimerInfo): Iterator[Row] = {
    definition.check()
    val watermark = StreamingWindowProcessor.micros(timerValues.getCurrentWatermarkInMs())
    val rights = loadRights()
    val (ready, waiting) =
      loadLefts().partition(l => emissionTime(l.time, rights).exists(_ <= watermark))
    val out = ready.map(l => joined(l.row, choose(l.time, rights)))
    val kept = if (spec.direction == AsofDirection.Forward) rights.filter(_.time > watermark)
    else {
      val backwardRows =
        (lastBefore(rights, t => t <= watermark) +:
          waiting.filter(_.time <= watermark).map(l => lastBefore(rights, _ < l.time))).flatten
      rights.filter(r => r.time > watermark || backwardRows.exists(_ eq r))
    }
    if (ready.nonEmpty) save(leftRows, waiting)
    if (kept.size < rights.size) save(rightRows, kept)
    definition.keep(waiting.nonEmpty || kept.nonEmpty)
    out.iterator
  }

  /**
   * When the right row of a left row at `t` is final, given the right rows held (sorted by time,
   * then by the tie order): see the class's comment; `None` while no bound is known.
   */
  private def emissionTime(t: Long, rights: collection.Seq[Timed]): Option[Long] = {
    lazy val forwardTime = firstFrom(rights, t).map(_.time)
    lazy val toleranceEnd = spec.tolerance.map(later(t, _))
    spec.direction match {
      case AsofDirection.Backward => Some(t)
      case AsofDirection.Forward => (forwardTime ++ toleranceEnd).minOption
      case AsofDirection.Nearest =>
        val backwardEnd = backward(t, rights).map(b => later(t, t - b.time))
        (forwardTime ++ backwardEnd ++ toleranceEnd).minOption
    }
  }

  /** The right row `AsofJoinSweep` chooses for a left row at `t` among `rights`, or null. */
  private def choose(t: Long, rights: collection.Seq[Timed]): InternalRow = {
    val exact = spec.allowExactMatches && rights.exists(_.time == t)
    lazy val forward = firstFrom(rights, t).filter(f => within(f.time - t))
    val chosen = spec.direction match {
      case AsofDirection.Backward => backward(t, rights)
      case AsofDirection.Forward => forward
      case AsofDirection.Nearest => (backward(t, rights), forward) match {
          case (Some(b), Some(f))
              if !exact &&
                java.lang.Long.compareUnsigned(f.time - t, t - b.time) < 0 => Some(f)
          case (Some(b), _) => Some(b)
          case (None, f) => f
        }
    }
    chosen.map(_.row).orNull
  }

  /** The backward row within the tolerance: the last at `t` (if allowed), else before `t`. */
  private def backward(t: Long, rights: collection.Seq[Timed]): Option[Timed] =
    lastBefore(rights, if (spec.allowExactMatches) _ <= t else _ < t).filter(b =>
      within(t - b.time))

  /** The first right row at `t` (if allowed) or after it, the tolerance aside. */
  private def firstFrom(rights: collection.Seq[Timed], t: Long): Option[Timed] =
    rights.find(r => if (spec.allowExactMatches) r.time >= t else r.time > t)

  /** A distance (unsigned: the two times may be at the two ends of the line) within tolerance. */
  private def within(distance: Long): Boolean =
    spec.tolerance.forall(java.lang.Long.compareUnsigned(distance, _) <= 0)

  private def joined(left: InternalRow, right: InternalRow): Row =
    toRow(pair(left, if (right == null) noRight else right))

  private def loadLefts(): ArrayBuffer[Timed] =
    ArrayBuffer.from(leftRows.get().map(b => timed(leftSide, b)))

  private def loadRights(): ArrayBuffer[Timed] =
    ArrayBuffer.from(rightRows.get().map(b => timed(rightSide, b)))

  private def timed(side: JoinSide, bytes: Array[Byte]): Timed = {
    val row = side.read(bytes)
    Timed(row, side.lo(row).get)
  }

  private def save(state: ListState[Array[Byte]], rows: collection.Seq[Timed]): Unit =
    if (rows.isEmpty) state.clear() else state.put(rows.map(_.row.getBytes).toArray)
}

object StreamingAsofJoinProcessor {

  /** A row held, with its time. */
  private final case class Timed(row: UnsafeRow, time: Long)

  /** The last of the (sorted) right rows whose time `accepts`. */
  private def lastBefore(rights: collection.Seq[Timed], accepts: Long => Boolean): Option[Timed] =
    rights.takeWhile(r => accepts(r.time)).lastOption

  /** `t + distance` (a distance read as unsigned), the end of the line where it would pass it. */
  private def later(t: Long, distance: Long): Long = {
    val end = t + distance
    if (distance < 0 || end < t) Long.MaxValue else end
  }
}
