package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{
  Add, Alias, Attribute, AttributeReference, EqualTo, Explode, Expression, If, Inline, IsNotNull,
  Literal, NamedExpression, TimeWindow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateExpression, AggregateFunction, First
}
import org.apache.spark.sql.catalyst.planning.PhysicalAggregation
import org.apache.spark.sql.catalyst.plans.logical.{
  Aggregate, EventTimeWatermark, Filter, FlatMapGroupsInPandas, Generate, LogicalPlan, Project
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{
  DayTimeIntervalType, LongType, Metadata, MetadataBuilder, TimestampNTZType, TimestampType
}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.{
  AdjustLifetime, AnchorSortKey, CheckedEnd, CheckpointMismatch, ClippedLifetime, EventTime,
  EventWindow, EventWindowsOf, PointEventWindow, SplPolicies
}
import io.eventwindows.plans.{
  AnchorValues, AxisFamily, ClippedLifetimeColumns, EventWindowAggregate, SplPolicy, WindowAxis
}
import io.eventwindows.shims.SparkShims

/**
 * Places a window function used in GROUP BY below its aggregate, as Spark's `TimeWindowing` does
 * for `window()`: the marker becomes a `window` column of a Project under the Aggregate, and every
 * use of the marker in the aggregate refers to that column. The aggregate's select list can then
 * resolve `window.start` and `window.end`, and the grouping column is named `window`.
 *
 * For example
 * {{{
 *   Aggregate [k, hopping_window(ts, ...)], [k, hopping_window(ts, ...), count(1)]
 *   +- events
 * }}}
 * becomes
 * {{{
 *   Aggregate [k, window#9], [k, window#9, count(1)]
 *   +- Project [k, ts, hopping_window(ts, ...) AS window#9]
 *      +- events
 * }}}
 * which [[EventWindowAggregation]] turns into an [[EventWindowAggregate]] once resolved. A window
 * function anywhere else than as a GROUP BY expression is an error.
 */
object EventWindowing extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case p: LogicalPlan if p.expressions.exists(_.exists(isUnplaced)) =>
      val windows = p.expressions.flatMap(_.collect { case w: EventWindow if !w.placed => w })
        .distinct
      val window = windows.head
      if (!p.isInstanceOf[Aggregate] && !p.isInstanceOf[Project]) misplaced(window)
      if (windows.size > 1) {
        throw EventWindowsErrors.invalidParameter(
          window.prettyName,
          "only one window function may be used per " +
            s"aggregation, got ${windows.map(_.prettyName).mkString(", ")}")
      }
      p match {
        case a: Aggregate
            if a.groupingExpressions.contains(window) && a.childrenResolved &&
              !window.childrenResolved =>
          checkValuesResolve(window, a.child)
          p // Wait for the lifetime columns to resolve.
        case _ if !window.childrenResolved || !p.childrenResolved =>
          p // Wait for the lifetime columns and the input to resolve.
        case a: Aggregate if a.groupingExpressions.contains(window) =>
          checkResolved(window)
          val metadata = windowMetadata(window)
          val windowAttribute = AttributeReference(
            EventWindow.ColumnName,
            window.dataType,
            nullable = false,
            metadata.getOrElse(Metadata.empty))()
          val placed = Alias(window.copy(placed = true), EventWindow.ColumnName)(
            exprId = windowAttribute.exprId,
            explicitMetadata = metadata)
          val replaced = a.transformExpressions {
            case w: EventWindow if w == window =>
              windowAttribute
          }
          replaced.withNewChildren(Project(a.child.output :+ placed, a.child) :: Nil)
        case project: Project if PandasGroups.isGroupingColumn(project, window) =>
          // The grouping columns of applyInPandas, analyzed alone (see PandasGroups).
          checkResolved(window)
          PandasGroups.place(project, window, windowMetadata(window))
        case _ => misplaced(window)
      }
  }

  def misplaced(window: EventWindow): Nothing =
    throw EventWindowsErrors.invalidParameter(
      window.prettyName,
      "a window function must be used as a GROUP BY " +
        s"expression, e.g. GROUP BY k, ${window.prettyName}(...)")

  /**
   * The per-row values a family reads (SPL delta attributes) come from the text of a policy, so an
   * unknown column there is named with its policy. Spark's own rules have already tried to resolve
   * it against the resolved input when this runs, so a column that does not resolve now never will.
   */
  private def checkValuesResolve(window: EventWindow, input: LogicalPlan): Unit =
    window.family.policyColumns match {
      case policies if policies.nonEmpty =>
        val resolver = SQLConf.get.resolver
        policies.zip(window.values).foreach {
          case ((parameter, policy), u: UnresolvedAttribute)
              if input.resolve(u.nameParts, resolver).isEmpty =>
            throw EventWindowsErrors.invalidParameter(
              window.prettyName,
              s"`$parameter` '${policy.sql}': the " +
                s"attribute ${u.sql} is not a column of the input " +
                s"(${input.output.map(_.sql).mkString(", ")})")
          case _ =>
        }
      case _ =>
    }

  /** Checks what can only be checked once the marker's inputs are resolved. */
  private def checkResolved(window: EventWindow): Unit =
    window.family.policyColumns.zip(window.values).foreach {
      // The attributes of delta policies: numeric or timestamps, with a delta of their units.
      case ((parameter, policy: SplPolicy.Delta), attribute) =>
        SplPolicies.deltaUnits(window.prettyName, parameter, policy, attribute.dataType)
      case ((_, policy: SplPolicy.Punct), column) =>
        SplPolicies.checkPunctuation(window.prettyName, policy, column.dataType)
      case _ =>
    }

  /**
   * The metadata of the `window` column, as Spark's `TimeWindowing` gives its own: that of a time
   * column carrying an event-time watermark (`EventTimeWatermark.delayKey`: the start, or the
   * messages' time of dynamic windows), so that a streaming Aggregate grouped by the column evicts
   * a window once the watermark passes its end (`WatermarkSupport` compares field 1 of a struct,
   * the end); and over TIMESTAMP or TIMESTAMP_NTZ time `TimeWindow.marker`, by which Spark's
   * `window_time(window)` reads the column: the last tick of the row's lifetime, carrying the
   * watermark on to a next window (for dynamic windows whose interval includes its end, the end:
   * [[AnchorWindowTime.InclusiveEnd]]).
   */
  private def windowMetadata(window: EventWindow): Option[Metadata] = {
    val time = if (window.family.carriesAnchor) {
      AnchorSortKey.messageTime(
        window.start,
        AnchorValues.of(window.values).anchor).getOrElse(window.start)
    } else {
      window.start
    }
    columnMetadata(time, window.family.endIsLastInstant)
  }

  /**
   * The metadata of a `window` column over events (messages) whose time is `time`, its end the
   * row's last instant or not; also what `dynamic_window` gives the interval it keeps of an
   * anchor window's column.
   */
  def columnMetadata(time: Expression, endIsLastInstant: Boolean): Option[Metadata] = {
    val watermark = time match {
      case a: Attribute if a.metadata.contains(EventTimeWatermark.delayKey) => Some(a.metadata)
      case _ => None
    }
    time.dataType match {
      case TimestampType | TimestampNTZType =>
        val metadata = new MetadataBuilder()
          .withMetadata(watermark.getOrElse(Metadata.empty))
          .putBoolean(TimeWindow.marker, true)
        if (endIsLastInstant) metadata.putBoolean(AnchorWindowTime.InclusiveEnd, true)
        Some(metadata.build())
      case _ => watermark
    }
  }

  private def isUnplaced(e: Expression): Boolean = e match {
    case w: EventWindow => !w.placed
    case _ => false
  }
}

