package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.analysis.StreamingJoinHelper
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, AttributeMap, AttributeReference, AttributeSet, Expression, LessThan, Literal,
  NamedExpression
}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, LogicalPlan, Project, Union}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DayTimeIntervalType, Metadata, StructType}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.{AnchorSortKey, CheckedAnchorStart}
import io.eventwindows.plans.{AnchorValues, AnchorWindow, EventWindowAggregate}
import io.eventwindows.shims.{SparkLine, SparkShims}

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
 * On a stream of anchors whose interval starts before their own time (an alarm at t asking for
 * `[t - 5 s, t]`), an anchor is late only once the watermark passes its own time: its arrival
 * time, its start plus the family's lookback (5 s here, derived from the start expression, or
 * declared), is then a column of its own that carries the watermark instead, and the sort time
 * none. The lookback is in the family, whose streaming rules keep the messages after the horizon
 * less the lookback for the anchors still to come, and close an anchor's row no earlier than its
 * arrival. Without a lookback (0, static anchors too) the plan is as it was, and so is the state.
 *
 * Static anchors cannot stay in the union (Spark runs no union of a stream and a static
 * DataFrame): they are taken out as the operator's initial state, the same columns over the
 * anchors alone (with attributes of their own), read once when the query starts from a new
 * checkpoint. Static messages are an analysis error naming the function.
 */
