package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, CollationKey, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.util.UnsafeRowUtils
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.WindowParameters
import io.eventwindows.plans.{AsofDirection, AsofJoin, AsofJoinRequest, RangeJoinShape}

/**
 * The ASOF join of pandas' `merge_asof` as a table-valued function:
 * {{{
 *   SELECT * FROM asof_join(TABLE(trades), TABLE(quotes), 'ts', 'ts'
 *                           [, 'symbol'[, 'backward'[, '2 seconds'[, true]]]])
 * }}}
 * It builds an [[AsofJoinRequest]]; [[Resolve]] finds its columns once both tables are resolved
 * and makes it an [[AsofJoin]] under a projection: every left column, then the right columns but
 * the `on` keys (and the right time where it has the left time's name, as pandas' `on=` gives it
 * once), nullable. `AsofJoinStrategy` plans that node as an `AsofJoinExec`.
 */
object AsofJoinTableFunction extends TableFunction {

  final val Name = "asof_join"

  override def name: String = Name

  override protected def usage: String =
    """
    _FUNC_(TABLE(left), TABLE(right), left_time, right_time[, on[, direction[, tolerance[,
      allow_exact_matches]]]]) - pandas' merge_asof: every left row once, with the columns of
      the right row of equal `on` keys whose time is the last at or before the left row's
      (direction 'backward'), the first at or after it ('forward') or the nearer of the two
      ('nearest', the backward one at equal distance); NULLs where there is none (within
      `tolerance`). Right rows at the same keys and time are ordered by their other columns:
      backward takes the last, forward the first. Rows with a NULL key or time match nothing.
      Planned as a probe: each task sorts its right rows by keys and time and looks each left
      row up among them.
    """

  override protected def argumentDocs: String =
    """
    Arguments:
      * left, right - the tables, as TABLE(name) or TABLE(query).
      * left_time, right_time - the name of each side's time column (TIMESTAMP, TIMESTAMP_NTZ or
          an integral type; both timestamps of one kind, or both integral).
      * on - optional, comma-separated key columns present in both tables; NULL or '' for none.
      * direction - optional, 'backward' (default), 'forward' or 'nearest'.
      * tolerance - optional, the longest distance between the times: an interval ('2 seconds',
          INTERVAL '2' SECOND) for timestamps, an integer for integral times; NULL for none.
      * allow_exact_matches - optional, false to leave out right rows at the left row's time.
    """

  override protected def examples: String =
    """
    Examples:
      > SELECT * FROM _FUNC_(TABLE(SELECT * FROM VALUES (1L, 'a'), (5L, 'b') AS l(t, x)), TABLE(SELECT * FROM VALUES (0L, 10), (3L, 30) AS r(t, y)), 't', 't') ORDER BY t;
        1	a	10
        5	b	30
    """

  override protected def arity: Range = 4 to 8

  override protected def build(arguments: TableFunctionArguments): LogicalPlan = {
    val direction = arguments.text(5, "direction").map { d =>
      AsofDirection.of(d).getOrElse(fail(s"`direction` must be one of " +
        s"${AsofDirection.all.map(a => s"'${a.name}'").mkString(", ")}, got '$d'"))
    }.getOrElse(AsofDirection.Backward)
    val allowExactMatches =
      arguments.argument(7).forall(WindowParameters.flag(Name, "allow_exact_matches", _))
    AsofJoinRequest(
      arguments.table(0, "left"),
      arguments.table(1, "right"),
      arguments.names(4, "on"),
      arguments.required(2, "left_time"),
      arguments.required(3, "right_time"),
      direction,
      arguments.argument(6),
      allowExactMatches)
  }

  /**
   * Resolves an [[AsofJoinRequest]] whose tables are resolved: each name looked up in its own
   * table (a key is in both, so a plain reference would be ambiguous), the types checked, the
   * tolerance read in the time's ticks. Every error names `asof_join` and the parameter.
   */
  object Resolve extends Rule[LogicalPlan] {
    override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
      case request: AsofJoinRequest if request.left.resolved && request.right.resolved =>
        resolve(request)
    }

