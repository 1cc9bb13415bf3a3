package io.eventwindows.execution.streaming

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Expression, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.plans.{FullOuter, JoinType, LeftOuter, RightOuter}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.streaming.{
  ExpiredTimerInfo, ListState, OutputMode, StatefulProcessor, TimeMode, TimerValues, TTLConfig
}
import org.apache.spark.sql.types.StructType

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.execution.sweep.{JoinedRows, KeyOrdinals, RangeJoinSweep, ReplayedSide}
import io.eventwindows.plans.JoinLifetime
import io.eventwindows.time.TimeArithmetic

/**
 * A range join of two streams ([[io.eventwindows.plans.RangeJoinShape]]) as Spark's
 * `TransformWithState` runs it: the input is the union of both sides, a row per event with its
 * side, its columns as one struct per side (NULL for the other side) and its start, the column
 * that carries the watermark; grouped by the join's equality keys (a constant without keys).
 *
 * @param name          the join as errors name it (`temporal_join`, or its type and "range join")
 * @param joinType      inner, left, right or full outer
 * @param left          the left side's columns, as the join's condition and output name them
 * @param right         the right side's columns
 * @param condition     the join's whole condition, evaluated on each pair (so the rows are Spark's)
 * @param leftLifetime  the left side's closed lifetime `[lo, hi]` (see `JoinLifetime`)
 * @param rightLifetime the right side's
 * @param outputColumns the join's output columns: the left's, then the right's
 * @param input         the union's columns: the keys, then [[InputColumns]]
 * @param output        the join's output columns as a schema
 * @param definition    what a restart from a checkpoint must find unchanged
 *                      (`analysis.StateDefinition.ofRangeJoin`), stored with each key's state
 */
