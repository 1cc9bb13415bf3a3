package io.eventwindows.plans

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.types.DataType

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.time.TimeArithmetic

/**
 * What a window family needs to run on a stream by replay (the streaming room's
 * `StreamingWindowProcessor`): when each of its output rows is final, and which events later
 * firings still need. Everything else (which windows there are, what they hold, the aggregates)
 * is the family's own sweep policy, replayed over the events kept in state. A family gives its
 * rules through [[WindowFamily.onStreams]].
 *
 * Times are the operator's start times (the snapped starts for hopping output 'changes'): a
 * firing at horizon h knows every event starting at or before h, and no more of them will come.
 */
sealed trait StreamingRules extends Serializable {

  /**
   * The close time of an output row, from its `window` fields (`start`, `end`, then the family's
   * extra fields): the latest event start that can still change the row. Once every event starting
   * at or before it is known, the row is final and is emitted.
   */
  def closeTime(window: InternalRow): Long

  /**
   * True if a firing resumes the sweep where the last one suspended it (the window's tuples and
   * the trigger state kept, only new events consumed, every row it gives emitted) instead of
   * replaying the events kept and emitting by close time.
   */
  def resumes: Boolean = false

  /**
   * True if every later row includes all the earlier events (a running window): the events a
   * firing does not keep are folded into the key's prefix, one aggregation buffer kept in state
   * (see the streaming room's `StreamingReplay`).
   */
  def foldsPrefix: Boolean = false

  /**
   * True if an event is late only once every row it belongs to has closed, as Spark's streaming
   * aggregation drops an event's row for each closed window and keeps its others (hopping,
   * tumbling and cumulating windows, which also run as that aggregation): the watermark is then on
   * the end of each event's last row, not on its start, and an event behind the watermark counts
   * in its rows still open. Otherwise an event is late once its start is at or before the
   * watermark.
   */
  def lateByLastRow: Boolean = false

  /**
   * True if a firing keeps, of the last session, only the events of its first open piece
   * (sessions with a maximum duration): its start and the end the others hold it open to are kept
   * in their stead, so that an endless session keeps no more than a piece (see the streaming
   * room's `StreamingReplay`).
   */
  def continuesSessions: Boolean = false

  /**
   * True if a firing may fold the events of the last session that no open row needs one by one
   * into one aggregation buffer, kept with the session's start and end in their stead (sessions
   * without a maximum duration, whose one open row needs every event of the session only through
   * their aggregate; not with aggregates of the clipped lifetime, which need the events, see the
   * streaming room's `StreamingWindowSpec.foldsSessions`).
   */
  def foldsSessions: Boolean = false

  /**
   * True if a key whose firing keeps no event is forgotten; not if its later rows depend on
   * every earlier arrival, through an SPL trigger's state or a running window's prefix.
   */
  final def forgetsIdleKeys: Boolean = !resumes && !foldsPrefix

  /**
   * True if the open row `window` needs earlier events than the open row `than`, which the replay
   * met first: `firstOpen` is then the window of `window` (see [[retention]]). By default rows
   * come in that order; dynamic windows come by end, not by start.
   */
  def needsEarlier(window: InternalRow, than: InternalRow): Boolean = false

  /**
   * True if a row's identity is known before it closes (a window position, an anchor), so that
   * in update mode each micro-batch emits the current version of every row whose result it
   * changed, open rows too (see the streaming room's `StreamingReplay.changedRows`). Not for
   * rows defined only once they close (where a run or a session ends, which n starts make a
   * count window), nor for families that resume or fold a prefix, which replay no open row.
   */
  def knowsOpenRows: Boolean = false

  /**
   * Which of the replayed events (`starts`: the starts of the events at or before `horizon`,
   * sorted; `ends`: their exclusive ends, the end of time for open-ended ones) the rows closing
   * after `horizon` need. `firstOpen` is the window of the first row of the replay that closes
   * after `horizon` (of those, the one that needs the earliest events, see [[needsEarlier]]), or
   * null.
   */
  def retention(starts: Array[Long], ends: Array[Long], horizon: Long, firstOpen: InternalRow)
      : Retention

