package io.eventwindows.plans

import java.util.Locale

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, RowOrdering}
import org.apache.spark.sql.catalyst.plans.logical.{BinaryNode, LogicalPlan}

/** Which right row an ASOF join gives a left row, as pandas' `merge_asof` names it. */
sealed abstract class AsofDirection(val name: String) {
  override def toString: String = name
}

object AsofDirection {

  /** The last right row at or before the left row's time. */
  case object Backward extends AsofDirection("backward")

  /** The first right row at or after it. */
  case object Forward extends AsofDirection("forward")

  /** The nearer of the two; at equal distance the backward one. */
  case object Nearest extends AsofDirection("nearest")

  val all: Seq[AsofDirection] = Seq(Backward, Forward, Nearest)

  def of(name: String): Option[AsofDirection] =
    all.find(_.name == name.trim.toLowerCase(Locale.ROOT))
}

/**
 * `asof_join` as the analyzer asks for it (`AsofJoinTableFunction`): the columns by name, the
 * tolerance as written. Unresolved until the analysis rule `AsofJoinTableFunction.Resolve` has
 * found the columns in each side (once both are resolved) and made it an [[AsofJoin]].
 */
case class AsofJoinRequest(
    left: LogicalPlan,
    right: LogicalPlan,
    on: Seq[String],
    leftTime: String,
    rightTime: String,
    direction: AsofDirection,
    tolerance: Option[Expression],
    allowExactMatches: Boolean) extends BinaryNode {
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false
  override protected def withNewChildrenInternal(
      newLeft: LogicalPlan,
      newRight: LogicalPlan): AsofJoinRequest =
    copy(left = newLeft, right = newRight)
}

/**
 * pandas' `merge_asof` as a logical node: every left row once, with the right row its
 * `direction` chooses among those of equal keys (all columns of the right side, NULL where none
 * is chosen). The times are expressions read as longs (`RangeJoinShape.asTicks`); `tolerance`,
 * in the same ticks, bounds the distance between the two times (inclusive);
 * `allowExactMatches` false leaves out right rows at the left row's very time. Right rows tying on
 * (keys, time) are ordered by their other columns, so that "the last" (backward) and "the first"
 * (forward) are defined without an input order.
 */
case class AsofJoin(
    left: LogicalPlan,
    right: LogicalPlan,
    leftKeys: Seq[Attribute],
    rightKeys: Seq[Attribute],
    leftTime: Expression,
    rightTime: Expression,
    direction: AsofDirection,
    tolerance: Option[Long],
    allowExactMatches: Boolean) extends BinaryNode {
  override def output: Seq[Attribute] = AsofJoin.output(left.output, right.output)

  /**
   * The keys and times, and the right columns that order its ties: Spark's `ColumnPruning` keeps
   * below the node only what it references, and a right column left out would change which of
   * tying right rows is chosen (the last by its other columns), so that the rows would depend on
   * the columns selected above the join.
   */
  override def references: AttributeSet =
    AttributeSet(leftKeys ++ rightKeys ++
      AsofJoin.rightTieBreak(right.output, rightKeys, rightTime)) ++
      leftTime.references ++ rightTime.references
  override protected def withNewChildrenInternal(
      newLeft: LogicalPlan,
      newRight: LogicalPlan): AsofJoin =
    copy(left = newLeft, right = newRight)
}

object AsofJoin {

  /** The columns of an ASOF join and of its operator: the left's, then the right's, nullable. */
  def output(left: Seq[Attribute], right: Seq[Attribute]): Seq[Attribute] =
    left ++ right.map(_.withNullability(true))

  /**
   * The right side's columns that order its rows tying on (keys, time), ascending with NULLs
   * first: its other orderable columns, in their order. Backward takes the last of such a tie,
   * forward the first, in batch (`AsofJoinExec`) and on streams alike.
   */
  def rightTieBreak(
      rightOutput: Seq[Attribute],
      rightKeys: Seq[Attribute],
      rightTime: Expression): Seq[Attribute] = {
    val placed = AttributeSet(rightKeys ++ rightTime.references)
    rightOutput.filter(a => RowOrdering.isOrderable(a.dataType) && !placed.contains(a))
  }
}
