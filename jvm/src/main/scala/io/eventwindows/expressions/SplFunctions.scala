package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.expressions.{Cast, Expression}
import org.apache.spark.sql.types.{ByteType, IntegerType, LongType, ShortType}

import io.eventwindows.expressions.EventWindowsFunctions.Registration
import io.eventwindows.expressions.FunctionArguments.{arity, namedArguments, optional, register}
import io.eventwindows.plans.{SlidingWindow, SplTumblingWindow}

/**
 * IBM Streams SPL's windows: sliding windows with their eviction and trigger policies, as SPL's
 * "Sliding windows" documentation defines them, and tumbling windows with their eviction policies
 * and window punctuation. The policies' text is read by [[SplPolicies]].
 */
private[expressions] object SplFunctions {

  val slidingWindow: Registration = register(
    "sliding_window",
    classOf[EventWindow],
    """
    _FUNC_(order, eviction[, trigger]) - Groups tuples into IBM Streams SPL sliding windows. The
      tuples of each group arrive in the order of `order`, the clock of time policies. The
      eviction policy says which tuples the window holds, the trigger policy when it is
      evaluated; a firing over a non-empty window gives a row. On each arrival, as in the SPL
      runtime: a time trigger first fires at its instants before the arrival (after time
      eviction at each); a delta trigger is checked against the window before the new tuple; then
      eviction, then insertion; then a count trigger. Use it in GROUP BY (the other keys
      partition the windows); it yields the column `window` (struct of `start`, `end`: a point
      event at the firing time, and `first`, `last`: the order values of the window's oldest and
      newest tuples).
    """,
    """
    Arguments:
      * order - the arrival order: TIMESTAMP, TIMESTAMP_NTZ or an integer (BIGINT ticks). Rows
          with a NULL order are skipped; ties are ordered by the values the aggregates and
          the delta policies read.
      * eviction - 'count(n)': the window holds the last n tuples; 'time(t)': tuples leave once
          they have been in the window for more than t (t an interval such as '5 seconds' or a
          number of seconds, an integer number of ticks for BIGINT order); 'delta(attribute, d)':
          a new tuple evicts every tuple whose attribute is more than d below its own (numeric or
          timestamp attributes; d a number, or for timestamps an interval or seconds).
      * trigger - optional, 'count(n)' (default 'count(1)'): fires on every n-th arrival;
          'time(t)': fires at first + k * t (k >= 1, first = the group's first arrival) up to the
          last arrival, also where no tuple arrives; 'delta(attribute, d)': fires when a tuple's
          attribute exceeds the last firing tuple's by more than d (the first tuple only sets it).
    """,
    """
    Examples:
      > SELECT window.start, window.first, collect_list(v) FROM VALUES (1L, 1), (2L, 2), (3L, 3), (4L, 4), (5L, 5) AS t(ts, v) GROUP BY _FUNC_(ts, 'count(3)', 'count(2)') ORDER BY 1;
        2	1	[1,2]
        4	2	[2,3,4]
    """)(slidingBuilder)

  val splTumblingWindow: Registration = register(
    "spl_tumbling_window",
    classOf[EventWindow],
    """
    _FUNC_(order, eviction[, flush_at_end]) - Groups tuples into IBM Streams SPL tumbling windows.
      The tuples of each group arrive in the order of `order`, the clock of time policies. The
      window fills and is flushed whole as its eviction policy says; each flush of a non-empty
      window gives a row. Use it in GROUP BY (the other keys partition the windows); it yields
      the column `window` (struct of `start`, `end`: a point event at the flush time, and
      `first`, `last`: the order values of the window's oldest and newest tuples).
    """,
    """
    Arguments:
      * order - the arrival order: TIMESTAMP, TIMESTAMP_NTZ or an integer (BIGINT ticks). Rows
          with a NULL order are skipped; ties are ordered by the values the aggregates and the
          policy read.
      * eviction - 'count(n)': a tuple is inserted and the window flushed once it holds n (at
          that tuple's order); 'time(t)': the window is flushed at first + k * t (k >= 1, first =
          the group's first arrival; t positive, an interval such as '5 seconds' or a number of
          seconds, an integer number of ticks for BIGINT order) when a tuple at or past that
          instant arrives, before it is inserted; 'delta(attribute, d)': when a new tuple's
          attribute exceeds the oldest held tuple's by more than d, the window is flushed first
          (at the new tuple's order) and the new tuple starts the next window (numeric or
          timestamp attributes); 'punct(column)': a tuple whose BOOLEAN column is TRUE is
          inserted and the window flushed after it (SPL's window punctuation; a NULL is an error
          naming the row).
      * flush_at_end - optional, a BOOLEAN constant (default false; SQL may write
          flush_at_end => true): the window still open when a group's tuples end gives a row too,
          at its last tuple's order. Not on streaming DataFrames, whose groups never end.

    Cost: one sort and O(1) amortized aggregate work per tuple; memory holds the open window.
    """,
    """
    Examples:
      > SELECT window.start, window.first, window.last, collect_list(age) FROM VALUES (0L), (1L), (2L), (3L), (4L), (5L), (6L), (7L) AS t(age) GROUP BY _FUNC_(age, 'delta(age, 2)') ORDER BY 1;
        3	0	2	[0,1,2]
        6	3	5	[3,4,5]
      > SELECT window.start, collect_list(v) FROM VALUES (1L, 1), (2L, 2), (3L, 3), (4L, 4), (5L, 5) AS t(ts, v) GROUP BY _FUNC_(ts, 'count(2)', flush_at_end => true) ORDER BY 1;
        2	[1,2]
        4	[3,4]
        5	[5]
    """,
    named = Seq("flush_at_end"))(splTumblingBuilder)

  private def slidingBuilder(args: Seq[Expression]): Expression = {
    val name = "sliding_window"
    if (args.size < 2 || args.size > 3) {
      arity(name, "2 or 3 arguments (order, eviction[, trigger])", args)
    }
    val order = splOrder(args.head)
    val orderType = WindowParameters.timeType(name, "order", order)
    val (eviction, evictionAttribute) = SplPolicies.parse(
      name,
      "eviction",
      WindowParameters.text(name, "eviction", args(1)),
      orderType,
      tumbling = false)
    val (trigger, triggerAttribute) = SplPolicies.parse(
      name,
      "trigger",
      args.lift(2).map(WindowParameters.text(name, "trigger", _)).getOrElse("count(1)"),
      orderType,
      tumbling = false)
    EventWindow(
      order,
      None,
      SlidingWindow(eviction, trigger),
      values = evictionAttribute.toSeq ++ triggerAttribute)
  }

  private def splTumblingBuilder(args: Seq[Expression]): Expression = {
    val name = "spl_tumbling_window"
    val (positional, named) = namedArguments(name, args, Seq("flush_at_end"))
    if (positional.size < 2 || positional.size > 3) {
      arity(name, "2 or 3 arguments (order, eviction[, flush_at_end])", args)
    }
    val order = splOrder(positional.head)
    val orderType = WindowParameters.timeType(name, "order", order)
    val (eviction, attribute) = SplPolicies.parse(
      name,
      "eviction",
      WindowParameters.text(name, "eviction", positional(1)),
      orderType,
      tumbling = true)
    val flushAtEnd = optional(name, positional, 2, named, "flush_at_end")
      .exists(WindowParameters.flag(name, "flush_at_end", _))
    EventWindow(order, None, SplTumblingWindow(eviction, flushAtEnd), values = attribute.toSeq)
  }

  /** An SPL order column: integers widen to BIGINT ticks. */
  private def splOrder(order: Expression): Expression = order.dataType match {
    case ByteType | ShortType | IntegerType => Cast(order, LongType)
    case _ => order
  }
}
