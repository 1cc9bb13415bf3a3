package io.eventwindows.execution

import io.eventwindows.plans.Bounds

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, BindReferences, BoundReference, Expression, JoinedRow, MutableProjection, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode, FalseLiteral, JavaCode}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.{BlockingOperatorWithCodegen, CodegenSupport, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.types.LongType

/**
 * Spark's partial aggregation of dynamic windows' messages by key and slice (see
 * [[io.eventwindows.plans.AnchorSlices]]), fused with the slice lookup ([[AnchorSliceLookup]]).
 * Slices are dense numbers, so a message's buffer is found by its slice in [[SliceBuffers]]: no
 * hashing of (key, slice), no hash map to grow. The buffers are updated with the aggregates'
 * own update expressions, in whole-stage codegen as Spark's hash aggregate does; once the
 * task's messages are in, every slice with messages is one output row: the keys, the slice's
 * first instant as `slice`, and the buffers (`bufferAttributes`, in the functions' layout).
 *
 * Planned instead of [[AnchorSliceExec]] under Spark's hash aggregate when every buffer field can
 * be updated in place in an UnsafeRow (as Spark's hash aggregate needs for its own buffers).
 * Memory: one buffer per slice of all keys (every anchor adds at most two), per task.
 */
case class AnchorSliceAggregateExec(
    keys: Seq[Attribute],
    time: Expression,
    slice: Attribute,
    aggregates: Seq[DeclarativeAggregate],
    filters: Seq[Expression],
    bufferAttributes: Seq[Attribute],
    anchorKeys: Seq[Attribute],
    anchorStart: Attribute,
    anchorEnd: Attribute,
    bounds: Bounds,
    messages: SparkPlan,
    anchors: SparkPlan) extends AnchorSliceLookup with BlockingOperatorWithCodegen {

  override def output: Seq[Attribute] = keys ++ (slice +: bufferAttributes)

  override def outputPartitioning: Partitioning =
    UnknownPartitioning(messages.outputPartitioning.numPartitions)

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override def simpleString(maxFields: Int): String =
    s"AnchorSliceAggregate keys=${keys.mkString("[", ", ", "]")} time=$time bounds=$bounds " +
      s"aggregates=${aggregates.mkString("[", ", ", "]")}"

  /** The new buffer values after a message, bound to the functions' buffers and the message. */
  private def updateExpressions: Seq[Expression] =
    BindReferences.bindReferences(AggregateBuffers.updateExpressions(aggregates, filters),
      aggregates.flatMap(_.aggBufferAttributes) ++ messages.output)

  private def initialValues: Seq[Expression] = aggregates.flatMap(_.initialValues)

  override protected def doExecute(): RDD[InternalRow] = {
    val (boundaries, reader, keyExpressions, timeExpression, updates, initial) =
      (this.boundaries, this.reader, boundKeys, boundTime, updateExpressions, initialValues)
    val (keyTypes, bufferTypes) = (keys.map(_.dataType), bufferAttributes.map(_.dataType))
    val numOutputRows = longMetric("numOutputRows")
    SparkInternals.mapPartitions(messages.execute()) { rows =>
      val endpoints = reader.read(boundaries.value)
      val sliceOf = AnchorSliceLookup.slicer(keyExpressions, timeExpression, endpoints)
      val buffers = new SliceBuffers(initial, endpoints.sliceCount)
      val buffer = new UnsafeRow(bufferTypes.size)
      val update = MutableProjection.create(updates).target(buffer)
      val joined = new JoinedRow
      rows.foreach { row =>
        val s = sliceOf(row)
        if (s >= 0) {
          buffers.bufferOf(s, buffer)
          update(joined(buffer, row))
        }
      }
      val (start, keyAndStart) = (new SpecificInternalRow(Seq(LongType)), new JoinedRow)
      val result = UnsafeProjection.create((keyTypes ++ (LongType +: bufferTypes)).zipWithIndex
        .map { case (t, i) => BoundReference(i, t, nullable = true) })
      Iterator.iterate(buffers.nextTouched(0))(s => buffers.nextTouched(s + 1))
        .takeWhile(_ >= 0)
        .map { s =>
          buffers.pointTo(s, buffer)
          start.setLong(0, endpoints.sliceStart(s))
          numOutputRows += 1
          result(joined(keyAndStart(endpoints.keyRow(endpoints.ordinalOfSlice(s)), start), buffer))
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
    buffers = ctx.addMutableState(buffersClass, "sliceBuffers",
      v => s"$v = new $buffersClass($initial, $endpoints.sliceCount());", forceInline = true)
    buffer = ctx.addMutableState("UnsafeRow", "sliceBuffer",
      v => s"$v = new UnsafeRow(${bufferAttributes.size});", forceInline = true)
    val aggregated = ctx.addMutableState(CodeGenerator.JAVA_BOOLEAN, "sliceAggregated")
    val next = ctx.addMutableState(CodeGenerator.JAVA_INT, "nextSlice")
    val aggregateName = ctx.freshName("aggregateSlices")
    val aggregate = ctx.addNewFunction(aggregateName,
      s"""
         |private void $aggregateName() throws java.io.IOException {
         |  ${messages.asInstanceOf[CodegenSupport].produce(ctx, this)}
         |}
       """.stripMargin)

    // One output row per slice with messages: the key's columns, the slice start, the buffer.
    val (s, key, start) =
      (ctx.freshName("slice"), ctx.freshName("key"), ctx.freshName("sliceStart"))
    ctx.currentVars = null
    ctx.INPUT_ROW = key
    val keyVars = keys.zipWithIndex.map { case (k, i) =>
      BoundReference(i, k.dataType, k.nullable).genCode(ctx)
    }
    ctx.INPUT_ROW = buffer
    val bufferVars = bufferAttributes.zipWithIndex.map { case (b, i) =>
      BoundReference(i, b.dataType, b.nullable).genCode(ctx)
    }
    val startVar = ExprCode(FalseLiteral, JavaCode.variable(start, LongType))
    s"""
       |if (!$aggregated) {
       |  $aggregated = true;
       |  $aggregate();
       |}
       |while ($limitNotReachedCond $next >= 0) {
       |  int $s = $buffers.nextTouched($next);
       |  if ($s < 0) break;
       |  $next = $s + 1;
       |  UnsafeRow $key = $endpoints.keyRow($endpoints.ordinalOfSlice($s));
       |  long $start = $endpoints.sliceStart($s);
       |  $buffers.pointTo($s, $buffer);
       |  ${metricTerm(ctx, "numOutputRows")}.add(1);
       |  ${consume(ctx, keyVars ++ (startVar +: bufferVars))}
       |  if (shouldStop()) return;
       |}
       |$next = -1;
     """.stripMargin
  }

  override def doConsume(ctx: CodegenContext, input: Seq[ExprCode], row: ExprCode): String = {
    val (lookup, s) = sliceCode(ctx, endpoints, input)
    val updates = updateExpressions
    // Buffer columns come from the buffer row (INPUT_ROW), the message's from `input`.
    ctx.INPUT_ROW = buffer
    ctx.currentVars = Seq.fill[ExprCode](bufferAttributes.size)(null) ++ input
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
      newLeft: SparkPlan, newRight: SparkPlan): AnchorSliceAggregateExec =
    copy(messages = newLeft, anchors = newRight)
}
