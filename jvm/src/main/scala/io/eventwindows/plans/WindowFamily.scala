package io.eventwindows.plans

import io.eventwindows.time.{
  CalendarStep, CalendarWindows, CumulatingWindows, ExactCumulating, NumberedWindows, TimeArithmetic
}

/**
 * One window family: its parameters, as planned, and what it can do. The rules of the analyzer
 * and the streaming room ask the family (where clipped lifetimes apply, how it runs on a stream,
 * which columns its policies read, what its `window` struct holds) instead of matching on it;
 * the sweep runs it through its own policy (`SweepPolicy.factory`, the one place that maps a
 * family to its run-time behaviour). Case classes of plain values, so the logical node, the
 * physical operator and `explain()` can all carry and show them.
 */
sealed trait WindowFamily extends Product with Serializable {

  /** The SQL function that builds this family. */
  def functionName: String

  /** The layout of the `window` struct: its output lifetime, and what else it carries. */
  def windowFields: WindowFields = WindowFields.Lifetime

  /**
   * True if the `window` struct also carries the row of the anchor that defines each window (the
   * last of the family's values): dynamic windows.
   */
  def carriesAnchor: Boolean = false

  /**
   * True if a row's `window.end` is its last instant, not one tick after it: dynamic windows
   * whose interval includes its end (their `window_time`).
   */
  def endIsLastInstant: Boolean = false

  /**
   * The family's policies that read a column of each row, with the parameter that gave each: the
   * family's values, in order (the attributes of SPL delta policies, punctuation columns).
   */
  def policyColumns: Seq[(String, SplPolicy)] = Nil

  /**
   * True if the aggregates over this family may read each event's lifetime clipped to each
   * window (`clipped_start()`, `clipped_end()`, the time-weighted aggregates).
   */
  def clipsLifetimes: Boolean = false

  /** None if [[clipsLifetimes]], else why the aggregates may not read clipped lifetimes. */
  def clippedLifetimeRefusal: Option[String] =
    if (clipsLifetimes) None
    else Some(s"allowed only over ${WindowFamily.ClippingFamilies}, whose events have lifetimes " +
      s"clipped to each window; got $functionName")

  /**
   * The rules by which the family runs on a stream, replayed per key by `transformWithState`
   * (see [[StreamingRules]]), or why it does not run on streams.
   */
  def onStreams: Either[String, StreamingRules] =
    Left("this window is not supported on streaming DataFrames yet; run it on a batch DataFrame")

  /**
   * How this family is planned as another over rewritten event lifetimes, if it is (hopping
   * windows with output 'changes': snapshot windows over snapped lifetimes, the rewriting of
   * "Taming Hopping Windows"); None if it is planned as it is.
   */
  def lifetimeRewrite: Option[LifetimeRewrite] = None
}

/**
 * A family planned as `family` over event lifetimes snapped to the windows of `snap`: each start
 * moves to the end of the first window ending after it, each exclusive end to the end of the
 * window after the last one starting before it (`AdjustLifetime.snapped` makes the expressions).
 */
case class LifetimeRewrite(family: WindowFamily, snap: LifetimeSnap)

/** The windows a [[LifetimeRewrite]] snaps lifetimes to. */
sealed trait LifetimeSnap

object LifetimeSnap {

  /** Hopping windows `[alignment + n*hop, alignment + n*hop + size)` ("Taming Hopping Windows"). */
  final case class ToHops(size: Long, hop: Long, alignment: Long) extends LifetimeSnap

  /** Windows known by number: calendar windows, cumulating windows. */
  final case class ToWindows(windows: NumberedWindows) extends LifetimeSnap
}

object WindowFamily {

  /**
   * A family of every kind with each output it takes, built from small parameters: what the texts
   * that list families (error messages, `DESCRIBE FUNCTION`, the Python docstrings made from it)
   * are derived from, by asking each family what it can do. A new kind of family goes here:
   * `FunctionDocsSuite` fails while a concrete family class has no sample.
   */
  val Samples: Seq[WindowFamily] = {
    val month = CalendarStep(months = 1, days = 0, micros = 0L)
    val hoppingOutputs = OutputPolicy.all
    Seq(
      hoppingOutputs.map(Hopping(size = 2L, hop = 1L, alignment = 0L, _, horizon = None)),
      hoppingOutputs.map(Hopping(size = 1L, hop = 1L, alignment = 0L, _, horizon = None)),
      hoppingOutputs.map(CalendarHopping(CalendarWindows(month, month, 0L, "UTC"), _, None)),
      hoppingOutputs.map(Cumulating(
        ExactCumulating(size = 2L, step = 1L, alignment = 0L),
        _,
        horizon = None)),
      Seq(Snapshot),
      Seq(OutputPolicy.Point, OutputPolicy.Window).map(CountWindow(n = 1L, _)),
      Seq(OutputPolicy.Window, OutputPolicy.Changes).map(SessionWindow(gap = 1L, None, _)),
      Seq(
        IndexWindow(lo = None, hi = 0L),
        RelativeTimeWindow(0L, 0L, Bounds("[]")),
        SlidingWindow(SplPolicy.Count(1L), SplPolicy.Count(1L)),
        SplTumblingWindow(SplPolicy.Count(1L), flushAtEnd = false),
        AnchorWindow(Bounds("[]")))).flatten
  }

