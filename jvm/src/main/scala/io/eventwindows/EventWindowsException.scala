package io.eventwindows

import org.apache.spark.sql.AnalysisException

/**
 * A misuse found while analyzing a query: a parameter of the wrong type or value. The message
 * names the function and the parameter and says what is allowed.
 */
class EventWindowsAnalysisException(message: String)
  extends AnalysisException(message, errorClass = Some("EVENTWINDOWS_INVALID_ARGUMENT"))

/** Bad input found while running a query, e.g. an event that ends before it starts. */
class EventWindowsInputException(message: String) extends IllegalArgumentException(message)
