package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.analysis.{
  UnresolvedAttribute, UnresolvedFunction, UnresolvedStar
}
import org.apache.spark.sql.catalyst.expressions.{
  Alias, CreateNamedStruct, CreateStruct, Expression, Literal, NamedExpression
}
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project, Union}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.Metadata

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindow
import io.eventwindows.plans.Bounds

/**
 * The SQL form of psi's dynamic windows, the table-valued function
 * {{{
 *   SELECT * FROM dynamic_window(TABLE(anchors), TABLE(messages), 'ts', 'start', 'end',
 *                                'count(*) AS n, avg(v) AS avg_v'[, 'k'[, '[]']])
 * }}}
 * which builds the plan the Python `dynamic_window(...).agg(...)` builds: the union of the
 * messages and the anchors (each anchor row as its keys, its interval and a struct of its
 * columns), grouped by the keys and `anchor_window`, then one row per anchor with its columns,
 * `window` (the interval) and the aggregates. No join (see [[SliceAnchorWindows]]).
 */
object DynamicWindowTableFunction extends TableFunction {

  final val Name = "dynamic_window"

  private val AnchorColumn = "__ew_anchor"
  private val StartColumn = "__ew_start"
  private val EndColumn = "__ew_end"

  override def name: String = Name

  override protected def usage: String =
    """
    _FUNC_(TABLE(anchors), TABLE(messages), time, start, end, aggregates[, on[, bounds[, lookback]]]) - psi's
      dynamic windows as a table: one row per anchor row with all its columns, `window` (struct
      of `start`, `end`: the anchor's interval) and the aggregates over the messages (of equal
      `on` keys) whose time lies in the interval, also when none does (count 0, sum NULL).
      Intervals may overlap, nest, be empty or lie outside the data. The plan is no join: with
      order-insensitive aggregates and anchors small enough to broadcast, each task folds its
      messages into one partial aggregate per anchor; otherwise both tables are clustered by the
      keys, sorted by time and swept once (see anchor_window).
    """

  override protected def argumentDocs: String =
    """
    Arguments:
      * anchors - the anchors, as TABLE(name) or TABLE(query).
      * messages - the messages, as TABLE(name) or TABLE(query).
      * time - the name of the messages' time column (TIMESTAMP, TIMESTAMP_NTZ or BIGINT).
      * start, end - SQL expressions over the anchors' columns giving each anchor's interval.
      * aggregates - the aggregates over the messages' columns, each named: e.g.
          'count(*) AS n, avg(v) AS avg_v'.
      * on - optional, comma-separated key columns present in both tables; NULL or '' for none.
      * bounds - optional, '[]' (default), '[)', '(]' or '()'.
      * lookback - optional, on a stream of anchors only: how long before its own time an
          anchor's interval may start (see anchor_window).
    """

  override protected def examples: String =
    """
    Examples:
      > SELECT id, window.start, window.end, n, total FROM _FUNC_(TABLE(SELECT * FROM VALUES ('x', 0L, 2L), ('y', 3L, 4L) AS a(id, s, e)), TABLE(SELECT * FROM VALUES (1L, 1), (2L, 2), (5L, 4) AS m(ts, v)), 'ts', 's', 'e', 'count(v) AS n, sum(v) AS total') ORDER BY id;
        x	0	2	2	3
        y	3	4	0	NULL
    """

  override protected def arity: Range = 6 to 9

  override protected def build(arguments: TableFunctionArguments): LogicalPlan = {
    val anchors = arguments.table(0, "anchors")
    val messages = arguments.table(1, "messages")
    val Seq(time, start, end, aggregates) =
      Seq(2 -> "time", 3 -> "start", 4 -> "end", 5 -> "aggregates").map { case (i, p) =>
        arguments.required(i, p)
      }
    val keys = arguments.names(6, "on")
    val bounds = arguments.text(7, "bounds").getOrElse("[]")

    val results = CatalystSqlParser.parsePlan(s"SELECT $aggregates") match {
      case Project(list, _) => list.map {
          case named: Alias => named
          case other =>
            fail(s"every aggregate needs a name, e.g. 'count(*) AS n', got ${other.sql}")
        }
      case _ => fail(s"`aggregates` must be a list of named aggregates, got '$aggregates'")
    }
    if (anchors.output.exists(_.name.equalsIgnoreCase(EventWindow.ColumnName))) {
      fail("the anchors have a column named `window`, which the result uses for the interval; " +
        "rename it first")
    }
    val clashes = results.map(_.name).filter(n =>
      n.equalsIgnoreCase(EventWindow.ColumnName) ||
        anchors.output.exists(_.name.equalsIgnoreCase(n)))
    if (clashes.nonEmpty) {
      fail(s"the aggregate names ${clashes.mkString(", ")} are also anchor columns (or `window`)")
    }

    def expression(text: String, parameter: String): Expression = try {
      CatalystSqlParser.parseExpression(text)
    } catch {
      case e: Exception => fail(s"`$parameter` is not a SQL expression: '$text' (${e.getMessage})")
    }
    val anchorSide = Project(
      keys.map(k => UnresolvedAttribute.quotedString(k)) ++ Seq(
        Alias(CreateStruct(anchors.output), AnchorColumn)(),
        Alias(expression(start, "start"), StartColumn)(),
        Alias(expression(end, "end"), EndColumn)()),
      anchors)
    val union = Union(Seq(messages, anchorSide), byName = true, allowMissingCol = true)
    val window = UnresolvedFunction(
      "anchor_window",
      Seq(
        UnresolvedAttribute.quotedString(time),
        UnresolvedAttribute(StartColumn),
        UnresolvedAttribute(EndColumn),
        UnresolvedAttribute(AnchorColumn),
        Literal(bounds)) ++
        arguments.raw(8),
      isDistinct = false)
    val grouping = keys.map(k => UnresolvedAttribute.quotedString(k))
    val aggregate = Aggregate(
      grouping :+ window,
      (grouping.map(g => Alias(g, g.name)()) :+ Alias(window, EventWindow.ColumnName)()) ++ results,
      union)
    Project(
      Seq[NamedExpression](
        UnresolvedStar(Some(Seq(EventWindow.ColumnName, EventWindow.AnchorField))),
        Alias(
          CreateNamedStruct(Seq(
            Literal("start"),
            UnresolvedAttribute(Seq(EventWindow.ColumnName, "start")),
            Literal("end"),
            UnresolvedAttribute(Seq(EventWindow.ColumnName, "end")))),
          EventWindow.ColumnName)(explicitMetadata = intervalMetadata(messages, time, bounds))) ++
        results.map(r => UnresolvedAttribute.quoted(r.name)),
      aggregate)
  }

  /**
   * The metadata of the anchor window's `window` column, which the interval kept of it keeps (as
   * the Python `agg` keeps it), so that `window_time(window)` reads the result; none where the
   * time column or the bounds are wrong, which `anchor_window` then rejects.
   */
  private def intervalMetadata(messages: LogicalPlan, time: String, bounds: String)
      : Option[Metadata] =
    for {
      column <- messages.resolve(
        UnresolvedAttribute.quotedString(time).nameParts,
        SQLConf.get.resolver)
      interval <- Bounds.all.find(_.sqlName == bounds)
      metadata <- EventWindowing.columnMetadata(column, interval.upperInclusive)
    } yield metadata
}
