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
 * The plan that runs as Spark's own Aggregate (point events in windows that cannot overlap, see
 * [[EventWindowAggregation]]) is not an [[EventWindowAggregate]] and stays allowed: it is Spark's
 * streaming aggregation, with state, watermark and output modes, and gives the batch answer.
 */
object CheckStreaming extends (LogicalPlan => Unit) {

  override def apply(plan: LogicalPlan): Unit = plan.foreachWithSubqueries {
    case a: EventWindowAggregate if a.isStreaming => unsupported(a.function)
    case _ =>
  }

  def unsupported(function: String): Nothing =
    WindowParameters.fail(function, "streaming DataFrames are not supported yet, only batch " +
      "DataFrames: each micro-batch would be windowed on its own. On streams only point events " +
      "(no end column) in windows that cannot overlap (tumbling_window, or hopping_window with " +
      "hop > size) under output 'window' or 'point', with aggregates that do not depend on the " +
      "order of their input, run: as Spark's own streaming aggregation")
}
