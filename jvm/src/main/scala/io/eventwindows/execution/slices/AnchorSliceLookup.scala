package io.eventwindows.execution.slices

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BindReferences, Expression, MutableProjection, SpecificInternalRow, UnsafeProjection
}
import org.apache.spark.sql.catalyst.expressions.codegen.{
  CodegenContext, ExprCode, GenerateUnsafeProjection
}
import org.apache.spark.sql.catalyst.plans.physical.{
  BroadcastDistribution, Distribution, UnspecifiedDistribution
}
import org.apache.spark.sql.execution.{BinaryExecNode, CodegenSupport, SparkPlan}
import org.apache.spark.sql.types.LongType

import io.eventwindows.plans.AnchorDefinition

/**
 * What [[AnchorSliceExec]] and [[AnchorSliceAggregateExec]] share: the anchors' side broadcast as
 * [[AnchorEndpoints]] (as a broadcast hash join gets its hash table), and each message's slice
 * (its dense number, see [[AnchorEndpoints]]) from its keys and time, in generated code or per
 * row. Messages of keys without anchors, before their key's first boundary or with a NULL time
 * are in no window and get no slice.
 */
private[execution] trait AnchorSliceLookup extends BinaryExecNode with CodegenSupport {

  def keys: Seq[Attribute]
  def time: Expression

  /** The anchors; their rows are broadcast too (as [[AnchorEndpointsMode]] says) if given. */
  def anchor: AnchorDefinition
  def messages: SparkPlan
  def anchors: SparkPlan

  override def left: SparkPlan = messages
  override def right: SparkPlan = anchors

  override def requiredChildDistribution: Seq[Distribution] = UnspecifiedDistribution ::
    AnchorSliceLookup.broadcast(anchor, anchors) :: Nil

  protected def boundaries: Broadcast[Array[InternalRow]] =
    anchors.executeBroadcast[Array[InternalRow]]()

  protected def reader: AnchorEndpoints.Reader = new AnchorEndpoints.Reader(keys.map(_.dataType))

  protected def boundKeys: Seq[Expression] = BindReferences.bindReferences(keys, messages.output)
  protected def boundTime: Expression = BindReferences.bindReference(time, messages.output)

  override def inputRDDs(): Seq[RDD[InternalRow]] =
    messages.asInstanceOf[CodegenSupport].inputRDDs()

  /** Generated code: the task's [[AnchorEndpoints]], read from the broadcast once per task. */
  protected def endpointsTerm(ctx: CodegenContext): String = {
    val broadcast = ctx.addReferenceObj("boundaries", boundaries)
    val readerTerm = ctx.addReferenceObj("reader", reader)
    ctx.addMutableState(
      classOf[AnchorEndpoints].getName,
      "endpoints",
      v => s"$v = $readerTerm.read($broadcast.value());",
      forceInline = true)
  }

  /**
   * Generated code that declares the int `slice` of the message in `input`, or leaves the row
   * with `continue` (so it goes in a `do { } while (false)`, as FilterExec's code does).
   * Returns the code and the name of `slice`.
   */
  protected def sliceCode(
      ctx: CodegenContext,
      endpoints: String,
      input: Seq[ExprCode]): (String, String) = {
    ctx.currentVars = input
    val t = boundTime.genCode(ctx)
    val (ordinal, slice) = (ctx.freshName("ordinal"), ctx.freshName("slice"))
    val ordinalCode = boundKeys match {
      case Seq() => s"int $ordinal = $endpoints.keyCount() == 0 ? -1 : 0;"
      case Seq(key) if AnchorEndpoints.byValue(keys.map(_.dataType)) =>
        val k = key.genCode(ctx)
        s"""${k.code}
           |int $ordinal = ${k.isNull} ? $endpoints.ordinalOfNull()
           |  : $endpoints.ordinalOfValue((long) ${k.value});""".stripMargin
      case _ =>
        val k = GenerateUnsafeProjection.createCode(ctx, boundKeys)
        s"""${k.code}
           |int $ordinal = $endpoints.ordinalOf(${k.value});""".stripMargin
    }
    val code =
      s"""${t.code}
         |if (${t.isNull}) continue;
         |$ordinalCode
         |if ($ordinal < 0) continue;
         |int $slice = $endpoints.sliceOf($ordinal, ${t.value});
         |if ($slice < 0) continue;""".stripMargin
    (code, slice)
  }
}

private[execution] object AnchorSliceLookup {

  /** The broadcast of the anchors' slices (and rows), bound to the `anchors` plan's output. */
  def broadcast(anchor: AnchorDefinition, anchors: SparkPlan): Distribution = {
    def bind(a: Attribute) = BindReferences.bindReference[Expression](a, anchors.output)
    BroadcastDistribution(AnchorEndpointsMode(
      anchor.keys.map(bind),
      bind(anchor.start),
      bind(anchor.end),
      anchor.bounds,
      anchor.row.map(bind)))
  }

  /**
   * The row of anchor number `a` (as [[AnchorPartials]] numbers them) in the `broadcast` of
   * [[broadcast]] with the anchors' rows.
   */
  def anchorRow(broadcast: Array[InternalRow], a: Int): InternalRow =
    AnchorEndpointsMode.anchorRow(broadcast, a)

  /**
   * Per row, outside generated code: the slice of a message (bound `keys` and `time`) in the
   * task's `endpoints`, or -1. Built in the task (projections are not serializable).
   */
  def slicer(
      keys: Seq[Expression],
      time: Expression,
      endpoints: AnchorEndpoints): InternalRow => Int = {
    val keyOf = UnsafeProjection.create(keys)
    val timeOf = MutableProjection.create(Seq(time)).target(new SpecificInternalRow(Seq(LongType)))
    row => {
      val t = timeOf(row)
      val ordinal = if (t.isNullAt(0)) -1 else endpoints.ordinalOf(keyOf(row))
      if (ordinal < 0) -1 else endpoints.sliceOf(ordinal, t.getLong(0))
    }
  }
}
