package io.eventwindows

import org.apache.spark.SPARK_VERSION
import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.eventwindows.analysis.{
  AnchorWindowTime, AsofJoinTableFunction, CheckStreaming, ClippedLifetimes,
  DynamicWindowTableFunction, EventWindowAggregation, EventWindowing, LateRowWatermark,
  SliceAnchorWindows, StreamingAsofJoins, StreamingJoinOutputMode, StreamingRangeJoins,
  StreamingUpdateMode, StreamingWindows, SweepAnchorSlices, TemporalJoinTableFunction
}
import io.eventwindows.execution.{AsofJoinStrategy, EventWindowStrategy, RangeJoinStrategy}
import io.eventwindows.expressions.EventWindowsFunctions
import io.eventwindows.shims.SparkLine

/**
 * The entry point: `spark.sql.extensions=io.eventwindows.EventWindowsExtensions`. It only
 * injects; each piece is documented where it lives.
 */
class EventWindowsExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    EventWindowsExtensions.checkSparkLine(SPARK_VERSION)
    // SQL functions: the window functions and the scalar time helpers.
    EventWindowsFunctions.all.foreach(extensions.injectFunction)
    // The table-valued functions over two tables.
    EventWindowsExtensions.TableFunctions.foreach(extensions.injectTableFunction)
    // The ASOF join is resolved once both its tables are.
    extensions.injectResolutionRule(_ => AsofJoinTableFunction.Resolve)
    // A window function in GROUP BY becomes the `window` column below the aggregate.
    extensions.injectResolutionRule(_ => EventWindowing)
    // clipped_start() and clipped_end() take the time type of their aggregate's window.
    extensions.injectResolutionRule(_ => ClippedLifetimes)
    // window_time(window) of dynamic windows whose interval includes its end: that end.
    extensions.injectResolutionRule(_ => AnchorWindowTime)
    // The resolved aggregate over that column becomes an EventWindowAggregate.
    extensions.injectPostHocResolutionRule(_ => EventWindowAggregation)
    // On a stream, that node becomes Spark's TransformWithState where the family runs on streams.
    extensions.injectPostHocResolutionRule(_ => StreamingWindows)
    // A range join of two streams with watermarks on their starts: TransformWithState too.
    extensions.injectPostHocResolutionRule(_ => StreamingRangeJoins)
    extensions.injectPostHocResolutionRule(_ => StreamingAsofJoins)
    // A query in update mode has those windows emit their rows also while open, where they can.
    extensions.injectPostHocResolutionRule(_ => StreamingUpdateMode)
    // Each micro-batch, that node's processor learns the watermark its late rows are dropped by.
    extensions.injectColumnar(_ => LateRowWatermark)
    // A join of two streams written in another output mode than Append is an error, found
    // before Spark's own checks of the output mode (run after the hint rules) let it through.
    extensions.injectHintResolutionRule(_ => StreamingJoinOutputMode)
    // Any other EventWindowAggregate over a stream is an analysis error, not per-batch windows.
    extensions.injectCheckRule(_ => CheckStreaming)
    // A clipped lifetime left in the plan is one outside the aggregates of a window.
    extensions.injectCheckRule(_ => ClippedLifetimes.check)
    // Dynamic windows take their messages and anchors apart, so that the messages are folded
    // before the shuffle; once the anchors' size is known, they are broadcast or swept over
    // (anchors Spark cannot size are measured by adaptive execution first).
    extensions.injectOptimizerRule(_ => SliceAnchorWindows)
    extensions.injectPreCBORule(_ => SweepAnchorSlices)
    extensions.injectRuntimeOptimizerRule(_ => SweepAnchorSlices.AtRuntime)
    // EventWindowAggregate runs as EventWindowAggregateExec, AnchorWindowAggregate with the
    // anchors broadcast, AnchorSlices as a partial aggregate.
    extensions.injectPlannerStrategy(_ => EventWindowStrategy)
    // Joins by an overlap of lifetimes or a point in an interval run as a sweep, not pair by pair.
    extensions.injectPlannerStrategy(_ => RangeJoinStrategy)
    // ASOF joins run as a probe of each task's sorted right rows by its left rows.
    extensions.injectPlannerStrategy(_ => AsofJoinStrategy)
  }
}

object EventWindowsExtensions {

  /**
   * The table-valued functions, as `injectTableFunction` takes them: dynamic windows over two
   * tables, StreamInsight's temporal join of two tables (a join the RangeJoin rule plans) and the
   * ASOF join of two tables (pandas' merge_asof).
   */
  val TableFunctions: Seq[(FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan)] =
    Seq(
      DynamicWindowTableFunction.registration,
      TemporalJoinTableFunction.registration,
      AsofJoinTableFunction.registration)

  /** The Spark lines eventwindows builds a jar for (as project/SparkLines.scala lists them). */
  val SparkLines: Seq[String] = Seq("4.0", "4.1", "4.2", "4.3")

  /**
   * A jar runs on the Spark line it is built for alone: Spark's internal API, which a Catalyst
   * extension uses, changes between lines (`SparkShims`). Another line fails here, when the
   * session starts, instead of at some later call with a `NoSuchMethodError`.
   */
  def checkSparkLine(sparkVersion: String): Unit = {
    val line = sparkVersion.split('.').take(2).mkString(".")
    if (line != SparkLine.line) {
      val use =
        if (SparkLines.contains(line)) s"use the jar of its line, eventwindows-spark-$line.jar"
        else s"eventwindows runs on the Spark lines ${SparkLines.mkString(", ")}"
      throw new IllegalStateException(
        s"eventwindows-spark-${SparkLine.line}.jar is built for Spark " +
          s"${SparkLine.line}.x, but this is Spark $sparkVersion: $use")
    }
  }
}
