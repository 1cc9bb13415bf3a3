package io.eventwindows.expressions

import java.util.Locale

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.plans.SplPolicy

/**
 * Reads SPL window policies written as in SPL: `count(4)`, `time(5 seconds)` (or a number: seconds
 * for timestamps as in SPL, ticks for BIGINT order), `delta(temperature, 1.5)`, `punct(last)` (a
 * tumbling window's), and checks a delta policy's attribute and a punctuation column once they
 * are resolved. Every misuse names the function, the parameter and the
 * policy, and says what is allowed.
 */
object SplPolicies {

  private val Policy = """(?is)\s*(count|time|delta|punct)\s*\((.*)\)\s*""".r

  /**
   * The policy written in `text` for the `parameter` ('eviction' or 'trigger') of a window whose
   * order column has type `orderType`, and the attribute expression of a delta policy or the
   * column of a punctuation policy, which only a `tumbling` window's eviction takes.
   */
  def parse(
      function: String,
      parameter: String,
      text: String,
      orderType: DataType,
      tumbling: Boolean): (SplPolicy, Option[Expression]) = {
    def fail(message: String): Nothing =
      throw EventWindowsErrors.invalidParameter(function, s"`$parameter` $message, got '$text'")
    val allowed = "count(n), time(t)" +
      (if (tumbling) ", delta(attribute, d) or punct(column)"
       else " or delta(attribute, d)")

    /** A column (or a field of one) named in a policy: not an expression, as in SPL. */
    def column(policy: String, text: String): Expression = {
      val e = try CatalystSqlParser.parseExpression(text)
      catch {
        case NonFatal(_) => fail(s"$policy: '$text' is not a column")
      }
      if (!e.isInstanceOf[UnresolvedAttribute]) fail(s"$policy: '$text' is not a column")
      e
    }
    text match {
      case Policy(kind, argument) => kind.toLowerCase(Locale.ROOT) match {
          case "count" =>
            val n = wholeNumber(argument.trim).getOrElse(fail("count(n) needs a whole number n"))
            if (n.signum < 1) fail("count(n) needs n >= 1")
            if (n.compareTo(MaxTicks) > 0) fail("count(n) needs n <= 9223372036854775807")
            (SplPolicy.Count(n.longValueExact), None)
          case "time" =>
            val ticks = timeTicks(argument.trim, orderType).getOrElse(fail(
              if (orderType == LongType) "time(t) needs a whole number of ticks for BIGINT order"
              else "time(t) needs an interval such as '5 seconds' or a number of seconds"))
            // A tumbling window or a trigger of period 0 would flush forever at one instant.
            val minimum = if (parameter == "trigger" || tumbling) 1 else 0
            if (ticks.signum < minimum)
              fail(s"time(t) needs t ${if (minimum == 0) ">= 0" else "> 0"}")
            if (ticks.compareTo(MaxTicks) > 0) {
              fail("time(t) needs t <= 9223372036854775807 " +
                (if (orderType == LongType) "ticks" else "microseconds (about 292,000 years)"))
            }
            (SplPolicy.Time(ticks.longValueExact, argument.trim), None)
          case "delta" =>
            val comma = argument.lastIndexOf(',')
            if (comma < 0) fail("delta(attribute, d) needs an attribute and a delta")
            val attributeText = argument.substring(0, comma).trim
            val deltaText = argument.substring(comma + 1).trim
            // SPL compares an attribute of the tuple: a column (or a field of one), not an
            // expression, which could also be an aggregate.
            (
              SplPolicy.Delta(attributeText, deltaText),
              Some(column("delta(attribute, d)", attributeText)))
          case "punct" if !tumbling =>
            fail("punct(column) is a policy of tumbling windows (spl_tumbling_window); must be " +
              allowed)
          case "punct" =>
            val columnText = argument.trim
            (SplPolicy.Punct(columnText), Some(column("punct(column)", columnText)))
        }
      case _ => fail(s"must be $allowed")
    }
  }

