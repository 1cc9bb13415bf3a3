package io.eventwindows.execution.streaming

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BasePredicate, BindReferences, Expression, GenericInternalRow, JoinedRow, Predicate,
  UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.plans.{FullOuter, JoinType, LeftOuter, RightOuter}
import org.apache.spark.sql.streaming.{
  ExpiredTimerInfo, ListState, OutputMode, StatefulProcessor, TimeMode, TimerValues, TTLConfig
}
import org.apache.spark.sql.types.StructType

import io.eventwindows.plans.JoinLifetime

/**
 * A range join of two streams ([[io.eventwindows.plans.RangeJoinShape]]) as Spark's
 * `TransformWithState` runs it: the input is the union of both sides, a row per event with its
 * side, its columns as one struct per side (NULL for the other side) and its start, the column
 * that carries the watermark; grouped by the join's equality keys (a constant without keys).
 *
 * @param name      the join as errors name it (`temporal_join`, or its type and "range join")
 * @param joinType  inner, left, right or full outer
 * @param left      the left side's columns, as the join's condition and output name them
 * @param right     the right side's columns
 * @param condition the join's whole condition, evaluated on each pair (so the rows are Spark's)
 * @param input     the union's columns: the keys, then [[InputColumns]]
 * @param output    the join's output columns
 */
case class StreamingRangeJoinSpec(
    name: String,
    joinType: JoinType,
    left: Seq[Attribute],
    right: Seq[Attribute],
    condition: Expression,
    leftLifetime: JoinLifetime,
    rightLifetime: JoinLifetime,
    input: StructType,
    output: StructType) {

  /** The ordinals of the side tag and of each side's struct in the input. */
  def sideOrdinal: Int = input.fieldIndex(InputColumns.Side)
  def leftOrdinal: Int = input.fieldIndex(InputColumns.Left)
  def rightOrdinal: Int = input.fieldIndex(InputColumns.Right)

  /** The sides whose rows without a match the join keeps. */
  def keepsUnmatchedLeft: Boolean = joinType == LeftOuter || joinType == FullOuter
  def keepsUnmatchedRight: Boolean = joinType == RightOuter || joinType == FullOuter
}

/** The names of the columns the union of both sides gives the processor, after the keys. */
object InputColumns {
  final val Side = "__eventwindows_side"
  final val Left = "__eventwindows_left"
  final val Right = "__eventwindows_right"
  final val Time = "__eventwindows_time"
}

/** An event kept in state: its side's columns (an UnsafeRow's bytes), and whether it met a pair. */
case class HeldEvent(row: Array[Byte], matched: Boolean)

/**
 * Joins two streams by the overlap of their events' lifetimes, per key, keeping only the events
 * that can still meet one of the other side. With `w` the watermark (Spark's, the minimum of both
 * sides' by default), `[lo, hi]` each event's closed lifetime as the join's condition bounds it:
 *
 *  - Spark drops an event whose start is at or behind the watermark of the previous micro-batch
 *    before it gets here (a late row, counted in the operator's `numRowsDroppedByWatermark`), so
 *    every event still to come starts after `w`;
 *  - an arriving event is paired at once with every kept event of the other side that satisfies
 *    the condition: an inner pair is emitted when the second of its two events arrives (events of
 *    one micro-batch are paired in their order of arrival, each once);
 *  - an event is kept while `hi > w` (a timer at its `hi`): any pair the condition accepts has
 *    `other.lo <= hi`, and every event to come has `lo > w >= hi`, so once its timer fires nothing
 *    can reach it; then, for the side an outer join keeps, an event that met nothing is emitted
 *    with NULLs for the other side. An event with a NULL bound meets nothing and is emitted so
 *    (outer) or dropped (inner) as it arrives.
 *
 * For example, keys equal, `a.s < b.e AND b.s < a.e`, left outer, watermark delay 0: `a1 [1, 5)`
 * arrives, then `b1 [3, 4)`: the pair (a1, b1) is emitted as b1 arrives; once the watermark is 5,
 * a1's timer fires and a1 is forgotten (matched: nothing more to emit); an `a2 [6, 7)` that meets
 * nothing is emitted as (a2, NULL) when the watermark reaches 7.
 *
 * The state per key: each side's kept events ([[HeldEvent]]s in a list each) and their timers.
 * An event open to the end of time is kept for ever: it can meet any event to come.
 */
