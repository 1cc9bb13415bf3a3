package io.eventwindows.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BoundReference, Expression, JoinedRow, SpecificInternalRow, UnsafeProjection
}
import org.apache.spark.sql.catalyst.expressions.codegen.{
  CodegenContext, ExprCode, FalseLiteral, JavaCode
}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.{CodegenSupport, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.types.LongType

import io.eventwindows.execution.slices.AnchorSliceLookup
import io.eventwindows.plans.AnchorDefinition

/**
 * Gives each message its slice (see [[io.eventwindows.plans.AnchorSlices]]): the start of the
 * slice of its key that holds its time ([[AnchorSliceLookup]]), for Spark's partial aggregate
 * by key and slice above it, in the sweep over slices: planned when the anchors' interval ends fit
 * a broadcast but the anchors with their columns do not, or the buffers cannot be updated in
 * place (else [[AnchorSliceAggregateExec]] folds per anchor). Output: the messages' columns and
 * `slice`; in
 * whole-stage codegen a key lookup and a directory lookup per row between the scan and the
 * aggregate.
 */
private[execution] case class AnchorSliceExec(
    keys: Seq[Attribute],
    time: Expression,
    slice: Attribute,
    anchor: AnchorDefinition,
    messages: SparkPlan,
    anchors: SparkPlan) extends AnchorSliceLookup {

  override def output: Seq[Attribute] = messages.output :+ slice

  override def outputPartitioning: Partitioning = messages.outputPartitioning

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override def simpleString(maxFields: Int): String =
    s"AnchorSlices keys=${keys.mkString("[", ", ", "]")} time=$time bounds=${anchor.bounds}"

  override protected def doExecute(): RDD[InternalRow] = {
    val (boundaries, reader, keyExpressions, timeExpression) =
      (this.boundaries, this.reader, boundKeys, boundTime)
    val numOutputRows = longMetric("numOutputRows")
    SparkInternals.mapPartitions(messages.execute()) { rows =>
      val endpoints = reader.read(boundaries.value)
      val sliceOf = AnchorSliceLookup.slicer(keyExpressions, timeExpression, endpoints)
      val sliceRow = new SpecificInternalRow(Seq(LongType))
      val joined = new JoinedRow
      val result = UnsafeProjection.create(
        output.zipWithIndex.map { case (a, i) => BoundReference(i, a.dataType, a.nullable) })
      // The filter leaves the slice of the row it keeps in sliceRow, which the map then reads
      // (iterators run row by row): no allocation per row.
      rows.filter { row =>
        val s = sliceOf(row)
        if (s >= 0) sliceRow.setLong(0, endpoints.sliceStart(s))
        s >= 0
      }.map { row =>
        numOutputRows += 1
        result(joined(row, sliceRow))
      }
    }
  }

  override def needCopyResult: Boolean =
    messages.asInstanceOf[CodegenSupport].needCopyResult

  protected override def doProduce(ctx: CodegenContext): String =
    messages.asInstanceOf[CodegenSupport].produce(ctx, this)

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val endpoints = endpointsTerm(ctx)
    val (lookup, slice) = sliceCode(ctx, endpoints, input)
    val (numOutput, start) = (metricTerm(ctx, "numOutputRows"), ctx.freshName("sliceStart"))
    s"""
       |do {
       |  $lookup
       |  long $start = $endpoints.sliceStart($slice);
       |  $numOutput.add(1);
       |  ${consume(ctx, input :+ ExprCode(FalseLiteral, JavaCode.variable(start, LongType)))}
       |} while (false);
     """.stripMargin
  }

  override protected def withNewChildrenInternal(
      newLeft: SparkPlan,
      newRight: SparkPlan): AnchorSliceExec =
    copy(messages = newLeft, anchors = newRight)
}