  /** Checks that a punctuation policy's column is a BOOLEAN. */
  def checkPunctuation(function: String, policy: SplPolicy.Punct, dataType: DataType): Unit =
    if (dataType != BooleanType) {
      throw EventWindowsErrors.invalidParameter(
        function,
        s"`eviction` '${policy.sql}': the column must be a " +
          s"BOOLEAN (TRUE flushes the window after its tuple), got ${dataType.sql}")
    }

  /**
   * A delta in the units the operator compares a delta attribute of type `dataType` in: exact
   * units (a whole number: integers; decimals as unscaled values at their scale; timestamps in
   * microseconds) or a double for FLOAT and DOUBLE attributes. Fails, naming the policy, for an
   * attribute that is not numeric or a timestamp, or a delta that is not a non-negative number
   * (or, for timestamps, an interval).
   */
  def deltaUnits(function: String, parameter: String, policy: SplPolicy.Delta, dataType: DataType)
      : DeltaUnits = {
    def fail(message: String): Nothing =
      throw EventWindowsErrors.invalidParameter(function, s"`$parameter` '${policy.sql}': $message")
    val number = decimal(policy.deltaText)
    val delta: java.math.BigDecimal = dataType match {
      case TimestampType | TimestampNTZType =>
        number.map(_.movePointRight(6))
          .orElse(intervalMicros(policy.deltaText))
          .getOrElse(fail("the delta of a timestamp attribute is an interval such as " +
            "'1 second' or a number of seconds"))
      case _: NumericType => number.getOrElse(fail("the delta must be a number"))
      case other =>
        fail(s"the attribute must be numeric or a timestamp, got ${other.sql}")
    }
    if (delta.signum < 0) fail("the delta must not be negative")
    dataType match {
      case FloatType | DoubleType => DeltaUnits(exact = false, Long.MaxValue, delta.doubleValue)
      case d: DecimalType if d.precision > 18 =>
        fail(s"a decimal attribute needs precision <= 18 to be compared exactly, got ${d.sql}")
      case d: DecimalType => DeltaUnits(exact = true, whole(delta.movePointRight(d.scale)), 0.0)
      case _ => DeltaUnits(exact = true, whole(delta), 0.0)
    }
  }

  /** A difference d' of whole units exceeds d iff it exceeds floor(d). */
  private def whole(d: java.math.BigDecimal): Long =
    d.setScale(0, java.math.RoundingMode.FLOOR).min(java.math.BigDecimal.valueOf(Long.MaxValue))
      .longValueExact()

  /** The largest count or time a policy may hold: Long's. */
  private val MaxTicks = java.math.BigDecimal.valueOf(Long.MaxValue)

  /** A whole number, of any size (checked against [[MaxTicks]] by the caller). */
  private def wholeNumber(text: String): Option[java.math.BigDecimal] =
    decimal(text).filter(_.stripTrailingZeros.scale <= 0)

  private def decimal(text: String): Option[java.math.BigDecimal] =
    try Some(new java.math.BigDecimal(text))
    catch { case _: NumberFormatException => None }

  /** The ticks of time(t), of any size: whole ticks for BIGINT order, else microseconds. */
  private def timeTicks(text: String, orderType: DataType): Option[java.math.BigDecimal] =
    if (orderType == LongType) {
      wholeNumber(text)
    } else {
      decimal(text).map(_.movePointRight(6).setScale(0, java.math.RoundingMode.FLOOR))
        .orElse(intervalMicros(text))
    }

  /** The microseconds of an interval without months, exactly (of any size). */
  private def intervalMicros(text: String): Option[java.math.BigDecimal] = try {
    val interval = IntervalUtils.stringToInterval(UTF8String.fromString(text))
    if (interval.months != 0) None
    else Some(java.math.BigDecimal.valueOf(interval.days).multiply(MicrosPerDay)
      .add(java.math.BigDecimal.valueOf(interval.microseconds)))
  } catch {
    case _: IllegalArgumentException | _: ArithmeticException => None
  }

  private val MicrosPerDay = java.math.BigDecimal.valueOf(86400000000L)
}

/**
 * How the operator compares a delta attribute: in exact whole units, a difference exceeds the
 * delta iff it exceeds `wholeDelta`; otherwise in doubles against `doubleDelta`.
 */
case class DeltaUnits(exact: Boolean, wholeDelta: Long, doubleDelta: Double)
