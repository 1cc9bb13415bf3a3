package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{
  AttributeSet, BinaryComparison, Cast, Expression, GreaterThan, GreaterThanOrEqual, LessThan,
  LessThanOrEqual, PredicateHelper, SubqueryExpression, UnixDate
}
import org.apache.spark.sql.catalyst.planning.ExtractEquiJoinKeys
import org.apache.spark.sql.catalyst.plans.{
  FullOuter, InnerLike, JoinType, LeftAnti, LeftOuter, LeftSemi, RightOuter
}
import org.apache.spark.sql.catalyst.plans.logical.{Join, LogicalPlan}
import org.apache.spark.sql.types._

/**
 * A closed lifetime `[lo, hi]` of one side of a range join, both ends expressions of the side's
 * columns whose values are read as longs (see [[RangeJoinShape.asTicks]]): a superset of what the join's condition
 * lets the side's row meet, so that a row whose lifetime does not overlap a row's of the other
 * side can never satisfy the condition with it.
 */
case class JoinLifetime(lo: Expression, hi: Expression) {
  def sql: String = s"[${lo.sql}, ${hi.sql}]"
}

/**
 * A join whose condition holds a range, as [[RangeJoinShape.unapply]] recognizes it: the equality
 * keys (none: the time line alone), the join type, the condition left once the keys are taken out
 * (evaluated on every candidate pair, so that strict bounds, NULLs and extra predicates are
 * Spark's), and the closed lifetime of each side.
 */
case class RangeJoinShape(
    joinType: JoinType,
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    condition: Option[Expression],
    leftLifetime: JoinLifetime,
    rightLifetime: JoinLifetime,
    left: LogicalPlan,
    right: LogicalPlan)

/**
 * Recognizes a range join: among the conjuncts of the condition (after Spark's
 * `ExtractEquiJoinKeys` has taken the equality keys out), one that bounds a left value by a right
 * one from above and one that bounds a right value by a left one, on the same time type:
 * {{{
 *   a.s <  b.e AND b.s <  a.e      overlap:   left [a.s, a.e], right [b.s, b.e]
 *   b.s <= a.t AND a.t <  b.e      point in interval: left [a.t, a.t], right [b.s, b.e]
 *   a.t BETWEEN b.s AND b.e        the same, as the optimizer writes it (>= and <=)
 * }}}
 * A conjunct `x <= y` or `x < y` (or `y >= x`, `y > x`) with x of the left side and y of the right
 * makes x the left's `lo` and y the right's `hi`; one with x of the right and y of the left the
 * right's `lo` and the left's `hi`. Any pair satisfying the condition then has
 * `left.lo <= right.hi` and `right.lo <= left.hi`: their closed lifetimes overlap. A NULL bound
 * makes its conjunct, and so the condition, not true.
 *
 * Time types: TIMESTAMP, TIMESTAMP_NTZ, DATE and the integral types; the join types Spark has for
 * an ordinary condition (inner, cross, left, right and full outer, left semi and anti). Anything
 * else is not a range join here and stays Spark's to plan.
 */
object RangeJoinShape extends PredicateHelper {

  def unapply(join: Join): Option[RangeJoinShape] = join match {
    case ExtractEquiJoinKeys(joinType, leftKeys, rightKeys, Some(condition), _, left, right, _) =>
      recognize(joinType, leftKeys, rightKeys, condition, left, right)
    case Join(left, right, joinType, Some(condition), _) =>
      recognize(joinType, Nil, Nil, condition, left, right)
    case _ => None
  }

  private def recognize(
      joinType: JoinType,
      leftKeys: Seq[Expression],
      rightKeys: Seq[Expression],
      condition: Expression,
      left: LogicalPlan,
      right: LogicalPlan): Option[RangeJoinShape] = {
    if (!supported(joinType)) return None
    // Each bound as (below, above): below <= above (or <) must hold.
    val bounds = splitConjunctivePredicates(condition).flatMap(orientation)
    def crossing(below: AttributeSet, above: AttributeSet): Seq[(Expression, Expression)] =
      bounds.filter { case (b, a) =>
        b.references.nonEmpty && b.references.subsetOf(below) &&
        a.references.nonEmpty && a.references.subsetOf(above) &&
        b.deterministic && a.deterministic && timeType(b.dataType) &&
        // A bound is evaluated apart from the condition, where Spark plans no subquery.
        !SubqueryExpression.hasSubquery(b) && !SubqueryExpression.hasSubquery(a)
      }
    val leftBelowRight = crossing(left.outputSet, right.outputSet)
    val rightBelowLeft = crossing(right.outputSet, left.outputSet)
    val pairs = for {
      (leftLo, rightHi) <- leftBelowRight
      (rightLo, leftHi) <- rightBelowLeft
      if leftLo.dataType == rightLo.dataType
    } yield RangeJoinShape(
      joinType,
      leftKeys,
      rightKeys,
      Some(condition),
      JoinLifetime(asTicks(leftLo), asTicks(leftHi)),
      JoinLifetime(asTicks(rightLo), asTicks(rightHi)),
      left,
      right)
    pairs.headOption
  }

  private def supported(joinType: JoinType): Boolean = joinType match {
    case _: InnerLike | LeftOuter | RightOuter | FullOuter | LeftSemi | LeftAnti => true
    case _ => false
  }

  /** A comparison as (below, above), whatever its strictness and direction. */
  private def orientation(e: Expression): Option[(Expression, Expression)] = e match {
    case c @ (_: LessThan | _: LessThanOrEqual) =>
      val b = c.asInstanceOf[BinaryComparison]
      Some((b.left, b.right))
    case c @ (_: GreaterThan | _: GreaterThanOrEqual) =>
      val b = c.asInstanceOf[BinaryComparison]
      Some((b.right, b.left))
    case _ => None
  }

  private def timeType(t: DataType): Boolean = t match {
    case TimestampType | TimestampNTZType | DateType | LongType | IntegerType | ShortType |
        ByteType => true
    case _ => false
  }

  /**
   * A time value as an expression whose value is read as a long, in the same order: timestamps
   * (microseconds) and BIGINT as they are, a date as its day number, the integral types widened.
   */
  def asTicks(e: Expression): Expression = e.dataType match {
    case LongType | TimestampType | TimestampNTZType => e
    case DateType => Cast(UnixDate(e), LongType)
    case _ => Cast(e, LongType)
  }
}
