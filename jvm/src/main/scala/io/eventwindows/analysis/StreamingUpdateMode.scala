package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.plans.logical.{AnalysisHelper, LogicalPlan, TransformWithState}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.streaming.WriteToStream
import org.apache.spark.sql.streaming.{OutputMode, StatefulProcessor}

import io.eventwindows.execution.streaming.StreamingWindowProcessor

/**
 * Gives the windows that [[StreamingWindows]] put on `transformWithState` the output mode of
 * their query, where it is update mode and their rows are known while open
 * ([[io.eventwindows.plans.StreamingRules.knowsOpenRows]]): each micro-batch then emits the
 * current version of every row whose result it changed, as Spark's `window()` does in update
 * mode ([[io.eventwindows.execution.streaming.StreamingWindowSpec.earlyRows]]).
 *
 * A DataFrame does not know how it will be written; the query does. Starting a query analyzes
 * its `WriteToStream` (any sink: memory, console, files, `foreach`, `foreachBatch`, tables, on
 * classic and Connect sessions alike), which carries the output mode and the DataFrame's plan, and
 * every micro-batch runs that plan. A post-hoc resolution rule there, after `ResolveWriteToStream`
 * has built the node. The `TransformWithState` node itself stays in append mode: Spark records
 * its output mode in the checkpoint, and only the rows emitted change, not the state.
 */
object StreamingUpdateMode extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case write: WriteToStream if write.outputMode == OutputMode.Update() =>
      // The query's plan was analyzed when its DataFrame was made.
      val query = AnalysisHelper.allowInvokingTransformsInAnalyzer {
        write.inputQuery.transformDown {
          case node: TransformWithState => (node.statefulProcessor: AnyRef) match {
              case windows: StreamingWindowProcessor
                  if windows.spec.rules.knowsOpenRows && !windows.spec.emission.earlyRows =>
                node.copy(statefulProcessor = new StreamingWindowProcessor(
                  windows.spec.copy(emission = windows.spec.emission.copy(earlyRows = true)))
                  .asInstanceOf[StatefulProcessor[Any, Any, Any]])
              case _ => node
            }
        }
      }
      write.copy(inputQuery = query)
    case other => other
  }
}
