package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, Expression, GetStructField, Literal, PreciseTimestampConversion, Subtract
}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.{LongType, MetadataBuilder}

/**
 * `window_time(window)` over dynamic windows whose interval includes its end (bounds `'[]'` and
 * `'(]'`): the interval's last instant, `window.end` itself. Spark's `ResolveWindowTime` gives
 * `window.end - 1 µs`, the last instant of a half-open window (as those of `window()`, and
 * dynamic windows with bounds `'[)'` and `'()'`, which keep it); for an inclusive end that would be
 * an instant before the row's last one, in an earlier window of a second stage when the end lies
 * on its boundary, and on a stream at or before the watermark that the row closed after (its close
 * time is its last instant), so late for the next stateful operator.
 *
 * Spark's rule places, for `window_time(w)` over a window column `w` carrying its marker,
 * {{{
 *   Project [precisetimestampconversion(precisetimestampconversion(w.end, TIMESTAMP, BIGINT) - 1,
 *            BIGINT, TIMESTAMP) AS window_time(w), ...]
 * }}}
 * and copies w's metadata, less its own markers, to the new column. The `window` column of such
 * dynamic windows also carries [[InclusiveEnd]] ([[EventWindowing]] puts it there), by which this
 * rule, run after Spark's in the same batch, finds that column and gives it `w.end`, without the
 * marker (a further window over the column is no dynamic window).
 */
object AnchorWindowTime extends Rule[LogicalPlan] {

  /** The metadata key of a `window` column whose end is its last instant. */
  final val InclusiveEnd = "eventwindows.inclusiveEnd"

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case p: Project if p.projectList.exists(lastInstant(_).isDefined) =>
      p.copy(projectList = p.projectList.map { column =>
        lastInstant(column).map { end =>
          Alias(end, column.name)(
            exprId = column.exprId,
            explicitMetadata = Some(
              new MetadataBuilder().withMetadata(column.metadata).remove(InclusiveEnd).build()))
        }.getOrElse(column)
      })
  }

  /** `w.end` if `column` is Spark's `window_time(w)` over a window with an inclusive end. */
  private def lastInstant(column: Expression): Option[Expression] = column match {
    case Alias(
          PreciseTimestampConversion(
            Subtract(
              PreciseTimestampConversion(
                end @ GetStructField(w: Attribute, 1, _),
                _,
                LongType),
              Literal(1L, LongType),
              _),
            LongType,
            _),
          _) if w.metadata.contains(InclusiveEnd) => Some(end)
    case _ => None
  }
}