/**
 * Turns a resolved Aggregate over a placed window column into an [[EventWindowAggregate]], using
 * Spark's own `PhysicalAggregation` to split grouping keys, aggregate functions and the result
 * expressions:
 * {{{
 *   Project [result expressions over keys, window and aggregate results]
 *   +- EventWindowAggregate keys, family, lifetime, aggregate functions
 *      +- Project [input, non-attribute keys, FILTER predicates]
 *         +- events
 * }}}
 * A family planned as another over rewritten lifetimes (`WindowFamily.lifetimeRewrite`: hopping
 * windows with output 'changes', the rewriting of "Taming Hopping Windows") is planned here and
 * shows in `explain()`: the Project computes the snapped lifetimes
 * `adjust_start_time(start)` and `adjust_end_time(end)`, and the window family becomes a snapshot
 * window over them.
 *
 * A family whose axis has a row per position gives each event its windows from the event alone
 * (hopping and tumbling windows under per-window output). When every aggregate is insensitive to
 * input order, point events in windows that cannot overlap (at most one window per point: tumbling
 * windows, hopping windows with gaps) stay a Spark Aggregate, grouped by the [[PointEventWindow]]
 * of each event, as Spark plans `window()`; no window operator needed. On a stream such families
 * are always a Spark Aggregate, over every window of each event ([[EventWindowsOf]], exploded):
 * Spark's own streaming aggregation (state, watermark, output modes), which is why
 * [[CheckStreaming]] lets it through.
 *
 * That route was chosen over `transformWithState` by measurement (`benchmarks/README.md`, case
 * (j)): it is the plan of Spark's own `window()`, so it runs at the same speed, with partial
 * aggregation before the shuffle, and it has complete mode.
 */
