package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeSet, Cast, Expression, If, JoinedRow, Literal, MutableProjection,
  SpecificInternalRow, UnsafeProjection
}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.types.{DataType, DoubleType}

import io.eventwindows.execution.aggregate.{AggregateBuffers, WindowMemory}
import io.eventwindows.expressions.{TimeWeighted, TimeWeightedAvg}
import io.eventwindows.plans.ClippedLifetimeColumns

/**
 * The results of the aggregates that read the lifetime of each event clipped to the window
 * (`clipped_start()`, `clipped_end()`, the time-weighted aggregates), which differ from one window
 * to the next even where the window contents do not: the window operator's loop hands every
 * event over as it arrives, and asks for each window's results with the window's extent
 * `[from, to)`. Windows are asked for with non-decreasing starts, after every event that starts
 * before their end, and before any event that starts after it.
 *
 * - `time_weighted_sum(v)` and `time_weighted_avg(v)` (without a FILTER that reads the clipped
 *   lifetime) integrate v over time ([[TimeIntegral]]): O(log n) per event and per window.
 * - Every other such aggregate is computed anew for each window from the events it holds
 *   ([[WindowEvents]]), each read with its clipped lifetime: O(events in the window) per window.
 *
 * @param functions the aggregates, reading `input` and `clippedLifetime`
 * @param filters   their FILTERs, which may read the clipped lifetime too
 */
private[execution] final class ClippedResults(
    functions: Seq[AggregateFunction],
    filters: Seq[Expression],
    input: Seq[Attribute],
    clippedLifetime: ClippedLifetimeColumns,
    memory: WindowMemory) {

  private val clipped = AttributeSet(clippedLifetime.attributes)

  private def integrable(f: AggregateFunction, filter: Expression): Boolean = f match {
    case t: TimeWeighted =>
      t.clippedStart == clippedLifetime.start && t.clippedEnd == clippedLifetime.end &&
      !(t.value.references ++ filter.references).exists(clipped.contains)
    case _ => false
  }

  private val (integrated, recomputed) = functions.indices.partition { i =>
    integrable(functions(i), filters(i))
  }

  /** Per integrated aggregate: v as a DOUBLE, NULL where the FILTER fails. */
  private val integratedValues = MutableProjection.create(
    integrated.map { i =>
      val value = Cast(functions(i).asInstanceOf[TimeWeighted].value, DoubleType)
      if (filters(i) == Literal.TrueLiteral) value
      else If(filters(i), value, Literal(null, DoubleType))
    },
    input)
  private val values = new SpecificInternalRow(integrated.map(_ => DoubleType))
  integratedValues.target(values)
  private val integrals = integrated.map(_ => new TimeIntegral(memory)).toArray
  private val averages = integrated.map(functions(_).isInstanceOf[TimeWeightedAvg]).toArray
  private val ticksPerUnit = integrated.map(functions(_).asInstanceOf[TimeWeighted].ticksPerUnit)
    .toArray

  /** The input columns the recomputed aggregates read: the rows kept keep only those. */
  private val kept: Seq[Attribute] = {
    val read = AttributeSet(recomputed.flatMap(i =>
      functions(i).references ++
        filters(i).references))
    input.filter(read.contains)
  }
  private val keep = UnsafeProjection.create(kept, input)
  private val events = if (recomputed.isEmpty) null else new WindowEvents(memory)
  private lazy val buffers = new AggregateBuffers(
    recomputed.map(functions),
    recomputed.map(filters),
    kept ++ clippedLifetime.attributes)
  private lazy val buffer = buffers.newBuffer()
  private val lifetime = new SpecificInternalRow(clippedLifetime.attributes.map(_.dataType))
  private val event = new JoinedRow

  val resultTypes: Seq[DataType] = functions.map(_.dataType)
  private val results = new SpecificInternalRow(resultTypes)

  /** An event of the current key group, `[start, end)`, and its row. */
  def add(row: InternalRow, start: Long, end: Long): Unit = {
    if (integrals.nonEmpty) {
      integratedValues(row)
      var j = 0
      while (j < integrals.length) {
        if (!values.isNullAt(j)) integrals(j).add(start, end, values.getDouble(j))
        j += 1
      }
    }
    if (events != null) events.add(keep(row).copy(), start, end)
  }

  /** The results over the window `[from, to)`, one field per function (a reused row). */
  def results(from: Long, to: Long): InternalRow = {
    var j = 0
    while (j < integrals.length) {
      val integral = integrals(j)
      integral.query(from, to)
      val i = integrated(j)
      if (integral.weight == 0.0) results.setNullAt(i)
      else if (averages(j)) results.setDouble(i, integral.sum / integral.weight)
      else results.setDouble(i, integral.sum / ticksPerUnit(j))
      j += 1
    }
    if (events != null) {
      buffers.reset(buffer)
      events.foreachIn(from, to) { (row, start, end) =>
        lifetime.setLong(0, Math.max(start, from))
        lifetime.setLong(1, Math.min(end, to))
        buffers.update(buffer, event(row, lifetime))
      }
      val computed = buffers.results(buffer)
      var k = 0
      while (k < recomputed.length) {
        results.update(recomputed(k), computed.get(k, resultTypes(recomputed(k))))
        k += 1
      }
    }
    results
  }

  /** Forgets the events of the key group. */
  def clear(): Unit = {
    integrals.foreach(_.clear())
    if (events != null) events.clear()
  }
}
