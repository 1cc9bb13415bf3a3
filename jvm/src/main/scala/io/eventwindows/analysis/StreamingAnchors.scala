package io.eventwindows.analysis

import io.eventwindows.execution.streaming.CheckedAnchorStart
import io.eventwindows.expressions.{AnchorSortKey, WindowParameters}
import io.eventwindows.plans.{AnchorWindow, EventWindowAggregate}
import io.eventwindows.shims.SparkLine

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeMap, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, LogicalPlan, Project, Union}
import org.apache.spark.sql.types.Metadata

/**
 * Prepares a streaming dynamic window (a family whose window carries its anchor) for
 * [[StreamingWindows]]: the table of messages and anchors that `dynamic_window` builds,
 * {{{
 *   EventWindowAggregate anchor_window, lifetime [if (isnull(anchor)) time else start, point)
 *   +- Project [...]                      (none or more)
 *      +- Union
 *         :- the messages                 (a stream with a watermark on `time`)
 *         +- the anchors                  (a stream, or a static DataFrame)
 * }}}
 * becomes an aggregate whose start is a column of its own carrying the watermark of the messages'
 * time column: Spark then drops a message at or before the watermark, and an anchor whose
 * interval starts there, as it drops any late row, and the processor's horizon is that column's.
 * That column checks each anchor as it is read ([[CheckedAnchorStart]]): one without a start
 * would otherwise be dropped as late.
 *
 * Static anchors cannot stay in the union (Spark runs no union of a stream and a static
 * DataFrame): they are taken out as the operator's initial state, the same columns over the
 * anchors alone (with attributes of their own), read once when the query starts from a new
 * checkpoint. Static messages are an analysis error naming the function.
 */
private[analysis] object StreamingAnchors {

  /** The name of the column of the sort time. */
  val TimeColumn = "__ew_time"

  /**
   * The aggregate over the stream alone, its start the column [[TimeColumn]], and the static
   * anchors, if any, as rows of the same columns (by position).
   */
  def prepare(a: EventWindowAggregate): (EventWindowAggregate, Option[LogicalPlan]) = {
    val function = a.window.function
    val (streamed, anchors) = splitStaticAnchors(a.child, function)
    val time = AnchorSortKey.messageTime(a.window.start, a.window.values.last) match {
      case Some(t: Attribute) => t
      case _ => WindowParameters.fail(function,
        "on a streaming DataFrame the messages' time must be a column")
    }
    if (!time.metadata.contains(EventTimeWatermark.delayKey)) {
      WindowParameters.fail(function, s"on a streaming DataFrame the messages' time column " +
        s"${time.sql} needs an event-time watermark (withWatermark(\"${time.name}\", delay); a " +
        "stream of anchors takes one on its own time column too): an anchor's row is emitted " +
        "once the watermark has passed its interval's end")
    }
    if (SparkLine.line == "4.0") {
      WindowParameters.fail(function, "on a streaming DataFrame needs Spark 4.1 or later: Spark " +
        "4.0's transformWithState refuses the messages' time column beside the column the " +
        "messages and anchors are ordered by (two event-time columns); run it on a batch " +
        "DataFrame, or on Spark 4.1 or later")
    }
    // The anchors are checked as they are read: Spark drops a row whose sort time is at or
    // before the watermark before the operator sees it.
    val Seq(start, end, anchor) = a.window.values
    val sortTime = AnchorSortKey.sortTime(time,
      CheckedAnchorStart(start, end, anchor, a.window.family.asInstanceOf[AnchorWindow]), anchor)
    def withTime(plan: LogicalPlan, metadata: Option[Metadata]): Project = {
      val columns = AttributeMap(a.child.output.zip(plan.output))
      val read = sortTime.transform { case c: Attribute => columns(c) }
      Project(plan.output :+ Alias(read, TimeColumn)(explicitMetadata = metadata), plan)
    }
    val child = withTime(streamed, Some(time.metadata))
    val prepared = a.copy(window = a.window.copy(start = child.output.last), child = child)
    (prepared, anchors.map(withTime(_, None)))
  }

  /**
   * The input over its streaming branch alone (the union's first child, whose attributes the
   * union's output has) and over its static one with attributes of its own, if the union of
   * messages and anchors has a static branch; else the input as it is.
   */
  private def splitStaticAnchors(
      input: LogicalPlan,
      function: String): (LogicalPlan, Option[LogicalPlan]) = {
    def projects(plan: LogicalPlan): (List[Project], LogicalPlan) = plan match {
      case p: Project =>
        val (above, below) = projects(p.child)
        (p :: above, below)
      case other => (Nil, other)
    }
    projects(input) match {
      case (chain, union @ Union(Seq(messages, anchors), _, _))
          if messages.isStreaming && !anchors.isStreaming =>
        val streamed = input.transformDown { case u if u eq union => messages }
        (streamed, Some(overAnchors(chain, union, anchors)))
      case (_, Union(Seq(messages, _), _, _)) if !messages.isStreaming =>
        WindowParameters.fail(function, "on a streaming DataFrame the messages must be a stream " +
          "(the anchors may be a stream or a static DataFrame), but they are static")
      case _ => (input, None)
    }
  }

  /** `chain` (top first) over `anchors` in place of `union`, every column a new attribute. */
  private def overAnchors(chain: List[Project], union: Union, anchors: LogicalPlan): LogicalPlan = {
    val bottom = Project(anchors.output.zip(union.output).map { case (column, united) =>
      Alias(column, united.name)()
    }, anchors)
    var renamed = AttributeMap(union.output.zip(bottom.output))
    chain.reverse.foldLeft(bottom: LogicalPlan) { (child, p) =>
      val list = p.projectList.map { e =>
        val read = e.transform { case c: Attribute if renamed.contains(c) => renamed(c) }
        read match {
          case alias: Alias => alias.newInstance()
          case other => other.asInstanceOf[NamedExpression]
        }
      }
      renamed = AttributeMap(p.output.zip(list.map(_.toAttribute)))
      Project(list, child)
    }
  }
}