object EventWindowAggregation extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case f @ FlatMapGroupsInPandas(_, _, _, Project(list, input))
        if f.resolved && placedWindow(list).isDefined =>
      val (window, windowAttribute) = placedWindow(list).get
      PandasGroups.plan(f, window, list, input.isStreaming) { (grouping, aggregates) =>
        val clipped = aggregates.exists(ClippedLifetime.isUsedIn)
        eventWindowAggregate(
          window,
          windowAttribute,
          input,
          grouping,
          aggregates,
          if (clipped) Some(clippedAttributes(window)) else None)
      }
    case a @ Aggregate(_, _, Project(list, _), _)
        if a.resolved && placedWindow(list).isDefined && unaggregated(a).isDefined =>
      placedWindow(list).get._1 match {
        case w if w.family.carriesAnchor =>
          throw EventWindowsErrors.invalidParameter(
            w.prettyName,
            "every result over dynamic windows is an aggregate " +
              "over the messages or a grouping column (for dynamic_window: each of `aggregates`, " +
              s"e.g. 'count(*) AS n'), got ${unaggregated(a).get.sql}")
        case _ => a // Spark's own check names the expression (MISSING_AGGREGATION).
      }
    case a @ Aggregate(_, _, Project(list, input), _)
        if a.resolved && placedWindow(list).isDefined =>
      val (window, windowAttribute) = placedWindow(list).get
      val PhysicalAggregation(grouping, aggregateExpressions, results, _) = a
      aggregateExpressions.find(_.isDistinct).foreach { ae =>
        throw EventWindowsErrors.unsupported(
          window.prettyName,
          s"DISTINCT aggregates are not " +
            "supported over " +
            s"event windows, got ${ae.sql}")
      }
      aggregateExpressions.find(_.references.contains(windowAttribute)).foreach { ae =>
        throw EventWindowsErrors.invalidParameter(
          window.prettyName,
          "an aggregate's input cannot use the window " +
            "column: each event is read once, not once per window. For the event's lifetime " +
            "clipped to the window use clipped_start() and clipped_end(), for time-weighted sums " +
            s"and averages time_weighted_sum(v) and time_weighted_avg(v); got ${ae.sql}")
      }
      a.aggregateExpressions.find(ClippedLifetimes.outsideAggregates(_).isDefined).foreach { e =>
        ClippedLifetimes.misplaced(e, "a result outside its aggregates")
      }
      val clipped = aggregateExpressions.exists(ClippedLifetime.isUsedIn)
      val orderInsensitive =
        aggregateExpressions.forall(ae => OrderInsensitive(ae.aggregateFunction))
      if (aggregateExpressions.exists(PandasAggregates.isPandas)) {
        PandasAggregates.plan(window, aggregateExpressions, results, input.isStreaming) { aggs =>
          eventWindowAggregate(
            window,
            windowAttribute,
            input,
            grouping,
            aggs,
            if (aggs.exists(ClippedLifetime.isUsedIn)) Some(clippedAttributes(window)) else None)
        }
      } else (window.family, eventAxis(window)) match {
        case (f: AxisFamily, Some(axis))
            if window.end.isEmpty && orderInsensitive &&
              PointEventWindow.atMostOneWindow(axis) =>
          // A point event lies whole in its one window.
          val pointClipped = clip(a, window.start, pointEnd(window.start))
          sparkAggregate(
            pointClipped,
            window,
            pointEventWindows(list, input, window, f, windowAttribute))
        case (f: AxisFamily, Some(_)) if input.isStreaming && orderInsensitive =>
          val lifetimes = if (clipped) Some(clippedAttributes(window)) else None
          sparkAggregate(
            lifetimes.map(l => clip(a, l.start, l.end)).getOrElse(a),
            window,
            explodedWindows(list, input, window, f, windowAttribute, lifetimes))
        case _ =>
          Project(
            results,
            eventWindowAggregate(
              window,
              windowAttribute,
              input,
              grouping,
              aggregateExpressions,
              if (clipped) Some(clippedAttributes(window)) else None))
      }
  }

  /**
   * The axis of a family planned as it is whose every axis position is a window, known from an
   * event alone: what Spark's own aggregate can group events by.
   */
  private def eventAxis(window: EventWindow): Option[WindowAxis] = window.family match {
    case f: AxisFamily if f.lifetimeRewrite.isEmpty =>
      val lineMax = EventTime.lineMax(window.timeType)
      Some(f.axis(EventTime.lineMin(window.timeType), lineMax, horizon = lineMax))
        .filter(_.rowPerPosition)
    case _ => None
  }

  /** The columns of each event's clipped lifetime in each window, as an operator fills them. */
  private def clippedAttributes(window: EventWindow): ClippedLifetimeColumns = {
    def column(name: String) = AttributeReference(name, window.start.dataType, nullable = false)()
    ClippedLifetimeColumns(column(ClippedLifetime.Start), column(ClippedLifetime.End))
  }

  /** `clipped_start()` and `clipped_end()` in the aggregates of `a` replaced by `start`, `end`. */
  private def clip(a: Aggregate, start: Expression, end: Expression): Aggregate =
    a.copy(aggregateExpressions = a.aggregateExpressions.map(clip(_, start, end)
      .asInstanceOf[NamedExpression]))

  private def clip(e: Expression, start: Expression, end: Expression): Expression = e.transform {
    case c: ClippedLifetime => if (c.isEnd) end else start
  }

  /**
   * A result of `a` that is neither made of aggregates nor of grouping expressions, as Spark's
   * `CheckAnalysis` requires of an Aggregate: it would refer to no column of the rewritten plan.
   */
  private def unaggregated(a: Aggregate): Option[Expression] = {
    def valid(e: Expression): Boolean = e match {
      case _: AggregateExpression => true
      case _ if a.groupingExpressions.exists(_.semanticEquals(e)) => true
      case _: Attribute => false
      case _ => e.children.forall(valid)
    }
    a.aggregateExpressions.find(!valid(_))
  }

  /**
   * The Aggregate over `child`. On a stream that is Spark's streaming aggregation, whose state
   * then also holds the definition of the window that wrote each window's state: a window written
   * under another definition (a query restarted from the checkpoint of a changed window) fails the
   * query when it is next emitted, instead of giving partial windows, as the state of the other
   * families does. Spark's own check of the state's schema catches changed keys and aggregates,
   * not a changed size or hop.
   */
  private def sparkAggregate(a: Aggregate, window: EventWindow, child: LogicalPlan): LogicalPlan = {
    val aggregate = a.copy(child = child)
    if (!child.isStreaming) return aggregate
    val definition =
      StateDefinition.ofAggregation(window.prettyName, window.family, window.start, window.end)
    // A fingerprint, not the text: a string buffer would keep Spark from its hash aggregate.
    val fingerprint = Literal(StateDefinition.fingerprint(definition))
    val stored = Alias(
      First(fingerprint, ignoreNulls = false).toAggregateExpression(),
      "eventwindows_definition")()
    val error = CheckpointMismatch(s"${window.prettyName}: the checkpoint holds the state of " +
      s"another window definition, not of this query's [$definition]; a changed window " +
      "definition needs a new checkpoint location")
    val check = If(EqualTo(stored.toAttribute, fingerprint), Literal.TrueLiteral, error)
    Project(
      a.output,
      Filter(check, aggregate.copy(aggregateExpressions = a.aggregateExpressions :+ stored)))
  }

  /**
   * The input of a Spark Aggregate over the only window of each point event: the window column
   * computed by [[PointEventWindow]], events in no window filtered out.
   */
  private def pointEventWindows(
      list: Seq[NamedExpression],
      input: LogicalPlan,
      window: EventWindow,
      family: AxisFamily,
      windowAttribute: Attribute): LogicalPlan = {
    val computed = Alias(PointEventWindow(window.start, family), EventWindow.ColumnName)(
      exprId = windowAttribute.exprId,
      explicitMetadata = Some(windowAttribute.metadata))
    val withWindows = Project(
      list.map {
        case alias: Alias if alias.exprId == windowAttribute.exprId => computed
        case other => other
      },
      input)
    Filter(IsNotNull(computed.toAttribute), withWindows)
  }

  /**
   * The input of a Spark Aggregate over every window of each event, one row per event and window,
   * as Spark expands events into their windows for `window()`: how the families whose windows an
   * event alone gives (hopping and tumbling windows with per-window output) run on a stream, as
   * Spark's own streaming aggregation.
   */
  private def explodedWindows(
      list: Seq[NamedExpression],
      input: LogicalPlan,
      window: EventWindow,
      family: AxisFamily,
      windowAttribute: Attribute,
      clippedLifetime: Option[ClippedLifetimeColumns]): LogicalPlan = {
    val others = list.filterNot(_.exprId == windowAttribute.exprId)
    val windows = EventWindowsOf(
      window.start,
      window.end,
      family,
      EventWindowsConf.maxWindowsPerEvent,
      clipped = clippedLifetime.nonEmpty)
    // With clipped lifetimes each window comes with the event's, as further columns.
    Generate(
      if (clippedLifetime.isEmpty) Explode(windows) else Inline(windows),
      unrequiredChildIndex = Nil,
      outer = false,
      qualifier = None,
      generatorOutput = windowAttribute +: clippedLifetime.toSeq.flatMap(_.attributes),
      child = Project(others, input))
  }

  /** The [[EventWindowAggregate]] of the aggregation, over the columns it reads of `input`. */
  private def eventWindowAggregate(
      window: EventWindow,
      windowAttribute: Attribute,
      input: LogicalPlan,
      grouping: Seq[NamedExpression],
      aggregateExpressions: Seq[AggregateExpression],
      clippedLifetime: Option[ClippedLifetimeColumns]): EventWindowAggregate = {
    val keys = grouping.filterNot(_.exprId == windowAttribute.exprId)
    val keyAliases = keys.collect { case alias: Alias => alias }
    // A FILTER that reads the clipped lifetime is evaluated by the operator, per window.
    val filterAliases = aggregateExpressions.map(_.filter.filterNot(ClippedLifetime.isUsedIn)
      .map(Alias(_, "filter")()))
    val filters = aggregateExpressions.zip(filterAliases).map {
      case (_, Some(alias)) => alias.toAttribute
      case (ae, None) => ae.filter.map(clip(_, clippedLifetime)).getOrElse(Literal.TrueLiteral)
    }
    val functions = aggregateExpressions.map { ae =>
      clip(ae.aggregateFunction, clippedLifetime).asInstanceOf[AggregateFunction]
    }
    // The operator sees only rewritten lifetimes: the user's are checked here.
    val (definition, lifetimeAliases) = window.family.lifetimeRewrite match {
      case Some(rewrite) =>
        val checkedEnd =
          window.end.map(CheckedEnd(window.start, _)).getOrElse(pointEnd(window.start))
        val (snappedStart, snappedEnd) =
          AdjustLifetime.snapped(rewrite.snap, window.start, checkedEnd)
        val start = Alias(snappedStart, "snapped_start")()
        val end = Alias(snappedEnd, "snapped_end")()
        (
          window.definition.copy(
            family = rewrite.family,
            start = start.toAttribute,
            end = Some(end.toAttribute)),
          Seq(start, end))
      case None => (window.definition, Nil)
    }
    val child = Project(
      input.output ++ keyAliases ++ filterAliases.flatten ++ lifetimeAliases,
      input)
    EventWindowAggregate(
      keys.map(_.toAttribute),
      definition,
      windowAttribute,
      functions,
      filters,
      aggregateExpressions.map(_.resultAttribute),
      partialBuffers = Nil,
      clippedLifetime,
      child)
  }

  private def clip(e: Expression, clippedLifetime: Option[ClippedLifetimeColumns]): Expression =
    clippedLifetime.map(c => clip(e, c.start, c.end)).getOrElse(e)

  private def placedWindow(list: Seq[NamedExpression]): Option[(EventWindow, Attribute)] =
    list.collectFirst {
      case alias @ Alias(w: EventWindow, _) if w.placed => (w, alias.toAttribute)
    }

  /** The exclusive end of a point event: one tick after its start. */
  private def pointEnd(start: Expression): Expression = start.dataType match {
    case LongType => Add(start, Literal(1L))
    case _ => SparkShims.timestampAddInterval(
        start,
        Literal(1L, DayTimeIntervalType()),
        Some(SQLConf.get.sessionLocalTimeZone))
  }
}
