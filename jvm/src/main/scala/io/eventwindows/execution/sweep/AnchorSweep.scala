package io.eventwindows.execution.sweep

import java.util.PriorityQueue

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Expression, MutableProjection, SpecificInternalRow, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.types.DataType

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.aggregate.{AggregateBuffers, SlidingAggregator, WindowMemory}
import io.eventwindows.expressions.{CheckedAnchorStart, EventTime}
import io.eventwindows.plans.{AnchorValues, AnchorWindow, WindowFields}
import io.eventwindows.time.TimeArithmetic

/**
 * The policy of dynamic windows ([[AnchorWindow]]): a key's messages and anchors arrive in one
 * stream, by time (an anchor at its interval's start, before the messages at that time when the
 * start is inclusive, after them when it is exclusive).
 *
 * Messages are appended to a [[SlidingAggregator]] in time order, consecutive messages sharing an
 * entry (a pane) until an anchor arrives or is evaluated; so every anchor's window is a range of
 * entries: from the first entry after its arrival to the last one before a message beyond its end.
 * Open anchors wait in a heap ordered by their (inclusive) end and are evaluated by an O(log n)
 * range query when a message beyond their end arrives, or when the key ends; intervals may
 * overlap, nest or be empty. Entries older than every open anchor's range leave the tree, so
 * memory holds the messages of the open anchors' intervals and the open anchors.
 */
private[execution] final class AnchorSweep(
    family: AnchorWindow,
    buffers: AggregateBuffers,
    memory: WindowMemory,
    values: Seq[Expression],
    input: Seq[Attribute],
    timeType: DataType) extends SweepPolicy {
  // A row of the values (AnchorValues): the anchor's start, its end, its row (NULL for messages).
  private val anchorType = AnchorValues.of(values).anchor.dataType
  private val valueRow = new SpecificInternalRow(values.map(_.dataType))
  private val readValues = MutableProjection.create(values, input).target(valueRow)
  private val anchorCopy = UnsafeProjection.create(Seq(AnchorValues.anchorReference(anchorType)))

  private val tree = new SlidingAggregator(buffers, memory)

  /** The entries in the tree, oldest first, and the index of the oldest. */
  private val entries = new LongQueue
  private var firstEntryIndex = 0L
  private var open = SlidingAggregator.NoEntry

  private final class Anchor(
      val start: Long,
      val end: Long,
      val upper: Long,
      val firstEntry: Long,
      val row: UnsafeRow) {
    var done = false
  }
  private val byEnd = new PriorityQueue[Anchor](
    16,
    (a: Anchor, b: Anchor) => java.lang.Long.compare(a.upper, b.upper))

  /** The open anchors with a non-empty window by arrival, also the order of their first entries. */
  private val byArrival = new java.util.ArrayDeque[Anchor]

  override def openEnd(start: Long): Long =
    TimeArithmetic.pointEventEnd(start, EventTime.lineMax(timeType))

  override def messages: Boolean = true

  override def consume(row: InternalRow, start: Long, end: Long, out: SweepOutput): Unit = {
    readValues(row)
    if (AnchorValues.isMessage(valueRow)) {
      // A message: the anchors it is beyond the end of have their whole window.
      while (!byEnd.isEmpty && byEnd.peek().upper < start) evaluate(byEnd.poll(), out)
      // With no open anchor no window needs it: later anchors' windows start after it.
      if (byEnd.isEmpty) return
      if (open == SlidingAggregator.NoEntry) {
        open = tree.append(start)
        entries.add(open)
      }
      tree.update(open, row)
    } else {
      if (AnchorValues.hasNullEnd(valueRow)) reject()
      val (s, e) = (AnchorValues.start(valueRow), AnchorValues.end(valueRow))
      if (e < s) reject()
      sealOpen()
      // An exclusive end at the very beginning of the line leaves nothing before it.
      val empty = !family.bounds.upperInclusive && e == Long.MinValue
      val upper = if (family.bounds.upperInclusive || empty) e else e - 1L
      val first = if (empty) Long.MaxValue else firstEntryIndex + entries.size
      val anchor = new Anchor(s, e, upper, first, anchorCopy(valueRow).copy())
      byEnd.add(anchor)
      // An empty window needs no entry, so it must not hold any back from eviction.
      if (!empty) byArrival.add(anchor)
    }
  }

  override def finishGroup(out: SweepOutput): Unit = {
    while (!byEnd.isEmpty) evaluate(byEnd.poll(), out)
    sealOpen()
    while (!entries.isEmpty) tree.remove(entries.removeFirst())
    firstEntryIndex = 0L
    tree.restart()
  }

  private def sealOpen(): Unit = if (open != SlidingAggregator.NoEntry) {
    tree.seal(open)
    open = SlidingAggregator.NoEntry
  }

  private def evaluate(anchor: Anchor, out: SweepOutput): Unit = {
    sealOpen()
    val first = anchor.firstEntry - firstEntryIndex
    val results = if (first >= entries.size) {
      tree.rangeResults(SlidingAggregator.NoEntry, SlidingAggregator.NoEntry)
    } else {
      tree.rangeResults(entries(first), entries.last)
    }
    out.emitRow(results, WindowFields.lifetime(anchor.start, anchor.end), anchor.row)
    anchor.done = true
    evictUnneeded()
  }

  /** Removes the entries before the first entry of every open anchor (or every entry). */
  private def evictUnneeded(): Unit = {
    while (!byArrival.isEmpty && byArrival.peek().done) byArrival.poll()
    val needed =
      if (byArrival.isEmpty) firstEntryIndex + entries.size else byArrival.peek().firstEntry
    while (firstEntryIndex < needed) {
      tree.remove(entries.removeFirst())
      firstEntryIndex += 1
    }
  }

  /** The anchor in `valueRow` is not a valid one. */
  private def reject(): Nothing = throw EventWindowsErrors.invalidInput(
    CheckedAnchorStart.rejectionMessage(
      family,
      anchorType,
      AnchorValues.anchor(valueRow, anchorType),
      timeType,
      AnchorValues.startOrNull(valueRow, timeType),
      AnchorValues.endOrNull(valueRow, timeType)))
}
