package io.eventwindows.expressions

import java.util.Locale

import scala.util.control.NonFatal

import io.eventwindows.plans.SplPolicy

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
          val n = try argument.trim.toLong catch {
            case _: NumberFormatException => fail("count(n) needs a whole number n")
          }
          if (n < 1) fail("count(n) needs n >= 1")
          (SplPolicy.Count(n), None)
        case "time" =>
          val ticks = timeTicks(argument.trim, orderType).getOrElse(fail(
            if (orderType == LongType) "time(t) needs a whole number of ticks for BIGINT order"
            else "time(t) needs an interval such as '5 seconds' or a number of seconds"))
          val minimum = if (parameter == "trigger") 1L else 0L
          if (ticks < minimum) {
            fail(s"time(t) needs t ${if (minimum == 0L) ">= 0" else "> 0"}")
          }
          (SplPolicy.Time(ticks, argument.trim), None)
        case "delta" =>
          val comma = argument.lastIndexOf(',')
          if (comma < 0) fail("delta(attribute, d) needs an attribute and a delta")
          val attributeText = argument.substring(0, comma).trim
          val deltaText = argument.substring(comma + 1).trim
          val attribute = try CatalystSqlParser.parseExpression(attributeText) catch {
            case NonFatal(_) => fail(s"delta(attribute, d): '$attributeText' is not a column")
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
    val number = try Some(new java.math.BigDecimal(policy.deltaText)) catch {
      case _: NumberFormatException => None
    }
    val delta: java.math.BigDecimal = dataType match {
      case TimestampType | TimestampNTZType =>
        number.map(_.movePointRight(6))
          .orElse(intervalMicros(policy.deltaText).map(java.math.BigDecimal.valueOf))
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

  private def timeTicks(text: String, orderType: DataType): Option[Long] = {
    val number = try Some(new java.math.BigDecimal(text)) catch {
      case _: NumberFormatException => None
    }
    if (orderType == LongType) {
      number.filter(n => n.stripTrailingZeros.scale <= 0).map(_.longValue)
    } else {
      number.map(_.movePointRight(6).setScale(0, java.math.RoundingMode.FLOOR).longValue)
        .orElse(intervalMicros(text))
    }
  }

  private def intervalMicros(text: String): Option[Long] = try {
    val interval = IntervalUtils.stringToInterval(UTF8String.fromString(text))
    if (interval.months != 0) None
    else Some(Math.addExact(Math.multiplyExact(interval.days.toLong, 86400000000L),
      interval.microseconds))
  } catch {
    case _: IllegalArgumentException | _: ArithmeticException => None
  }
}

/**
 * How the operator compares a delta attribute: in exact whole units, a difference exceeds the
 * delta iff it exceeds `wholeDelta`; otherwise in doubles against `doubleDelta`.
 */
case class DeltaUnits(exact: Boolean, wholeDelta: Long, doubleDelta: Double)
