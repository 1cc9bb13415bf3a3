package io.eventwindows.execution

import io.eventwindows.plans.Bounds

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, BoundReference, Expression, JoinedRow, MutableProjection, SpecificInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, FalseLiteral, JavaCode}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.sql.catalyst.plans.physical.{BroadcastDistribution, Distribution, Partitioning, UnspecifiedDistribution}
import org.apache.spark.sql.execution.{BinaryExecNode, CodegenSupport, SparkPlan}
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.types.LongType

/**
 * Gives each message its slice (see [[io.eventwindows.plans.AnchorSlices]]): the greatest
 * boundary of its key at or before its time, from the [[AnchorEndpoints]] that the anchors
 * side broadcasts, as a broadcast hash join gets its hash table. Messages of keys without
 * anchors, before their key's first boundary or with a NULL time are in no window and dropped.
 * Output: the messages' columns and `slice`; in whole-stage codegen a lookup and a binary search
 * per row between the scan and Spark's partial aggregate.
 */
case class AnchorSliceExec(
    keys: Seq[Attribute],
    time: Expression,
    slice: Attribute,
    anchorKeys: Seq[Attribute],
    anchorStart: Attribute,
    anchorEnd: Attribute,
    bounds: Bounds,
    messages: SparkPlan,
    anchors: SparkPlan) extends BinaryExecNode with CodegenSupport {

  override def left: SparkPlan = messages
  override def right: SparkPlan = anchors

  override def output: Seq[Attribute] = messages.output :+ slice

  override def outputPartitioning: Partitioning = messages.outputPartitioning

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override def requiredChildDistribution: Seq[Distribution] = {
    val mode = AnchorEndpointsMode(BindReferences.bindReferences(anchorKeys, anchors.output),
      BindReferences.bindReference(anchorStart, anchors.output),
      BindReferences.bindReference(anchorEnd, anchors.output), bounds)
    UnspecifiedDistribution :: BroadcastDistribution(mode) :: Nil
  }

  override def simpleString(maxFields: Int): String =
    s"AnchorSlices keys=${keys.mkString("[", ", ", "]")} time=$time bounds=$bounds"

  private def reader = new AnchorEndpoints.Reader(keys.map(_.dataType))

  private def boundKeys = BindReferences.bindReferences(keys, messages.output)
  private def boundTime = BindReferences.bindReference(time, messages.output)

  override protected def doExecute(): RDD[InternalRow] = {
    val endpoints = anchors.executeBroadcast[Array[InternalRow]]()
    val (keyExpressions, timeExpression, reader) = (boundKeys, boundTime, this.reader)
    val numOutputRows = longMetric("numOutputRows")
    SparkInternals.mapPartitions(messages.execute()) { rows =>
      val keyOf = UnsafeProjection.create(keyExpressions)
      val timeOf = MutableProjection.create(Seq(timeExpression))
        .target(new SpecificInternalRow(Seq(LongType)))
      val sliceRow = new SpecificInternalRow(Seq(LongType))
      val joined = new JoinedRow
      val result = UnsafeProjection.create(
        output.zipWithIndex.map { case (a, i) => BoundReference(i, a.dataType, a.nullable) })
      val relation = reader.read(endpoints.value)
      // The filter leaves the slice of the row it keeps in sliceRow, which the map then reads
      // (iterators run row by row): no allocation per row.
      rows.filter { row =>
        val t = timeOf(row)
        val points = if (t.isNullAt(0)) null else relation.pointsOf(keyOf(row))
        val i = if (points == null) -1 else AnchorEndpoints.floor(points, t.getLong(0))
        if (i >= 0) sliceRow.setLong(0, points(i))
        i >= 0
      }.map { row =>
        numOutputRows += 1
        result(joined(row, sliceRow))
      }
    }
  }

  override def inputRDDs(): Seq[RDD[InternalRow]] =
    messages.asInstanceOf[CodegenSupport].inputRDDs()

  override def needCopyResult: Boolean = messages.asInstanceOf[CodegenSupport].needCopyResult

  protected override def doProduce(ctx: CodegenContext): String =
    messages.asInstanceOf[CodegenSupport].produce(ctx, this)

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val broadcast = ctx.addReferenceObj("broadcast", anchors.executeBroadcast[Array[InternalRow]]())
    val readerTerm = ctx.addReferenceObj("reader", reader)
    val endpointsClass = classOf[AnchorEndpoints].getName
    val relation = ctx.addMutableState(endpointsClass, "endpoints",
      v => s"$v = $readerTerm.read($broadcast.value());", forceInline = true)
    ctx.currentVars = input
    val key = GenerateUnsafeProjection.createCode(ctx, boundKeys)
    val t = boundTime.genCode(ctx)
    val numOutput = metricTerm(ctx, "numOutputRows")
    val (points, index, sliceValue) =
      (ctx.freshName("points"), ctx.freshName("index"), ctx.freshName("slice"))
    // `continue` in a do-while(false) leaves the row, as FilterExec's generated code does.
    s"""
       |do {
       |  ${t.code}
       |  if (${t.isNull}) continue;
       |  ${key.code}
       |  long[] $points = $relation.pointsOf(${key.value});
       |  if ($points == null) continue;
       |  int $index = $endpointsClass.floor($points, ${t.value});
       |  if ($index < 0) continue;
       |  long $sliceValue = $points[$index];
       |  $numOutput.add(1);
       |  ${consume(ctx, input :+ ExprCode(FalseLiteral, JavaCode.variable(sliceValue, LongType)))}
       |} while (false);
     """.stripMargin
  }

  override protected def withNewChildrenInternal(
      newLeft: SparkPlan, newRight: SparkPlan): AnchorSliceExec =
    copy(messages = newLeft, anchors = newRight)
}