case class StreamingRangeJoinSpec(
    name: String,
    joinType: JoinType,
    left: Seq[Attribute],
    right: Seq[Attribute],
    condition: Expression,
    leftLifetime: JoinLifetime,
    rightLifetime: JoinLifetime,
    outputColumns: Seq[Attribute],
    input: StructType,
    output: StructType,
    definition: String) {

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
 * that can still meet one of the other side, and pairing them through the batch join's own sweep
 * ([[RangeJoinSweep]], replayed). With `w` the watermark (Spark's, the minimum of both sides' by
 * default), `[lo, hi]` each event's closed lifetime as the join's condition bounds it:
 *
 *  - Spark drops an event whose start is at or behind the watermark of the previous micro-batch
 *    before it gets here (a late row, counted in the operator's `numRowsDroppedByWatermark`), so
 *    every event still to come starts after `w`;
 *  - a micro-batch's new events of a key are swept with the key's kept events: both sides' kept
 *    events (stored sorted by `lo`) merged with the new ones (sorted), each side told which rows
 *    are kept ([[ReplayedSide]]), so that the sweep meets only the pairs with a new event, each
 *    once, and evaluates the join's condition on them: an inner pair is emitted in the micro-batch
 *    where the second of its two events arrives;
 *  - an event is kept while `hi > w`: any pair the condition accepts has `other.lo <= hi`, and
 *    every event to come has `lo > w >= hi`, so once the watermark reaches its `hi` nothing can
 *    reach it; then, for the side an outer join keeps, an event that met nothing is emitted with
 *    NULLs for the other side. An event with a NULL bound meets nothing and is emitted so (outer)
 *    or dropped (inner) as it arrives. An event open to the end of time is kept for ever: it can
 *    meet any event to come.
 *
 * For example, keys equal, `a.s < b.e AND b.s < a.e`, left outer, watermark delay 0: `a1 [1, 5)`
 * arrives and is kept; then `b1 [3, 4)`: the sweep of a1 (kept) and b1 (new) emits (a1, b1); once
 * the watermark is 5, a1's end, a1 is forgotten (it matched: nothing more to emit); an `a2 [6, 7)`
 * that meets nothing is emitted as (a2, NULL) when the watermark reaches 7.
 *
 * The state per key: each side's kept events ([[HeldEvent]]s in a list each), the join's
 * definition ([[StoredJoinDefinition]]) and one timer, at the least `hi` kept. A micro-batch costs
 * a key with new events O((kept + new) log + pairs with a new event): the list is read (sorted
 * runs: sorting it is nearly linear) and swept, then, but where an event left or a kept event of a
 * side whose unmatched rows are kept met its first pair (once per event), only the new events are
 * appended to it. The timer fires once the watermark passes the least `hi`; it then forgets every
 * event the watermark has passed and moves to the next least `hi`, so a key without new events
 * costs nothing until one of its events can leave.
 */
final class StreamingRangeJoinProcessor(val spec: StreamingRangeJoinSpec)
    extends StatefulProcessor[Row, Row, Row] {
  import StreamingRangeJoinProcessor._

  @transient private var events: Array[ListState[HeldEvent]] = _
  @transient private var definition: StoredJoinDefinition = _
  @transient private lazy val sides = Array(
    new JoinSide(spec.left, spec.leftLifetime, spec.keepsUnmatchedLeft),
    new JoinSide(spec.right, spec.rightLifetime, spec.keepsUnmatchedRight))
  @transient private lazy val toInternal = ExpressionEncoder(spec.input).createSerializer()
  @transient private lazy val toRow =
    ExpressionEncoder(spec.output).resolveAndBind().createDeserializer()
  @transient private lazy val joined =
    new JoinedRows(spec.left.size, spec.right.size, spec.outputColumns)

  /** The key being joined, for the error of a key whose events outgrow the task's memory. */
  @transient private var currentKey: Row = _

  /** One sweep, and its generated code, for every key of the task. */
  @transient private lazy val sweep = {
    val memory = WindowMemory.forTask(s"TransformWithState $Name")
    val replay = new RangeJoinSweep(
      Iterator.empty,
      Iterator.empty,
      Nil,
      Nil,
      spec.leftLifetime,
      spec.rightLifetime,
      Some(spec.condition),
      spec.joinType,
      spec.left,
      spec.right,
      spec.outputColumns,
      new KeyOrdinals,
      memory,
      new SQLMetric("sum"),
      replaying = true)
    memory.holder = () => s"the events of the key $currentKey"
    replay
  }

  override def init(outputMode: OutputMode, timeMode: TimeMode): Unit = {
    events = Array("leftEvents", "rightEvents").map(name =>
      getHandle.getListState[HeldEvent](name, Encoders.product[HeldEvent], TTLConfig.NONE))
    definition = new StoredJoinDefinition(getHandle, Name, spec.definition)
  }

  /** Pairs the key's new events with each other and its kept ones, then keeps what can still meet. */
  override def handleInputRows(
      key: Row,
      inputRows: Iterator[Row],
      timerValues: TimerValues): Iterator[Row] = {
    definition.check()
    currentKey = key
    val out = ArrayBuffer.empty[Row]
    val kept = Array(load(0), load(1))
    val arrived = Array(ArrayBuffer.empty[Event], ArrayBuffer.empty[Event])
    val (sideOrdinal, structOrdinals) =
      (spec.sideOrdinal, Array(spec.leftOrdinal, spec.rightOrdinal))
    inputRows.foreach { input =>
      val internal = toInternal(input)
      val s = internal.getInt(sideOrdinal)
      val side = sides(s)
      val row = side.copy(internal.getStruct(structOrdinals(s), side.width))
      val event = side.event(row, matched = false, kept = false)
      if (event != null) arrived(s) += event
      else if (side.keepsUnmatched) out += toRow(alone(s, row))
    }
    val swept = Array(merge(kept(0), arrived(0)), merge(kept(1), arrived(1)))
    val replayed = swept.map(side => new ReplayedSide(side.map(_.kept)))
    val pairs = sweep.replay(
      swept(0).iterator.map(_.row),
      replayed(0),
      swept(1).iterator.map(_.row),
      replayed(1))
    pairs.foreach(pair => out += toRow(pair))
    val watermark = StreamingWindowProcessor.micros(timerValues.getCurrentWatermarkInMs())
    val staying = Array.tabulate(2)(s => settle(s, swept(s), replayed(s), watermark, out))
    retime(timerOf(kept), staying)
    definition.keep(staying.exists(_.nonEmpty))
    out.iterator
  }

  /** Forgets the events the watermark has passed, emitting an outer join's unmatched ones. */
  override def handleExpiredTimer(
      key: Row,
      timerValues: TimerValues,
      expiredTimerInfo: ExpiredTimerInfo): Iterator[Row] = {
    definition.check()
    val watermark = StreamingWindowProcessor.micros(timerValues.getCurrentWatermarkInMs())
    val out = ArrayBuffer.empty[Row]
    val staying = Array.tabulate(2) { s =>
      val kept = load(s)
      val staying = forget(s, kept, watermark, out)
      if (staying.length < kept.length) save(s, staying)
      staying
    }
    // The timer that fired is Spark's to delete: the next one is at a later millisecond.
    retime(None, staying)
    definition.keep(staying.exists(_.nonEmpty))
    out.iterator
  }

  /**
   * After a sweep of side `s`'s events (`swept`: kept and new, by `lo`): notes which met a pair,
   * forgets those the watermark has passed and stores the others, appending the new ones to the
   * list unless an event left or a kept event met its first pair on a side whose unmatched rows
   * the join keeps (then the list is written again). Returns the events kept.
   */
  private def settle(
      s: Int,
      swept: Array[Event],
      replayed: ReplayedSide,
      watermark: Long,
      out: ArrayBuffer[Row]): Array[Event] = {
    var firstMatches = false
    for (i <- swept.indices if replayed.matched(i) && !swept(i).matched) {
      swept(i).matched = true
      firstMatches |= swept(i).kept && sides(s).keepsUnmatched
    }
    val staying = forget(s, swept, watermark, out)
    if (staying.length < swept.length || firstMatches) save(s, staying)
    else {
      val arrived = staying.filterNot(_.kept)
      if (arrived.nonEmpty) events(s).appendList(arrived.map(_.held))
    }
    staying
  }

  /**
   * Side `s`'s `events` whose `hi` the watermark has not reached; those it has leave, an outer
   * join's unmatched ones into `out`.
   */
  private def forget(
      s: Int,
      events: Array[Event],
      watermark: Long,
      out: ArrayBuffer[Row]): Array[Event] = {
    val (passed, staying) = events.partition(_.hi <= watermark)
    if (sides(s).keepsUnmatched) {
      passed.foreach(e => if (!e.matched) out += toRow(alone(s, e.row)))
    }
    staying
  }

  /** Moves the key's one timer from `before` to the least `hi` among `staying`, if they differ. */
  private def retime(before: Option[Long], staying: Array[Array[Event]]): Unit = {
    val next = timerOf(staying)
    if (next != before) {
      before.foreach(getHandle.deleteTimer)
      next.foreach(getHandle.registerTimer)
    }
  }

  /** A row of side `s` with NULLs for the other side's columns. */
  private def alone(s: Int, row: InternalRow): UnsafeRow =
    if (s == 0) joined.leftAlone(row) else joined.rightAlone(row)

  /** Side `s`'s kept events, by `lo` (stored as sorted runs, which the sort merges). */
  private def load(s: Int): Array[Event] = {
    val side = sides(s)
    val loaded = events(s).get().map(h => side.event(side.read(h.row), h.matched, kept = true))
      .toArray
    java.util.Arrays.sort(loaded, ByLo)
    loaded
  }

  private def save(s: Int, staying: Array[Event]): Unit =
    if (staying.isEmpty) events(s).clear() else events(s).put(staying.map(_.held))
}

object StreamingRangeJoinProcessor {

  /** How errors name the join. */
  val Name = "stream-stream range join"

  /**
   * An event in memory: its columns, its closed lifetime, whether it met a pair, and whether it
   * was kept from an earlier micro-batch (else it is new).
   */
  private final class Event(
      val row: UnsafeRow,
      val lo: Long,
      val hi: Long,
      var matched: Boolean,
      val kept: Boolean) {
    def held: HeldEvent = HeldEvent(row.getBytes, matched)
  }

  private object ByLo extends java.util.Comparator[Event] {
    override def compare(a: Event, b: Event): Int = java.lang.Long.compare(a.lo, b.lo)
  }

  /** The kept events and the new ones (sorted here) in one array by `lo`. */
  private def merge(kept: Array[Event], arrived: ArrayBuffer[Event]): Array[Event] = {
    val fresh = arrived.toArray
    java.util.Arrays.sort(fresh, ByLo)
    val merged = new Array[Event](kept.length + fresh.length)
    var (k, f) = (0, 0)
    while (k + f < merged.length) {
      if (f == fresh.length || (k < kept.length && kept(k).lo <= fresh(f).lo)) {
        merged(k + f) = kept(k)
        k += 1
      } else {
        merged(k + f) = fresh(f)
        f += 1
      }
    }
    merged
  }

  /** The millisecond of the timer at the least `hi` of `events`, if any. */
  private def timerOf(events: Array[Array[Event]]): Option[Long] =
    events.iterator.flatMap(_.iterator.map(_.hi)).minOption.map(TimeArithmetic.ceilMillis)

  /**
   * One side of a join of two streams, as its processor reads it: its columns as rows of their
   * own (copied from the union's struct, or read from the bytes kept in state) and its lifetime's
   * bounds, read by generated code.
   */
  private[streaming] final class JoinSide(
      attributes: Seq[Attribute],
      lifetime: JoinLifetime,
      val keepsUnmatched: Boolean) {
    val width: Int = attributes.size
    private val toUnsafe = UnsafeProjection.create(attributes.map(_.dataType).toArray)
    private val bounds = UnsafeProjection.create(Seq(lifetime.lo, lifetime.hi), attributes)

    /** A copy of `row`, the side's struct in the union's row (an UnsafeRow as the encoder makes it). */
    def copy(row: InternalRow): UnsafeRow = row match {
      case unsafe: UnsafeRow => unsafe.copy()
      case _ => toUnsafe(row).copy()
    }

    def read(bytes: Array[Byte]): UnsafeRow = {
      val row = new UnsafeRow(width)
      row.pointTo(bytes, bytes.length)
      row
    }

    /** The row's `lo`, `None` for NULL. */
    def lo(row: InternalRow): Option[Long] = {
      val b = bounds(row)
      if (b.isNullAt(0)) None else Some(b.getLong(0))
    }

    /** `row` as an event with its closed lifetime, or null where a bound is NULL. */
    private[StreamingRangeJoinProcessor] def event(
        row: UnsafeRow,
        matched: Boolean,
        kept: Boolean): Event = {
      val b = bounds(row)
      if (b.anyNull) null else new Event(row, b.getLong(0), b.getLong(1), matched, kept)
    }
  }
}
