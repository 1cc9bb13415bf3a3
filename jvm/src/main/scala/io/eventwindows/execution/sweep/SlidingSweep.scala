package io.eventwindows.execution.sweep

import java.util.PriorityQueue

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.aggregate.{
  AggregateBuffers, FifoAggregator, SlidingAggregator, WindowMemory
}
import io.eventwindows.plans.{SlidingWindow, SplPolicy, WindowFields}
import io.eventwindows.time.TimeArithmetic

/**
 * The policy of IBM Streams SPL sliding windows, which follows the SPL runtime on each arrival of
 * a tuple (at order value `now`):
 *
 *  1. a time trigger first fires at each of its instants before `now` (after time eviction at
 *     that instant);
 *  1. a delta trigger is checked against the window as it is before the tuple: it fires if the
 *     tuple's attribute exceeds the last triggering tuple's by more than d (the first tuple only
 *     sets that reference), and the tuple becomes the reference;
 *  1. eviction: count(n) drops the oldest while n are held; time(t) drops the tuples older than
 *     `now - t`; delta(attribute, d) drops every tuple whose attribute is more than d below the
 *     new one's, wherever it is in the window;
 *  1. insertion;
 *  1. a count trigger fires on every n-th arrival.
 *
 * At the end of the partition a time trigger fires at its remaining instants up to the last
 * arrival. A firing over a non-empty window emits a point event at the firing time. Count and time
 * eviction remove the oldest tuples, so the contents live in a [[FifoAggregator]] (amortized O(1)
 * merges per tuple); delta eviction removes tuples anywhere, so they live in a
 * [[SlidingAggregator]] (O(log n) merges), found through a heap ordered by the attribute
 * (O(log n) per eviction). On streams a group resumes where the last firing suspended it
 * ([[ResumingSweep]]).
 */
