package io.eventwindows.analysis

import io.eventwindows.EventWindowsErrors
import io.eventwindows.plans.EventWindowAggregate

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

  /**
   * The error for a streaming [[EventWindowAggregate]] that does not run on streams: the family
   * says why ([[io.eventwindows.plans.WindowFamily.onStreams]]).
   */
  def reject(a: EventWindowAggregate): Nothing = {
    val why = a.window.family.onStreams.left.getOrElse(s"${a.window.family} runs on streams, " +
      "but this plan skipped the rule that plans it so")
    throw EventWindowsErrors.unsupported(a.window.function, why)
  }
}
