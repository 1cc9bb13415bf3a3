package io.eventwindows.execution

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeSet, BindReferences, BoundReference, Expression, JoinedRow, MutableProjection,
  UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.{BlockingOperatorWithCodegen, CodegenSupport, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.eventwindows.execution.aggregate.AggregateBuffers
import io.eventwindows.execution.slices.{AnchorPartials, AnchorSliceLookup, SliceBuffers}
import io.eventwindows.plans.AnchorDefinition

/**
 * Spark's partial aggregation of dynamic windows by anchor, for Spark's final aggregate by anchor
 * number above the shuffle (see [[io.eventwindows.plans.AnchorWindowAggregate]]). The messages are
 * first folded by slice, fused with the slice lookup ([[AnchorSliceLookup]]): slices are dense
 * numbers, so a message's buffer is found by its slice in [[SliceBuffers]], with no hashing and
 * no hash map to grow; the aggregates' own update expressions update it in place, in whole-stage
 * codegen as Spark's hash aggregate does. Once the task's messages are in, [[AnchorPartials]]
 * merges each anchor's slices into one row: its number (`output.head`) and its buffer (the rest
 * of `output`, the columns of Spark's partial aggregation output). The anchors (their slices and
 * rows) are broadcast.
 *
 * Planned when every buffer field can be updated in place in an UnsafeRow (as Spark's hash
 * aggregate needs for its own buffers). Memory: one buffer per slice of all keys (every anchor
 * adds at most two) per task, and a segment tree of the slices with messages when an interval
 * covers more than [[AnchorPartials.DirectFold]] of them. The first task also emits the anchors
 * without messages, so an input without partitions gets one.
 */
private[execution] case class AnchorSliceAggregateExec(
    keys: Seq[Attribute],
    time: Expression,
    aggregates: Seq[DeclarativeAggregate],
    filters: Seq[Expression],
    output: Seq[Attribute],
    anchor: AnchorDefinition,
    messages: SparkPlan,
    anchors: SparkPlan) extends AnchorSliceLookup with BlockingOperatorWithCodegen {

  override def outputPartitioning: Partitioning =
    UnknownPartitioning(math.max(1, messages.outputPartitioning.numPartitions))

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override def simpleString(maxFields: Int): String =
    s"AnchorSliceAggregate keys=${keys.mkString("[", ", ", "]")} time=$time " +
      s"bounds=${anchor.bounds} " +
      s"aggregates=${aggregates.mkString("[", ", ", "]")}"

  /** The new buffer values after a message, bound to the functions' buffers and the message. */
  private def updateExpressions: Seq[Expression] =
    BindReferences.bindReferences(
      AggregateBuffers.updateExpressions(aggregates, filters),
      aggregates.flatMap(_.aggBufferAttributes) ++ messages.output)

  private def initialValues: Seq[Expression] = aggregates.flatMap(_.initialValues)

  private def bufferSize: Int = aggregates.map(_.aggBufferAttributes.size).sum

  /** The messages' partitions, at least one: its task emits the anchors without messages. */
  private def atLeastOnePartition(rdd: RDD[InternalRow]): RDD[InternalRow] =
    if (rdd.getNumPartitions > 0) rdd else sparkContext.parallelize(Seq.empty[InternalRow], 1)

  override def inputRDDs(): Seq[RDD[InternalRow]] = super.inputRDDs().map(atLeastOnePartition)

  override protected def doExecute(): RDD[InternalRow] = {
    val (boundaries, reader, keyExpressions, timeExpression, updates, initial) =
      (this.boundaries, this.reader, boundKeys, boundTime, updateExpressions, initialValues)
    val (functions, size) = (aggregates, bufferSize)
    val numOutputRows = longMetric("numOutputRows")
    SparkInternals.mapPartitions(atLeastOnePartition(messages.execute())) { rows =>
      val endpoints = reader.read(boundaries.value)
      val sliceOf = AnchorSliceLookup.slicer(keyExpressions, timeExpression, endpoints)
      val buffers = new SliceBuffers(initial, endpoints.sliceCount)
      val buffer = new UnsafeRow(size)
      val update = MutableProjection.create(updates).target(buffer)
      val joined = new JoinedRow
      rows.foreach { row =>
        val s = sliceOf(row)
        if (s >= 0) {
          buffers.bufferOf(s, buffer)
          update(joined(buffer, row))
        }
      }
      new AnchorPartials(endpoints, buffers, functions, TaskContext.getPartitionId() == 0).map {
        row =>
          numOutputRows += 1
          row
      }
    }
  }

  // Every message column is read (by the lookup, the FILTERs or the updates); evaluate them once.
  override def usedInputs: AttributeSet = messages.outputSet

  // Terms shared by doProduce and the doConsume it calls, as in Spark's HashAggregateExec.
  private var endpoints: String = _
  private var buffers: String = _
  private var buffer: String = _

  protected override def doProduce(ctx: CodegenContext): String = {
    endpoints = endpointsTerm(ctx)
    val buffersClass = classOf[SliceBuffers].getName
    val initial = ctx.addReferenceObj("initialValues", initialValues)
    buffers = ctx.addMutableState(
      buffersClass,
      "sliceBuffers",
      v => s"$v = new $buffersClass($initial, $endpoints.sliceCount());",
      forceInline = true)
    buffer = ctx.addMutableState(
      "UnsafeRow",
      "sliceBuffer",
      v => s"$v = new UnsafeRow($bufferSize);",
      forceInline = true)
    val partialsClass = classOf[AnchorPartials].getName
    val partials = ctx.addMutableState(partialsClass, "anchorPartials", forceInline = true)
    val functions = ctx.addReferenceObj("aggregates", aggregates, "scala.collection.immutable.Seq")
    val aggregateName = ctx.freshName("aggregateSlices")
    val aggregate = ctx.addNewFunction(
      aggregateName,
      s"""
         |private void $aggregateName() throws java.io.IOException {
         |  ${messages.asInstanceOf[CodegenSupport].produce(ctx, this)}
         |}
       """.stripMargin)

    // One output row per anchor: its number and its buffer.
    val row = ctx.freshName("anchorRow")
    ctx.currentVars = null
    ctx.INPUT_ROW = row
    val outputVars = output.zipWithIndex.map { case (a, i) =>
      BoundReference(i, a.dataType, a.nullable).genCode(ctx)
    }
    s"""
       |if ($partials == null) {
       |  $aggregate();
       |  $partials = new $partialsClass($endpoints, $buffers, $functions,
       |    org.apache.spark.TaskContext.getPartitionId() == 0);
       |}
       |while ($limitNotReachedCond $partials.hasNext()) {
       |  InternalRow $row = (InternalRow) $partials.next();
       |  ${metricTerm(ctx, "numOutputRows")}.add(1);
       |  ${consume(ctx, outputVars)}
       |  if (shouldStop()) return;
       |}
     """.stripMargin
  }

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val (lookup, s) = sliceCode(ctx, endpoints, input)
    val updates = updateExpressions
    // Buffer columns come from the buffer row (INPUT_ROW), the message's from `input`.
    ctx.INPUT_ROW = buffer
    ctx.currentVars = Seq.fill[ExprCode](bufferSize)(null) ++ input
    val values = updates.map(_.genCode(ctx))
    // Every new value is computed before any is stored, as the buffer is also their input.
    val stores = values.zip(updates).zipWithIndex.map { case ((value, update), i) =>
      CodeGenerator.updateColumn(buffer, update.dataType, i, value, update.nullable)
    }
    s"""
       |do {
       |  $lookup
       |  $buffers.bufferOf($s, $buffer);
       |  ${values.map(_.code).mkString("\n")}
       |  ${stores.mkString("\n")}
       |} while (false);
     """.stripMargin
  }

  override protected def withNewChildrenInternal(
      newLeft: SparkPlan,
      newRight: SparkPlan): AnchorSliceAggregateExec =
    copy(messages = newLeft, anchors = newRight)
}
