package io.eventwindows.execution

import java.util.{ArrayDeque, PriorityQueue}

import io.eventwindows.EventWindowsInputException
import io.eventwindows.expressions.{EventTime, TimeArithmetic}
import io.eventwindows.plans.WindowAxis

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.DataType

/**
 * The loop of the window operator: one pass over rows in which each key's rows come together,
 * sorted by event start (see [[KeyTimeSorter]]).
 *
 * Within a key group each event occupies an interval `[enter, leave)` of the family's
 * [[WindowAxis]]. The sweep walks the axis from one enter/leave point to the next: at an enter
 * point it appends the events entering there to the [[SlidingAggregator]] (events with the same
 * interval share one entry, a pane), at a leave point it removes the events leaving. Between two
 * points the contents are constant; that run is evaluated once and becomes output rows through the
 * axis (one row for a snapshot interval, one per window for hopping windows). Cost: O(log n)
 * merges per entry, one evaluation per run, and the output rows themselves; memory holds the
 * events of the current windows, not the partition.
 */
final class WindowSweepIterator(
    input: Iterator[InternalRow],
    inputAttributes: Seq[Attribute],
    keys: Seq[Attribute],
    start: Expression,
    end: Option[Expression],
    timeType: DataType,
    axis: WindowAxis,
    buffers: AggregateBuffers,
    numOutputRows: SQLMetric) extends Iterator[InternalRow] {

  private val keyProjection = UnsafeProjection.create(keys, inputAttributes)
  private val lineMax = EventTime.lineMax(timeType)
  private val lifetime = MutableProjection.create(
    start +: end.toSeq, inputAttributes)
  private val times = new SpecificInternalRow(Seq(timeType, timeType))
  lifetime.target(times)

  private val resultCopy = UnsafeProjection.create(buffers.resultTypes.toArray)
  private val output = {
    val keyRefs = keys.zipWithIndex.map { case (k, i) => BoundReference(i, k.dataType, k.nullable) }
    val window = CreateNamedStruct(Seq(
      Literal("start"), BoundReference(keys.size, timeType, nullable = false),
      Literal("end"), BoundReference(keys.size + 1, timeType, nullable = false)))
    val results = buffers.resultTypes.zipWithIndex.map { case (t, i) =>
      BoundReference(keys.size + 2 + i, t, nullable = true)
    }
    UnsafeProjection.create(keyRefs ++ (window +: results))
  }
  private val outputTimes = new SpecificInternalRow(Seq(timeType, timeType))
  private val outputRow = new JoinedRow
  private val timesAndResults = new JoinedRow

  private val sliding = new SlidingAggregator(buffers)

  /** An entry of the sliding aggregate and where it leaves the axis. */
  private final class Held(val leave: Long, val entry: sliding.Entry)
  private val held = new PriorityQueue[Held](64, (a: Held, b: Held) => java.lang.Long.compare(a.leave, b.leave))

  /** A run of constant contents, evaluated, waiting to become rows. */
  private final class Run(val from: Long, val to: Long, val key: UnsafeRow, val results: UnsafeRow)
  private val runs = new ArrayDeque[Run]
  private var current: Run = _
  private var nextPosition = 0L

  private var key: UnsafeRow = _
  private var position = 0L
  private var started = false
  private var open: sliding.Entry = _
  private var openLeave = 0L
  private var inputDone = false

  override def hasNext: Boolean = {
    while (current == null || nextPosition >= current.to) {
      if (!runs.isEmpty) {
        current = runs.poll()
        nextPosition = current.from
      } else if (!pull()) {
        return false
      }
    }
    true
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    outputTimes.setLong(0, axis.outputStart(nextPosition, current.to))
    outputTimes.setLong(1, axis.outputEnd(nextPosition, current.to))
    nextPosition = if (axis.rowPerPosition) nextPosition + 1 else current.to
    numOutputRows += 1
    output(outputRow(current.key, timesAndResults(outputTimes, current.results)))
  }

  /** Reads one more input row, or ends the last group; false when nothing is left. */
  private def pull(): Boolean = {
    if (input.hasNext) {
      consume(input.next())
      true
    } else if (!inputDone) {
      inputDone = true
      if (started) finishGroup()
      true
    } else {
      false
    }
  }

  private def consume(row: InternalRow): Unit = {
    lifetime(row)
    if (times.isNullAt(0)) return // Rows with a NULL start are skipped, as by Spark's window().
    val s = times.getLong(0)
    val e = if (end.isEmpty) {
      TimeArithmetic.pointEventEnd(s, lineMax)
    } else if (times.isNullAt(1)) {
      axis.openEnd(s)
    } else {
      val e = times.getLong(1)
      if (e < s) rejectLifetime(row, s, e)
      e
    }
    // An empty lifetime intersects no window; nor does an event in a gap between windows.
    if (e == s) return
    val enter = axis.enter(s, e)
    val leave = axis.leave(s, e)
    if (leave <= enter) return

    val rowKey = keyProjection(row)
    if (started && rowKey != key) finishGroup()
    if (!started) {
      key = rowKey.copy()
      position = enter
      started = true
    } else if (enter > position) {
      advanceTo(enter)
    }
    if (open == null || openLeave != leave) {
      sealOpen()
      open = sliding.append()
      openLeave = leave
    }
    sliding.update(open, row)
  }

  private def sealOpen(): Unit = if (open != null) {
    sliding.seal(open)
    held.add(new Held(openLeave, open))
    open = null
  }

  /** Emits the runs before `target` and removes the events leaving on the way. */
  private def advanceTo(target: Long): Unit = {
    sealOpen()
    while (!sliding.isEmpty && position < target) {
      val runEnd = Math.min(held.peek().leave, target)
      runs.add(new Run(position, runEnd, key, resultCopy(sliding.results()).copy()))
      position = runEnd
      while (!held.isEmpty && held.peek().leave <= position) sliding.remove(held.poll().entry)
    }
    position = target
  }

  private def finishGroup(): Unit = {
    advanceTo(Long.MaxValue)
    sliding.restart()
    started = false
  }

  private def rejectLifetime(row: InternalRow, s: Long, e: Long): Nothing = {
    val values = inputAttributes.zipWithIndex.map { case (a, i) =>
      s"${a.name}=${Literal(row.get(i, a.dataType), a.dataType)}"
    }
    throw new EventWindowsInputException(
      s"eventwindows: an event must not end before it starts, but the row " +
        s"(${values.mkString(", ")}) has end ${Literal(e, timeType)} < start ${Literal(s, timeType)}")
  }
}
