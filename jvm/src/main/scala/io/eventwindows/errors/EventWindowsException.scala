package io.eventwindows.errors

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Literal}
import org.apache.spark.sql.catalyst.trees.Origin

/**
 * The error conditions of eventwindows, as Spark keeps its own: each has a message template
 * whose `<name>`s are its parameters and a SQLSTATE, in the resource
 * `error/eventwindows-error-conditions.json` (listed for users in `docs/errors.md`). Every error
 * the extension raises is made here, so that its condition, SQLSTATE and parameters reach PySpark
 * and Spark Connect clients through `SparkThrowable` (`getCondition()`, `getSqlState()`), as
 * Delta's errors do: Spark's own reader knows only Spark's conditions, so the message is
 * formatted here, as Spark formats its own (`[CONDITION] message SQLSTATE: state`).
 *
 * At analysis a misuse of a function or parameter:
 *  - `EVENTWINDOWS_INVALID_PARAMETER` (22023): a parameter of the wrong type or value;
 *  - `EVENTWINDOWS_UNSUPPORTED` (0A000): a combination the extension does not run (on streams);
 *  - `EVENTWINDOWS_STREAM_JOIN_WITHOUT_WATERMARK`, `EVENTWINDOWS_STREAM_JOIN_TYPE` (0A000),
 *    `EVENTWINDOWS_STREAM_JOIN_OUTPUT_MODE` (42KDE): a join of two streams that runs neither as
 *    the extension's nor as Spark's own stream-stream join, modelled on the checks of Spark's
 *    `UnsupportedOperationChecker` (which names no join of ours, and sees none of ours at all
 *    once it has become Spark's `TransformWithState`).
 * At run time bad input, raised from executors:
 *  - `EVENTWINDOWS_EVENT_ENDS_BEFORE_START`, `EVENTWINDOWS_INVALID_INPUT` (22000): a row that is
 *    no event, or a NULL where a value is needed;
 *  - `EVENTWINDOWS_TOO_MANY_WINDOWS` (54000): more windows or rows than the configured limit;
 *  - `EVENTWINDOWS_CHECKPOINT_MISMATCH` (55000): a checkpoint of another window definition.
 */
object EventWindowsErrors {

  private final case class Condition(template: String, sqlState: String)

  private lazy val conditions: Map[String, Condition] = {
    val resource = getClass.getResourceAsStream("/error/eventwindows-error-conditions.json")
    val json = try new ObjectMapper().readTree(resource)
    finally resource.close()
    json.properties().asScala.map { entry =>
      val message = entry.getValue.get("message").elements().asScala.map(_.asText).mkString("\n")
      entry.getKey -> Condition(message, entry.getValue.get("sqlState").asText)
    }.toMap
  }

  /** The SQLSTATE of `condition`. */
  def sqlState(condition: String): String = conditions(condition).sqlState

  /** The message of `condition` with `parameters`, as Spark formats its errors' messages. */
  def message(condition: String, parameters: Map[String, String]): String = {
    val text = parameters.foldLeft(conditions(condition).template) { case (t, (name, value)) =>
      t.replace(s"<$name>", value)
    }
    s"[$condition] $text SQLSTATE: ${sqlState(condition)}"
  }

  /**
   * A row as messages name it, by its columns: `(name=value, ...)`, each value as Spark writes
   * a literal (`(k=1, ts=TIMESTAMP '2024-01-01 00:00:00')`).
   */
  def describeRow(row: InternalRow, attributes: Seq[Attribute]): String =
    attributes.zipWithIndex.map { case (a, i) =>
      s"${a.name}=${Literal(row.get(i, a.dataType), a.dataType)}"
    }.mkString("(", ", ", ")")

  /** A parameter of `function` of the wrong type or value, found at analysis. */
  def invalidParameter(function: String, reason: String): EventWindowsAnalysisException =
    new EventWindowsAnalysisException(
      "EVENTWINDOWS_INVALID_PARAMETER",
      Map("function" -> function, "reason" -> reason))

  /** A use of `function` that the extension does not run, found at analysis. */
  def unsupported(function: String, reason: String): EventWindowsAnalysisException =
    new EventWindowsAnalysisException(
      "EVENTWINDOWS_UNSUPPORTED",
      Map("function" -> function, "reason" -> reason))

