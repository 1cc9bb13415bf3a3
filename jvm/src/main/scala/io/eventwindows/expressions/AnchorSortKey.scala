package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{Coalesce, Expression, If, IsNull, Literal}

import io.eventwindows.plans.Bounds

/**
 * Where a row of the table of messages and anchors that `anchor_window` groups sorts within its
 * key: a message (NULL anchor) at its time, an anchor at its interval's start (a NULL start is
 * kept, at the line's first instant, to be rejected by the operator; a stream checks its anchors
 * where it reads them instead, see [[sortTime]]), before the messages at that time when the start
 * is inclusive, after them when it is exclusive. Built once here for the window function and for
 * [[io.eventwindows.analysis.SliceAnchorWindows]], which rebuilds it over the sliced table.
 */
object AnchorSortKey {

  /** The sort time and the tie order of a row, from its message time and anchor columns. */
  def apply(time: Expression, start: Expression, anchor: Expression, bounds: Bounds)
      : (Expression, Expression) = {
    val lineStart = Literal(EventTime.lineMin(time.dataType), time.dataType)
    val side = If(IsNull(anchor), Literal(1), Literal(if (bounds.lowerInclusive) 0 else 2))
    (sortTime(time, Coalesce(Seq(start, lineStart)), anchor), side)
  }

  /** The sort time of a row: `time` for a message, `anchorStart` for an anchor. */
  def sortTime(time: Expression, anchorStart: Expression, anchor: Expression): Expression =
    If(IsNull(anchor), time, anchorStart)

  /** The message time inside a sort time that `apply` built over `anchor`. */
  def messageTime(sortTime: Expression, anchor: Expression): Option[Expression] = sortTime match {
    case If(IsNull(a), time, _) if a.semanticEquals(anchor) => Some(time)
    case _ => None
  }
}
