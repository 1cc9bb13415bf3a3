package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.analysis.UnresolvedException
import org.apache.spark.sql.catalyst.expressions.{Expression, LeafExpression, Unevaluable}
import org.apache.spark.sql.types.DataType

/**
 * `clipped_start()` and `clipped_end()`: the lifetime of the event an aggregate reads, intersected
 * with the extent of the window it is read for (StreamInsight's input policy: a time-sensitive
 * aggregate sees lifetimes clipped to the window). A marker, never evaluated: it is unresolved
 * until [[io.eventwindows.analysis.ClippedLifetimes]] finds the window of its aggregate and gives
 * it that window's time type, and the plan of the window then replaces it with each event's value
 * in each window (a column the window operator fills, or an expression over the window Spark's
 * aggregation groups by).
 */
case class ClippedLifetime(isEnd: Boolean, timeType: Option[DataType] = None)
    extends LeafExpression with Unevaluable {

  override lazy val resolved: Boolean = timeType.isDefined
  override def dataType: DataType = timeType.getOrElse(throw new UnresolvedException("dataType"))
  override def nullable: Boolean = false
  override def prettyName: String = if (isEnd) ClippedLifetime.End else ClippedLifetime.Start
  override def sql: String = s"$prettyName()"
  override def toString: String = sql
}

object ClippedLifetime {
  final val Start = "clipped_start"
  final val End = "clipped_end"

  /** True if `e` uses a clipped lifetime, typed or not. */
  def isUsedIn(e: Expression): Boolean = e.exists(_.isInstanceOf[ClippedLifetime])
}
