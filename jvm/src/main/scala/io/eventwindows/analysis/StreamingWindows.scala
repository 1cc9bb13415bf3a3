package io.eventwindows.analysis

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, AttributeMap, BoundReference, Cast, CreateStruct, Expression, Literal,
  NamedExpression
}
import org.apache.spark.sql.catalyst.expressions.aggregate.CollectList
import org.apache.spark.sql.catalyst.plans.logical.{
  Aggregate, CatalystSerde, EventTimeWatermark, LocalRelation, LogicalPlan, Project,
  TransformWithState
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.streaming.{OutputMode, StatefulProcessor, TimeMode}
import org.apache.spark.sql.types.{
  MetadataBuilder, StructField, StructType, TimestampNTZType, TimestampType
}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.streaming.{
  EventTimeHorizon, RowEndIsEventTime, SnappedStart, SnappedToWindows, StartIsEventTime,
  StoredDefinition, StreamingAggregation, StreamingEmission, StreamingRows,
  StreamingWindowProcessor, StreamingWindowSpec
}
import io.eventwindows.expressions.{AdjustStartTime, EventTime, LastRowEnd, SnapToWindows}
import io.eventwindows.plans.{EventWindowAggregate, HoppingFamily, OutputPolicy, StreamingRules}

/**
 * Runs a streaming [[EventWindowAggregate]] of a family that runs on streams
 * ([[io.eventwindows.plans.WindowFamily.onStreams]] gives its [[StreamingRules]]) as
 * Spark's own `TransformWithState` in event-time mode, with a [[StreamingWindowProcessor]] per key:
 * {{{
 *   Project [keys, window, aggregates AS the aggregate's own attributes]
 *   +- SerializeFromObject [rows of the aggregate's output]
 *      +- TransformWithState StreamingWindowProcessor, EventTime, grouped by the keys
 *         +- the aggregate's child (a constant key added if there are no keys)
 * }}}
 * Spark plans that node with state (the RocksDB state store), the watermark, event-time timers,
 * late-row filtering and its own checks; an unknown node would run per micro-batch with none.
 *
 * A post-hoc resolution rule, after [[EventWindowAggregation]] builds the node: no resolution
 * batch runs after it, so the deserializers are resolved here, as Spark's `ResolveDeserializer`
 * would (the encoder's own `resolveAndBind`, its bound ordinals turned back into the attributes).
 *
 * Dynamic windows are prepared first ([[StreamingAnchors]]): their sort time becomes the column
 * with the watermark, and static anchors the node's initial state (a row of them per key).
 *
 * A window without a watermark on its time column, or a session without the RocksDB state store
 * provider, is an analysis error naming the function and what to set. Families without streaming
 * rules stay [[EventWindowAggregate]]s, which [[CheckStreaming]] rejects.
 */
object StreamingWindows extends Rule[LogicalPlan] {

  /** The state store provider `TransformWithState` needs. */
  val RocksDBProvider: String =
    "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case a: EventWindowAggregate if a.isStreaming && a.window.family.onStreams.isRight =>
      rewrite(a)
  }

  private def rewrite(windowed: EventWindowAggregate): LogicalPlan = {
    // Dynamic windows: the start becomes a column with the watermark, static anchors the
    // initial state.
    val (original, staticAnchors, eventTime) =
      if (windowed.window.family.carriesAnchor) {
        val prepared = StreamingAnchors.prepare(windowed)
        (prepared.aggregate, prepared.staticAnchors, Some(prepared.eventTime))
      } else {
        (windowed, None, None)
      }
    val rules = original.window.family.onStreams.toOption.get
    val (time, startHorizon) = eventTimeHorizon(original, eventTime)
    checkStateStore(original.window.function)
    // Late by the last row: the watermark moves from the start to the end of each event's last row.
    val lastRowEnd = lateByLastRow(original, rules, time)
    val horizon = lastRowEnd.map(_._2).getOrElse(startHorizon)
    val (a, columns) = oneEventTimeColumn(original, if (lastRowEnd.isDefined) None else Some(time))

    // Spark groups by attributes; a window over the whole stream gets one constant key.
    val constantKey =
      if (a.keys.isEmpty) Some(Alias(Literal(0), "__eventwindows_key")()) else None
    // The column Spark drops late rows by is not stored: the processor reads `input`.
    val child = Project(columns ++ constantKey ++ lastRowEnd.map(_._1), a.child)
    val grouping = constantKey.map(k => Seq(k.toAttribute)).getOrElse(a.keys)
    val input = child.output.take(columns.size + constantKey.size)

    val inputEncoder = ExpressionEncoder(schemaOf(input))
    val keyEncoder = ExpressionEncoder(schemaOf(grouping))
    val outputEncoder = ExpressionEncoder(schemaOf(original.output))
    // Resolved here: an unresolved deserializer does not survive serialization to executors.
    // State holding aggregation buffers depends on the aggregates too.
    val buffersInState =
      rules.foldsPrefix || (rules.foldsSessions && a.clippedLifetime.isEmpty)
    val spec = StreamingWindowSpec(
      a.window,
      rules,
      horizon,
      StreamingAggregation(a.keys, a.aggregates, a.filters, a.clippedLifetime),
      StreamingRows(input, inputEncoder, outputEncoder.resolveAndBind()),
      StoredDefinition(
        definition(a, horizon, input, buffersInState),
        former =
          // Before late rows counted in their open windows, the state was the same but for this.
          if (lastRowEnd.isDefined) Some(definition(a, startHorizon, input, buffersInState))
          // Before sessions folded their events, they kept them all: the next firing folds them.
          else if (rules.foldsSessions && buffersInState) Some(definition(a, horizon, input, false))
          else None),
      StreamingEmission(
        EventWindowsConf.maxWindowsPerEvent,
        hasInitialState = staticAnchors.isDefined))

    val keyDeserializer = resolvedDeserializer(keyEncoder, grouping)
    val initial = staticAnchors.map(
      initialState(_, grouping.map(k => input.indexWhere(_.exprId == k.exprId)), constantKey))
    val node = TransformWithState(
      keyDeserializer = keyDeserializer,
      valueDeserializer = resolvedDeserializer(inputEncoder, input),
      groupingAttributes = grouping,
      dataAttributes = input,
      statefulProcessor =
        new StreamingWindowProcessor(spec).asInstanceOf[StatefulProcessor[Any, Any, Any]],
      timeMode = TimeMode.EventTime(),
      outputMode = OutputMode.Append(),
      keyEncoder = keyEncoder.asInstanceOf[ExpressionEncoder[Any]],
      outputObjAttr = CatalystSerde.generateObjAttr(outputEncoder),
      child = child,
      hasInitialState = initial.isDefined,
      // Without initial state, unused: as Spark's own transformWithState sets them.
      initialStateGroupingAttrs = initial.map(_.grouping).getOrElse(grouping),
      initialStateDataAttrs = initial.map(i => Seq(i.rows)).getOrElse(input),
      initialStateDeserializer = initial.map(_.deserializer).getOrElse(keyDeserializer),
      initialState = initial.map(_.plan).getOrElse(LocalRelation(keyEncoder.schema)))
    val serialized = CatalystSerde.serialize(node)(outputEncoder)
    Project(
      serialized.output.zip(original.output).map { case (column, named) =>
        // A struct's fields lose their metadata (an anchor column's watermark) through the
        // encoder; the cast gives them back.
        val typed = if (column.dataType == named.dataType) column else Cast(column, named.dataType)
        Alias(typed, named.name)(exprId = named.exprId, explicitMetadata = Some(named.metadata))
      },
      serialized)
  }

  /**
   * `rows` of the node's input columns (by position) as its initial state, one row per key (Spark
   * takes no more): the key columns at `keys` (or the constant key) and an array of the rows.
   */
  private def initialState(
      rows: LogicalPlan,
      keys: Seq[Int],
      constantKey: Option[Alias]): InitialState = {
    val input = Project(rows.output ++ constantKey.map(k => Alias(k.child, k.name)()), rows)
    val grouping = keys.map(input.output)
    // The rows first: Spark reads the state's value from the first columns of its rows.
    val plan = Aggregate(
      grouping,
      Alias(
        CollectList(CreateStruct(input.output)).toAggregateExpression(),
        "rows")() +: grouping,
      input)
    val array = plan.output.head
    val encoder = ExpressionEncoder(StructType(Seq(StructField(array.name, array.dataType))))
    InitialState(plan, grouping, array, resolvedDeserializer(encoder, Seq(array)))
  }

  /** The initial state of the node: its plan, key columns, the column of rows, their reader. */
  private case class InitialState(
      plan: LogicalPlan,
      grouping: Seq[Attribute],
      rows: Attribute,
      deserializer: Expression)

  /**
   * For rules whose rows are late by their last row ([[StreamingRules.lateByLastRow]]), the
   * column Spark drops late rows by, the end of each event's last row carrying the watermark of
   * the start column `time`, and the horizon it gives.
   */
  private def lateByLastRow(
      a: EventWindowAggregate,
      rules: StreamingRules,
      time: Attribute): Option[(Alias, EventTimeHorizon)] = (rules, a.window.family) match {
    case (_, family: HoppingFamily) if rules.lateByLastRow =>
      val end = Alias(
        LastRowEnd(a.window.start, a.window.end, family),
        "__eventwindows_last_row_end")(explicitMetadata = Some(time.metadata))
      Some((end, RowEndIsEventTime(family.output == OutputPolicy.Point)))
    case _ => None
  }

  /**
   * The node over its input columns with the watermark on `time` alone (on none if the node's
   * watermark is on a column of its own), and those columns: `transformWithState` takes one event
   * time column, and a second stage's input has more (a window over `window_time(window)` of an
   * earlier window keeps that `window` column too). The others become new columns without the
   * watermark, and the node reads those. The node's output stays the original's.
   */
  private def oneEventTimeColumn(
      a: EventWindowAggregate,
      time: Option[Attribute]): (EventWindowAggregate, Seq[NamedExpression]) = {
    val columns = a.child.output.map {
      case c
          if !time.exists(_.exprId == c.exprId) &&
            c.metadata.contains(EventTimeWatermark.delayKey) =>
        Alias(c, c.name)(explicitMetadata = Some(new MetadataBuilder().withMetadata(c.metadata)
          .remove(EventTimeWatermark.delayKey).build()))
      case c => c
    }
    val renamed = AttributeMap(columns.collect { case alias: Alias =>
      alias.child.asInstanceOf[Attribute] -> alias.toAttribute
    })
    val rewritten = if (renamed.isEmpty) a
    else a.transformExpressions {
      case c: Attribute if renamed.contains(c) => renamed(c)
    }.asInstanceOf[EventWindowAggregate]
    (rewritten, columns)
  }

  /**
   * The column that carries the watermark and how far the operator's starts are known at one;
   * the start must be that column (or, for hopping output 'changes', its snapped start), unless
   * the rows' `eventTime` is another column (anchors judged late by their arrival: their rules'
   * close times wait for it).
   */
  private def eventTimeHorizon(
      a: EventWindowAggregate,
      eventTime: Option[Attribute]): (Attribute, EventTimeHorizon) = {
    // Output 'changes': the start is the snapped start the child computes.
    val start = a.window.start
    val snapped = (start, a.child) match {
      case (start: Attribute, Project(list, _)) => list.collectFirst {
          case alias @ Alias(s: AdjustStartTime, _) if alias.exprId == start.exprId => s
          case alias @ Alias(s: SnapToWindows, _) if alias.exprId == start.exprId => s
        }
      case _ => None
    }
    val (time, horizon) = (eventTime.getOrElse(start), snapped) match {
      case (t: Attribute, _) if watermarked(t) => (t, StartIsEventTime)
      case (_, Some(s @ AdjustStartTime(t: Attribute, size, hop, alignment))) if watermarked(t) =>
        (
          t,
          SnappedStart(
            size,
            hop,
            alignment,
            EventTime.lineMin(s.dataType),
            EventTime.lineMax(s.dataType)))
      case (_, Some(s @ SnapToWindows(t: Attribute, windows, _))) if watermarked(t) =>
        (
          t,
          SnappedToWindows(
            windows,
            EventTime.lineMin(s.dataType),
            EventTime.lineMax(s.dataType)))
      case _ =>
        val column = snapped.map(_.children.head).getOrElse(start)
        throw EventWindowsErrors.invalidParameter(
          a.window.function,
          "on a streaming DataFrame the window's time " +
            s"column ${column.sql} needs an event-time watermark on that column (withWatermark(\"" +
            s"${column.sql}\", delay), or WATERMARK in SQL): a window is emitted once the " +
            "watermark has passed it, so that each window is emitted once and complete")
    }
    time.dataType match {
      case TimestampType | TimestampNTZType => (time, horizon)
      case other => throw EventWindowsErrors.invalidParameter(
          a.window.function,
          "on a streaming DataFrame the " +
            s"window's time column must be a TIMESTAMP or TIMESTAMP_NTZ column with a watermark, got " +
            s"${other.sql} (${time.sql})")
    }
  }

  private def watermarked(a: Attribute): Boolean =
    a.metadata.contains(EventTimeWatermark.delayKey)

  private[analysis] def checkStateStore(function: String): Unit = {
    val provider = SQLConf.get.getConf(SQLConf.STATE_STORE_PROVIDER_CLASS)
    if (provider != RocksDBProvider) {
      throw EventWindowsErrors.invalidParameter(
        function,
        "on a streaming DataFrame event windows keep their state " +
          "in Spark's RocksDB state store (transformWithState needs it), but the session uses " +
          s"$provider: set spark.sql.streaming.stateStore.providerClass=$RocksDBProvider before " +
          "starting the query")
    }
  }

  /**
   * What the state depends on, independent of the session (no expression ids), as
   * [[StateDefinition.ofReplay]] writes it; if the state keeps aggregation buffers
   * (`buffersInState`: a running window's prefix, a folded session), also the aggregates and
   * their filters (other families store events and aggregate them anew).
   */
  private def definition(
      a: EventWindowAggregate,
      horizon: EventTimeHorizon,
      input: Seq[Attribute],
      buffersInState: Boolean): String = {
    val w = a.window
    StateDefinition.ofReplay(
      w.function,
      w.family,
      horizon,
      w.start,
      w.end,
      w.order,
      w.values,
      a.keys.map(_.name),
      schemaOf(input),
      if (buffersInState) Some((a.aggregates, a.filters)) else None)
  }

  private[analysis] def schemaOf(attributes: Seq[Attribute]): StructType =
    StructType(attributes.map(a => StructField(a.name, a.dataType, a.nullable)))

  /** The encoder's deserializer over `attributes`, resolved as Spark's analyzer resolves it. */
  private[analysis] def resolvedDeserializer(
      encoder: ExpressionEncoder[Row],
      attributes: Seq[Attribute]): Expression =
    encoder.resolveAndBind(attributes).deserializer.transform {
      case b: BoundReference => attributes(b.ordinal)
    }
}