private[analysis] object StreamingAnchors {

  /** The name of the column of the sort time. */
  val TimeColumn = "__ew_time"

  /** The name of the column of the arrival time, when it is not the sort time. */
  val ArrivalColumn = "__ew_arrival"

  /**
   * A watermark (ms) that Spark's `StreamingJoinHelper` solves the start's condition at: large
   * enough that it solves to a positive number of microseconds for any lookback up to a century,
   * which it then truncates to milliseconds, that is rounds down: the lookback is rounded up.
   */
  private val ProbeWatermarkMs = 4000000000000L

  /**
   * A streaming dynamic window ready for [[StreamingWindows]]: the aggregate over the stream
   * alone, its start the column [[TimeColumn]]; the static anchors, if any, as rows of the same
   * columns (by position); and the column Spark judges rows late by (the event time column of
   * `transformWithState`): the sort time, or on a stream of anchors with a lookback, the arrival
   * time [[ArrivalColumn]].
   */
  case class Prepared(
      aggregate: EventWindowAggregate,
      staticAnchors: Option[LogicalPlan],
      eventTime: Attribute)

  def prepare(a: EventWindowAggregate): Prepared = {
    val function = a.window.function
    val (streamed, anchors) = splitStaticAnchors(a.child, function)
    val time =
      AnchorSortKey.messageTime(a.window.start, AnchorValues.of(a.window.values).anchor) match {
        case Some(t: Attribute) => t
        case _ => throw EventWindowsErrors.invalidParameter(
            function,
            "on a streaming DataFrame the messages' time must be a column")
      }
    if (!time.metadata.contains(EventTimeWatermark.delayKey)) {
      throw EventWindowsErrors.invalidParameter(
        function,
        s"on a streaming DataFrame the messages' time column " +
          s"${time.sql} needs an event-time watermark (withWatermark(\"${time.name}\", delay); a " +
          "stream of anchors takes one on its own time column too): an anchor's row is emitted " +
          "once the watermark has passed its interval's end")
    }
    if (SparkLine.line == "4.0") {
      throw EventWindowsErrors.unsupported(
        function,
        "on a streaming DataFrame needs Spark 4.1 " +
          "or later: Spark " +
          "4.0's transformWithState refuses the messages' time column beside the column the " +
          "messages and anchors are ordered by (two event-time columns); run it on a batch " +
          "DataFrame, or on Spark 4.1 or later")
    }
    val declared = a.window.family.asInstanceOf[AnchorWindow]
    val AnchorValues(start, end, anchor) = AnchorValues.of(a.window.values)
    // Static anchors are all there at the start: none is still to come.
    val lookback =
      if (anchors.isDefined) 0L else streamLookback(a.child, start, declared.lookback, function)
    val family = declared.copy(lookback = Some(lookback).filter(_ > 0))
    // The anchors' own time, a field of their struct carrying its stream's watermark.
    val anchorTime = anchor.dataType match {
      case struct: StructType =>
        Some(struct.fields.indexWhere(_.metadata.contains(EventTimeWatermark.delayKey)))
          .filter(_ >= 0)
      case _ => None
    }
    // The anchors are checked as they are read: Spark drops a row whose sort time (or arrival
    // time) is at or before the watermark before the operator sees it.
    val checkedStart = CheckedAnchorStart(start, end, anchor, family, anchorTime)
    val sortTime = AnchorSortKey.sortTime(time, checkedStart, anchor)
    val arrival = family.lookback.map { ticks =>
      AnchorSortKey.sortTime(
        time,
        SparkShims.timestampAddInterval(
          checkedStart,
          Literal(ticks, DayTimeIntervalType()),
          Some(SQLConf.get.sessionLocalTimeZone)),
        anchor)
    }
    def withTime(plan: LogicalPlan, metadata: Option[Metadata]): Project = {
      val columns = AttributeMap(a.child.output.zip(plan.output))
      def read(e: Expression) = e.transform { case c: Attribute => columns(c) }
      Project(
        plan.output ++ Seq(
          Some(Alias(read(sortTime), TimeColumn)(
            explicitMetadata = if (arrival.isDefined) Some(Metadata.empty) else metadata)),
          arrival.map(t => Alias(read(t), ArrivalColumn)(explicitMetadata = metadata))).flatten,
        plan)
    }
    val child = withTime(streamed, Some(time.metadata))
    val sortColumn = child.output(streamed.output.size)
    val prepared = a.copy(
      window = a.window.copy(family = family, start = sortColumn),
      child = child)
    Prepared(prepared, anchors.map(withTime(_, None)), child.output.last)
  }

  /**
   * The lookback of a stream of anchors: where their interval's `start` is their watermarked
   * time column less a constant (`t - INTERVAL 5 SECONDS` over anchors with a watermark on `t`),
   * that constant, solved by Spark's `StreamingJoinHelper` as it solves a stream-stream join's
   * condition for the state watermark of one side (here `start < message time`, with the
   * anchors' time at a watermark: the messages after the watermark less the lookback are those
   * an anchor still to come can ask for); otherwise the declared `lookback`, or an error.
   */
  private def streamLookback(
      input: LogicalPlan,
      start: Expression,
      declared: Option[Long],
      function: String): Long = {
    val overAnchors = throughProjects(start, input) match {
      case (overUnion, union @ Union(Seq(_, anchors), _, _)) =>
        val positions = AttributeMap(union.output.zip(anchors.output))
        Some(throughProjects(
          overUnion.transform {
            case c: Attribute if positions.contains(c) => positions(c)
          },
          anchors)._1)
      case _ => None
    }
    val derived = overAnchors.flatMap { startExpression =>
      val messageTime = AttributeReference("message_time", start.dataType)()
      StreamingJoinHelper.getStateValueWatermark(
        AttributeSet(messageTime),
        AttributeSet(startExpression.references.filter(
          _.metadata.contains(EventTimeWatermark.delayKey))),
        Some(LessThan(startExpression, messageTime)),
        Some(ProbeWatermarkMs))
    }.map(ms => Math.max(0L, (ProbeWatermarkMs - ms) * 1000L))
    derived.orElse(declared).getOrElse(throw EventWindowsErrors.invalidParameter(
      function,
      "on a stream of anchors, an anchor is late once the watermark has passed its own time, " +
        "and the messages it can ask for must still be kept: its interval's start must be its " +
        "watermarked time column less a constant (e.g. t - INTERVAL 5 SECONDS over anchors with " +
        "withWatermark(\"t\", delay)), or `lookback` must say how long before its time an " +
        s"interval may start (its time is then its start plus the lookback); got start " +
        s"${overAnchors.getOrElse(start).sql}"))
  }

  /** `e` over the output of `plan`, over that of the first node below its projections. */
  private def throughProjects(e: Expression, plan: LogicalPlan): (Expression, LogicalPlan) =
    plan match {
      case Project(list, child) =>
        val defined = AttributeMap(list.collect {
          case alias: Alias => alias.toAttribute -> alias.child
        })
        throughProjects(
          e.transform {
            case c: Attribute if defined.contains(c) => defined(c)
          },
          child)
      case other => (e, other)
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
        throw EventWindowsErrors.invalidParameter(
          function,
          "on a streaming DataFrame the messages must be a stream " +
            "(the anchors may be a stream or a static DataFrame), but they are static")
      case _ => (input, None)
    }
  }

  /** `chain` (top first) over `anchors` in place of `union`, every column a new attribute. */
  private def overAnchors(chain: List[Project], union: Union, anchors: LogicalPlan): LogicalPlan = {
    val bottom = Project(
      anchors.output.zip(union.output).map { case (column, united) =>
        Alias(column, united.name)()
      },
      anchors)
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
