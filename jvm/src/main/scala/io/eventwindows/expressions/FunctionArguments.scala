package io.eventwindows.expressions

import java.util.Locale

import io.eventwindows.expressions.EventWindowsFunctions.Registration

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Cast, Expression, ExpressionInfo, NamedArgumentExpression}
import org.apache.spark.sql.types.NullType

/**
 * What the registrations of every source share: [[register]], which builds a function's
 * `ExpressionInfo` (the documentation `DESCRIBE FUNCTION EXTENDED` shows) and rejects named
 * arguments the function does not take, the documentation of the lifetime columns, and the
 * parsing of the arguments before the constant parameters: the arity, the `start[, end]` columns
 * of an event's lifetime, and SQL's named arguments. The constant parameters themselves are read by
 * [[WindowParameters]].
 */
object FunctionArguments {

  /**
   * The registration of the function `name`: its `ExpressionInfo`, which Spark's own functions
   * take from their `@ExpressionDescription` (here built by hand, since one expression class,
   * [[EventWindow]], serves many functions), and its builder.
   * `expression`: the class the builder returns, shown as `Class:` by DESCRIBE FUNCTION.
   * `named`: the trailing optional parameters SQL may name (`flush_at_end => true`), which the
   * builder reads through [[namedArguments]]; a function without them takes no named argument.
   */
  private[expressions] def register(
      name: String, expression: Class[_ <: Expression], usage: String, arguments: String,
      examples: String, group: String = "datetime_funcs", named: Seq[String] = Nil)(
      builder: Seq[Expression] => Expression): Registration = {
    val info = new ExpressionInfo(expression.getCanonicalName, null, name, usage, arguments,
      examples, "", group, "0.1.0", "", "built-in")
    val checked = if (named.nonEmpty) builder else (args: Seq[Expression]) => {
      args.collectFirst { case n: NamedArgumentExpression =>
        WindowParameters.fail(name, s"takes positional arguments only, got the named argument " +
          s"`${n.key}`")
      }
      builder(args)
    }
    (FunctionIdentifier(name), info, checked)
  }

  /** The `Arguments:` entries of the lifetime columns `start[, end]`, which [[lifetime]] splits. */
  private[expressions] val lifetimeArguments =
    """
      * start - the event's start time: TIMESTAMP, TIMESTAMP_NTZ or BIGINT (ticks).
      * end - optional, the event's exclusive end time, of the type of `start`. Omit it for point
          events, which last one tick (1 microsecond, or 1 for BIGINT). A NULL end is an
          open-ended event that lasts to the end of time. An end before the start is an error
          naming the row; an end equal to the start is an empty lifetime, in no window; rows with
          a NULL start are skipped, as by Spark's window().
    """

  private[expressions] def arity(name: String, expected: String, args: Seq[Expression]): Nothing =
    WindowParameters.fail(name, s"takes $expected, got ${args.size}: " +
      args.map(_.sql).mkString(", "))

  /**
   * Splits `start[, end], params...`: the second argument is the end column unless it is a
   * non-NULL constant (a size or a hop). A NULL constant is an end: every event is open-ended.
   */
  private[expressions] def lifetime(name: String, args: Seq[Expression], minParams: Int)
      : (Expression, Option[Expression], Seq[Expression]) = {
    if (args.isEmpty) arity(name, "at least a start column", args)
    val start = args.head
    val time = WindowParameters.timeType(name, "start", start)
    val hasEnd = args.size > 1 && (!args(1).foldable || args(1).eval() == null)
    val end = if (!hasEnd) None else Some(args(1).dataType match {
      case NullType => Cast(args(1), time)
      case t if t == time => args(1)
      case t => WindowParameters.fail(name, s"`end` must have the type of `start` (${time.sql}), " +
        s"got ${t.sql} (${args(1).sql})")
    })
    val params = args.drop(if (hasEnd) 2 else 1)
    if (params.size < minParams) arity(name, s"at least $minParams parameters after the " +
      "lifetime columns", args)
    (start, end, params)
  }

  /**
   * Splits SQL's named arguments (`flush_at_end => true`) from the positional ones before them.
   * Only the trailing optional parameters in `names` may be named, each once, after every
   * positional argument, as Spark's own functions take them.
   */
  private[expressions] def namedArguments(name: String, args: Seq[Expression], names: Seq[String])
      : (Seq[Expression], Map[String, Expression]) = {
    val positional = args.takeWhile(!_.isInstanceOf[NamedArgumentExpression])
    val named = args.drop(positional.size).map {
      case NamedArgumentExpression(key, value) => key.toLowerCase(Locale.ROOT) -> value
      case other => WindowParameters.fail(name, "a positional argument must not follow named " +
        s"arguments, got ${other.sql}")
    }
    named.foreach { case (key, _) =>
      if (!names.contains(key)) {
        WindowParameters.fail(name, s"has no parameter `$key` that can be named; the named " +
          s"parameters are ${names.map("`" + _ + "`").mkString(", ")}")
      }
    }
    named.groupBy(_._1).collectFirst { case (key, uses) if uses.size > 1 =>
      WindowParameters.fail(name, s"`$key` is named twice")
    }
    (positional, named.toMap)
  }

  /** Optional parameter `index` of `params`, or its named argument: one of them, not both. */
  private[expressions] def optional(
      name: String,
      params: Seq[Expression],
      index: Int,
      named: Map[String, Expression],
      parameter: String): Option[Expression] = (params.lift(index), named.get(parameter)) match {
    case (Some(_), Some(_)) =>
      WindowParameters.fail(name, s"`$parameter` is given both by position and by name")
    case (given, byName) => given.orElse(byName)
  }
}
