package io.eventwindows.analysis

import io.eventwindows.expressions.WindowParameters
import io.eventwindows.plans.EventWindowAggregate

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * Rejects event windows over streaming plans: run per micro-batch, the window operator would
 * aggregate each batch on its own and silently give wrong windows (Spark's streaming checks pass
 * nodes they do not know, and a third-party operator cannot get state). Every window family
 * that needs the operator becomes an [[EventWindowAggregate]], so this check on that node covers
 * them all, present and future.
 *
 * The plans that run as Spark's own Aggregate (hopping and tumbling windows with per-window output
 * and order-insensitive aggregates, see [[EventWindowAggregation]]) are not an
 * [[EventWindowAggregate]] and stay allowed: they are Spark's streaming aggregation, with state,
 * watermark and output modes, and give the batch answer.
 */
object CheckStreaming extends (LogicalPlan => Unit) {

  override def apply(plan: LogicalPlan): Unit = plan.foreachWithSubqueries {
    case a: EventWindowAggregate if a.isStreaming => unsupported(a.function)
    case _ =>
  }

  def unsupported(function: String): Nothing =
    WindowParameters.fail(function, "streaming DataFrames are not supported yet, only batch " +
      "DataFrames: each micro-batch would be windowed on its own. On streams, hopping_window " +
      "and tumbling_window under output 'window' or 'point', with aggregates that do not " +
      "depend on the order of their input, run: as Spark's own streaming aggregation")
}
