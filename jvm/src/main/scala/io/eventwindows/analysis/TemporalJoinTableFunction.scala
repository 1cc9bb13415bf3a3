package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedStar}
import org.apache.spark.sql.catalyst.expressions.{
  Add, Alias, And, Coalesce, CreateNamedStruct, EqualTo, Expression, Greatest, If, Least, LessThan,
  LessThanOrEqual, Literal, NamedExpression
}
import org.apache.spark.sql.catalyst.plans.{
  FullOuter, Inner, JoinType, LeftAnti, LeftOuter, LeftSemi, RightOuter
}
import org.apache.spark.sql.catalyst.plans.logical.{
  Join, JoinHint, LogicalPlan, Project, SubqueryAlias
}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, LongType}

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.{CheckedEnd, EventTime}

/**
 * StreamInsight's temporal join as a table-valued function (SPEC 3.9):
 * {{{
 *   SELECT * FROM temporal_join(TABLE(readings), TABLE(states), 'k', 'left', 's', 'e',
 *                               'since', 'until')
 * }}}
 * the rows of the join on equal `on` keys whose lifetimes `[s, e)` overlap, with `lifetime`, the
 * intersection `[max(a.s, b.s), min(a.e, b.e))`. It builds an ordinary join, left to the analyzer
 * (so a self-join is told apart as in any SQL self-join) and planned by the `RangeJoin` rule:
 * each side under an alias with its lifetime as two more columns (the end checked against the
 * start, [[CheckedEnd]]; a point event's end one tick after it, none at the end of time), and
 * every lifetime rule of `docs/events.md` in the condition:
 * {{{
 *   a.s < coalesce(b.e, END) AND b.s < coalesce(a.e, END)     (a point t: b.s <= t)
 *   AND a.s < coalesce(a.e, END) AND b.s < coalesce(b.e, END)  (empty lifetimes meet nothing)
 * }}}
 * END is the end of time, where an open-ended event (NULL end) ends. Over that join, the `on`
 * keys once (for a full join the non-NULL one), the other columns of both sides and
 * `STRUCT(greatest(a.s, b.s) AS start, least(a.e, b.e) AS end)`: Spark's `greatest` and `least`
 * skip NULLs, so an unmatched row of an outer join keeps its own lifetime and an open end stays
 * open. Semi and anti joins give the left's rows with their own lifetime.
 */
object TemporalJoinTableFunction extends TableFunction {

  final val Name = "temporal_join"

  final val LifetimeColumn = "lifetime"

  /** The aliases of the two sides in the join this function builds. */
  final val LeftAlias = "__eventwindows_left"
  final val RightAlias = "__eventwindows_right"

  override def name: String = Name

  override protected def usage: String =
    """
    _FUNC_(TABLE(left), TABLE(right), on, how, left_start, left_end, right_start, right_end) -
      StreamInsight's temporal join: the rows of the join of the two tables on equal `on` keys
      whose lifetimes [start, end) overlap, with the column `lifetime` (struct of `start` and
      `end`): the intersection, or for an unmatched row of an outer join its own lifetime.
      Planned by the RangeJoin rule as a sorted sweep.
    """

  override protected def argumentDocs: String =
    """
    Arguments:
      * left, right - the event tables, as TABLE(name) or TABLE(query).
      * on - comma-separated key columns present in both tables (equal, NULL matching nothing);
          NULL or '' for none.
      * how - 'inner', 'left', 'right', 'full' (or Spark's other names of them), 'left_semi' or
          'left_anti' (the left's rows, with their own lifetime); NULL: 'inner'.
      * left_start, left_end, right_start, right_end - the names of each side's lifetime
          columns (nested fields too), TIMESTAMP, TIMESTAMP_NTZ or BIGINT, one type for all; an
          end of NULL for point events, which last one tick. A NULL end value lasts to the end
          of time, a NULL start matches nothing, an empty lifetime overlaps nothing, an end
          before its start fails the query naming the row.
    """

