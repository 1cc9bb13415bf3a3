package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, TransformWithState}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.streaming.WriteToStreamStatement
import org.apache.spark.sql.streaming.OutputMode

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.streaming.{StreamingAsofJoinProcessor, StreamingRangeJoinProcessor}

/**
 * Refuses a query that writes a join of two streams ([[StreamingRangeJoins]],
 * [[StreamingAsofJoins]]) in an output mode other than Append, as Spark refuses its own joins of
 * two streams ("only in Append output mode"): each row of such a join is emitted once, when
 * final, so Complete mode has no result table to give and Update mode nothing to update.
 *
 * The output mode is known only when `writeStream.start()` analyzes its `WriteToStreamStatement`,
 * where Spark's `ResolveWriteToStream` (in the analyzer's "Resolution" batch) runs
 * `UnsupportedOperationChecker` on the query. By then the join is Spark's `TransformWithState`,
 * which that checker lets through in Update mode, and in Complete mode with an aggregation after
 * it (without one, it fails saying only that there is no aggregation). So this check is a hint
 * resolution rule: the analyzer's "Hints" batch runs before "Resolution", the one place an
 * extension sees the output mode before Spark's checker. It changes nothing: the plan is returned
 * as it is.
 */
object StreamingJoinOutputMode extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    plan match {
      case write: WriteToStreamStatement if write.outputMode != OutputMode.Append() =>
        write.inputQuery.foreach {
          case node: TransformWithState => joinOfStreams(node).foreach { join =>
              throw EventWindowsErrors.streamJoinOutputMode(join, write.outputMode.toString)
            }
          case _ =>
        }
      case _ =>
    }
    plan
  }

  /** The join of two streams that `node` runs, as errors name it, if it runs one. */
  private def joinOfStreams(node: TransformWithState): Option[String] =
    (node.statefulProcessor: AnyRef) match {
      case p: StreamingRangeJoinProcessor => Some(p.spec.name)
      case _: StreamingAsofJoinProcessor => Some(AsofJoinTableFunction.Name)
      case _ => None
    }
}
