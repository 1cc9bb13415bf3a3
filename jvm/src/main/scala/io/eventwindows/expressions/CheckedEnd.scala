package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.DataType

import io.eventwindows.errors.EventWindowsErrors

/**
 * An event's end, checked against its start: an end before the start fails the query with both
 * values. The window operator checks the lifetimes it sweeps itself; this expression checks the
 * user's lifetime where the operator only sees derived ones (the snapped lifetimes of 'changes').
 * A NULL end (open-ended) or a NULL start passes through.
 */
case class CheckedEnd(start: Expression, end: Expression) extends BinaryExpression {
  override def left: Expression = start
  override def right: Expression = end
  override def dataType: DataType = end.dataType
  override def nullable: Boolean = end.nullable
  override def prettyName: String = "checked_end"

  override def eval(input: org.apache.spark.sql.catalyst.InternalRow): Any = {
    val e = end.eval(input)
    val s = start.eval(input)
    if (e != null && s != null)
      CheckedEnd.check(s.asInstanceOf[Long], e.asInstanceOf[Long], dataType)
    e
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val s = start.genCode(ctx)
    val e = end.genCode(ctx)
    val self = CheckedEnd.getClass.getName.stripSuffix("$")
    val typeRef = ctx.addReferenceObj("timeType", dataType)
    ev.copy(code = code"""
      ${s.code}
      ${e.code}
      boolean ${ev.isNull} = ${e.isNull};
      long ${ev.value} = ${e.value};
      if (!${e.isNull} && !${s.isNull}) {
        $self.check(${s.value}, ${e.value}, $typeRef);
      }""")
  }

  override protected def withNewChildrenInternal(l: Expression, r: Expression): CheckedEnd =
    copy(start = l, end = r)
}

object CheckedEnd {
  def check(start: Long, end: Long, timeType: DataType): Unit = if (end < start) {
    throw EventWindowsErrors.eventEndsBeforeStart(
      s"eventwindows: an event must not end before it " +
        s"starts, but one has start ${Literal(start, timeType)} and end ${Literal(end, timeType)}")
  }
}