  override protected def examples: String =
    """
    Examples:
      > SELECT k, v, state, lifetime.start, lifetime.end FROM _FUNC_(TABLE(SELECT * FROM VALUES ('m', 0L, 3L, 1), ('m', 4L, 9L, 2) AS r(k, s, e, v)), TABLE(SELECT * FROM VALUES ('m', 'idle', 0L, 5L) AS s(k, state, since, until)), 'k', 'inner', 's', 'e', 'since', 'until') ORDER BY v;
        m	1	idle	0	3
        m	2	idle	4	5
    """

  override protected def arity: Range = 8 to 8

  private val joinTypes: Map[String, JoinType] = Map(
    "inner" -> Inner,
    "left" -> LeftOuter,
    "leftouter" -> LeftOuter,
    "left_outer" -> LeftOuter,
    "right" -> RightOuter,
    "rightouter" -> RightOuter,
    "right_outer" -> RightOuter,
    "full" -> FullOuter,
    "outer" -> FullOuter,
    "fullouter" -> FullOuter,
    "full_outer" -> FullOuter,
    "semi" -> LeftSemi,
    "leftsemi" -> LeftSemi,
    "left_semi" -> LeftSemi,
    "anti" -> LeftAnti,
    "leftanti" -> LeftAnti,
    "left_anti" -> LeftAnti)

  override protected def build(arguments: TableFunctionArguments): LogicalPlan = {
    val on = arguments.names(2, "on")
    val how = arguments.text(3, "how").getOrElse("inner")
    val joinType = joinTypes.getOrElse(
      how.toLowerCase(java.util.Locale.ROOT),
      fail(
        s"`how` must be one of 'inner', 'left', 'right', 'full', 'left_semi', 'left_anti', " +
          s"got '$how'"))
    val left = Side(
      arguments.table(0, "left"),
      "left",
      LeftAlias,
      arguments.required(4, "left_start"),
      arguments.text(5, "left_end"))
    val right = Side(
      arguments.table(1, "right"),
      "right",
      RightAlias,
      arguments.required(6, "right_start"),
      arguments.text(7, "right_end"))
    if (left.timeType != right.timeType) {
      fail(s"the lifetimes must be of one time type, but the left's is ${left.timeType.sql} " +
        s"and the right's ${right.timeType.sql}")
    }
    on.foreach { k => left.column(k, "on"); right.column(k, "on") }
    if (left.plan.isStreaming && right.plan.isStreaming && EventWindowsConf.rangeJoinEnabled) {
      checkStreams(joinType, left, right)
    }

    val condition =
      (on.map(k => EqualTo(left.ref(k), right.ref(k))) ++ Seq(
        left.startsBeforeEndOf(right),
        right.startsBeforeEndOf(left),
        left.nonEmpty,
        right.nonEmpty)).reduce(And)
    val join = Join(left.aliased, right.aliased, joinType, Some(condition), JoinHint.NONE)
    def lifetime(start: Expression, end: Expression): NamedExpression = Alias(
      CreateNamedStruct(Seq(Literal("start"), start, Literal("end"), end)),
      LifetimeColumn)()
    val output: Seq[NamedExpression] = joinType match {
      case LeftSemi | LeftAnti =>
        left.names.map(left.ref) :+ lifetime(left.start, left.end)
      case _ =>
        val keys = on.map { k =>
          val key = joinType match {
            case FullOuter => Coalesce(Seq(left.ref(k), right.ref(k)))
            case RightOuter => right.ref(k)
            case _ => left.ref(k)
          }
          Alias(key, k)()
        }
        def others(side: Side) = side.names.filterNot(n => on.exists(resolver(_, n))).map(side.ref)
        keys ++ others(left) ++ others(right) :+ lifetime(
          Greatest(Seq(left.start, right.start)),
          Least(Seq(left.end, right.end)))
    }
    Project(output, join)
  }

  private def resolver = SQLConf.get.resolver

