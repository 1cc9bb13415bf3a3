package io.eventwindows.execution.streaming

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Attribute, BaseOrdering, Expression, GenericInternalRow, JoinedRow, RowOrdering,
  SortOrder, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.streaming.{
  ExpiredTimerInfo, ListState, OutputMode, StatefulProcessor, TimeMode, TimerValues, TTLConfig
}
import org.apache.spark.sql.types.StructType

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.execution.streaming.StreamingWindowProcessor.micros
import io.eventwindows.execution.sweep.{AsofMatch, AsofRightRows}
import io.eventwindows.plans.AsofDirection
import io.eventwindows.time.TimeArithmetic.ceilMillis

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
 * Each such emission time only comes sooner as right rows arrive, and never sooner than the
 * arriving row's time. For example, backward, rights at 1 and 4, a left at 3: the left row waits,
 * since a right row at 2 or 3 may still come; once `w >= 3` it is emitted with the row at 1 (or
 * with one at 2 or 3 that came meanwhile).
 *
 * The state per key: the left rows not emitted yet, and the right rows that can still be chosen:
 * those after `w` (a left row to come or waiting may choose them) and, but for forward, the last
 * at or before `w` (the backward row of every left row to come) and the backward row of each
 * waiting left row (at or before `w`: a nearest row waiting for a forward one). A left row with a
 * NULL key or time is emitted with NULLs at once, a right one is dropped (both match nothing, as
 * in batch). With them, the join's definition ([[StoredJoinDefinition]]): a query restarted from the
 * checkpoint of another join of two streams (another direction, say) fails with `EVENTWINDOWS_CHECKPOINT_MISMATCH` where it finds
 * a key's state, rather than give wrong rows.
 *
 * How a micro-batch goes, per key, so that it costs O((waiting + kept) log + output):
 *
 *  - arriving rows are appended to the key's two lists (nothing read or rewritten), and the
 *    key's one timer is moved to the earliest arriving time if that is sooner (a bound on every
 *    emission time and on the next right row the watermark passes);
 *  - when the timer fires, the two lists are read, each sorted once by Spark's generated
 *    ordering (the right one by time, then its tie order, as the batch sorts it), and merged
 *    in order of time through an [[AsofMatch]], the batch sweep's choice: each waiting left row
 *    is emitted with the row it chooses if its emission time has come; then a list is rewritten
 *    only if rows left it, and the timer set at the next emission time or the next right row's
 *    time, whichever comes first (a right row the watermark passes may free the one before it).
 *
 * So rows are emitted in the micro-batch whose watermark first reaches their emission time, and
 * the state after each micro-batch is what the rule above keeps, as with a timer per row.
 */