  /** The output policy of a family that takes one (a field of its case class). */
  private def outputOf(family: WindowFamily): Option[OutputPolicy] =
    family.productIterator.collectFirst { case output: OutputPolicy => output }

  /**
   * The functions whose aggregates may read clipped lifetimes, as messages and documentation name
   * them, derived from [[Samples]]: a function some of whose outputs may not is followed by those
   * that may, shared by the names before it, e.g. "hopping_window, tumbling_window,
   * cumulate_window (outputs 'window' and 'point'), snapshot_window, count_window or
   * event_session_window (output 'window')".
   */
  val ClippingFamilies: String = {
    val functions = Samples.map(_.functionName).distinct
    val clipping = functions.flatMap { function =>
      val samples = Samples.filter(_.functionName == function)
      val outputs = samples.filter(_.clipsLifetimes).flatMap(outputOf).distinct
      if (!samples.exists(_.clipsLifetimes)) None
      else if (samples.forall(_.clipsLifetimes)) Some(function -> "")
      else {
        val quoted = outputs.map(o => s"'${o.sqlName}'")
        val plural = if (quoted.size > 1) "s" else ""
        val listed = if (quoted.size > 1) quoted.init.mkString(", ") + " and " + quoted.last
        else quoted.last
        Some(function -> s" (output$plural $listed)")
      }
    }
    // A qualifier is written once, after the last of the consecutive names it applies to.
    val named = clipping.zipWithIndex.map { case ((function, qualifier), i) =>
      val sharedWithNext = clipping.lift(i + 1).exists(_._2 == qualifier)
      if (sharedWithNext) function else function + qualifier
    }
    named.init.mkString(", ") + " or " + named.last
  }
}

/**
 * Families whose events occupy intervals of a [[WindowAxis]], known from each event's own
 * lifetime: hopping, tumbling and snapshot windows. Where the axis has a row per position, an
 * event's windows are a function of the event alone, so Spark's own aggregate can group events
 * by them (`point_event_window`, `event_windows_of`).
 */
sealed trait AxisFamily extends WindowFamily {

  /**
   * The family's axis over the time line `[lineMin, lineMax]`. `horizon` is the last tick
   * open-ended events cover under per-window output, when the family has not set one.
   */
  def axis(lineMin: Long, lineMax: Long, horizon: => Long): WindowAxis

  /**
   * The last tick open-ended events cover, if the family sets one; otherwise a batch query takes
   * the latest finite time of its input, and a stream has none.
   */
  def horizon: Option[Long] = None
}

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
   * HoppingWindow2 of the "Taming Hopping Windows" post: one row per run of consecutive windows
   * with the same events, planned as snapped lifetimes feeding a snapshot window.
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
 * Hopping and tumbling windows, of exact durations ([[Hopping]]) or on a calendar
 * ([[CalendarHopping]]), and cumulating windows ([[Cumulating]]): windows known from their number
 * alone, each closing at its end, and what each emits.
 */
sealed trait HoppingFamily extends AxisFamily {

  /** What each window emits. */
  def output: OutputPolicy

  /** True if the windows are adjacent, each hop as long as the size. */
  def tumbling: Boolean

  /** The start of the window that ends at `end` (a window's end under per-window output). */
  def windowStartOfEnd(end: Long): Long

  override def functionName: String = if (tumbling) "tumbling_window" else "hopping_window"

  override def clipsLifetimes: Boolean = output != OutputPolicy.Changes

  override def clippedLifetimeRefusal: Option[String] =
    if (clipsLifetimes) None
    else Some(s"not with $functionName output 'changes': one row stands for a run of windows, " +
      "each clipping the events' lifetimes differently; use output 'window' or 'point'")

