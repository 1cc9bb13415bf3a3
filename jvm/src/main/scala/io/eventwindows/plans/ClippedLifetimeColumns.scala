package io.eventwindows.plans

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, Unevaluable}
import org.apache.spark.sql.types.{DataType, NullType}

/**
 * The two columns a window aggregation produces for its aggregates (and FILTERs) alone when they
 * read `clipped_start()` and `clipped_end()`: the `start` and `end` of the lifetime of the event
 * read, clipped to the window it is read for. For example an event `[2, 9)` read for the window
 * `[5, 10)` has `start` 5 and `end` 9 there.
 *
 * An unevaluable expression over the two attributes, as [[WindowDefinition]] is, so that the
 * rules that rewrite a plan's expressions see them in the nodes that carry it.
 */
case class ClippedLifetimeColumns(start: Attribute, end: Attribute)
    extends Expression with Unevaluable {

  override def children: Seq[Expression] = Seq(start, end)
  override def nullable: Boolean = false
  override def dataType: DataType = NullType

  /** The two columns, start first. */
  def attributes: Seq[Attribute] = Seq(start, end)

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression])
      : ClippedLifetimeColumns =
    copy(
      start = newChildren(0).asInstanceOf[Attribute],
      end = newChildren(1).asInstanceOf[Attribute])
}
