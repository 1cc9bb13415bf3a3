package io.eventwindows.execution.sweep

import java.util.ArrayDeque

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.DataType

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.expressions.{EventTime, EventWindow}
import io.eventwindows.plans.WindowDefinition
import io.eventwindows.time.TimeArithmetic

/**
 * The loop of the window operator, shared by every family: one pass over rows in which each key's
 * rows come together, sorted by event start (see [[KeyTimeSorter]]).
 *
 * It reads each row's lifetime, skips rows that are no events (a NULL start, an empty lifetime),
 * rejects a row that ends before it starts, and hands the events of each key group to the
 * family's [[SweepPolicy]], which keeps the window contents in a sliding aggregate and decides
 * what to emit. What it emits ([[SweepRun]]s: one evaluated result and the windows it holds for)
 * becomes output rows here: the keys, the `window` struct and the aggregate results. Aggregates
 * that read the clipped lifetime are not the policy's: the loop hands each event to
 * [[ClippedResults]] too, and asks it for each output row's results with the row's window.
 *
 * Cost: the policy's (amortized O(1) or O(log n) merges per event, one evaluation per result) and
 * the output rows themselves; memory holds the current window contents, not the partition.
 */
private[execution] final class WindowSweepIterator(
    input: Iterator[InternalRow],
    inputAttributes: Seq[Attribute],
    keys: Seq[Attribute],
    window: WindowDefinition,
    policy: SweepPolicy,
    memory: WindowMemory,
    aggregates: WindowAggregates,
    numOutputRows: SQLMetric) extends Iterator[InternalRow] with SweepOutput {

  private val timeType = window.timeType
  private val end = window.end
  private val windowFields = window.family.windowFields.names
  private val anchorType = window.anchorType
  private val keyProjection = UnsafeProjection.create(keys, inputAttributes)
  memory.holder = () =>
    if (keys.isEmpty || key == null) "the window contents of its one group"
    else s"the window contents of the key ${EventWindowsErrors.describeRow(key, keys)}"
  private val lineMax = EventTime.lineMax(timeType)
  private val lifetime = MutableProjection.create(window.start +: end.toSeq, inputAttributes)
  private val times = new SpecificInternalRow(Seq(timeType, timeType))
  lifetime.target(times)

  private val resultCopy = UnsafeProjection.create(aggregates.buffers.resultTypes.toArray)
  private val clipped = aggregates.clipped

  /**
   * True once a group has ended: the clipped results forget it when the next one begins (also
   * before the first, since a replay reuses them).
   */
  private var clippedDone = true
  private val output = {
    val keyRefs = keys.zipWithIndex.map { case (k, i) => BoundReference(i, k.dataType, k.nullable) }
    val fields = windowFields
    val resultTypes = aggregates.resultTypes
    val anchorRef = anchorType.map(t =>
      BoundReference(
        keys.size + fields.size + resultTypes.size,
        t,
        nullable = false))
    val windowStruct = CreateNamedStruct(fields.zipWithIndex.flatMap { case (name, i) =>
      Seq(Literal(name), BoundReference(keys.size + i, timeType, nullable = false))
    } ++ anchorRef.toSeq.flatMap(Seq(Literal(EventWindow.AnchorField), _)))
    val results = resultTypes.zip(aggregates.resultOrdinals).map { case (t, i) =>
      BoundReference(keys.size + fields.size + i, t, nullable = true)
    }
    // The layout WindowSweepIterator.window reads.
    UnsafeProjection.create(keyRefs ++ (windowStruct +: results))
  }
  private val windowRow = new SpecificInternalRow(Seq.fill(windowFields.size)(timeType))
  private val outputRow = new JoinedRow
  private val windowAndResults = new JoinedRow
  private val resultsAndAnchor = new JoinedRow
  private val resultsAndClipped = new JoinedRow

  private val runs = new ArrayDeque[SweepRun]
  private var current: SweepRun = _

  private var key: UnsafeRow = _
  private var started = false
  private var inputDone = false

  /**
   * The event read but not yet handed to the policy, which first emits, one run per step, what
   * comes before it ([[SweepPolicy.emitBefore]]); the row stays valid until the next one is read.
   */
  private var held: InternalRow = _
  private var heldStart = 0L
  private var heldEnd = 0L

  /** True while the policy emits what is left of the group, one run per step. */
  private var finishing = false

  /** The key of the held event when it starts a new group. */
  private var nextKey: UnsafeRow = _

  /** True when `windowRow` holds the window of the next row of `current`. */
  private var ready = false

  override def hasNext: Boolean = {
    while (!ready) {
      if (current != null && current.nextWindow(windowRow)) {
        ready = true
      } else if (!runs.isEmpty) {
        current = runs.poll()
      } else if (!step()) {
        return false
      }
    }
    true
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    ready = false
    numOutputRows += 1
    val results = if (anchorType.isDefined) resultsAndAnchor(current.results, current.anchor)
    else if (clipped != null) {
      resultsAndClipped(current.results, clipped.results(current.extentStart, current.extentEnd))
    } else current.results
    output(outputRow(current.key, windowAndResults(windowRow, results)))
  }

  // SweepOutput
  override def groupKey: UnsafeRow = key

  override def copyResults(results: InternalRow): UnsafeRow = resultCopy(results).copy()

  override def emit(run: SweepRun): Unit = runs.add(run)

  /**
   * One step of work, which emits at most one run from the policy's sweep so that runs do not
   * pile up in memory: finish the group, or hand the held event over, or read the next row; false
   * when nothing is left.
   */
  private def step(): Boolean = {
    if (finishing) {
      if (!policy.emitAtEnd(this)) {
        policy.finishGroup(this)
        // The group's last runs are read before the next step: forget its events after them.
        clippedDone = true
        finishing = false
        key = nextKey
        started = nextKey != null
        nextKey = null
      }
      true
    } else if (held != null) {
      if (!policy.emitBefore(heldStart, heldEnd, this)) {
        policy.consume(held, heldStart, heldEnd, this)
        if (clipped != null) {
          if (clippedDone) clipped.clear()
          clippedDone = false
          clipped.add(held, heldStart, heldEnd)
        }
        held = null
      }
      true
    } else if (input.hasNext) {
      read(input.next())
      true
    } else if (!inputDone) {
      inputDone = true
      finishing = started
      true
    } else {
      false
    }
  }

  /** Holds the row's event for the policy, after the current group's end if it starts a group. */
  private def read(row: InternalRow): Unit = {
    lifetime(row)
    if (times.isNullAt(0)) return // Rows with a NULL start are skipped, as by Spark's window().
    val s = times.getLong(0)
    val e = if (end.isEmpty) {
      TimeArithmetic.pointEventEnd(s, lineMax)
    } else if (times.isNullAt(1)) {
      policy.openEnd(s)
    } else {
      val e = times.getLong(1)
      if (e < s) rejectLifetime(row, s, e)
      e
    }
    // An empty lifetime intersects no window (a message at the end of time is still a message).
    if (e == s && !policy.messages) return

    val rowKey = keyProjection(row)
    if (!started) {
      key = rowKey.copy()
      started = true
    } else if (rowKey != key) {
      nextKey = rowKey.copy()
      finishing = true
    }
    held = row
    heldStart = s
    heldEnd = e
  }

  private def rejectLifetime(row: InternalRow, s: Long, e: Long): Nothing =
    throw EventWindowsErrors.eventEndsBeforeStart(
      s"eventwindows: an event must not end before it starts, but the row " +
        s"${EventWindowsErrors.describeRow(row, inputAttributes)} has end ${Literal(e, timeType)} " +
        s"< start ${Literal(s, timeType)}")
}

