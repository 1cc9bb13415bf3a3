package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.plans.logical.{Join, LogicalPlan}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.plans.{AsofJoin, EventWindowAggregate}

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
 *
 * A range join of two streams left to Spark's own stream-stream join that Spark cannot run
 * either fails here too, naming the watermark or join type to use ([[StreamingRangeJoins.check]]).
 */
object CheckStreaming extends (LogicalPlan => Unit) {

  override def apply(plan: LogicalPlan): Unit = plan.foreachWithSubqueries {
    case a: EventWindowAggregate if a.isStreaming => reject(a)
    case j: AsofJoin if j.right.isStreaming && !j.left.isStreaming => rejectStreamingRight()
    case j: Join if j.left.isStreaming && j.right.isStreaming => StreamingRangeJoins.check(j)
    case _ =>
  }

  /**
   * The error for an [[AsofJoin]] of a static left side and a streaming right side, saying what
   * runs instead (one of two streams is [[StreamingAsofJoins]]').
   */
  private def rejectStreamingRight(): Nothing =
    throw EventWindowsErrors.unsupported(
      "asof_join",
      "the right side is a stream and the left " +
        "a static table (as for Spark's left outer join, a static left row's match would change " +
        "as the stream goes on); an ASOF join runs with the stream on the left and a static table " +
        "or a stream (each with a watermark on its time column) on the right")

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
