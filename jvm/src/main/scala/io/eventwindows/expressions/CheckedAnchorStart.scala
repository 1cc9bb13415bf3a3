package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, TernaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{
  CodegenContext, CodeGenerator, EmptyBlock, ExprCode
}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, StructType}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.plans.AnchorWindow
import io.eventwindows.time.TimeArithmetic

/**
 * The start of a dynamic window's anchor on a stream, checked where the stream reads the anchor:
 * an anchor with a NULL start or end, or an end before its start, fails the query naming the
 * anchor by its own columns, with the batch operators' error ([[CheckedAnchorStart.rejectionMessage]],
 * which the sweep and the broadcast plan raise too).
 * The check cannot wait for the operator: the start is the anchor's sort time, the column with
 * the watermark, and Spark drops a row at or before the watermark before the processor sees it,
 * so an anchor sorting at the line's first instant (as a NULL start does in the batch operator's
 * table) would be dropped as late, silently.
 *
 * On a stream of anchors with a lookback L whose own watermarked time t is field `anchorTime` of
 * the anchor's struct, an anchor starting more than L before t fails the query too: it would be
 * taken to arrive at its start plus L, before t, and dropped as late while on time (a declared
 * lookback too short; a derived one always holds).
 */
case class CheckedAnchorStart(
    start: Expression,
    end: Expression,
    anchor: Expression,
    family: AnchorWindow,
    anchorTime: Option[Int] = None) extends TernaryExpression {

  override def first: Expression = start
  override def second: Expression = end
  override def third: Expression = anchor
  override def dataType: DataType = start.dataType
  override def nullable: Boolean = false
  override def prettyName: String = "checked_anchor_start"

  override def eval(input: InternalRow): Any = {
    val s = start.eval(input)
    val e = end.eval(input)
    if (s == null || e == null || e.asInstanceOf[Long] < s.asInstanceOf[Long]) {
      reject(anchor.eval(input), s, e)
    }
    if (checksLookback) checkLookback(s.asInstanceOf[Long], anchor.eval(input))
    s
  }

  private def checksLookback: Boolean = anchorTime.isDefined && family.lookback.isDefined

  /** Fails the query if `value`, an anchor starting at `s`, starts more than L before its time. */
  def checkLookback(s: Long, value: Any): Unit = {
    val row = value.asInstanceOf[InternalRow]
    val field = anchorTime.get
    if (row != null && !row.isNullAt(field) &&
      TimeArithmetic.add(s, family.lookbackTicks) < row.getLong(field)) {
      throw EventWindowsErrors.invalidInput(s"${family.functionName}: the anchor " +
        s"${CheckedAnchorStart.describe(anchor.dataType, row)} starts at ${Literal(s, dataType)}, more " +
        s"than its `lookback` (${Literal(family.lookbackTicks, DayTimeIntervalType())}) before " +
        s"its own time ${Literal(row.getLong(field), dataType)}: it would be dropped as late " +
        "while on time; declare a longer lookback")
    }
  }

  /** Fails the query on the anchor `value` with its start `s` and end `e` (each may be null). */
  def reject(value: Any, s: Any, e: Any): Nothing = throw EventWindowsErrors.invalidInput(
    CheckedAnchorStart.rejectionMessage(family, anchor.dataType, value, dataType, s, e))

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val s = start.genCode(ctx)
    val e = end.genCode(ctx)
    val a = anchor.genCode(ctx)
    val self = ctx.addReferenceObj("checkedAnchorStart", this)
    // The anchor is read only to name it, unless its time is checked against the lookback.
    val (readAnchor, readToReject) =
      if (checksLookback) (a.code, EmptyBlock) else (EmptyBlock, a.code)
    val checkLookbackCode =
      if (checksLookback) code"$self.checkLookback(${s.value}, ${boxed(a, anchor.dataType)});"
      else EmptyBlock
    ev.copy(code = code"""
      ${s.code}
      ${e.code}
      $readAnchor
      if (${s.isNull} || ${e.isNull} || ${e.value} < ${s.value}) {
        $readToReject
        $self.reject(${boxed(a, anchor.dataType)}, ${boxed(s, dataType)}, ${boxed(e, dataType)});
      }
      $checkLookbackCode
      boolean ${ev.isNull} = false;
      long ${ev.value} = ${s.value};""")
  }

  /** Generated code for the value of `code` as an object, null if it is NULL. */
  private def boxed(code: ExprCode, dataType: DataType): String = {
    val value =
      if (CodeGenerator.isPrimitiveType(dataType)) {
        s"${CodeGenerator.boxedType(dataType)}.valueOf(${code.value})"
      } else {
        code.value.toString
      }
    s"(${code.isNull} ? null : (Object) $value)"
  }

  override protected def withNewChildrenInternal(
      newFirst: Expression,
      newSecond: Expression,
      newThird: Expression): CheckedAnchorStart =
    copy(start = newFirst, end = newSecond, anchor = newThird)
}

object CheckedAnchorStart {

  /**
   * What is wrong with an anchor with a NULL start or end, or an end before its start, naming it
   * by its own columns (its struct), not by the internal ones of the table the window reads: the
   * one message of such an anchor, on a stream (here), in the sweep (`AnchorSweep`) and in the
   * broadcast plan (`AnchorEndpoints`).
   */
  def rejectionMessage(
      family: AnchorWindow,
      anchorType: DataType,
      anchor: Any,
      timeType: DataType,
      start: Any,
      end: Any): String = {
    val what =
      if (start == null || end == null) "a NULL start or end" else "an end before its start"
    s"${family.functionName}: the anchor ${describe(anchorType, anchor)} has $what " +
      s"(start ${Literal(start, timeType)}, end ${Literal(end, timeType)})"
  }

  /** The anchor `anchor` by its own columns (its struct). */
  private[expressions] def describe(anchorType: DataType, anchor: Any): String =
    anchorType match {
      case struct: StructType => EventWindowsErrors.describeRow(
          anchor.asInstanceOf[InternalRow],
          DataTypeUtils.toAttributes(struct))
      case other => Literal(anchor, other).toString
    }
}
