package io.eventwindows.execution

import org.apache.spark.sql.catalyst.expressions.{Alias, Literal}
import org.apache.spark.sql.catalyst.optimizer.{
  BuildLeft, BuildRight, BuildSide, JoinSelectionHelper
}
import org.apache.spark.sql.catalyst.plans.{FullOuter, LeftAnti, LeftOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Join, JoinHint, LogicalPlan}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan, SparkStrategy, UnionExec}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.plans.RangeJoinShape

/**
 * Plans a join whose condition holds an overlap of two lifetimes or a point in an interval
 * ([[RangeJoinShape]]) as a [[RangeJoinExec]], ahead of Spark's `JoinSelection`, unless
 * `spark.eventwindows.rangeJoin.enabled` is false, the join carries a hint (the user's choice of
 * plan stands) or both sides are streams (`analysis.StreamingRangeJoins` plans those it can as
 * Spark's `TransformWithState`, Spark the others), or, without keys or a side to broadcast, a side
 * is not deterministic.
 * Everything else stays Spark's to plan.
 *
 * A stream joined with a static table is planned the same way: Spark's checks of stream-static
 * joins (`UnsupportedOperationChecker`) have already allowed its join type, and each micro-batch's
 * plan joins that batch's rows with the whole static side, as a batch join, so the rows of all
 * micro-batches are the batch join's of all input.
 *
 * A side is broadcast where the join type can build it (its unmatched rows are not kept, as for
 * Spark's broadcast hash join with keys and broadcast nested loop join without) and
 * [[SweepBroadcast]] says it is worth it; of two such sides, the smaller. Without keys, that also
 * spares the sample and the shuffle of both sides by ranges of time.
 *
 * A full outer join without keys becomes a left outer join and the right side's anti join, under
 * a union (each of the two has one side whose unmatched rows it keeps, as the ranges of time need):
 * {{{
 *   Union
 *   :- RangeJoin LeftOuter (left, right)
 *   +- Project [NULL AS <left columns>, <right columns>]
 *      +- RangeJoin LeftAnti (right, left)
 * }}}
 */
object RangeJoinStrategy extends SparkStrategy with JoinSelectionHelper {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case join: Join
        if EventWindowsConf.rangeJoinEnabled && join.hint == JoinHint.NONE &&
          !(join.left.isStreaming && join.right.isStreaming) =>
      join match {
        case RangeJoinShape(shape) =>
          broadcastSide(shape) match {
            case Some(side) =>
              exec(shape, planLater(shape.left), planLater(shape.right), Some(side)) :: Nil
            case None if shape.leftKeys.nonEmpty =>
              exec(shape, planLater(shape.left), planLater(shape.right)) :: Nil
            // Without keys, each side is read twice (a sample, then the rows): only if both give
            // the same rows each time, since the sample's longest lifetime decides where rows go.
            case None if !(shape.left.deterministic && shape.right.deterministic) => Nil
            case None if shape.joinType == FullOuter => fullOuterByTime(shape) :: Nil
            case None => exec(shape, planLater(shape.left), planLater(shape.right)) :: Nil
          }
        case _ => Nil
      }
    case _ => Nil
  }

  private def exec(
      shape: RangeJoinShape,
      left: SparkPlan,
      right: SparkPlan,
      broadcast: Option[BuildSide] = None): RangeJoinExec =
    RangeJoinExec(
      shape.leftKeys,
      shape.rightKeys,
      shape.joinType,
      shape.leftLifetime,
      shape.rightLifetime,
      shape.condition,
      left,
      right,
      broadcast)

  /** The side to broadcast, if any: the join type can build it, and [[SweepBroadcast]] says so. */
  private def broadcastSide(shape: RangeJoinShape): Option[BuildSide] = {
    val left =
      canBuildBroadcastLeft(shape.joinType) && SweepBroadcast.worthIt(shape.left, shape.right)
    val right =
      canBuildBroadcastRight(shape.joinType) && SweepBroadcast.worthIt(shape.right, shape.left)
    if (left && right) {
      Some(if (shape.right.stats.sizeInBytes <= shape.left.stats.sizeInBytes) BuildRight
      else BuildLeft)
    } else if (left) Some(BuildLeft)
    else if (right) Some(BuildRight)
    else None
  }

  private def fullOuterByTime(shape: RangeJoinShape): SparkPlan = {
    val leftOuter =
      exec(shape.copy(joinType = LeftOuter), planLater(shape.left), planLater(shape.right))
    val rightAlone = exec(
      shape.copy(
        joinType = LeftAnti,
        leftLifetime = shape.rightLifetime,
        rightLifetime = shape.leftLifetime,
        left = shape.right,
        right = shape.left),
      planLater(shape.right),
      planLater(shape.left))
    val nullLeft = shape.left.output.map(a => Alias(Literal(null, a.dataType), a.name)(a.exprId))
    UnionExec(Seq(leftOuter, ProjectExec(nullLeft ++ shape.right.output, rightAlone)))
  }
}
