package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{
  Expression, ExpressionInfo, FunctionTableSubqueryArgumentExpression
}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.WindowParameters

/**
 * The arguments of one of this project's table-valued functions (`dynamic_window`,
 * `temporal_join`, `asof_join`) as the analyzer hands them to its builder, read one way for all:
 * the arity checked first, then each argument by its place and the parameter's name, which every
 * error names with the function's. An optional argument that is absent or a NULL constant is
 * `None`. For example, for `asof_join(TABLE(trades), TABLE(quotes), 'ts', 'ts', NULL)`:
 * {{{
 *   table(0, "left")     the plan of trades
 *   required(2, "left_time")   "ts"
 *   names(4, "on")       Nil (NULL or '' for none; else the comma-separated names, trimmed)
 *   argument(6)          None (absent)
 * }}}
 */
private[analysis] final class TableFunctionArguments(
    function: String,
    args: Seq[Expression],
    arity: Range,
    signature: String) {

  if (!arity.contains(args.size)) {
    val counts = if (arity.size == 1) s"${arity.start}" else s"${arity.start} to ${arity.last}"
    fail(s"takes $counts arguments ($signature), got ${args.size}")
  }

  def fail(message: String): Nothing = throw EventWindowsErrors.invalidParameter(function, message)

  /** The table of a `TABLE(name)` or `TABLE(query)` argument. */
  def table(i: Int, parameter: String): LogicalPlan = args(i) match {
    case t: FunctionTableSubqueryArgumentExpression => t.plan
    case other =>
      fail(s"`$parameter` must be a table argument such as TABLE(name), got ${other.sql}")
  }

  /** The argument as given, if given (NULL too). */
  def raw(i: Int): Option[Expression] = args.lift(i)

  /** The argument, unless it is absent or a NULL constant. */
  def argument(i: Int): Option[Expression] =
    raw(i).filterNot(e => e.foldable && e.eval() == null)

  /** A constant string argument, unless absent or NULL. */
  def text(i: Int, parameter: String): Option[String] =
    argument(i).map(WindowParameters.text(function, parameter, _))

  /** A constant string argument that must be given. */
  def required(i: Int, parameter: String): String =
    text(i, parameter).getOrElse(fail(s"`$parameter` must not be NULL"))

  /** A comma-separated list of names (the `on` keys): none for NULL, absent or ''. */
  def names(i: Int, parameter: String): Seq[String] =
    text(i, parameter).toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
}

/**
 * One of this project's table-valued functions (`dynamic_window`, `temporal_join`, `asof_join`):
 * its `name`, the `DESCRIBE FUNCTION` texts (`usage`, `argumentDocs`, `examples`: usage,
 * arguments and examples, as Spark's `ExpressionDescription` has them), the counts of arguments
 * it takes (`arity`) and its [[build]] from the arguments read by [[TableFunctionArguments]].
 * The `ExpressionInfo` and the registration are made here, once; the signature the arity error
 * quotes is the call in `usage`. For example `asof_join`'s usage `_FUNC_(TABLE(left), TABLE(right), left_time, right_time[, on])
 * - ...` makes the signature `TABLE(left), TABLE(right), left_time, right_time[, on]`.
 */
trait TableFunction {

  /** The function's SQL name. */
  def name: String

  /** `DESCRIBE FUNCTION`'s usage: `_FUNC_(arguments) - what it gives`. */
  protected def usage: String

  /** `DESCRIBE FUNCTION EXTENDED`'s arguments. */
  protected def argumentDocs: String

  /** `DESCRIBE FUNCTION EXTENDED`'s examples, run by `FunctionDocsSuite`. */
  protected def examples: String

  /** The numbers of arguments the function takes. */
  protected def arity: Range

  /** The function's plan from its `arguments`, whose arity is checked. */
  protected def build(arguments: TableFunctionArguments): LogicalPlan

  /** An error of the function's call, naming it. */
  protected final def fail(message: String): Nothing =
    throw EventWindowsErrors.invalidParameter(name, message)

  /** The `DESCRIBE FUNCTION` texts, as Spark's built-in table functions have them. */
  final lazy val info: ExpressionInfo = new ExpressionInfo(
    getClass.getCanonicalName.stripSuffix("$"),
    null,
    name,
    usage,
    argumentDocs,
    examples,
    "",
    "table_funcs",
    "0.1.0",
    "",
    "built-in")

  /** The registration, as `SparkSessionExtensions.injectTableFunction` takes it. */
  final lazy val registration
      : (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) =
    (
      FunctionIdentifier(name),
      info,
      args => build(new TableFunctionArguments(name, args, arity, signature)))

  /** The arguments of the call in `usage`, on one line. */
  private def signature: String = TableFunction.Call.findFirstMatchIn(usage)
    .map(_.group(1).replaceAll("\\s+", " ")).getOrElse(name)
}

private object TableFunction {

  /** The call in a usage text: `_FUNC_(` up to the `) - ` before the description. */
  private val Call = """(?s)_FUNC_\((.*?)\)\s+-\s""".r
}
