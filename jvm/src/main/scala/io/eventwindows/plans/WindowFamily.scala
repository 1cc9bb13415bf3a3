package io.eventwindows.plans

import io.eventwindows.expressions.TimeArithmetic

/**
 * The parameters of one window family, as planned. The run-time behaviour of each family lives in
 * its [[WindowAxis]]; everything here is plain data, so the logical
 * node, the physical operator and `explain()` can all carry and show it.
 */
sealed trait WindowFamily extends Product with Serializable {
  /** The SQL function that builds this family. */
  def functionName: String

  /** The fields of the `window` struct after `start` and `end` (the output lifetime). */
  def extraWindowFields: Seq[String] = Nil
}

/**
 * Families whose events occupy intervals of a [[WindowAxis]], known from each event's own
 * lifetime: hopping, tumbling and snapshot windows.
 */
sealed trait AxisFamily extends WindowFamily

/** What a hopping or tumbling window emits for each of its windows. */
sealed abstract class OutputPolicy(val sqlName: String) extends Serializable {
  override def toString: String = sqlName
}

object OutputPolicy {
  /** StreamInsight's ClipToWindowEnd: one row per non-empty window, lifetime = the window. */
  case object Window extends OutputPolicy("window")

  /** StreamInsight's PointAlignToWindowEnd: a point event at the end of each non-empty window. */
  case object Point extends OutputPolicy("point")

  /**
   * Seed 000's HoppingWindow2: one row per run of consecutive windows with the same events,
   * planned as snapped lifetimes feeding a snapshot window.
   */
  case object Changes extends OutputPolicy("changes")

  val all: Seq[OutputPolicy] = Seq(Window, Point, Changes)

  def apply(name: String): OutputPolicy = all.find(_.sqlName == name).get
}

/**
 * Which ends of a relative time interval belong to it: `[]` (both, as \psi's
 * `RelativeTimeInterval`), `[)`, `(]` or `()`.
 */
case class Bounds(lowerInclusive: Boolean, upperInclusive: Boolean) {
  def sqlName: String = (if (lowerInclusive) "[" else "(") + (if (upperInclusive) "]" else ")")
  override def toString: String = sqlName
}

object Bounds {
  val all: Seq[Bounds] = for (l <- Seq(true, false); u <- Seq(true, false)) yield Bounds(l, u)

  def apply(name: String): Bounds = all.find(_.sqlName == name).get
}

/**
 * Hopping windows `[alignment + n*hop, alignment + n*hop + size)` for every integer n; tumbling
 * when `hop == size`. All times are ticks of the time column's type. `horizon` is the last tick
 * that open-ended events cover under a per-window policy (None: the latest finite time of the
 * input).
 */
case class Hopping(
    size: Long,
    hop: Long,
    alignment: Long,
    output: OutputPolicy,
    horizon: Option[Long]) extends AxisFamily {
  override def functionName: String = if (hop == size) "tumbling_window" else "hopping_window"
}

/** Windows between consecutive distinct event endpoints, holding the events active there. */
case object Snapshot extends AxisFamily {
  override def functionName: String = "snapshot_window"
}

/**
 * StreamInsight's count windows: for every n consecutive distinct start times s_i..s_k
 * (k = i + n - 1) of a key, the window `[s_i, s_k + 1 tick)` holding every event whose lifetime
 * intersects it. `output` is [[OutputPolicy.Point]] (a point event at s_k) or
 * [[OutputPolicy.Window]] (the window itself); `window.first` and `window.last` are s_i and s_k.
 */
case class CountWindow(n: Long, output: OutputPolicy) extends WindowFamily {
  override def functionName: String = "count_window"
  override def extraWindowFields: Seq[String] = Seq("first", "last")
}

/**
 * \psi's windows anchored at every message of a key (messages are point events in time order): the
 * output row of an anchor is a point event at the anchor's time.
 */
sealed trait MessageFamily extends WindowFamily

/**
 * \psi's windows by relative message index: the messages with index in `[p + lo, p + hi]` around
 * anchor p (`lo` None: from the key's first message, a running window), full windows only.
 * `window.first` and `window.last` are the times of the window's first and last messages.
 */
case class IndexWindow(lo: Option[Long], hi: Long) extends MessageFamily {
  override def functionName: String = "index_window"
  override def extraWindowFields: Seq[String] = Seq("first", "last")
}

/**
 * \psi's windows by relative time: the messages with time in `[t + lo, t + hi]` around an anchor
 * at t, the ends open or closed as `bounds` says; a row for every anchor, also an empty window.
 */