final class StreamingRangeJoinProcessor(val spec: StreamingRangeJoinSpec)
    extends StatefulProcessor[Row, Row, Row] {
  import StreamingRangeJoinProcessor._

  @transient private var leftEvents: ListState[HeldEvent] = _
  @transient private var rightEvents: ListState[HeldEvent] = _
  @transient private lazy val sides = Array(
    new JoinSide(spec.left, spec.leftLifetime, spec.keepsUnmatchedLeft),
    new JoinSide(spec.right, spec.rightLifetime, spec.keepsUnmatchedRight))
  @transient private lazy val toInternal = ExpressionEncoder(spec.input).createSerializer()
  @transient private lazy val toRow =
    ExpressionEncoder(spec.output).resolveAndBind().createDeserializer()
  @transient private lazy val matches: BasePredicate = {
    val predicate = Predicate.create(spec.condition, spec.left ++ spec.right)
    predicate.initialize(0)
    predicate
  }
  @transient private lazy val pair = new JoinedRow

  override def init(outputMode: OutputMode, timeMode: TimeMode): Unit = {
    leftEvents =
      getHandle.getListState[HeldEvent]("left", Encoders.product[HeldEvent], TTLConfig.NONE)
    rightEvents =
      getHandle.getListState[HeldEvent]("right", Encoders.product[HeldEvent], TTLConfig.NONE)
  }

  private def state(side: Int): ListState[HeldEvent] = if (side == 0) leftEvents else rightEvents

  override def handleInputRows(
      key: Row,
      inputRows: Iterator[Row],
      timerValues: TimerValues): Iterator[Row] = {
    val held = Array(load(0), load(1))
    val out = ArrayBuffer.empty[Row]
    val (sideOrdinal, structOrdinals) =
      (spec.sideOrdinal, Array(spec.leftOrdinal, spec.rightOrdinal))
    inputRows.foreach { input =>
      val internal = toInternal(input)
      val s = internal.getInt(sideOrdinal)
      val side = sides(s)
      val event = side.copy(internal.getStruct(structOrdinals(s), side.width))
      side.hi(event) match {
        case Some(hi) if side.lo(event).isDefined =>
          var matched = false
          held(1 - s).foreach { other =>
            val joined = if (s == 0) pair(event, other.row) else pair(other.row, event)
            if (matches.eval(joined)) {
              out += toRow(joined)
              matched = true
              other.matched = true
            }
          }
          held(s) += Held(event, matched)
          getHandle.registerTimer(ceilMillis(hi))
        case _ => if (side.keepsUnmatched) out += unmatched(s, event)
      }
    }
    save(0, held(0))
    save(1, held(1))
    out.iterator
  }

  /** Forgets the events the watermark has passed, emitting an outer join's unmatched ones. */
  override def handleExpiredTimer(
      key: Row,
      timerValues: TimerValues,
      expiredTimerInfo: ExpiredTimerInfo): Iterator[Row] = {
    val watermark = StreamingWindowProcessor.micros(timerValues.getCurrentWatermarkInMs())
    val out = ArrayBuffer.empty[Row]
    for (s <- 0 to 1) {
      val (passed, kept) = load(s).partition(h => sides(s).hi(h.row).forall(_ <= watermark))
      if (sides(s).keepsUnmatched)
        passed.filterNot(_.matched).foreach(h => out += unmatched(s, h.row))
      if (passed.nonEmpty) save(s, kept)
    }
    out.iterator
  }

  /** A row of side `s` with NULLs for the other side's columns. */
  private def unmatched(s: Int, row: InternalRow): Row =
    if (s == 0) toRow(pair(row, new GenericInternalRow(sides(1).width)))
    else toRow(pair(new GenericInternalRow(sides(0).width), row))

  private def load(s: Int): ArrayBuffer[Held] = {
    val side = sides(s)
    ArrayBuffer.from(state(s).get().map(h => Held(side.read(h.row), h.matched)))
  }

  private def save(s: Int, held: ArrayBuffer[Held]): Unit =
    if (held.isEmpty) state(s).clear()
    else state(s).put(held.map(h => HeldEvent(h.row.getBytes, h.matched)).toArray)
}

object StreamingRangeJoinProcessor {

  /** An event in memory: its columns and whether it met a pair. */
  private final case class Held(row: UnsafeRow, var matched: Boolean)

  /**
   * One side of the join: its columns, as rows of their own, and its lifetime's bounds read from
   * them (`None` for NULL).
   */
  private[streaming] final class JoinSide(
      attributes: Seq[Attribute],
      lifetime: JoinLifetime,
      val keepsUnmatched: Boolean) {
    val width: Int = attributes.size
    private val toUnsafe = UnsafeProjection.create(attributes.map(_.dataType).toArray)
    private val boundLo = BindReferences.bindReference(lifetime.lo, attributes)
    private val boundHi = BindReferences.bindReference(lifetime.hi, attributes)

    def copy(row: InternalRow): UnsafeRow = toUnsafe(row).copy()

    def read(bytes: Array[Byte]): UnsafeRow = {
      val row = new UnsafeRow(width)
      row.pointTo(bytes, bytes.length)
      row
    }

    def lo(row: InternalRow): Option[Long] = Option(boundLo.eval(row)).map(_.asInstanceOf[Long])
    def hi(row: InternalRow): Option[Long] = Option(boundHi.eval(row)).map(_.asInstanceOf[Long])
  }

  /** The first millisecond at or after `micros`: a watermark that reaches it has passed `micros`. */
  def ceilMillis(micros: Long): Long =
    Math.floorDiv(micros, 1000L) + (if (Math.floorMod(micros, 1000L) != 0) 1 else 0)
}
