package io.eventwindows.execution

import org.apache.spark.sql.catalyst.expressions.{Alias, Literal}
import org.apache.spark.sql.catalyst.optimizer.{
  BuildLeft, BuildRight, BuildSide, JoinSelectionHelper
}
import org.apache.spark.sql.catalyst.plans.{FullOuter, LeftAnti, LeftOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Join, JoinHint, LogicalPlan}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan, SparkStrategy, UnionExec}
import org.apache.spark.sql.internal.SQLConf

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
 * A side is broadcast where Spark's own `JoinSelection` would broadcast it without hints (as a
 * broadcast hash join with keys, a broadcast nested loop join without): its size at most
 * `spark.sql.autoBroadcastJoinThreshold` and the join type one that can build that side (its
 * unmatched rows are not kept); of two such sides, the smaller. But a sweep, unlike a hash
 * table, reads all of the broadcast side in every task of the other side, so a side is broadcast
 * only if it is also at most the other's size divided by `spark.sql.shuffle.partitions` (the
 * tasks, as far as planning knows them): then the tasks' reading of it costs less than the
 * shuffle of the other side it spares. Without keys, it also spares the sample and the shuffle of
 * both sides by ranges of time. For example, 10,000 intervals joined with 2,000,000 points in 4
 * tasks are broadcast; two tables of 500,000 intervals are both shuffled.
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

  /**
   * The side to broadcast, if any: one Spark's `JoinSelection` would broadcast by size alone (no
   * hints here), and small enough that sweeping all of it in every task of the other side costs
   * less than shuffling that side (see the class's comment).
   */
  private def broadcastSide(shape: RangeJoinShape): Option[BuildSide] = {
    val conf = SQLConf.get
    def worthIt(built: LogicalPlan, other: LogicalPlan): Boolean =
      canBroadcastBySize(built, conf) &&
        built.stats.sizeInBytes * conf.numShufflePartitions <= other.stats.sizeInBytes
    val left = canBuildBroadcastLeft(shape.joinType) && worthIt(shape.left, shape.right)
    val right = canBuildBroadcastRight(shape.joinType) && worthIt(shape.right, shape.left)
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