case class RelativeTimeWindow(lo: Long, hi: Long, bounds: Bounds) extends MessageFamily {
  override def functionName: String = "time_window"
}

/** An IBM Streams SPL window policy, as an eviction or a trigger policy of a [[SlidingWindow]]. */
sealed trait SplPolicy extends Product with Serializable {
  /** The policy as written in SPL, e.g. `count(4)`. */
  def sql: String
  override def toString: String = sql
}

object SplPolicy {
  /** `count(n)`: as eviction, the window holds the last n tuples; as trigger, every n-th tuple. */
  case class Count(n: Long) extends SplPolicy {
    override def sql: String = s"count($n)"
  }

  /**
   * `time(t)` in ticks of the order column: as eviction, tuples that have been in the window for
   * more than t leave; as trigger, the window fires every t from the partition's first arrival.
   */
  case class Time(ticks: Long, text: String) extends SplPolicy {
    override def sql: String = s"time($text)"
  }

  /**
   * `delta(attribute, d)`: as eviction, a new tuple evicts every tuple whose attribute is more than
   * d below its own; as trigger, a tuple whose attribute is more than d above the last tuple that
   * triggered fires the window. The attribute is an expression of the window marker (its text is
   * kept for messages); `d` is read once the attribute's type is known.
   */
  case class Delta(attribute: String, deltaText: String) extends SplPolicy {
    override def sql: String = s"delta($attribute, $deltaText)"
  }

  /**
   * `punct(column)`, a tumbling window's eviction only: a tuple whose BOOLEAN column is TRUE is
   * inserted and the window is flushed after it (SPL's window punctuation, carried by a column).
   */
  case class Punct(column: String) extends SplPolicy {
    override def sql: String = s"punct($column)"
  }
}

/**
 * IBM Streams SPL sliding windows: the tuples of a partition arrive in the order of the order
 * column (the clock of time policies); the eviction policy says which tuples the window holds,
 * the trigger policy when it is evaluated. A row per firing over a non-empty window, a point event
 * at the firing time; `window.first` and `window.last` are the order values of the window's oldest
 * and newest tuples.
 */
case class SlidingWindow(eviction: SplPolicy, trigger: SplPolicy) extends WindowFamily {
  override def functionName: String = "sliding_window"
  override def extraWindowFields: Seq[String] = Seq("first", "last")
}

/**
 * IBM Streams SPL tumbling windows: the tuples of a partition arrive in the order of the order
 * column; the window fills and is flushed whole when its eviction policy says (count, time, delta
 * or punctuation). A row per flush of a non-empty window, a point event at the flush time;
 * `window.first` and `window.last` as for [[SlidingWindow]]. `flushAtEnd`: the window still open
 * when a partition's tuples end is flushed too (at its last tuple's order).
 */
case class SplTumblingWindow(eviction: SplPolicy, flushAtEnd: Boolean) extends WindowFamily {
  override def functionName: String = "spl_tumbling_window"
  override def extraWindowFields: Seq[String] = Seq("first", "last")
}

/**
 * Sessions over events (Trill's `SessionTimeoutWindow`, with Azure Stream Analytics' maximum
 * duration): per key, events sorted by start form sessions `[S, E)`, S the first start and E the
 * latest of `end - 1 tick + gap` over the session's events (the end of time for an open-ended
 * one); an event starting at or before E joins. `maxDuration` cuts a session into pieces
 * `[S + j * maxDuration, min(S + (j + 1) * maxDuration, E))`. `output` is
 * [[OutputPolicy.Window]] (a row per session or piece) or [[OutputPolicy.Changes]] (Trill's
 * progressive sessions: a row per change of the events that have started in the session or
 * piece). All times in ticks of the time column's type.
 */
case class SessionWindow(gap: Long, maxDuration: Option[Long], output: OutputPolicy)
  extends WindowFamily {
  override def functionName: String = "event_session_window"

  /** The end of a session that an event ending at `end` (exclusive) keeps open. */
  def sessionEnd(end: Long, lineMax: Long): Long =
    Math.min(lineMax, TimeArithmetic.add(end - 1, gap))
}

/**
 * \psi's dynamic windows, over one table holding messages and anchors (the union that
 * `dynamic_window` builds): each anchor row gives an interval `[start, end]` (ends per `bounds`)
 * and a row of its own columns; its window holds the messages of its key with time in the
 * interval. A row for every anchor, also when its window is empty; the `window` struct carries the
 * interval and the anchor's columns (`anchor`).
 */
case class AnchorWindow(bounds: Bounds) extends WindowFamily {
  override def functionName: String = "anchor_window"
}