    private def resolve(asked: AsofJoinRequest): LogicalPlan = {
      val request = asked.copy(right = distinctFrom(asked.left, asked.right))
      val resolver = SQLConf.get.resolver
      def column(plan: LogicalPlan, side: String, parameter: String, name: String): Attribute =
        plan.output.find(a => resolver(a.name, name)).getOrElse(fail(
          s"`$parameter` names no column of the $side table: '$name' (its columns: " +
            s"${plan.output.map(_.name).mkString(", ")})"))
      val leftKeys = request.on.map(column(request.left, "left", "on", _))
      val rightKeys = request.on.map(column(request.right, "right", "on", _))
      leftKeys.zip(rightKeys).foreach { case (l, r) =>
        if (l.dataType != r.dataType) {
          fail(s"`on` key '${l.name}' is ${l.dataType.sql} in the left table and " +
            s"${r.dataType.sql} in the right; cast one of them first")
        }
      }
      val leftTime = column(request.left, "left", "left_time", request.leftTime)
      val rightTime = column(request.right, "right", "right_time", request.rightTime)
      val ticks = timeLine(leftTime, rightTime)
      val tolerance = request.tolerance.map { e =>
        val t = WindowParameters.offsetTicks(Name, "tolerance", e, ticks)
        if (t < 0) fail(s"`tolerance` must not be negative, got ${e.sql}")
        t
      }
      val (left, leftCompared) = byCollationKey(request.left, leftKeys)
      val (right, rightCompared) = byCollationKey(request.right, rightKeys)
      val join = AsofJoin(
        left,
        right,
        leftCompared,
        rightCompared,
        RangeJoinShape.asTicks(leftTime),
        RangeJoinShape.asTicks(rightTime),
        request.direction,
        tolerance,
        request.allowExactMatches)
      val dropped = rightKeys ++ rightCompared ++
        Some(rightTime).filter(r => resolver(r.name, leftTime.name))
      val rightKept = join.output.drop(left.output.size)
        .filterNot(a => dropped.exists(_.exprId == a.exprId))
      Project(request.left.output ++ rightKept, join)
    }

    /**
     * `right`, its columns new attributes if some are the left table's (a table joined with
     * itself): Spark's `DeduplicateRelations` does that for its own joins, not for this node, and
     * two sides sharing attributes cannot be told apart.
     */
    private def distinctFrom(left: LogicalPlan, right: LogicalPlan): LogicalPlan =
      if (!right.outputSet.exists(left.outputSet.contains)) right
      else Project(right.output.map(a => Alias(a, a.name)()), right)

    /**
     * `plan` with a column for each of its `keys` whose equal values may differ in bytes (a
     * string of a non-binary collation: UTF8_LCASE's 'a' and 'A'), its `CollationKey`, and the
     * keys to compare: the merge compares key bytes, so it compares those columns, as Spark's
     * `RewriteCollationJoin` makes its own joins compare collation keys. Structs and arrays of
     * such strings are refused.
     */
    private def byCollationKey(
        plan: LogicalPlan,
        keys: Seq[Attribute]): (LogicalPlan, Seq[Attribute]) = {
      val compared = keys.zipWithIndex.map {
        case (k, _) if UnsafeRowUtils.isBinaryStable(k.dataType) => k
        case (k, i) if k.dataType.isInstanceOf[StringType] =>
          Alias(CollationKey(k), s"__eventwindows_key_$i")()
        case (k, _) => fail(
            s"`on` key '${k.name}' is ${k.dataType.sql}, whose equal values may differ in " +
              "bytes (strings of a non-binary collation inside it); compare a column of a " +
              "binary collation instead")
      }
      val added = compared.collect { case a: Alias => a }
      if (added.isEmpty) (plan, keys)
      else (Project(plan.output ++ added, plan), compared.map(_.toAttribute))
    }

    /** The time line both times are on: a timestamp type, or BIGINT for integral times. */
    private def timeLine(left: Attribute, right: Attribute): DataType = {
      def integral(t: DataType) = t match {
        case ByteType | ShortType | IntegerType | LongType => true
        case _ => false
      }
      Seq("left_time" -> left, "right_time" -> right).foreach { case (p, a) =>
        if (!(integral(a.dataType) || a.dataType == TimestampType ||
            a.dataType == TimestampNTZType)) {
          fail(s"`$p` must be TIMESTAMP, TIMESTAMP_NTZ or an integral type, got " +
            s"${a.dataType.sql} ('${a.name}')")
        }
      }
      if (integral(left.dataType) && integral(right.dataType)) LongType
      else if (left.dataType == right.dataType) left.dataType
      else fail(s"`left_time` ('${left.name}', ${left.dataType.sql}) and `right_time` " +
        s"('${right.name}', ${right.dataType.sql}) must be on one time line: both TIMESTAMP, " +
        "both TIMESTAMP_NTZ or both integral")
    }
  }
}
