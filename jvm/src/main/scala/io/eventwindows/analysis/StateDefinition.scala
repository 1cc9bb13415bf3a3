package io.eventwindows.analysis

import scala.util.hashing.MurmurHash3

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.JoinType
import org.apache.spark.sql.types.StructType

import io.eventwindows.execution.streaming.{
  EventTimeHorizon, RowEndIsEventTime, SnappedStart, SnappedToWindows, StartIsEventTime
}
import io.eventwindows.plans.{AsofDirection, FamilyEncoding, JoinLifetime, WindowFamily}

/**
 * What a stream's window state depends on, as its checkpoint keeps it, so that a query restarted
 * with another window definition fails instead of reading state it did not write: an explicit
 * encoding, written field by field here (the families by [[io.eventwindows.plans.FamilyEncoding]])
 * and nowhere else, so that renaming a class or a field changes no checkpoint. Spark's streaming aggregation keeps a fingerprint of
 * [[ofAggregation]] in each window's state ([[fingerprint]]), the `transformWithState` route the
 * text of [[ofReplay]] in each key's progress, a join of two streams [[ofRangeJoin]] or
 * [[ofAsofJoin]] beside each key's rows (`execution.streaming.StoredJoinDefinition`).
 *
 * [[Version]] 1 is the text that every release so far wrote (the case classes' `toString` of
 * release 0.1.0, now spelled out), untagged; for example the streaming aggregation of
 * `hopping_window(ts, '5 seconds', '1 second')` keeps the fingerprint of
 * {{{
 *   hopping_window Hopping(5000000,1000000,0,window,None) start=ts end=point
 * }}}
 * A later version tags its text (`v2 ...`) and keeps the writer of version 1 to recognize the
 * checkpoints written before it, as a restart from such a checkpoint must go on.
 */
private[analysis] object StateDefinition {

  /** The version of the encoding this build writes. */
  val Version: Int = 1

  /** The definition of a window run as Spark's streaming aggregation. */
  def ofAggregation(
      function: String,
      family: WindowFamily,
      start: Expression,
      end: Option[Expression]): String =
    s"$function ${FamilyEncoding.of(family)} ${lifetime(start, end)}"

  /**
   * The definition of a window replayed per key by `transformWithState`: the function, the
   * family, the horizon, the lifetime, tie order and family values, the keys, and the layout of
   * the stored input rows; if the state keeps aggregation buffers (a prefix, a folded session), also the
   * aggregates and their filters.
   */
  def ofReplay(
      function: String,
      family: WindowFamily,
      horizon: EventTimeHorizon,
      start: Expression,
      end: Option[Expression],
      order: Seq[Expression],
      values: Seq[Expression],
      keys: Seq[String],
      input: StructType,
      bufferedAggregates: Option[(Seq[Expression], Seq[Expression])]): String = {
    val aggregates = bufferedAggregates.map { case (functions, filters) =>
      s" aggregates=${sql(functions)} filters=${sql(filters)}"
    }.getOrElse("")
    s"$function ${FamilyEncoding.of(family)} ${this.horizon(horizon)} ${lifetime(start, end)} " +
      s"order=${sql(order)} values=${sql(values)} keys=${keys.mkString("[", ", ", "]")} " +
      s"input=${input.catalogString}$aggregates"
  }

  /**
   * The definition of an ASOF join of two streams, kept with each key's state: the direction,
   * the tolerance (in the time's ticks), whether exact matches are allowed, and the layout of the
   * rows (the union of both sides, keys first), for example
   * {{{
   *   asof_join backward tolerance=none exact=true input=struct<__eventwindows_key0:int,...>
   * }}}
   */
  def ofAsofJoin(
      direction: AsofDirection,
      tolerance: Option[Long],
      allowExactMatches: Boolean,
      input: StructType): String =
    s"asof_join ${direction.name} tolerance=${tolerance.getOrElse("none")} " +
      s"exact=$allowExactMatches input=${input.catalogString}"

  /**
   * The definition of a range join of two streams, kept with each key's state as an ASOF join's
   * is: the join type, the whole condition, each side's closed lifetime (the bounds the rule read
   * from the condition) and the layout of the rows (the union of both sides, keys first), e.g.
   * {{{
   *   range_join LEFT OUTER condition=((k = k) AND ((s < be) AND (bs < e))) left=[s, e]
   *     right=[bs, be] input=struct<__eventwindows_key0:int,...>
   * }}}
   * (on one line).
   */
  def ofRangeJoin(
      joinType: JoinType,
      condition: Expression,
      leftLifetime: JoinLifetime,
      rightLifetime: JoinLifetime,
      input: StructType): String =
    s"range_join ${joinType.sql} condition=${condition.sql} left=${leftLifetime.sql} " +
      s"right=${rightLifetime.sql} input=${input.catalogString}"

  /** What the state of Spark's streaming aggregation keeps of a definition. */
  def fingerprint(definition: String): Long = MurmurHash3.stringHash(definition).toLong

  /** How far a replay's starts are known at a watermark. */
  def horizon(h: EventTimeHorizon): String = h match {
    case StartIsEventTime => "StartIsEventTime"
    case SnappedStart(size, hop, alignment, lineMin, lineMax) =>
      FamilyEncoding.fields("SnappedStart", size, hop, alignment, lineMin, lineMax)
    case SnappedToWindows(windows, lineMin, lineMax) =>
      FamilyEncoding.fields("SnappedToWindows", FamilyEncoding.of(windows), lineMin, lineMax)
    case RowEndIsEventTime(pointOutput) => FamilyEncoding.fields("RowEndIsEventTime", pointOutput)
  }

  private def lifetime(start: Expression, end: Option[Expression]): String =
    s"start=${start.sql} end=${end.map(_.sql).getOrElse("point")}"

  private def sql(es: Seq[Expression]): String = es.map(_.sql).mkString("[", ", ", "]")
}
