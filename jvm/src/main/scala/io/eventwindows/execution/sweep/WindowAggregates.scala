package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.types.DataType

import io.eventwindows.execution.aggregate.{AggregateBuffers, WindowMemory}
import io.eventwindows.plans.ClippedLifetimeColumns

/**
 * The aggregates of one window operator in a task, as the sweep computes them: those that read
 * events alone live in the policy's aggregators (`buffers`); those that read the clipped lifetime
 * (`clippedLifetime`, see [[io.eventwindows.plans.EventWindowAggregate]]) are computed per window
 * by [[ClippedResults]] (`clipped`, null if there are none).
 */
private[execution] final class WindowAggregates(
    functions: Seq[AggregateFunction],
    filters: Seq[Expression],
    input: Seq[Attribute],
    partials: Seq[Attribute],
    clippedLifetime: Option[ClippedLifetimeColumns],
    memory: WindowMemory) {

  private val (windowed, plain) = {
    val clipped = AttributeSet(clippedLifetime.toSeq.flatMap(_.attributes))
    functions.indices.partition { i =>
      (functions(i).references ++ filters(i).references).exists(clipped.contains)
    }
  }

  val buffers = new AggregateBuffers(plain.map(functions), plain.map(filters), input, partials)

  val clipped: ClippedResults = clippedLifetime.filter(_ => windowed.nonEmpty).map { columns =>
    new ClippedResults(windowed.map(functions), windowed.map(filters), input, columns, memory)
  }.orNull

  /** The result types, one per function. */
  val resultTypes: Seq[DataType] = functions.map(_.dataType)

  /**
   * Where each function's result lies in the row of the aggregators' results followed by the
   * clipped ones.
   */
  val resultOrdinals: Seq[Int] = {
    val order = plain ++ windowed
    functions.indices.map(order.indexOf)
  }
}
