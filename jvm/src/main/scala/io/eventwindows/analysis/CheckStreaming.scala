package io.eventwindows.analysis

import io.eventwindows.expressions.WindowParameters
import io.eventwindows.plans.{AnchorWindow, EventWindowAggregate, SplTumblingWindow}

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * Rejects the event windows over streaming plans that do not run on streams: run per micro-batch,
 * the window operator would aggregate each batch on its own and silently give wrong windows
 * (Spark's streaming checks pass nodes they do not know, and a third-party operator cannot get
 * state). Every window family that needs the operator becomes an [[EventWindowAggregate]];
 * [[StreamingWindows]] turns those that run on streams into Spark's `TransformWithState`, so any
 * [[EventWindowAggregate]] left over a stream is one that does not, and this check names why.
 *
 * The plans that run as Spark's own Aggregate (hopping and tumbling windows with per-window output
 * and order-insensitive aggregates, see [[EventWindowAggregation]]) are not an
 * [[EventWindowAggregate]] and stay allowed: they are Spark's streaming aggregation, with state,
 * watermark and output modes, and give the batch answer.
 */
object CheckStreaming extends (LogicalPlan => Unit) {

  override def apply(plan: LogicalPlan): Unit = plan.foreachWithSubqueries {
    case a: EventWindowAggregate if a.isStreaming => reject(a)
    case _ =>
  }

  /** The error for a streaming [[EventWindowAggregate]] that does not run on streams. */
  def reject(a: EventWindowAggregate): Nothing = a.family match {
    case _: AnchorWindow =>
      WindowParameters.fail(a.function, "dynamic windows (dynamic_window) are not supported on " +
        "streaming DataFrames: an anchor's interval may reach back to any earlier message, so " +
        "every message would have to be kept; run them on a batch DataFrame")
    case SplTumblingWindow(_, true) =>
      WindowParameters.fail(a.function, "`flush_at_end` => true is not supported on streaming " +
        "DataFrames: a stream's groups never end, so their last windows would never be " +
        "flushed; leave it false (the default), or run the query on a batch DataFrame")
    case _ =>
      // Every family has StreamingFamily rules today; a new one without them lands here.
      WindowParameters.fail(a.function, "this window is not supported on streaming DataFrames " +
        "yet; run it on a batch DataFrame")
  }
}
