package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{
  Alias, Ascending, Attribute, AttributeReference, CreateStruct, NamedExpression, PythonUDF,
  SortOrder
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, CollectList}
import org.apache.spark.sql.catalyst.plans.logical.{
  FlatMapGroupsInPandas, LogicalPlan, Project, Sort
}
import org.apache.spark.sql.types.Metadata

import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.{ClippedLifetime, EventWindow}
import io.eventwindows.plans.{EventWindowAggregate, WindowContents}

/**
 * `groupBy(keys..., <window function>).applyInPandas(func, schema)`: `func` is called once per
 * window, with the window's events, as PySpark calls it once per group of Spark's `window()`.
 *
 * PySpark builds the grouping columns as a Project first, and analyzes it alone: a window function
 * in that Project's list is placed there ([[place]]) as it is below an Aggregate. The
 * `FlatMapGroupsInPandas` over it then becomes
 * {{{
 *   FlatMapGroupsInPandas [ordinal, present, keys, window], func'(columns...)
 *   +- Project [ordinal, present, keys, window, columns...]
 *      +- Sort [ordinal, present, keys, window, position] (within partitions)
 *         +- WindowContents ordinal, present, position, contents -> columns
 *            +- EventWindowAggregate keys, window, [collect_list(struct(columns...))]
 * }}}
 * so `func` reads every input column of each window's events, in the order every aggregate
 * reads them (the sort keeps it through `ordinal` and `position`). Grouped by the window's
 * number first, windows with equal `window` values (ties in index, relative-time or SPL windows)
 * are groups of their own; `func'` ([[PythonOverWindows.apply]]) gives `func` the key without
 * the number and the flag, that is the keys and the `window` value, and over a window without
 * events (a row per anchor of relative-time and dynamic windows) data without rows: one call per
 * window that `agg` gives a row. With [[EventWindowsConf.ClippedLifetimeColumns]] the events'
 * lifetimes clipped to the window come as two more columns, `clipped_start` and `clipped_end`.
 * A window function left in any other Project is an error when the query is planned.
 */
object PandasGroups {

  /** The placed window function of a Project's list, if any. */
  def placedIn(p: Project): Option[EventWindow] = p.projectList.collectFirst {
    case Alias(w: EventWindow, _) if w.placed => w
  }

  /** True if `window` is a column of the Project's list, as PySpark's grouping columns are. */
  def isGroupingColumn(p: Project, window: EventWindow): Boolean = p.projectList.exists {
    case Alias(w: EventWindow, _) => w == window
    case _ => false
  }

  /** The Project with `window` placed, its column carrying `metadata` (the watermark). */
  def place(p: Project, window: EventWindow, metadata: Option[Metadata]): Project =
    p.copy(projectList = p.projectList.map {
      case a @ Alias(w: EventWindow, name) if w == window =>
        Alias(w.copy(placed = true), name)(exprId = a.exprId, explicitMetadata = metadata)
      case other => other
    })

  /**
   * The plan of `f`, grouped by `window` among the Project's `list` over `input`; `operator`
   * builds the window operator of the aggregates it is given, grouped by the given columns.
   */
  def plan(
      f: FlatMapGroupsInPandas,
      window: EventWindow,
      list: Seq[NamedExpression],
      streaming: Boolean)(
      operator: (Seq[NamedExpression], Seq[AggregateExpression]) => EventWindowAggregate)
      : LogicalPlan = {
    if (streaming) {
      throw EventWindowsErrors.unsupported(
        window.prettyName,
        "applyInPandas over event " +
          "windows is not " +
          "supported on streaming DataFrames, as Spark does not run applyInPandas on streams: " +
          "aggregate with built-in aggregates (collect_list gives a window's values), or run the " +
          "query on a batch DataFrame")
    }
    val udf = f.functionExpr.asInstanceOf[PythonUDF]
    val clipped = if (!EventWindowsConf.clippedLifetimeColumns) Nil
    else {
      window.family.clippedLifetimeRefusal.foreach { why =>
        throw EventWindowsErrors.invalidParameter(
          window.prettyName,
          s"${EventWindowsConf.ClippedLifetimeColumns} " +
            s"gives applyInPandas the clipped lifetimes of the events, which are $why")
      }
      Seq(false, true).map(ClippedLifetime(_, Some(window.timeType)))
    }
    val fields = udf.children ++ clipped
    val names = udf.children.map {
      case a: Attribute => a.name
      case other => other.sql
    } ++ clipped.map(_.prettyName)
    val collected = CollectList(CreateStruct(fields)).toAggregateExpression()
    val grouping = f.groupingAttributes.map(a => list.find(_.exprId == a.exprId).get)
    val node = operator(grouping, Seq(collected))

    val columns = fields.zip(names).map { case (e, name) =>
      AttributeReference(name, e.dataType, nullable = true)()
    }
    val contents = WindowContents(collected.resultAttribute, columns, node)
    // Spark's operator reads its child's first columns as the grouping ones, the rest as data.
    val groups = Seq(contents.ordinal, contents.present) ++ f.groupingAttributes
    val order = groups :+ contents.position
    f.copy(
      groupingAttributes = groups,
      functionExpr = PythonOverWindows.apply(udf).copy(children = columns),
      child = Project(
        groups ++ columns,
        Sort(order.map(SortOrder(_, Ascending)), global = false, contents)))
  }
}
