package io.eventwindows

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.eventwindows.SparkInternals

/**
 * A misuse found while analyzing a query: a parameter of the wrong type or value. The message
 * names the function and the parameter and says what is allowed.
 *
 * PySpark formats every converted exception through Spark's own table of error classes, so the
 * class must be one Spark knows: `_LEGACY_ERROR_TEMP_1332` is Spark's free-form `<errorMessage>`,
 * printed without a prefix.
 */
class EventWindowsAnalysisException(message: String)
  extends AnalysisException("_LEGACY_ERROR_TEMP_1332", Map("errorMessage" -> message))

/**
 * Bad input found while running a query, e.g. an event that ends before it starts. A Spark error
 * with a condition and SQLSTATE, as Spark's own run-time errors are (this is the shape of Spark's
 * `SparkIllegalArgumentException`, which is private to Spark): Spark hands it to the caller as it
 * is, not wrapped in a failed job, and PySpark and Spark Connect clients raise their own exception
 * class with this message. The condition must be one Spark knows (see above):
 * `USER_RAISED_EXCEPTION` (SQLSTATE P0001) is the free-form `<errorMessage>` of `raise_error`.
 */
class EventWindowsInputException(message: String)
  extends IllegalArgumentException(SparkInternals.errorMessage(
    EventWindowsInputException.Condition, Map("errorMessage" -> message)))
  with SparkThrowable {

  override def getCondition: String = EventWindowsInputException.Condition

  override def getMessageParameters: java.util.Map[String, String] =
    java.util.Map.of("errorMessage", message)
}

object EventWindowsInputException {
  final val Condition = "USER_RAISED_EXCEPTION"
}