  /**
   * A join of two streams (`join`, as [[io.eventwindows.analysis.StreamingRangeJoins]] names it)
   * whose `side`'s `column` (its role and name, such as "start `s`") carries no event-time
   * watermark, which the join needs for `reason`.
   */
  def streamJoinWithoutWatermark(
      join: String,
      side: String,
      column: String,
      reason: String): EventWindowsAnalysisException =
    new EventWindowsAnalysisException(
      "EVENTWINDOWS_STREAM_JOIN_WITHOUT_WATERMARK",
      Map("join" -> join, "side" -> side, "column" -> column, "reason" -> reason))

  /** A join of two streams of a type that does not run on streams; `reason` says what does. */
  def streamJoinType(
      join: String,
      joinType: String,
      reason: String): EventWindowsAnalysisException =
    new EventWindowsAnalysisException(
      "EVENTWINDOWS_STREAM_JOIN_TYPE",
      Map("join" -> join, "joinType" -> joinType, "reason" -> reason))

  /** A join of two streams in a query whose output mode is not Append. */
  def streamJoinOutputMode(join: String, outputMode: String): EventWindowsAnalysisException =
    new EventWindowsAnalysisException(
      "EVENTWINDOWS_STREAM_JOIN_OUTPUT_MODE",
      Map("join" -> join, "outputMode" -> outputMode))

  /** A row whose end is before its start; `message` names the row. */
  def eventEndsBeforeStart(message: String): EventWindowsInputException =
    new EventWindowsInputException("EVENTWINDOWS_EVENT_ENDS_BEFORE_START", message)

  /** An event or a firing with more windows (rows) than the limit; `message` says which. */
  def tooManyWindows(message: String): EventWindowsInputException =
    new EventWindowsInputException("EVENTWINDOWS_TOO_MANY_WINDOWS", message)

  /** Other bad input: a NULL where a value is needed, times past what can be numbered. */
  def invalidInput(message: String): EventWindowsInputException =
    new EventWindowsInputException("EVENTWINDOWS_INVALID_INPUT", message)

  /** A streaming query's checkpoint that holds the state of another window definition. */
  def checkpointMismatch(message: String): EventWindowsInputException =
    new EventWindowsInputException("EVENTWINDOWS_CHECKPOINT_MISMATCH", message)
}

/**
 * A misuse found while analyzing a query (see [[EventWindowsErrors]]). The message names the
 * function and the parameter and says what is allowed.
 *
 * Spark's analyzer adds the position of the call in the SQL text ([[withPosition]]); this class
 * keeps the line and position but no query context, which clients would format through Spark's
 * own table of conditions (PySpark's `getMessage`), where eventwindows' are not.
 */
class EventWindowsAnalysisException private[eventwindows] (
    condition: String,
    parameters: Map[String, String],
    line: Option[Int] = None,
    startPosition: Option[Int] = None)
    extends AnalysisException(
      EventWindowsErrors.message(condition, parameters),
      line,
      startPosition,
      None,
      Some(condition),
      parameters,
      Array.empty) {

  override def getSqlState: String = EventWindowsErrors.sqlState(condition)

  override def withPosition(origin: Origin): AnalysisException = {
    val positioned =
      new EventWindowsAnalysisException(condition, parameters, origin.line, origin.startPosition)
    positioned.setStackTrace(getStackTrace)
    positioned
  }
}

/**
 * Bad input found while running a query, e.g. an event that ends before it starts (see
 * [[EventWindowsErrors]]). A Spark error with a condition and SQLSTATE, as Spark's own run-time
 * errors are (the shape of Spark's `SparkIllegalArgumentException`, which is private to Spark):
 * Spark hands it to the caller as it is, not wrapped in a failed job, and PySpark and Spark
 * Connect clients raise their `IllegalArgumentException` with this condition and message.
 */
class EventWindowsInputException private[eventwindows] (condition: String, message: String)
    extends IllegalArgumentException(
      EventWindowsErrors.message(condition, Map("message" -> message)))
    with SparkThrowable {

  override def getCondition: String = condition

  override def getSqlState: String = EventWindowsErrors.sqlState(condition)

  override def getMessageParameters: java.util.Map[String, String] =
    java.util.Map.of("message", message)
}
