package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, Unevaluable}
import org.apache.spark.sql.types.{DataType, NullType}

/**
 * The anchors of dynamic windows on their own side of a plan, as the logical nodes
 * ([[AnchorWindowAggregate]], [[AnchorSlices]]) and the physical operators that broadcast them
 * carry them: per anchor its `keys`, its interval `[start, end]` (each end open or closed as
 * `bounds` says) and, where the operator gives the anchor's own columns in the `window` struct,
 * its `row`; attributes of the anchors' side, never of the messages'.
 *
 * An unevaluable expression over those columns, as [[WindowDefinition]] is for the window itself,
 * so that the rules that rewrite a plan's expressions (attribute ids, pruning) see the ones inside.
 */
case class AnchorDefinition(
    keys: Seq[Attribute],
    start: Attribute,
    end: Attribute,
    row: Option[Attribute],
    bounds: Bounds) extends Expression with Unevaluable {

  override def children: Seq[Expression] = keys ++ Seq(start, end) ++ row
  override def nullable: Boolean = false
  override def dataType: DataType = NullType

  /** The anchors' keys and interval alone, as the slices of their keys need them. */
  def interval: AnchorDefinition = copy(row = None)

  /** The columns of the anchors' side this definition reads, in order. */
  def columns: Seq[Attribute] = keys ++ Seq(start, end) ++ row

  override def toString: String =
    s"anchors(keys=${keys.mkString("[", ", ", "]")}, ${bounds.sqlName.head}$start, $end" +
      s"${bounds.sqlName.last}${row.map(r => s", row=$r").getOrElse("")})"

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression])
      : AnchorDefinition = {
    val attributes = newChildren.map(_.asInstanceOf[Attribute])
    val (newKeys, rest) = attributes.splitAt(keys.size)
    copy(keys = newKeys, start = rest(0), end = rest(1), row = rest.drop(2).headOption)
  }
}
