package io.eventwindows.execution.streaming

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction

import io.eventwindows.plans.{ClippedLifetimeColumns, StreamingRules, WindowDefinition}

/**
 * One streaming event-window aggregation as the [[StreamingWindowProcessor]] runs it, built at
 * analysis from the [[io.eventwindows.plans.EventWindowAggregate]] it replaces: the same window
 * definition and aggregates, over the rows of `input` (the aggregate's child, plus a constant key
 * for a window without GROUP BY keys).
 *
 * @param window      the window definition: family, function, lifetime, tie order, family values
 * @param rules       the family's streaming rules: close times and retention
 * @param horizon     how far the operator's starts are known at a watermark
 * @param aggregation the keys and aggregates
 * @param rows        the rows the processor reads, keeps and gives
 * @param state       the definition kept in state and checked on restart
 * @param emission    what each firing emits
 */
final case class StreamingWindowSpec(
    window: WindowDefinition,
    rules: StreamingRules,
    horizon: EventTimeHorizon,
    aggregation: StreamingAggregation,
    rows: StreamingRows,
    state: StoredDefinition,
    emission: StreamingEmission) {
  require(!emission.earlyRows || rules.knowsOpenRows, s"$rules give no row before it closes")

  /**
   * True if firings fold the events of an open session into its aggregation buffer
   * ([[StreamingRules.foldsSessions]]): not when aggregates read the clipped lifetime, which
   * [[io.eventwindows.execution.sweep.ClippedResults]] computes over the events themselves.
   */
  def foldsSessions: Boolean = rules.foldsSessions && aggregation.clippedLifetime.isEmpty
}

/**
 * The aggregation of a [[StreamingWindowSpec]].
 *
 * @param keys            the grouping keys (possibly none), attributes of the input
 * @param aggregates      the aggregate functions
 * @param filters         their FILTERs (true if none)
 * @param clippedLifetime the columns of the clipped lifetime the aggregates read, if any (see
 *                        [[io.eventwindows.plans.EventWindowAggregate]])
 */
final case class StreamingAggregation(
    keys: Seq[Attribute],
    aggregates: Seq[AggregateFunction],
    filters: Seq[Expression],
    clippedLifetime: Option[ClippedLifetimeColumns])

/**
 * The rows of a [[StreamingWindowSpec]].
 *
 * @param input         the columns of the input rows, as the processor keeps them
 * @param inputEncoder  rows of `input` as Spark hands them to the processor
 * @param outputEncoder rows of the aggregate's output (keys, window, aggregates), resolved and
 *                      bound
 */
final case class StreamingRows(
    input: Seq[Attribute],
    inputEncoder: ExpressionEncoder[Row],
    outputEncoder: ExpressionEncoder[Row])

/**
 * The definition a key's state is kept under (see `io.eventwindows.analysis.StateDefinition`).
 *
 * @param current what the state of this aggregation depends on, kept in state and compared on
 *                restart: the family, lifetime, tie order and the layout of stored rows
 * @param former  the definition an earlier release wrote for this very query, whose state this
 *                one reads as its own (the same events kept, the same close times)
 */
final case class StoredDefinition(current: String, former: Option[String] = None) {

  /** True if state stored under `stored` is this aggregation's own. */
  def accepts(stored: String): Boolean = stored == current || former.contains(stored)
}

/**
 * What the firings of a [[StreamingWindowSpec]] emit.
 *
 * @param maxWindows      the most windows one event may lie in under per-window hopping output
 * @param earlyRows       true in update mode for a family whose rows are known while open
 *                        ([[io.eventwindows.plans.StreamingRules.knowsOpenRows]]): each
 *                        micro-batch emits the current version of every row whose result it
 *                        changed, instead of each row once when it closes; not part of the
 *                        stored definition, the state is the same
 * @param hasInitialState true if the node has initial state (static anchors): in update mode its
 *                        rows are emitted at each key's first input or firing
 */
final case class StreamingEmission(
    maxWindows: Long,
    earlyRows: Boolean = false,
    hasInitialState: Boolean = false)
