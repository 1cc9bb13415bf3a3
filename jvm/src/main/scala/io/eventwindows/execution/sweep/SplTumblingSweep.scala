package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}

import io.eventwindows.execution.aggregate.AggregateBuffers
import io.eventwindows.plans.{SplPolicy, SplTumblingWindow, WindowFields}
import io.eventwindows.time.TimeArithmetic

/**
 * The policy of IBM Streams SPL tumbling windows: the window fills with a partition's tuples (in
 * the order of the order column) and is flushed whole, which empties it:
 *
 *  - `count(n)`: a tuple is inserted, then the window is flushed once it holds n;
 *  - `time(t)`: at the instants first + k * t (first = the partition's first arrival) the window
 *    is flushed, when a tuple at or past the instant arrives and before it is inserted;
 *  - `delta(attribute, d)`: a tuple whose attribute exceeds the oldest held tuple's by more than
 *    d flushes the window first and starts the next one;
 *  - `punct(column)`: a tuple whose column is TRUE is inserted and the window flushed after it.
 *
 * A flush of a non-empty window emits a point event at the flush time (the tuple's order, or the
 * instant). With `flushAtEnd` the window still open at the end of the partition is flushed at its
 * last tuple's order. Nothing ever leaves the window but all at once, so its contents are one
 * aggregation buffer, updated in place by each tuple and reset at each flush: one update per
 * tuple; memory one buffer (not reserved, as the other policies' scratch buffers). On streams a
 * group resumes where the last firing suspended it ([[ResumingSweep]]).
 *
 * One update per tuple, not an entry and a merge in a [[FifoAggregator]]: `benchmarks/README.md`,
 * case (o), has the measurement.
 */
private[sweep] final class SplTumblingSweep(
    family: SplTumblingWindow,
    buffers: AggregateBuffers,
    values: Seq[Expression],
    input: Seq[Attribute],
    protected val lineMax: Long) extends ResumingSweep {

  override def firesBetweenArrivals: Boolean = family.eviction.isInstanceOf[SplPolicy.Time]

  /** The attribute of a delta policy, or the column of a punctuation policy. */
  protected val attributes =
    new SplAttributes(family.functionName, Seq(family.eviction).zip(values), input)

  private val contents = buffers.newBuffer()

  /** The tuples in the window, their first and last order, their numbers in the group. */
  private var held = 0L
  private var firstOrder = 0L
  private var lastOrder = 0L
  private var insertions = 0L
  // The trigger state (ResumingSweep): time(t)'s next flush instant; delta's reference is the
  // oldest held tuple's attribute, held while the window holds tuples.

  override protected def arrive(row: InternalRow, start: Long, out: SweepOutput): Unit = {
    family.eviction match {
      case SplPolicy.Time(period, _) =>
        if (arrivals == 0) nextInstant = TimeArithmetic.add(start, period)
        else passInstantsThrough(start, period, out)
      case _: SplPolicy.Delta
          if hasReference &&
            attributes.exceeds(0, referenceExact, referenceDouble) =>
        flush(start, out)
      case _ =>
    }
    insert(start, row)
    arrivals += 1
    lastArrival = start
    family.eviction match {
      case SplPolicy.Count(n) if held >= n => flush(start, out)
      case _: SplPolicy.Punct if attributes.flag(0) => flush(start, out)
      case _ =>
    }
  }

  override def finishGroup(out: SweepOutput): Unit = {
    family.eviction match {
      // A resumed group passes the instants up to the horizon once a later arrival is known.
      case SplPolicy.Time(period, _) if resuming != null && arrivals > 0 =>
        resuming.instantsBefore.foreach(limit => passInstantsThrough(limit - 1, period, out))
      case _ =>
    }
    if (family.flushAtEnd && resuming == null) flush(lastArrival, out)
    suspendIfResumed(Array.range(0, held.toInt).map(insertions - held + _))
    buffers.reset(contents)
    held = 0L
    hasReference = false
    insertions = 0L
    arrivals = 0L
    restoring = 0L
  }

  override protected def insert(start: Long, row: InternalRow): Unit = {
    if (held == 0) {
      firstOrder = start
      hasReference = true
      if (family.eviction.isInstanceOf[SplPolicy.Delta]) {
        referenceExact = attributes.exactValue(0)
        referenceDouble = attributes.doubleValue(0)
      }
    }
    buffers.update(contents, row)
    lastOrder = start
    held += 1
    insertions += 1
  }

  /**
   * Passes the time instants at or before `time`: the first flushes the window (a row if it holds
   * tuples), and the later ones find it empty, so the next instant is the first after `time`.
   */
  private def passInstantsThrough(time: Long, period: Long, out: SweepOutput): Unit =
    if (nextInstant <= time) {
      flush(nextInstant, out)
      // The first instant after `time`; the difference may exceed Long, never 2^64.
      val past = java.lang.Long.remainderUnsigned(time - nextInstant, period)
      nextInstant = TimeArithmetic.add(time, period - past)
    }

  /** Emits the window's row at `at`, if it holds tuples, and empties it. */
  private def flush(at: Long, out: SweepOutput): Unit = if (held > 0) {
    out.emitRow(
      buffers.results(contents),
      WindowFields.firstAndLast(
        at,
        TimeArithmetic.pointEventEnd(at, lineMax),
        firstOrder,
        lastOrder))
    buffers.reset(contents)
    held = 0L
    hasReference = false
  }
}
