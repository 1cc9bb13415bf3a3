package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, LeafExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{BooleanType, DataType}

import io.eventwindows.errors.EventWindowsErrors

/**
 * Fails the query with `EVENTWINDOWS_CHECKPOINT_MISMATCH` and `message` where it is evaluated:
 * the branch a streaming aggregation takes when the state restored from its checkpoint was
 * written by another window definition (Spark's `RaiseError` only raises Spark's conditions).
 * {{{
 *   Filter(If(stored = fingerprint, true, CheckpointMismatch("hopping_window: ...")))
 * }}}
 */
case class CheckpointMismatch(message: String) extends LeafExpression {
  override def dataType: DataType = BooleanType
  override def nullable: Boolean = true
  override def prettyName: String = "checkpoint_mismatch"

  override def eval(input: InternalRow): Any = throw CheckpointMismatch.error(message)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = CheckpointMismatch.getClass.getName.stripSuffix("$")
    val text = ctx.addReferenceObj("message", message)
    ev.copy(code = code"""
      boolean ${ev.isNull} = true;
      boolean ${ev.value} = false;
      if (true) throw $self.error($text);""")
  }
}

object CheckpointMismatch {
  def error(message: String): RuntimeException = EventWindowsErrors.checkpointMismatch(message)
}