  override def onStreams: Either[String, StreamingRules] =
    Right(StreamingRules.HoppingWindows(this))

  protected def checkPerWindow(): Unit =
    require(output != OutputPolicy.Changes, "'changes' is planned as a snapshot window")

  /** Output 'changes' of windows known by number: a snapshot window over snapped lifetimes. */
  protected def snappedTo(windows: NumberedWindows): Option[LifetimeRewrite] =
    if (output != OutputPolicy.Changes) None
    else Some(LifetimeRewrite(Snapshot, LifetimeSnap.ToWindows(windows)))
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
    override val horizon: Option[Long]) extends HoppingFamily {
  override def tumbling: Boolean = hop == size

  override def windowStartOfEnd(end: Long): Long = TimeArithmetic.subtract(end, size)

  override def axis(lineMin: Long, lineMax: Long, horizon: => Long): WindowAxis = {
    checkPerWindow()
    // The windows depend only on the alignment modulo the hop; the smallest such alignment keeps
    // every window index within Long.
    HoppingAxis(
      size,
      hop,
      Math.floorMod(alignment, hop),
      output == OutputPolicy.Point,
      this.horizon.getOrElse(horizon),
      lineMin,
      lineMax)
  }

  override def lifetimeRewrite: Option[LifetimeRewrite] =
    if (output != OutputPolicy.Changes) None
    else Some(LifetimeRewrite(Snapshot, LifetimeSnap.ToHops(size, hop, alignment)))
}

/**
 * Hopping and tumbling windows on the calendar of a time zone ([[CalendarWindows]]): days from
 * local midnight to local midnight, months from the 1st to the 1st, hours from a full hour of the
 * local clock to the next. Planned when the size or the hop has months, or a time zone is given.
 * `horizon` as for [[Hopping]].
 */
case class CalendarHopping(
    windows: CalendarWindows,
    output: OutputPolicy,
    override val horizon: Option[Long]) extends HoppingFamily {
  override def tumbling: Boolean = windows.size == windows.hop

  override def windowStartOfEnd(end: Long): Long =
    windows.start(windows.firstEndingAfter(TimeArithmetic.subtract(end, 1L)))

  override def axis(lineMin: Long, lineMax: Long, horizon: => Long): WindowAxis = {
    checkPerWindow()
    CalendarAxis(
      windows,
      output == OutputPolicy.Point,
      this.horizon.getOrElse(horizon),
      lineMin,
      lineMax)
  }

  override def lifetimeRewrite: Option[LifetimeRewrite] = snappedTo(windows)
}

/**
 * Cumulating windows (Flink's `CUMULATE`, [[CumulatingWindows]]): buckets of `size`, and in each
 * the windows from the bucket's start to every step's end, of exact durations or on a calendar.
 * Each window closes at its end, as a hopping window does; output 'changes' is a row per change of
 * the cumulated contents (a snapshot window over lifetimes snapped to the windows, whose ends
 * increase). `horizon` as for [[Hopping]].
 */
case class Cumulating(
    windows: CumulatingWindows,
    output: OutputPolicy,
    override val horizon: Option[Long]) extends HoppingFamily {
  override def functionName: String = "cumulate_window"

  /** One window per bucket: tumbling windows. */
  override def tumbling: Boolean = windows.perBucket == 1

  // Every window of a bucket starts at the bucket's start.
  override def windowStartOfEnd(end: Long): Long =
    windows.start(windows.firstEndingAfter(TimeArithmetic.subtract(end, 1L)))

  override def axis(lineMin: Long, lineMax: Long, horizon: => Long): WindowAxis = {
    checkPerWindow()
    CumulateAxis(
      windows,
      output == OutputPolicy.Point,
      this.horizon.getOrElse(horizon),
      lineMin,
      lineMax)
  }

  override def lifetimeRewrite: Option[LifetimeRewrite] = snappedTo(windows)
}

/** Windows between consecutive distinct event endpoints, holding the events active there. */
case object Snapshot extends AxisFamily {
  override def functionName: String = "snapshot_window"

  override def axis(lineMin: Long, lineMax: Long, horizon: => Long): WindowAxis =
    SnapshotAxis(lineMax)

  override def clipsLifetimes: Boolean = true

  override def onStreams: Either[String, StreamingRules] = Right(StreamingRules.SnapshotWindows)
}

/**
 * StreamInsight's count windows: for every n consecutive distinct start times s_i..s_k
 * (k = i + n - 1) of a key, the window `[s_i, s_k + 1 tick)` holding every event whose lifetime
 * intersects it. `output` is [[OutputPolicy.Point]] (a point event at s_k) or
 * [[OutputPolicy.Window]] (the window itself); `window.first` and `window.last` are s_i and s_k.
 */
