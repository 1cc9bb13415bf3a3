package io.eventwindows

import org.apache.spark.sql.AnalysisException

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

/** Bad input found while running a query, e.g. an event that ends before it starts. */
class EventWindowsInputException(message: String) extends IllegalArgumentException(message)
