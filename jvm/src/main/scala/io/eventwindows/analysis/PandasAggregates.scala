package io.eventwindows.analysis

import io.eventwindows.expressions.{EventWindow, WindowParameters}
import io.eventwindows.plans.{EventWindowAggregate, WindowContents}

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, CreateStruct, Expression, If, Literal, NamedExpression, PythonUDAF, RowOrdering}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, CollectList}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project}

/**
 * Grouped-aggregate pandas UDFs (`PythonUDAF`) over event windows. Spark runs them in its own
 * Python aggregate, which hands a UDF every value of a group at once; so the window operator
 * collects, per window, the values the UDFs read (one `collect_list` of a struct of their
 * arguments: in the order every aggregate reads a window's events, clipped lifetimes included),
 * [[WindowContents]] spreads each window into rows, and Spark's Python aggregate groups them by
 * window:
 * {{{
 *   Project [results; a UDF's result is NULL over a window without events]
 *   +- Aggregate [ordinal, keys, window, built-in results, present], [..., UDFs over elements]
 *      +- WindowContents ordinal, present, contents -> elements
 *         +- EventWindowAggregate keys, window, [built-in aggregates, collect_list(struct(args))]
 * }}}
 * Spark cannot mix built-in aggregates with pandas UDFs in one aggregate; here the built-in ones
 * stay the operator's, and their results, constant over a window, are grouping columns. Every
 * family and output policy works so, since `collect_list` is an aggregate like any other; the
 * cost is the windows' total size (each window's values are collected and handed to Python).
 */
object PandasAggregates {

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
      WindowParameters.fail(window.prettyName, s"the pandas UDFs $names are not supported over " +
        "event windows on streaming DataFrames, as Spark's own streaming aggregation does not " +
        "run grouped-aggregate pandas UDFs: use built-in aggregates (collect_list gives a " +
        "window's values), or run the query on a batch DataFrame")
    }
    builtIn.find(ae => !RowOrdering.isOrderable(ae.dataType)).foreach { ae =>
      WindowParameters.fail(window.prettyName, s"${ae.sql} (${ae.dataType.sql}) cannot be " +
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
    val contents = WindowContents(collected.resultAttribute, elements, distinct = Nil,
      window.prettyName, node)

    val udfs = pandas.map { ae =>
      val f = ae.aggregateFunction
      val overElements = f.withNewChildren(f.children.map { c =>
        elements(arguments.indexWhere(_.semanticEquals(c)))
      }).asInstanceOf[AggregateFunction]
      Alias(ae.copy(aggregateFunction = overElements), udf(ae).name)(exprId = ae.resultId)
    }
    val grouping = contents.windowColumns
    val aggregate = Aggregate(grouping, grouping ++ udfs, contents)

    // A window without events has one row of NULL arguments: its UDF results are NULL.
    val pandasResults = pandas.map(_.resultId).toSet
    Project(results.map { result =>
      result.transformUp {
        case a: Attribute if pandasResults.contains(a.exprId) =>
          If(contents.present, a, Literal(null, a.dataType))
      } match {
        case named: NamedExpression => named
        case other => Alias(other, result.name)(exprId = result.exprId)
      }
    }, aggregate)
  }
}