final class StreamingAsofJoinProcessor(spec: StreamingAsofJoinSpec)
    extends StatefulProcessor[Row, Row, Row] {
  import StreamingAsofJoinProcessor._

  @transient private var leftRows: ListState[Array[Byte]] = _
  @transient private var rightRows: ListState[Array[Byte]] = _
  @transient private var definition: StoredJoinDefinition = _
  @transient private lazy val leftSide = new KeptSide(spec.left, spec.leftTime, Nil)
  @transient private lazy val rightSide =
    new KeptSide(spec.right, spec.rightTime, spec.rightTieBreak)
  @transient private lazy val toInternal = ExpressionEncoder(spec.input).createSerializer()
  @transient private lazy val toRow =
    ExpressionEncoder(spec.output).resolveAndBind().createDeserializer()
  @transient private lazy val pair = new JoinedRow
  @transient private lazy val noRight = new GenericInternalRow(spec.right.size)
  @transient private lazy val sideOrdinal = spec.input.fieldIndex(InputColumns.Side)
  @transient private lazy val leftOrdinal = spec.input.fieldIndex(InputColumns.Left)
  @transient private lazy val rightOrdinal = spec.input.fieldIndex(InputColumns.Right)

  /** The choice of the running task (a processor is deserialized in each task). */
  @transient private lazy val matching = {
    val memory = WindowMemory.forTask(s"TransformWithState asof_join ${spec.direction}")
    memory.holder = () => "the right rows it holds for a key"
    new AsofMatch(spec.direction, spec.tolerance, spec.allowExactMatches, spec.right.size, memory)
  }

  override def init(outputMode: OutputMode, timeMode: TimeMode): Unit = {
    leftRows = getHandle.getListState[Array[Byte]]("left", Encoders.BINARY, TTLConfig.NONE)
    rightRows = getHandle.getListState[Array[Byte]]("right", Encoders.BINARY, TTLConfig.NONE)
    definition = new StoredJoinDefinition(getHandle, "asof_join", spec.definition)
  }

  /** Appends the arriving rows to the key's lists, and moves its timer to their earliest time. */
  override def handleInputRows(
      key: Row,
      inputRows: Iterator[Row],
      timerValues: TimerValues): Iterator[Row] = {
    definition.check()
    val keyed = !key.anyNull
    val out = ArrayBuffer.empty[Row]
    val (lefts, rights) = (ArrayBuffer.empty[Array[Byte]], ArrayBuffer.empty[Array[Byte]])
    var earliest = Never
    inputRows.foreach { input =>
      val internal = toInternal(input)
      if (internal.getInt(sideOrdinal) == 0) {
        val row = internal.getStruct(leftOrdinal, leftSide.width)
        if (keyed && leftSide.timed(row)) {
          lefts += leftSide.bytes(row)
          earliest = math.min(earliest, leftSide.time(row))
        } else {
          out += joined(row, null)
        }
      } else {
        val row = internal.getStruct(rightOrdinal, rightSide.width)
        if (keyed && rightSide.timed(row)) {
          rights += rightSide.bytes(row)
          earliest = math.min(earliest, rightSide.time(row))
        }
      }
    }
    if (lefts.nonEmpty) leftRows.appendList(lefts.toArray)
    if (rights.nonEmpty) rightRows.appendList(rights.toArray)
    if (lefts.nonEmpty || rights.nonEmpty) definition.keep(holdsRows = true)
    if (earliest != Never) timerAtOrBefore(ceilMillis(earliest))
    out.iterator
  }

  /**
   * Emits the left rows whose right row is final, forgets the right rows no longer needed, and
   * sets the timer again.
   */
  override def handleExpiredTimer(
      key: Row,
      timerValues: TimerValues,
      expiredTimerInfo: ExpiredTimerInfo): Iterator[Row] = {
    definition.check()
    val watermark = micros(timerValues.getCurrentWatermarkInMs())
    val (lefts, rights) = (leftSide.sorted(leftRows), rightSide.sorted(rightRows))
    val out = ArrayBuffer.empty[Row]
    val waits = new Array[Boolean](lefts.size)
    var next = Never
    matching.reset()
    var i = 0
    while (i < lefts.size) {
      val t = lefts.times(i)
      matching.readTo(t, rights)
      val emission = emissionTime(t, rights)
      if (emission <= watermark) {
        out += joined(lefts.rows(i), matching.choose(t, rights))
      } else {
        waits(i) = true
        next = math.min(next, emission)
      }
      i += 1
    }
    val passed = rights.firstAfter(watermark)
    if (passed < rights.size) next = math.min(next, rights.times(passed))
    val keeps = keptRights(rights, lefts, waits, watermark, passed)
    val (waiting, kept) = (lefts.select(waits), rights.select(keeps))
    if (waiting.length < lefts.size) save(leftRows, waiting)
    if (kept.length < rights.size) save(rightRows, kept)
    definition.keep(waiting.nonEmpty || kept.nonEmpty)
    if (next != Never) getHandle.registerTimer(ceilMillis(next))
    out.iterator
  }

  /**
   * When the right row of a left row at `t` is final (see the class's comment), after
   * `matching.readTo(t)`; [[Never]] while no bound is known.
   */
  private def emissionTime(t: Long, rights: KeptRows): Long = {
    val forwardEnd = if (matching.hasForward(rights)) matching.forwardTime(t, rights) else Never
    val toleranceEnd = spec.tolerance match {
      case Some(distance) => later(t, distance)
      case None => Never
    }
    spec.direction match {
      case AsofDirection.Backward => t
      case AsofDirection.Forward => math.min(forwardEnd, toleranceEnd)
      case AsofDirection.Nearest =>
        val backward = matching.backward(t)
        val backwardEnd = if (backward == null) Never else later(t, t - backward.time)
        math.min(forwardEnd, math.min(backwardEnd, toleranceEnd))
    }
  }

  /**
   * Which right rows are still needed, `passed` the first after the watermark: those from
   * `passed` on and, but for forward, the last before it and the last before the time of each
   * waiting left row (`waits`) at or before the watermark, in one walk of both sorted sides.
   */
  private def keptRights(
      rights: KeptRows,
      lefts: KeptRows,
      waits: Array[Boolean],
      watermark: Long,
      passed: Int): Array[Boolean] = {
    val keeps = new Array[Boolean](rights.size)
    java.util.Arrays.fill(keeps, passed, rights.size, true)
    if (spec.direction != AsofDirection.Forward) {
      if (passed > 0) keeps(passed - 1) = true
      var l = 0
      var r = 0
      while (l < lefts.size && lefts.times(l) <= watermark) {
        if (waits(l)) {
          while (r < passed && rights.times(r) < lefts.times(l)) r += 1
          if (r > 0) keeps(r - 1) = true
        }
        l += 1
      }
    }
    keeps
  }

  /** The key's one timer at `ms` if it has none at or before it (a new row may be due sooner). */
  private def timerAtOrBefore(ms: Long): Unit = {
    val current = getHandle.listTimers().toList
    if (current.forall(_ > ms)) {
      current.foreach(getHandle.deleteTimer)
      getHandle.registerTimer(ms)
    }
  }

  private def joined(left: InternalRow, right: InternalRow): Row =
    toRow(pair(left, if (right == null) noRight else right))

  private def save(state: ListState[Array[Byte]], rows: Array[UnsafeRow]): Unit =
    if (rows.isEmpty) state.clear() else state.put(rows.map(_.getBytes))
}

