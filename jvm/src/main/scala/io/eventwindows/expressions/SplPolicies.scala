package io.eventwindows.expressions

import java.util.Locale

import scala.util.control.NonFatal

import io.eventwindows.plans.SplPolicy

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Reads SPL window policies written as in SPL: `count(4)`, `time(5 seconds)` (or a number: seconds
 * for timestamps as in SPL, ticks for BIGINT order), `delta(temperature, 1.5)`, and checks a delta
 * policy's attribute once it is resolved. Every misuse names the function, the parameter and the
 * policy, and says what is allowed.
 */
object SplPolicies {

  private val Policy = """(?is)\s*(count|time|delta)\s*\((.*)\)\s*""".r

  private val allowed = "count(n), time(t) or delta(attribute, d)"

  /**
   * The policy written in `text` for the `parameter` ('eviction' or 'trigger') of a window whose
   * order column has type `orderType`, and the attribute expression of a delta policy.
   */
  def parse(function: String, parameter: String, text: String, orderType: DataType)
      : (SplPolicy, Option[Expression]) = {
    def fail(message: String): Nothing =
      WindowParameters.fail(function, s"`$parameter` $message, got '$text'")
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
          val minimum = if (parameter == "trigger") 1 else 0
          if (ticks.signum < minimum) fail(s"time(t) needs t ${if (minimum == 0) ">= 0" else "> 0"}")
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
          val attribute = try CatalystSqlParser.parseExpression(attributeText) catch {
            case NonFatal(_) => fail(s"delta(attribute, d): '$attributeText' is not a column")
          }
          if (!attribute.isInstanceOf[UnresolvedAttribute]) {
            fail(s"delta(attribute, d): '$attributeText' is not a column")
          }
          (SplPolicy.Delta(attributeText, deltaText), Some(attribute))
      }
      case _ => fail(s"must be $allowed")
    }
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
      WindowParameters.fail(function, s"`$parameter` '${policy.sql}': $message")
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
    try Some(new java.math.BigDecimal(text)) catch { case _: NumberFormatException => None }

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