private[execution] final class SlidingSweep(
    family: SlidingWindow,
    buffers: AggregateBuffers,
    memory: WindowMemory,
    values: Seq[Expression],
    input: Seq[Attribute],
    protected val lineMax: Long,
    maxFirings: Long) extends ResumingSweep {
  import TimeArithmetic.{add, subtract}

  /** The delta attributes, in the order of `values`: the eviction's first, then the trigger's. */
  protected val attributes = new SplAttributes(
    family.functionName,
    Seq(family.eviction, family.trigger).collect { case d: SplPolicy.Delta => d }.zip(values),
    input)

  private val evictionDelta = family.eviction.isInstanceOf[SplPolicy.Delta]

  override def firesBetweenArrivals: Boolean = family.trigger.isInstanceOf[SplPolicy.Time]
  private val triggerSlot = if (evictionDelta) 1 else 0

  private val contents: Contents = if (evictionDelta) new TreeContents else new FifoContents

  /** The tuples inserted in the group so far, resumed ones included: the next one's number. */
  private var insertions = 0L

  override protected def arrive(row: InternalRow, start: Long, out: SweepOutput): Unit = {
    family.trigger match {
      case SplPolicy.Time(period, _) =>
        if (arrivals == 0) nextInstant = add(start, period)
        else fireInstantsBefore(start, period, out)
      case _: SplPolicy.Delta =>
        // The first tuple only sets the reference; a firing tuple becomes the reference.
        val triggered = hasReference &&
          attributes.exceeds(triggerSlot, referenceExact, referenceDouble)
        if (triggered) fire(start, out)
        if (triggered || !hasReference) {
          hasReference = true
          referenceExact = attributes.exactValue(triggerSlot)
          referenceDouble = attributes.doubleValue(triggerSlot)
        }
      case _ =>
    }
    family.eviction match {
      case SplPolicy.Count(n) => while (contents.size >= n) contents.evictOldest()
      case SplPolicy.Time(t, _) => evictOlderThan(subtract(start, t))
      case _: SplPolicy.Delta => contents.evictExceeded()
      case _: SplPolicy.Punct =>
        throw new IllegalStateException("punct(column) is not a sliding policy")
    }
    insert(start, row)
    arrivals += 1
    lastArrival = start
    family.trigger match {
      case SplPolicy.Count(n) if arrivals % n == 0 => fire(start, out)
      case _ =>
    }
  }

  override def finishGroup(out: SweepOutput): Unit = {
    val limit = instantsLimit(add(lastArrival, 1L))
    family.trigger match {
      case SplPolicy.Time(period, _) if arrivals > 0 => fireInstantsBefore(limit, period, out)
      case _ =>
    }
    suspendIfResumed(contents.tupleNumbers)
    contents.clear()
    arrivals = 0L
    hasReference = false
    insertions = 0L
    restoring = 0L
  }

  override protected def insert(start: Long, row: InternalRow): Unit = {
    contents.insert(start, row, insertions)
    insertions += 1
  }

  /** The time trigger's instants before `limit`, each after time eviction at that instant. */
  private def fireInstantsBefore(limit: Long, period: Long, out: SweepOutput): Unit = {
    checkFirings(limit, period)
    while (nextInstant < limit) {
      family.eviction match {
        case SplPolicy.Time(t, _) => evictOlderThan(subtract(nextInstant, t))
        case _ =>
      }
      if (contents.isEmpty) {
        // Nothing to emit until a tuple arrives: skip to the first instant at or after the limit.
        val steps = (subtract(limit, nextInstant) - 1) / period + 1
        nextInstant =
          TimeArithmetic.boundary(steps, nextInstant, period, Long.MinValue, Long.MaxValue)
      } else {
        fire(nextInstant, out)
        nextInstant = add(nextInstant, period)
      }
      if (nextInstant == Long.MaxValue) return
    }
  }

  /**
   * Each instant of a time trigger over a non-empty window is a row: fails, naming the arrival,
   * when more than `maxFirings` of them lie before `limit` (a gap of many periods between two
   * tuples, with count or delta eviction, or time eviction longer than the gap), instead of
   * emitting rows for years. The window changes between arrivals only by time eviction, which
   * empties it once its newest tuple is older than the eviction's time.
   */
  private def checkFirings(limit: Long, period: Long): Unit = if (!contents.isEmpty) {
    val until = family.eviction match {
      case SplPolicy.Time(t, _) => Math.min(limit, add(add(contents.newestOrder, t), 1L))
      case _ => limit
    }
    val firings = if (until <= nextInstant) BigInt(0)
    else (BigInt(until) - nextInstant - 1) / period + 1
    if (firings > maxFirings) {
      throw EventWindowsErrors.tooManyWindows(s"${family.functionName}: the time trigger " +
        s"'${family.trigger.sql}' would fire $firings times before the tuple at order $limit " +
        s"(the window holds tuples from ${contents.oldestOrder} to ${contents.newestOrder}), more " +
        s"than the limit of $maxFirings rows (${EventWindowsConf.MaxWindowsPerEvent}); use a " +
        "longer period, or raise the limit")
    }
  }

  private def evictOlderThan(limit: Long): Unit =
    while (!contents.isEmpty && contents.oldestOrder < limit) contents.evictOldest()

  private def fire(at: Long, out: SweepOutput): Unit = if (!contents.isEmpty) {
    out.emitRow(
      contents.results(),
      WindowFields.firstAndLast(
        at,
        TimeArithmetic.pointEventEnd(at, lineMax),
        contents.oldestOrder,
        contents.newestOrder))
  }

  /** The window's tuples in arrival order. */
  private trait Contents {
    def isEmpty: Boolean
    def size: Long
    def oldestOrder: Long
    def newestOrder: Long

    /** Inserts tuple number `number` of the group (numbers increase by one per insertion). */
    def insert(order: Long, row: InternalRow, number: Long): Unit

    /** The numbers of the tuples in the window, in arrival order. */
    def tupleNumbers: Array[Long]
    def evictOldest(): Unit

    /** Delta eviction: drops every tuple whose attribute the current one exceeds by more than d. */
    def evictExceeded(): Unit
    def results(): InternalRow
    def clear(): Unit
  }

  /** Contents that leave oldest first (count and time eviction). */
  private final class FifoContents extends Contents {
    private val fifo = new FifoAggregator(buffers, memory)
    override def isEmpty: Boolean = fifo.isEmpty
    override def size: Long = fifo.waitingIndex - fifo.headIndex
    override def oldestOrder: Long = fifo.headTime
    override def newestOrder: Long = fifo.lastIncludedTime
    private var next = 0L
    override def insert(order: Long, row: InternalRow, number: Long): Unit = {
      fifo.add(order, row)
      fifo.include()
      next = number + 1
    }
    // First in, first out: the window holds the last `size` tuples inserted.
    override def tupleNumbers: Array[Long] = Array.range(0, size.toInt).map(next - size + _)
    override def evictOldest(): Unit = fifo.evict()
    override def evictExceeded(): Unit =
      throw new IllegalStateException("delta eviction keeps its tuples in a tree")
    override def results(): InternalRow = fifo.results()
    override def clear(): Unit = fifo.clear()
  }

  /** Contents that leave in any order (delta eviction), with a heap by attribute value. */
  private final class TreeContents extends Contents {
    private val tree = new SlidingAggregator(buffers, memory, withTimes = true)
    private final class Held(
        val exact: Long,
        val approx: Double,
        val entry: SlidingAggregator.Entry,
        val number: Long)
    private val byAttribute = new PriorityQueue[Held](
      64,
      (a: Held, b: Held) =>
        if (attributes.exact(0)) java.lang.Long.compare(a.exact, b.exact)
        else java.lang.Double.compare(a.approx, b.approx))

    override def isEmpty: Boolean = tree.isEmpty
    override def size: Long = byAttribute.size
    override def oldestOrder: Long = tree.timeOf(tree.oldest)
    override def newestOrder: Long = tree.timeOf(tree.newest)
    override def insert(order: Long, row: InternalRow, number: Long): Unit = {
      val entry = tree.append(order)
      tree.update(entry, row)
      tree.seal(entry)
      memory.reserve(SlidingSweep.HeldBytes)
      byAttribute.add(new Held(attributes.exactValue(0), attributes.doubleValue(0), entry, number))
    }
    override def tupleNumbers: Array[Long] = byAttribute.asScala.map(_.number).toArray.sorted
    override def evictOldest(): Unit =
      throw new IllegalStateException("delta eviction removes tuples by attribute")
    override def evictExceeded(): Unit = {
      while (!byAttribute.isEmpty &&
        attributes.exceeds(0, byAttribute.peek().exact, byAttribute.peek().approx)) {
        evict()
      }
    }
    private def evict(): Unit = {
      tree.remove(byAttribute.poll().entry)
      memory.release(SlidingSweep.HeldBytes)
    }
    override def results(): InternalRow = tree.results()
    override def clear(): Unit = {
      while (!byAttribute.isEmpty) evict()
      tree.restart()
    }
  }
}

private[execution] object SlidingSweep {

  /** What a tuple's place in the heap by attribute costs: the object and the heap's slot. */
  private val HeldBytes = 56L
}
