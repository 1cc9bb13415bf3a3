package io.eventwindows.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeSet, BindReferences, CreateNamedStruct, Expression, JoinedRow, KnownNotNull,
  Literal, UnsafeProjection
}
import org.apache.spark.sql.catalyst.plans.physical.{
  Distribution, Partitioning, UnknownPartitioning, UnspecifiedDistribution
}
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.eventwindows.execution.slices.AnchorSliceLookup
import io.eventwindows.expressions.EventWindow
import io.eventwindows.plans.{AnchorDefinition, WindowFields}

/**
 * The rows of dynamic windows planned with the anchors broadcast
 * ([[io.eventwindows.plans.AnchorWindowAggregate]]): `results` (Spark's final aggregate by anchor
 * number) gives each anchor's number (its column `anchorNumber`) and aggregate results; each
 * becomes the anchor's row, read from the same broadcast as [[AnchorSliceAggregateExec]]'s: the
 * keys, `window` (the interval's start and end and the anchor's columns) and the results.
 */
private[execution] case class AnchorWindowResultsExec(
    keys: Seq[Attribute],
    windowAttribute: Attribute,
    aggregateAttributes: Seq[Attribute],
    anchor: AnchorDefinition,
    anchorNumber: Attribute,
    results: SparkPlan,
    anchors: SparkPlan) extends BinaryExecNode {

  override def left: SparkPlan = results
  override def right: SparkPlan = anchors

  override def output: Seq[Attribute] = keys ++ (windowAttribute +: aggregateAttributes)

  override def producedAttributes: AttributeSet = AttributeSet(output)

  override def requiredChildDistribution: Seq[Distribution] = UnspecifiedDistribution ::
    AnchorSliceLookup.broadcast(anchor, anchors) :: Nil

  override def outputPartitioning: Partitioning =
    UnknownPartitioning(results.outputPartitioning.numPartitions)

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override def simpleString(maxFields: Int): String =
    s"AnchorWindowResults anchor_window bounds=${anchor.bounds} " +
      s"keys=${keys.mkString("[", ", ", "]")}"

  /** The output row's values over the anchor's row joined with its results. */
  private def outputExpressions: Seq[Expression] = {
    def bind(e: Expression) = BindReferences.bindReference(e, anchors.output ++ results.output)
    // The interval was checked when the anchors were broadcast: its ends are not NULL.
    val window = CreateNamedStruct(Seq(
      Literal(WindowFields.Start),
      KnownNotNull(bind(anchor.start)),
      Literal(WindowFields.End),
      KnownNotNull(bind(anchor.end)),
      Literal(EventWindow.AnchorField),
      KnownNotNull(bind(anchor.row.get))))
    (anchor.keys.map(bind) :+ window) ++ aggregateAttributes.map(bind)
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val broadcast = anchors.executeBroadcast[Array[InternalRow]]()
    val expressions = outputExpressions
    val numOutputRows = longMetric("numOutputRows")
    val numberOrdinal = results.output.indexWhere(_.exprId == anchorNumber.exprId)
    SparkInternals.mapPartitions(results.execute()) { rows =>
      val anchorRows = broadcast.value
      val toRow = UnsafeProjection.create(expressions)
      val joined = new JoinedRow
      rows.map { row =>
        numOutputRows += 1
        val number = row.getInt(numberOrdinal)
        toRow(joined(AnchorSliceLookup.anchorRow(anchorRows, number), row))
      }
    }
  }

  override protected def withNewChildrenInternal(
      newLeft: SparkPlan,
      newRight: SparkPlan): AnchorWindowResultsExec =
    copy(results = newLeft, anchors = newRight)
}