  /**
   * A temporal join of two streams runs as `StreamingRangeJoins` plans it, which needs an inner,
   * left, right or full outer join and an event-time watermark on each side's start: otherwise an
   * error naming what to use, here where the arguments are known by their names (Spark's own
   * stream-stream join would run an inner join without watermarks, keeping every event for ever,
   * and refuses the others when the query starts).
   */
  private def checkStreams(joinType: JoinType, left: Side, right: Side): Unit = {
    if (!StreamingRangeJoins.planned(joinType)) {
      throw EventWindowsErrors.streamJoinType(
        Name,
        joinType.sql,
        StreamingRangeJoins.typeAdvice(joinType))
    }
    val unmarked = Seq(left, right).find { side =>
      !StreamingRangeJoins.watermarked(side.column(side.startName, s"${side.side}_start"))
    }
    unmarked.foreach { side =>
      throw EventWindowsErrors.streamJoinWithoutWatermark(
        Name,
        side.side,
        s"start `${side.startName}`",
        "the join pairs each event as it arrives and forgets it (an outer join's unmatched row " +
          "out) once the watermark passes its end")
    }
  }

  /**
   * One side: its table under `alias`, with the lifetime as the columns `<alias>_start` and
   * `<alias>_end` (NULL: open-ended).
   */
  private case class Side(
      plan: LogicalPlan,
      side: String,
      alias: String,
      startName: String,
      endName: Option[String]) {

    if (plan.output.exists(a => resolver(a.name, LifetimeColumn))) {
      fail(s"the $side table has a column `$LifetimeColumn`, the name of the output's " +
        "lifetime; rename it")
    }

    def column(name: String, parameter: String): Expression = plan.resolve(
      UnresolvedAttribute.quotedString(name).nameParts,
      resolver).getOrElse(fail(
      s"`$parameter` names no column of the $side table: '$name' (its columns: " +
        s"${plan.output.map(_.name).mkString(", ")})"))

    private def timeTypeOf(name: String, parameter: String): DataType = {
      val t = column(name, parameter).dataType
      if (!EventTime.isTimeType(t)) {
        fail(s"`$parameter` must be a TIMESTAMP, TIMESTAMP_NTZ or BIGINT column, got ${t.sql} " +
          s"('$name')")
      }
      t
    }

    val timeType: DataType = timeTypeOf(startName, s"${side}_start")
    endName.foreach { e =>
      if (timeTypeOf(e, s"${side}_end") != timeType) {
        fail(s"`${side}_end` ('$e') must be of the type of `${side}_start` ('$startName'), " +
          timeType.sql)
      }
    }

    private val endOfTime = Literal(EventTime.lineMax(timeType), timeType)

    /** The table with its lifetime columns, under the alias. */
    def aliased: LogicalPlan = {
      val start = UnresolvedAttribute.quotedString(startName)
      val end = endName match {
        case Some(e) => CheckedEnd(start, UnresolvedAttribute.quotedString(e))
        case None =>
          val tick = if (timeType == LongType) Literal(1L) else Literal(1L, DayTimeIntervalType())
          If(LessThan(start, endOfTime), Add(start, tick), start)
      }
      SubqueryAlias(
        alias,
        Project(
          Seq(
            UnresolvedStar(None),
            Alias(start, s"${alias}_start")(),
            Alias(end, s"${alias}_end")()),
          plan))
    }

    def names: Seq[String] = plan.output.map(_.name)

    def ref(name: String): UnresolvedAttribute = UnresolvedAttribute(Seq(alias, name))

    def start: Expression = ref(s"${alias}_start")

    def end: Expression = ref(s"${alias}_end")

    private def lastInstant: Expression = Coalesce(Seq(end, endOfTime))

    /** Not empty: a point before the end of time, an interval whose start is before its end. */
    def nonEmpty: Expression =
      if (endName.isEmpty) LessThan(start, endOfTime) else LessThan(start, lastInstant)

    /** `s < other.e`; for a point `other`, `s <= other.t` (its end is t + 1 tick). */
    def startsBeforeEndOf(other: Side): Expression =
      if (other.endName.isEmpty) LessThanOrEqual(start, other.start)
      else LessThan(start, other.lastInstant)
  }
}