  /**
   * Checks an open-ended event (NULL end) starting at `start` as it arrives; by default every
   * family takes them (they last to the end of time).
   */
  def checkOpenEnded(start: Long, timeType: DataType): Unit = ()
}

/**
 * The replayed events a firing keeps: those from index `fromIndex` of the sorted replay on, and
 * those ending at or after `endingFrom` (events later than the horizon are always kept).
 */
final case class Retention(fromIndex: Int, endingFrom: Long)

/** The rules of each family that runs on streams, given by the family's own `onStreams`. */
object StreamingRules {

  /** A [[Retention.endingFrom]] that keeps no event for its end alone. */
  val KeepNoEnded: Long = Long.MaxValue

  /**
   * The error for an open-ended event (NULL end) under per-window output on a stream, without the
   * family's horizon: there is no latest time to stop its windows at.
   */
  def openEndedOnStream(family: WindowFamily, start: Long, timeType: DataType): Nothing =
    throw EventWindowsErrors.invalidInput(s"${family.functionName}: the event starting at " +
      s"${Literal(start, timeType)} is open-ended (NULL end): on a stream it would lie in " +
      "windows without end. Give the window function a horizon (its last argument), or the " +
      "event an end")

  /** The index of the first of the sorted `starts` at or after `time` (their number if none). */
  private def firstAtOrAfter(starts: Array[Long], time: Long): Int = {
    var lo = 0
    var hi = starts.length
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (starts(mid) < time) lo = mid + 1 else hi = mid
    }
    lo
  }

  /**
   * Snapshot windows (and hopping output 'changes', a snapshot window over snapped lifetimes): a
   * row `[a, b)` is final once every event starting at or before b is known: close time b. Not
   * b - 1: an event starting at b that is not known yet would end the run there, so `[a, b)`
   * exists only once the events at b are known. The runs
   * still open start at or after the start of the first open one (or after the horizon); they need
   * the events still active there, and those ending exactly there, whose end is the run's
   * boundary.
   */
  case object SnapshotWindows extends StreamingRules {
    override def closeTime(window: InternalRow): Long = WindowFields.end(window)

    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention = {
      val from =
        if (firstOpen != null) WindowFields.start(firstOpen) else TimeArithmetic.add(horizon, 1L)
      Retention(starts.length, from)
    }
  }

  /**
   * Hopping and tumbling windows, of durations or on a calendar, under per-window output (on
   * streams only with aggregates that depend on input order: the others run as Spark's streaming
   * aggregation; 'changes' is a snapshot window by now): a window is final once every event starting before its end is known,
   * close time its end minus one tick (under 'point' the row's lifetime starts at the window's
   * end). Late rows count in the windows still open ([[lateByLastRow]]), so a window is final
   * only once the watermark reaches the end of its row, as under Spark's aggregation. The windows
   * still open end after that of the first open one (or after the horizon plus one tick); they
   * need the events ending after its start. An open-ended event needs the family's
   * horizon, or its windows would never end.
   */
  final case class HoppingWindows(family: HoppingFamily) extends StreamingRules {
    override def knowsOpenRows: Boolean = true

    override def lateByLastRow: Boolean = true

    /** The window's end: under 'point' output the row is a point event there. */
    private def windowEnd(window: InternalRow): Long =
      if (family.output == OutputPolicy.Point) WindowFields.start(window)
      else WindowFields.end(window)

    override def closeTime(window: InternalRow): Long = TimeArithmetic.add(windowEnd(window), -1L)

    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention = {
      val end = if (firstOpen != null) windowEnd(firstOpen) else TimeArithmetic.add(horizon, 2L)
      Retention(starts.length, family.windowStartOfEnd(end))
    }

    override def checkOpenEnded(start: Long, timeType: DataType): Unit =
      if (family.horizon.isEmpty) StreamingRules.openEndedOnStream(family, start, timeType)
  }

  /**
   * Count windows over distinct starts s_i..s_k: final once every event starting at s_k is known
   * (`window.last`). The next window (its last start after the horizon) begins at the (n-1)-th
   * latest distinct start known; it needs the events from there on and those still active there.
   */
  final case class CountWindows(n: Long) extends StreamingRules {
    override def closeTime(window: InternalRow): Long = WindowFields.last(window)

    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention = {
      if (n == 1) return Retention(starts.length, TimeArithmetic.add(horizon, 1L))
      var distinct = 0L
      val count = starts.length
      var i = count - 1
      while (i >= 0) {
        if (i == count - 1 || starts(i) != starts(i + 1)) {
          distinct += 1
          if (distinct == n - 1) {
            val first = firstAtOrAfter(starts, starts(i))
            return Retention(first, starts(i))
          }
        }
        i -= 1
      }
      Retention(0, Long.MinValue) // Fewer than n - 1 distinct starts: all of them still count.
    }
  }

  /**
   * Index windows `[p + lo, p + hi]` around anchor p: final once the anchor and the window's last
   * message are known (`max(start, window.last)`). The anchors still open are the last max(hi, 0)
   * replayed ones and every later one; they need the messages from the earliest of them (or its
   * window's first message) on.
   *
   * A running window (`lo` None) holds every message up to `p + hi`: the messages before the
   * earliest open anchor and before its window's last message (`window.last` of its row) are in
   * every open window, so they are folded into the key's prefix; the others are kept.
   */
  final case class IndexWindows(lo: Option[Long], hi: Long) extends StreamingRules {
    override def closeTime(window: InternalRow): Long =
      Math.max(WindowFields.start(window), WindowFields.last(window))

    override def foldsPrefix: Boolean = lo.isEmpty

    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention = {
      val count = starts.length
      val firstOpenAnchor = Math.max(0L, count - Math.max(hi, 0L))
      val firstKept = TimeArithmetic.add(firstOpenAnchor, lo.getOrElse(hi))
      val keep = Math.max(0L, Math.min(firstOpenAnchor, firstKept))
      Retention(Math.min(keep, count.toLong).toInt, KeepNoEnded)
    }
  }

  /**
   * Windows by relative time around an anchor at t: final once the anchor and every message up to
   * its window's upper bound are known (`max(t, upper)`). The anchors still open start at the first
   * open one (or after the horizon); they need the messages from the earliest of it and its
   * window's lower bound on.
   */
  final case class RelativeTimeWindows(window: RelativeTimeWindow) extends StreamingRules {
    override def knowsOpenRows: Boolean = true

    override def closeTime(fields: InternalRow): Long = {
      val t = WindowFields.start(fields)
      Math.max(t, window.upperTime(t))
    }

    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention = {
      val anchor =
        if (firstOpen != null) WindowFields.start(firstOpen) else TimeArithmetic.add(horizon, 1L)
      val from = Math.min(anchor, window.lowerTime(anchor))
      Retention(firstAtOrAfter(starts, from), KeepNoEnded)
    }
  }

  /**
   * Sessions: a row `[a, b)` (a session, a piece of one, a change within one) is final once every
   * event starting at or before b is known (close time b: an event starting at the session's end
   * joins it). Only the last session of a replay can still be open (each earlier one ended
   * before the next began, at or before the horizon); if a row is open, it needs all of that
   * session's events, which decide its start, its pieces and its changes: so without a maximum
   * duration, unless its events are folded ([[foldsSessions]]); with one, [[continuesSessions]].
   */
  final case class Sessions(family: SessionWindow) extends StreamingRules {
    override def closeTime(window: InternalRow): Long = WindowFields.end(window)

    override def continuesSessions: Boolean = family.maxDuration.isDefined

    override def foldsSessions: Boolean = family.maxDuration.isEmpty

    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention = {
      if (firstOpen == null) return Retention(starts.length, KeepNoEnded)
      var first = 0
      var end = Long.MinValue
      var i = 0
      while (i < starts.length) {
        // Ends past the end of a time type's line only keep more events than needed.
        if (ends(i) > starts(i)) {
          if (starts(i) > end) first = i
          end = if (starts(i) > end) family.sessionEnd(ends(i), Long.MaxValue)
          else Math.max(end, family.sessionEnd(ends(i), Long.MaxValue))
        }
        i += 1
      }
      Retention(first, KeepNoEnded)
    }
  }

  /**
   * Dynamic windows: a message sorts at its time, an anchor at its interval's start. A message is
   * late (dropped by Spark) once the watermark has passed its time, an anchor once it has passed
   * its arrival time, its start plus the family's lookback L (on a stream of anchors whose
   * interval starts up to L before their own time; 0 otherwise). So every anchor still to come
   * starts after the horizon less L. An anchor's row is final once the anchor has arrived and
   * every message up to its interval's last instant is known: close time the later of its arrival
   * time and that instant. Rows come by end; the open anchors need the messages from the
   * earliest start among them on (and the anchors themselves, which sort there or later; anchors
   * emitted among them are replayed again, and not emitted twice), and the anchors still to come
   * those after the horizon less L. An anchor's row exists from the anchor's arrival on, so rows
   * are known while open (static anchors, which arrive as initial state, in the first
   * micro-batch).
   *
   * Left to do: an anchor emitted while an earlier-starting one is open stays in state until that
   * one closes.
   *
   * For example with L = 5 s, an alarm at 12 s asking for [7 s, 12 s] arrives at 12 s and closes
   * there; at a horizon of 9 s it may still come, and the messages from 4 s on (after 9 s - 5 s)
   * are kept for it and the others like it.
   */
  final case class AnchorWindows(family: AnchorWindow) extends StreamingRules {
    override def knowsOpenRows: Boolean = true

    override def closeTime(window: InternalRow): Long = {
      val end = WindowFields.end(window)
      Math.max(
        TimeArithmetic.add(WindowFields.start(window), family.lookbackTicks),
        if (family.bounds.upperInclusive) end else TimeArithmetic.add(end, -1L))
    }

    override def needsEarlier(window: InternalRow, than: InternalRow): Boolean =
      WindowFields.start(window) < WindowFields.start(than)

    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention = {
      val toCome = TimeArithmetic.subtract(TimeArithmetic.add(horizon, 1L), family.lookbackTicks)
      val from =
        if (firstOpen != null) Math.min(WindowFields.start(firstOpen), toCome) else toCome
      Retention(firstAtOrAfter(starts, from), KeepNoEnded)
    }
  }

  /**
   * SPL sliding and tumbling windows: what fires depends on every earlier arrival (a count's
   * phase, a delta's reference, a time policy's instants), so they resume instead of replaying.
   * A firing at t (an arrival, or a time instant that a later arrival confirms) sees the tuples
   * up to t: final once they are known (close time t). What later firings need is the window's
   * tuples and the trigger state, which the sweep's `ResumingSweep`
   * hands over when it suspends. A tumbling window's flush at the end of a partition has no
   * place on a stream, whose partitions never end.
   */
  case object SplWindows extends StreamingRules {
    override def closeTime(window: InternalRow): Long = WindowFields.start(window)

    override def resumes: Boolean = true

    /** Unused: a suspended sweep says which tuples its window holds. */
    override def retention(
        starts: Array[Long],
        ends: Array[Long],
        horizon: Long,
        firstOpen: InternalRow): Retention =
      Retention(0, Long.MinValue)
  }
}
