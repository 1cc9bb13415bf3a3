package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.{
  Alias, AttributeReference, CreateStruct, Expression, NamedExpression, PythonUDAF, RowOrdering
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, CollectList}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.EventWindow
import io.eventwindows.plans.{EventWindowAggregate, WindowContents}

/**
 * Grouped-aggregate pandas UDFs (`PythonUDAF`) over event windows. Spark runs them in its own
 * Python aggregate, which hands a UDF every value of a group at once; so the window operator
 * collects, per window, the values the UDFs read (one `collect_list` of a struct of their
 * arguments: in the order every aggregate reads a window's events, clipped lifetimes included),
 * [[WindowContents]] spreads each window into rows, and Spark's Python aggregate groups them by
 * window:
 * {{{
 *   Project [results]
 *   +- Aggregate [ordinal, keys, window, built-in results, present], [..., UDFs(present, elements)]
 *      +- WindowContents ordinal, present, contents -> elements
 *         +- EventWindowAggregate keys, window, [built-in aggregates, collect_list(struct(args))]
 * }}}
 * A window without events is one row of NULL elements with `present` false; each UDF gets
 * `present` first and is wrapped ([[PythonOverWindows.aggregate]]) to be called there with every
 * argument empty, as Spark calls a UDF over an empty window frame: a `len` is 0 where `count(*)`
 * is. Spark cannot mix built-in aggregates with pandas UDFs in one aggregate; here the built-in
 * ones stay the operator's, and their results, constant over a window, are grouping columns.
 * Every family and output policy works so, since `collect_list` is an aggregate like any other;
 * the cost is the windows' total size (each window's values are collected and handed to Python).
 */
private[analysis] object PandasAggregates {

  def isPandas(ae: AggregateExpression): Boolean = ae.aggregateFunction.isInstanceOf[PythonUDAF]

  private def udf(ae: AggregateExpression): PythonUDAF =
    ae.aggregateFunction.asInstanceOf[PythonUDAF]

  /**
   * The plan of an aggregation over `window` whose aggregates include pandas UDFs: `results` over
   * the aggregates, `operator` the window operator of the aggregates it is given.
   */
  def plan(
      window: EventWindow,
      aggregateExpressions: Seq[AggregateExpression],
      results: Seq[NamedExpression],
      streaming: Boolean)(
      operator: Seq[AggregateExpression] => EventWindowAggregate): LogicalPlan = {
    val (pandas, builtIn) = aggregateExpressions.partition(isPandas)
    val names = pandas.map(udf(_).name).distinct.mkString(", ")
    if (streaming) {
      throw EventWindowsErrors.unsupported(
        window.prettyName,
        s"the pandas UDFs $names are not " +
          "supported over " +
          "event windows on streaming DataFrames, as Spark's own streaming aggregation does not " +
          "run grouped-aggregate pandas UDFs: use built-in aggregates (collect_list gives a " +
          "window's values), or run the query on a batch DataFrame")
    }
    builtIn.find(ae => !RowOrdering.isOrderable(ae.dataType)).foreach { ae =>
      throw EventWindowsErrors.invalidParameter(
        window.prettyName,
        s"${ae.sql} (${ae.dataType.sql}) cannot be " +
          s"computed in the same aggregation as the pandas UDFs $names over event windows: its " +
          "results are grouped by, and that type cannot be; compute it in an aggregation of its own")
    }

    // Each distinct argument once, as a field of the collected struct.
    val arguments = pandas.flatMap(_.aggregateFunction.children)
      .foldLeft(Seq.empty[Expression]) { (seen, e) =>
        if (seen.exists(_.semanticEquals(e))) seen else seen :+ e
      }
    val collected = CollectList(CreateStruct(arguments)).toAggregateExpression()
    val node = operator(builtIn :+ collected)

    val elements = arguments.zipWithIndex.map { case (e, i) =>
      AttributeReference(s"argument$i", e.dataType, nullable = true)()
    }
    val contents = WindowContents(collected.resultAttribute, elements, node)

    val udfs = pandas.map { ae =>
      val f = udf(ae)
      val overElements = PythonOverWindows.aggregate(f, f.children.size).copy(children =
        contents.present +: f.children.map { c =>
          elements(arguments.indexWhere(_.semanticEquals(c)))
        })
      Alias(ae.copy(aggregateFunction = overElements), f.name)(exprId = ae.resultId)
    }
    val grouping = contents.windowColumns
    Project(results, Aggregate(grouping, grouping ++ udfs, contents))
  }
}