case class CountWindow(n: Long, output: OutputPolicy) extends WindowFamily {
  override def functionName: String = "count_window"
  override def windowFields: WindowFields = WindowFields.FirstAndLast
  override def clipsLifetimes: Boolean = true
  override def onStreams: Either[String, StreamingRules] = Right(StreamingRules.CountWindows(n))
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
  override def windowFields: WindowFields = WindowFields.FirstAndLast
  override def onStreams: Either[String, StreamingRules] =
    Right(StreamingRules.IndexWindows(lo, hi))
}

/**
 * \psi's windows by relative time: the messages with time in `[t + lo, t + hi]` around an anchor
 * at t, the ends open or closed as `bounds` says; a row for every anchor, also an empty window.
 */
case class RelativeTimeWindow(lo: Long, hi: Long, bounds: Bounds) extends MessageFamily {
  import TimeArithmetic.addStep

  override def functionName: String = "time_window"
  override def onStreams: Either[String, StreamingRules] =
    Right(StreamingRules.RelativeTimeWindows(this))

  /** The inclusive lower time bound of the window of an anchor at `t`. */
  def lowerTime(t: Long): Long = addStep(t, lo, if (bounds.lowerInclusive) 0L else 1L)

  /** The inclusive upper time bound of the window of an anchor at `t`. */
  def upperTime(t: Long): Long = addStep(t, hi, if (bounds.upperInclusive) 0L else -1L)
}

/** An IBM Streams SPL window policy, as an eviction or a trigger policy of a [[SlidingWindow]]. */
sealed trait SplPolicy extends Product with Serializable {

  /** The policy as written in SPL, e.g. `count(4)`. */
  def sql: String
  override def toString: String = sql
}

object SplPolicy {

  /** The policies of `policies` (each with its parameter) that read a column of each row. */
  def readingColumns(policies: Seq[(String, SplPolicy)]): Seq[(String, SplPolicy)] =
    policies.filter {
      case (_, _: Delta | _: Punct) => true
      case _ => false
    }

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
  override def windowFields: WindowFields = WindowFields.FirstAndLast
  override def policyColumns: Seq[(String, SplPolicy)] =
    SplPolicy.readingColumns(Seq("eviction" -> eviction, "trigger" -> trigger))
  override def onStreams: Either[String, StreamingRules] = Right(StreamingRules.SplWindows)
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
  override def windowFields: WindowFields = WindowFields.FirstAndLast
  override def policyColumns: Seq[(String, SplPolicy)] =
    SplPolicy.readingColumns(Seq("eviction" -> eviction))

  override def onStreams: Either[String, StreamingRules] =
    if (!flushAtEnd) Right(StreamingRules.SplWindows)
    else Left("`flush_at_end` => true is not supported on streaming DataFrames: a stream's " +
      "groups never end, so their last windows would never be flushed; leave it false (the " +
      "default), or run the query on a batch DataFrame")
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

  override def clipsLifetimes: Boolean = output != OutputPolicy.Changes

  override def clippedLifetimeRefusal: Option[String] =
    if (clipsLifetimes) None
    else Some(s"not with $functionName output 'changes': one row stands for the events started " +
      "so far, each clipped differently by the session's later rows; use output 'window'")

  override def onStreams: Either[String, StreamingRules] =
    Right(StreamingRules.Sessions(this))

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
 *
 * `lookback` matters on a stream of anchors alone: how long before its own time an anchor's
 * interval may start, so how far behind the watermark the messages stay in state for anchors
 * still to come (\psi's obsolete time). Given by the `lookback` parameter, or derived from the
 * start expression on the stream (see the analysis room's `StreamingAnchors`); none is 0.
 */
case class AnchorWindow(bounds: Bounds, lookback: Option[Long] = None) extends WindowFamily {
  override def functionName: String = "anchor_window"
  override def carriesAnchor: Boolean = true
  override def endIsLastInstant: Boolean = bounds.upperInclusive
  override def onStreams: Either[String, StreamingRules] =
    Right(StreamingRules.AnchorWindows(this))

  /** The lookback in ticks, 0 if none. */
  def lookbackTicks: Long = lookback.getOrElse(0L)

  /** As before lookbacks existed when there is none: a stream's checkpoint holds this text. */
  override def toString: String =
    s"AnchorWindow($bounds${lookback.map(l => s", lookback $l").getOrElse("")})"
}
