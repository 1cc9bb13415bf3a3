package io.eventwindows.analysis

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.analysis.StreamingJoinHelper
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, CreateStruct, Expression, Literal, NamedExpression, RuntimeReplaceable
}
import org.apache.spark.sql.catalyst.plans.{
  FullOuter, Inner, InnerLike, JoinType, LeftAnti, LeftOuter, LeftSemi, RightOuter
}
import org.apache.spark.sql.catalyst.plans.logical.{
  CatalystSerde, EventTimeWatermark, Join, LocalRelation, LogicalPlan, Project, SubqueryAlias,
  TransformWithState, Union
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.streaming.{OutputMode, StatefulProcessor, TimeMode}
import org.apache.spark.sql.types.{Metadata, StructType}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.streaming.{
  InputColumns, StreamingRangeJoinProcessor, StreamingRangeJoinSpec
}
import io.eventwindows.plans.{JoinLifetime, RangeJoinShape}

/**
 * Runs a range join of two streams (an overlap or a point in an interval,
 * [[RangeJoinShape]]: `ew.temporal_join` and the joins users write in SQL or the DataFrame API)
 * as Spark's `TransformWithState` in event-time mode, with a [[StreamingRangeJoinProcessor]] per
 * key, where Spark's own stream-stream join could not clean its state (the overlap bounds no
 * side's watermarked column by the other's):
 * {{{
 *   Project [the join's output columns]
 *   +- SerializeFromObject
 *      +- TransformWithState StreamingRangeJoinProcessor, EventTime, grouped by the keys
 *         +- Union
 *            :- Project [left keys, 0 AS side, struct(left.*) AS left, NULL AS right, left lo AS time]
 *            :  +- left
 *            +- Project [right keys, 1 AS side, NULL AS left, struct(right.*) AS right, right lo AS time]
 *               +- right
 * }}}
 * `time` carries its side's watermark: Spark drops late events by it (a side's `lo`, its start)
 * and fires the processor's timers at the watermark. Only an inner, left, right or full outer join
 * whose two starts (`lo`) are each its side's watermarked column is planned so, unless
 * `spark.eventwindows.rangeJoin.enabled` is false. Anything else stays Spark's stream-stream join
 * where Spark's runs it (an inner join on equality keys: without watermarks, with all events kept
 * in its state; an outer join whose watermarks bound its state as Spark's checks ask);
 * where Spark's does not either, [[check]] (from [[CheckStreaming]]) fails the analysis, naming
 * the join and the watermark or join type to use, instead of Spark's error when the query starts
 * or runs. (`temporal_join` checks its own arguments on streams, [[TemporalJoinTableFunction]].)
 *
 * The join's definition ([[StateDefinition.ofRangeJoin]]) is stored with each key's state, as an
 * ASOF join's is: a restart from the checkpoint of another join of two streams fails with
 * `EVENTWINDOWS_CHECKPOINT_MISMATCH`.
 *
 * A post-hoc resolution rule, as [[StreamingWindows]], whose way of building the node (the state
 * store check, the resolved deserializers) it shares.
 */
object StreamingRangeJoins extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case join: Join
        if EventWindowsConf.rangeJoinEnabled && join.left.isStreaming &&
          join.right.isStreaming =>
      join match {
        case RangeJoinShape(shape)
            if planned(shape.joinType) &&
              watermarked(shape.leftLifetime.lo) && watermarked(shape.rightLifetime.lo) =>
          rewrite(join, shape)
        case _ => join
      }
  }

  private[analysis] def planned(joinType: JoinType): Boolean = joinType match {
    case Inner | LeftOuter | RightOuter | FullOuter => true
    case _ => false
  }

  /**
   * Fails the analysis of a range join of two streams that this rule left to Spark, if Spark's own
   * stream-stream join cannot run it either ([[sparkRuns]]): a join type this rule plans with a
   * start that carries no watermark (the first such side is named), or a semi or anti join. For
   * example, `a LEFT JOIN b ON a.k = b.k AND a.s < b.e AND b.s < a.e` without a watermark on
   * `b.s` fails naming the right side's start `s`; the same inner join runs as Spark's.
   */
  def check(join: Join): Unit = join match {
    case RangeJoinShape(shape) if EventWindowsConf.rangeJoinEnabled && !sparkRuns(join, shape) =>
      val name = nameOf(join)
      if (!planned(shape.joinType)) {
        throw EventWindowsErrors.streamJoinType(
          name,
          shape.joinType.sql,
          typeAdvice(shape.joinType))
      }
      val unmarked = Seq("left" -> shape.leftLifetime.lo, "right" -> shape.rightLifetime.lo)
        .find { case (_, lo) => !watermarked(lo) }
      unmarked.foreach { case (side, lo) =>
        val sparks =
          if (shape.leftKeys.isEmpty) "needs equality keys"
          else "needs, for an outer join, a watermark on a join key or a condition that bounds " +
            "the state of the side whose unmatched rows it keeps by the other's watermark"
        throw EventWindowsErrors.streamJoinWithoutWatermark(
          name,
          side,
          s"start ${lo.sql}",
          "the join pairs each event as it arrives and forgets it (an outer join's unmatched row " +
            "out) once the watermark passes its end; without it, Spark's own stream-stream join " +
            s"does not run this join either (it $sparks)")
      }
    case _ =>
  }

  /** What to write instead of a join of two streams of `joinType`, which runs nowhere. */
  private[analysis] def typeAdvice(joinType: JoinType): String = joinType match {
    case LeftAnti =>
      "an anti join's row is known only once no event to come can match it; write it as a left " +
        "outer join (a watermark on each side's start) and keep its rows without a match"
    case _ =>
      "the stream-stream range joins are inner, left, right and full outer; write it as an " +
        "inner join (a row per match, a watermark on each side's start), and keep each left row " +
        "once with dropDuplicatesWithinWatermark"
  }

  /**
   * Whether `join` is left to Spark's own stream-stream join, as its planner
   * (`StreamingJoinStrategy` plans only joins on equality keys) and its
   * `UnsupportedOperationChecker` decide: an inner join always; a left, right or full outer join
   * with a watermark on a join key or a condition that bounds the kept side's state by the other
   * side's watermark (the checker's `StreamingJoinHelper` calls, as it makes them). Semi and anti
   * joins never: Spark refuses anti joins of two streams, and lets a semi join through on a bound
   * it may find on a column other than the watermarked one its state is cleaned by (an overlap's
   * end), which this route does not leave to it.
   */
  private def sparkRuns(join: Join, shape: RangeJoinShape): Boolean = {
    def bounded(kept: LogicalPlan, other: LogicalPlan): Boolean = StreamingJoinHelper
      .getStateValueWatermark(kept.outputSet, other.outputSet, join.condition, Some(1000000L))
      .isDefined
    shape.leftKeys.nonEmpty &&
    (shape.joinType match {
      case _: InnerLike => true
      case LeftSemi | LeftAnti => false
      case _ if StreamingJoinHelper.isWatermarkInJoinKeys(join) => true
      case LeftOuter => bounded(join.left, join.right)
      case RightOuter => bounded(join.right, join.left)
      case FullOuter => bounded(join.left, join.right) || bounded(join.right, join.left)
      case _ => false
    })
  }

  /**
   * The join as errors name it: `temporal_join` for the join its table function builds (its left
   * side under [[TemporalJoinTableFunction.LeftAlias]]), otherwise its type, e.g. "LEFT OUTER
   * range join".
   */
  private[analysis] def nameOf(join: Join): String = join.left match {
    case SubqueryAlias(alias, _) if alias.name == TemporalJoinTableFunction.LeftAlias =>
      TemporalJoinTableFunction.Name
    case _ => s"${join.joinType.sql} range join"
  }

  /** Whether `e` is a column with an event-time watermark. */
  private[analysis] def watermarked(e: Expression): Boolean = e match {
    case a: Attribute => a.metadata.contains(EventTimeWatermark.delayKey)
    case _ => false
  }

  /**
   * `e` as the processor evaluates it: the analyzed condition's expressions that only the
   * optimizer replaces (`RuntimeReplaceable`, such as `ts - INTERVAL 1 HOUR`) replaced, as Spark's
   * `ReplaceExpressions` does, since they cannot be evaluated themselves.
   */
  private def evaluable(e: Expression): Expression = e.transformDown {
    case r: RuntimeReplaceable => evaluable(r.replacement)
  }

  private def rewrite(join: Join, shape: RangeJoinShape): LogicalPlan = {
    StreamingWindows.checkStateStore("stream-stream range join")
    val (left, right) = (join.left, join.right)
    joinOfStreams(
      left,
      right,
      shape.leftKeys,
      shape.rightKeys,
      shape.leftLifetime.lo.asInstanceOf[Attribute],
      shape.rightLifetime.lo.asInstanceOf[Attribute],
      join.output) { (input, output) =>
      new StreamingRangeJoinProcessor(StreamingRangeJoinSpec(
        nameOf(join),
        join.joinType,
        left.output,
        right.output,
        evaluable(join.condition.get),
        JoinLifetime(
          evaluable(shape.leftLifetime.lo),
          evaluable(shape.leftLifetime.hi)),
        JoinLifetime(
          evaluable(shape.rightLifetime.lo),
          evaluable(shape.rightLifetime.hi)),
        join.output,
        input,
        output,
        StateDefinition.ofRangeJoin(
          join.joinType,
          join.condition.get,
          shape.leftLifetime,
          shape.rightLifetime,
          input)))
    }
  }

  /**
   * A join of the streams `left` and `right` as Spark's `TransformWithState` in event-time mode
   * (the plan drawn above), shared by the range joins and [[StreamingAsofJoins]]: the union of
   * both sides (the keys, the side tag, a struct per side, the side's watermarked `time`),
   * grouped by the keys (a constant without keys), given to the processor `processorOf` makes of
   * the union's schema and the output's, whose rows become `output` (the same names and ids).
   */
  private[analysis] def joinOfStreams(
      left: LogicalPlan,
      right: LogicalPlan,
      leftKeys: Seq[Expression],
      rightKeys: Seq[Expression],
      leftTime: Attribute,
      rightTime: Attribute,
      output: Seq[Attribute])(
      processorOf: (StructType, StructType) => StatefulProcessor[Row, Row, Row]): LogicalPlan = {
    val (leftStruct, rightStruct) = (CreateStruct(left.output), CreateStruct(right.output))
    def side(
        plan: LogicalPlan,
        keys: Seq[Expression],
        tag: Int,
        time: Attribute): LogicalPlan = {
      // Only the time carries the watermark: TransformWithState takes one event-time column.
      val keyColumns = if (keys.isEmpty) Seq(Alias(Literal(0), "__eventwindows_key")())
      else keys.zipWithIndex.map { case (k, i) =>
        Alias(k, s"__eventwindows_key$i")(explicitMetadata = Some(Metadata.empty))
      }
      val structs = if (tag == 0) Seq(leftStruct, Literal(null, rightStruct.dataType))
      else Seq(Literal(null, leftStruct.dataType), rightStruct)
      val columns: Seq[NamedExpression] = keyColumns ++ Seq(
        Alias(Literal(tag), InputColumns.Side)(),
        Alias(structs(0), InputColumns.Left)(),
        Alias(structs(1), InputColumns.Right)(),
        Alias(time, InputColumns.Time)(explicitMetadata = Some(time.metadata)))
      Project(columns, plan)
    }
    val union = Union(Seq(side(left, leftKeys, 0, leftTime), side(right, rightKeys, 1, rightTime)))
    val input = union.output
    val grouping = input.take(math.max(leftKeys.size, 1))
    val inputSchema = StreamingWindows.schemaOf(input)
    val keyEncoder = ExpressionEncoder(StreamingWindows.schemaOf(grouping))
    val outputEncoder = ExpressionEncoder(StreamingWindows.schemaOf(output))
    val keyDeserializer = StreamingWindows.resolvedDeserializer(keyEncoder, grouping)
    val node = TransformWithState(
      keyDeserializer = keyDeserializer,
      valueDeserializer =
        StreamingWindows.resolvedDeserializer(ExpressionEncoder(inputSchema), input),
      groupingAttributes = grouping,
      dataAttributes = input,
      statefulProcessor = processorOf(inputSchema, outputEncoder.schema)
        .asInstanceOf[StatefulProcessor[Any, Any, Any]],
      timeMode = TimeMode.EventTime(),
      outputMode = OutputMode.Append(),
      keyEncoder = keyEncoder.asInstanceOf[ExpressionEncoder[Any]],
      outputObjAttr = CatalystSerde.generateObjAttr(outputEncoder),
      child = union,
      hasInitialState = false,
      // Unused without initial state: as Spark's own transformWithState sets them.
      initialStateGroupingAttrs = grouping,
      initialStateDataAttrs = input,
      initialStateDeserializer = keyDeserializer,
      initialState = LocalRelation(keyEncoder.schema))
    val serialized = CatalystSerde.serialize(node)(outputEncoder)
    Project(
      serialized.output.zip(output).map { case (column, named) =>
        Alias(column, named.name)(exprId = named.exprId, explicitMetadata = Some(named.metadata))
      },
      serialized)
  }
}
