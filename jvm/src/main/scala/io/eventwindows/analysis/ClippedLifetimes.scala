package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.{ClippedLifetime, EventWindow, TimeWeighted}
import io.eventwindows.plans.WindowFamily

/**
 * Gives `clipped_start()` and `clipped_end()` (which the time-weighted aggregates read too) the
 * time type of the window of their aggregate, once [[EventWindowing]] has placed that window below
 * the Aggregate (also in a HAVING or ORDER BY over it, whose aggregates Spark then moves into
 * it); until then they are unresolved, so the expressions around them wait. Used anywhere else,
 * or over a window that has no clipped lifetimes, they are an analysis error naming the function
 * and why. [[EventWindowAggregation]] then replaces them with each event's value in each window,
 * and [[ClippedLifetimes.check]] rejects any left elsewhere.
 */
object ClippedLifetimes extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case p if p.expressions.exists(_.exists(untyped)) =>
      p match {
        case a: Aggregate if windowOf(a).isDefined =>
          a.groupingExpressions.find(ClippedLifetime.isUsedIn).foreach(misplaced(_, "GROUP BY"))
          typed(a, windowOf(a).get)
        case a: Aggregate if a.groupingExpressions.exists(e => !e.resolved || e.exists(isWindow)) =>
          a // The window is not placed yet, or GROUP BY is not resolved yet.
        case _ if !p.childrenResolved => p
        case _ if p.children.size == 1 && windowBelow(p.children.head).isDefined =>
          typed(p, windowBelow(p.children.head).get) // HAVING or ORDER BY over the aggregate.
        case a: Aggregate => misplaced(
            a.aggregateExpressions.find(_.exists(untyped)).get,
            "an aggregation without a window function")
        case other => misplaced(other.expressions.find(_.exists(untyped)).get, other.nodeName)
      }
  }

  /** Fails on a clipped lifetime left in an analyzed plan: one outside a window's aggregates. */
  def check(plan: LogicalPlan): Unit = plan.foreachWithSubqueries { p =>
    p.expressions.find(ClippedLifetime.isUsedIn).foreach(misplaced(_, p.nodeName))
  }

  private def typed(p: LogicalPlan, window: EventWindow): LogicalPlan = {
    checkFamily(culprit(p.expressions), window.family)
    val time = Some(window.start.dataType)
    p.transformExpressions {
      case c: ClippedLifetime if c.timeType.isEmpty =>
        c.copy(timeType = time)
    }
  }

  /** The placed window of an Aggregate over one. */
  private def windowOf(a: Aggregate): Option[EventWindow] = a.child match {
    case Project(list, _) => list.collectFirst { case Alias(w: EventWindow, _) if w.placed => w }
    case _ => None
  }

  /** The window of the Aggregate below `plan` through single-child nodes, if any. */
  private def windowBelow(plan: LogicalPlan): Option[EventWindow] = plan match {
    case a: Aggregate => windowOf(a)
    case p if p.children.size == 1 => windowBelow(p.children.head)
    case _ => None
  }

  private def isWindow(e: Expression): Boolean = e.isInstanceOf[EventWindow]

  /**
   * The error for a clipped lifetime used outside the aggregates of a window: `where` says where
   * (e.g. the plan node). Named by the time-weighted aggregate that reads it, if one does.
   */
  def misplaced(e: Expression, where: String): Nothing =
    throw EventWindowsErrors.invalidParameter(
      culprit(Seq(e)),
      "allowed only inside the arguments or FILTER of the " +
        s"aggregates of a GROUP BY over ${WindowFamily.ClippingFamilies}, where each event's " +
        s"lifetime is clipped to each window; got it in $where: ${e.sql}")

  private def checkFamily(function: String, family: WindowFamily): Unit =
    family.clippedLifetimeRefusal.foreach(reason =>
      throw EventWindowsErrors.invalidParameter(function, reason))

  /** The function to name: the first time-weighted aggregate using a clipped lifetime, if any. */
  private def culprit(expressions: Seq[Expression]): String = {
    val used = expressions.flatMap(_.collect {
      case t: TimeWeighted if t.children.exists(ClippedLifetime.isUsedIn) => t.prettyName
      case c: ClippedLifetime => c.prettyName
    })
    used.headOption.getOrElse(ClippedLifetime.Start)
  }

  private def untyped(e: Expression): Boolean = e match {
    case c: ClippedLifetime => c.timeType.isEmpty
    case _ => false
  }

  /** A use of a clipped lifetime in `e` outside every aggregate function, if any. */
  def outsideAggregates(e: Expression): Option[Expression] = e match {
    case _: AggregateExpression => None
    case c: ClippedLifetime => Some(c)
    case other => other.children.view.flatMap(outsideAggregates).headOption
  }
}