object StreamingAsofJoinProcessor {

  /** The emission time of a row no watermark can release: no bound known yet. */
  private final val Never = Long.MaxValue

  /**
   * One side's rows as a key's state keeps them, an UnsafeRow's bytes each, with their times read
   * by a generated projection and an order by time, then `tieBreak`, generated by Spark.
   */
  private final class KeptSide(
      attributes: Seq[Attribute],
      time: Expression,
      tieBreak: Seq[Attribute]) {
    val width: Int = attributes.size
    private val timeOf = UnsafeProjection.create(Seq(time), attributes)
    private val order: BaseOrdering =
      RowOrdering.create((time +: tieBreak).map(SortOrder(_, Ascending)), attributes)

    def timed(row: InternalRow): Boolean = !timeOf(row).isNullAt(0)
    def time(row: InternalRow): Long = timeOf(row).getLong(0)

    /** A row of the side's struct in the input (an UnsafeRow, reused) as bytes of its own. */
    def bytes(row: InternalRow): Array[Byte] = row.asInstanceOf[UnsafeRow].getBytes

    /** The rows of `state`, sorted (each time not NULL: only such rows are kept). */
    def sorted(state: ListState[Array[Byte]]): KeptRows = {
      val rows = state.get().map { bytes =>
        val row = new UnsafeRow(width)
        row.pointTo(bytes, bytes.length)
        row
      }.toArray
      java.util.Arrays.sort(rows, order)
      val times = new Array[Long](rows.length)
      var i = 0
      while (i < rows.length) {
        times(i) = time(rows(i))
        i += 1
      }
      new KeptRows(rows, times)
    }
  }

  /** A key's rows of one side, sorted, with their times; read in order as the right side. */
  private final class KeptRows(val rows: Array[UnsafeRow], val times: Array[Long])
      extends AsofRightRows {
    private var head = 0
    def size: Int = rows.length
    override def headOfKey: Boolean = head < rows.length
    override def headTime: Long = times(head)
    override def headRow: UnsafeRow = rows(head)
    override def advance(): Unit = head += 1

    /** The rows whose flag is set, in order. */
    def select(flags: Array[Boolean]): Array[UnsafeRow] = {
      val selected = Array.newBuilder[UnsafeRow]
      var i = 0
      while (i < rows.length) {
        if (flags(i)) selected += rows(i)
        i += 1
      }
      selected.result()
    }

    /** The index of the first row after `time` (the length if none). */
    def firstAfter(time: Long): Int = {
      var i = times.length
      while (i > 0 && times(i - 1) > time) i -= 1
      i
    }
  }

  /** `t + distance` (a distance read as unsigned), the end of the line where it would pass it. */
  private def later(t: Long, distance: Long): Long = {
    val end = t + distance
    if (distance < 0 || end < t) Long.MaxValue else end
  }
}