private[execution] object WindowSweepIterator {

  /**
   * The `window` struct of an output row (its `keyCount` keys, the struct, the results), of
   * `windowFields` time fields, to read through [[io.eventwindows.plans.WindowFields]].
   */
  def window(out: InternalRow, keyCount: Int, windowFields: Int): InternalRow =
    out.getStruct(keyCount, windowFields)

}

/** Where a [[SweepPolicy]] sends what it decides; the shared iterator makes rows of it. */
private[sweep] trait SweepOutput {

  /** The grouping keys of the current group (a copy the policy may keep). */
  def groupKey: UnsafeRow

  /** A copy of aggregate results, to keep in a [[SweepRun]]. */
  def copyResults(results: InternalRow): UnsafeRow

  /** Queues output rows. */
  def emit(run: SweepRun): Unit

  /** Queues one output row: the current key, `results` and the window's fields. */
  def emitRow(results: InternalRow, window: Array[Long], anchor: InternalRow = null): Unit =
    emit(new SingleWindow(groupKey, copyResults(results), window, anchor))

  /** As [[emitRow]], for a window whose extent `[start, end)` clips its events' lifetimes. */
  def emitClipping(results: InternalRow, window: Array[Long], start: Long, end: Long): Unit = {
    val run = new SingleWindow(groupKey, copyResults(results), window, null)
    run.extentStart = start
    run.extentEnd = end
    emit(run)
  }
}

/**
 * Output rows a policy has decided: one key and one aggregate result (and the anchor row of an
 * anchor window), for one or more windows.
 * Runs are expanded lazily, so a result that holds for many windows costs one evaluation and no
 * memory per window.
 */
private[sweep] abstract class SweepRun(
    val key: UnsafeRow,
    val results: UnsafeRow,
    val anchor: InternalRow = null) {

  /**
   * The extent of the window [[nextWindow]] last wrote, where lifetimes are clipped: the window
   * itself, also where the output lifetime is a point.
   */
  var extentStart = 0L
  var extentEnd = 0L

  /** Writes the next window's fields (`start`, `end`, ...) into `window`; false when done. */
  def nextWindow(window: InternalRow): Boolean
}

/** A run of one row whose window fields (and anchor row, for anchor windows) are known. */
private[sweep] final class SingleWindow(
    key: UnsafeRow,
    results: UnsafeRow,
    fields: Array[Long],
    anchor: InternalRow)
    extends SweepRun(key, results, anchor) {
  private var done = false

  override def nextWindow(window: InternalRow): Boolean = !done && {
    var i = 0
    while (i < fields.length) {
      window.setLong(i, fields(i))
      i += 1
    }
    done = true
    true
  }
}
