package io.eventwindows.execution.streaming

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, MutableProjection, RowOrdering, SortOrder, SpecificInternalRow, UnsafeRow
}
import org.apache.spark.sql.execution.metric.SQLMetric

import io.eventwindows.execution.aggregate.{FifoAggregator, WindowMemory}
import io.eventwindows.execution.sweep.{
  ContinuingSession, KeyTimeSorter, ResumingSweep, SeedingSweep, SweepPolicy, WindowAggregates,
  WindowSweepIterator
}
import io.eventwindows.expressions.EventTime
import io.eventwindows.plans.{Retention, StreamingRules, WindowFields}
import io.eventwindows.time.TimeArithmetic

/**
 * One key's firing of a streaming event-window aggregation: the events kept in state that start
 * at or before the horizon are sorted as the batch operator sorts them ([[KeyTimeSorter]]'s
 * order: by start, ties by the same columns) and replayed through the shared
 * [[WindowSweepIterator]] and the family's own [[SweepPolicy]], as one key group. Of the rows it
 * gives, those that close after what earlier firings emitted and at or before the horizon are
 * emitted; the family's [[io.eventwindows.plans.StreamingRules]] say which events later firings
 * still need.
 *
 * Events are kept as the bytes of their `UnsafeRow` (the aggregate's input columns). Cost per
 * firing: sorting and replaying the events kept, which are the window contents still open plus
 * what arrived since (not the key's whole history).
 *
 * A running window's rows hold every earlier message of the key: the messages a firing does not
 * keep are folded, in order, into the key's [[StreamingReplay.RunningPrefix]] (one aggregation
 * buffer, as bytes), and the next replay's sweep starts from it. So are the events of an open
 * session without a maximum duration ([[FoldedSession]]).
 *
 * Built on the executor, once per task (generated projections and orderings are not serializable).
 *
 * Left to do: rows cross the `transformWithState` boundary as external `Row`s (converted in and
 * out), and the kept events are sorted again at every firing; in update mode a key's new rows sweep
 * its kept events twice ([[changedRows]]), where a sweep that marked the windows of new events
 * would take one.
 */
private[streaming] final class StreamingReplay(spec: StreamingWindowSpec) {
  import StreamingReplay._

  private val window = spec.window
  private val timeType = window.timeType
  private val lineMin = EventTime.lineMin(timeType)
  private val lineMax = EventTime.lineMax(timeType)
  private val numFields = spec.rows.input.size

  private val toInternal = spec.rows.inputEncoder.createSerializer()
  private val toRow = spec.rows.outputEncoder.createDeserializer()

  private val times = new SpecificInternalRow(Seq(timeType, timeType))
  private val lifetime =
    MutableProjection.create(window.start +: window.end.toSeq, spec.rows.input).target(times)

  private val ordering = RowOrdering.create(
    (window.start +: KeyTimeSorter.tieBreak(
      window,
      spec.aggregation.aggregates,
      spec.aggregation.filters,
      spec.rows.input))
      .map(SortOrder(_, Ascending)),
    spec.rows.input)

  private val memory = WindowMemory.forTask(s"TransformWithState ${window.family.functionName}")
  private val aggregates = new WindowAggregates(
    spec.aggregation.aggregates,
    spec.aggregation.filters,
    spec.rows.input,
    partials = Nil,
    spec.aggregation.clippedLifetime,
    memory)
  private val buffers = aggregates.buffers
  // The horizon argument serves only per-window hopping output over open-ended events, which on
  // a stream need the family's own horizon (checked as they arrive).
  private val policy = SweepPolicy.factory(
    window,
    spec.rows.input,
    lineMin,
    lineMax,
    lineMax,
    spec.emission.maxWindows)(buffers, memory)

  /** The policy as one that resumes a suspended group: SPL windows. */
  private val resuming = Some(policy).collect { case r: ResumingSweep => r }

  /** The policy as one whose group continues after a folded prefix: running windows. */
  private val seeding = Some(policy).collect { case s: SeedingSweep => s }

  /** The policy as one whose group continues an open session: sessions with pieces. */
  private val continuing =
    Some(policy).collect { case c: ContinuingSession if spec.rules.continuesSessions => c }

  /** The policy as one whose group continues a folded session: sessions of one piece. */
  private val foldingSessions =
    Some(policy).collect { case c: ContinuingSession if spec.foldsSessions => c }
  require(
    spec.rules.resumes == resuming.isDefined &&
      (!spec.rules.foldsPrefix || seeding.isDefined) &&
      (!spec.rules.continuesSessions || continuing.isDefined) &&
      (!spec.foldsSessions || foldingSessions.isDefined),
    s"${spec.rules} do not fit the policy of ${window.family}")
  private val windowFields = window.family.windowFields.names.size
  private val unusedMetric = new SQLMetric("sum")

  /** Folds a running window's forgotten messages into its prefix, as the sweep merges them. */
  private lazy val folding = new FifoAggregator(buffers, memory)

  /** The stored form of an input row, or None if it is no event (a NULL start). */
  def encode(row: Row): Option[Array[Byte]] = {
    // The encoder's serializer is an UnsafeProjection: its row and buffer are reused. getBytes
    // returns that very buffer when the row fills it (all columns fixed-width), so copy first.
    val internal = toInternal(row).asInstanceOf[UnsafeRow]
    lifetime(internal)
    if (times.isNullAt(0)) None
    else {
      if (window.end.isDefined && times.isNullAt(1)) {
        spec.rules.checkOpenEnded(times.getLong(0), timeType)
      }
      Some(internal.copy().getBytes)
    }
  }

  /**
   * Replays the `stored` events starting at or before `horizon`, emits the rows closing in
   * `(emittedThrough, horizon]` (none under early rows: [[changedRows]] emitted each as its
   * result changed), and says what to keep and when something can close next.
   * Families that resume ([[StreamingFamily.resumes]]) continue from `resumeFrom`'s trigger
   * state instead; running windows start from its prefix; sessions with pieces continue the open
   * session `session`, sessions of one piece the open session `folded`.
   */
  def fire(
      stored: Iterator[Array[Byte]],
      emittedThrough: Long,
      horizon: Long,
      resumeFrom: ResumePoint,
      session: Option[SessionSeed] = None,
      folded: Option[FoldedSession] = None): Firing = {
    val replayed = ArrayBuffer.empty[Stored]
    val pending = ArrayBuffer.empty[Array[Byte]]
    var firstPending = NoClose
    stored.map(decode).foreach { event =>
      if (event.start <= horizon) {
        replayed += event
      } else {
        pending += event.bytes
        firstPending = Math.min(firstPending, event.start)
      }
    }
    val sorted = inOrder(replayed)
    val prefix = resumeFrom.prefix

    resuming.foreach { sweep =>
      return resume(
        sweep,
        sorted,
        emittedThrough,
        horizon,
        resumeFrom.trigger,
        pending.toSeq,
        firstPending)
    }
    if (prefix.count > 0 && sorted.nonEmpty) {
      seeding.foreach(_.seedGroup(
        prefix.count,
        prefix.firstTime,
        buffers.deserialize(prefix.buffer)))
    }
    if (sorted.nonEmpty) session.foreach(s => continuing.foreach(_.continueSession(s.start, s.end)))
    if (sorted.nonEmpty) folded.foreach(f =>
      foldingSessions.foreach(
        _.continueFolded(f.start, f.end, buffers.deserialize(f.buffer))))

    val output = ArrayBuffer.empty[Row]
    var firstOpen: InternalRow = null
    var nextClose = NoClose
    sweep(sorted).foreach { out =>
      val window = windowOf(out)
      val close = spec.rules.closeTime(window)
      if (close > horizon) {
        if (firstOpen == null || spec.rules.needsEarlier(window, firstOpen)) {
          firstOpen = window.copy()
        }
        nextClose = Math.min(nextClose, close)
      } else if (close > emittedThrough && !spec.emission.earlyRows) {
        output += toRow(out)
      }
    }

    val (retention, nextSession, nextFolded) = (continuing, foldingSessions) match {
      case (Some(sessions), _) if firstOpen != null =>
        val (retention, next) = openPiece(sessions, sorted, firstOpen, session)
        (retention, next, None)
      case (_, Some(sessions)) if firstOpen != null =>
        val (retention, next) = foldSession(sessions, sorted, folded)
        (retention, None, next)
      case _ =>
        // Nothing replayed, nothing changed: the session goes on as it was.
        (
          spec.rules.retention(sorted.map(_.start), sorted.map(_.end), horizon, firstOpen),
          if (sorted.isEmpty) session else None,
          if (sorted.isEmpty) folded else None)
    }
    val kept = ArrayBuffer.empty[Array[Byte]]
    val forgotten = ArrayBuffer.empty[Stored]
    var i = 0
    while (i < sorted.length) {
      if (i >= retention.fromIndex || sorted(i).end >= retention.endingFrom) kept += sorted(i).bytes
      else if (spec.rules.foldsPrefix) forgotten += sorted(i)
      i += 1
    }
    kept ++= pending
    // A row an event after the horizon takes part in closes at its start or later.
    if (firstPending != NoClose) nextClose = Math.min(nextClose, firstPending)
    val nextPrefix = if (forgotten.nonEmpty) fold(prefix, forgotten) else prefix
    Firing(
      output.toSeq,
      kept.toArray,
      nextClose,
      resumeFrom.copy(prefix = nextPrefix),
      nextSession,
      nextFolded)
  }

  /**
   * Sessions of one piece: of the `sorted` events replayed, those the open row needs one by one,
   * and the session to continue from in their stead. The open row is the last session (its
   * 'changes' row from its latest start), which the events from its latest start on keep open
   * and hand to the next group; the session's earlier events are folded, in order, into its
   * buffer (after those of `folded`, if the session continues it), from which the next group
   * continues. They precede every later event: those replayed later start at or after the latest
   * start, so order-sensitive aggregates see the batch query's order. An event kept for its end
   * alone (open-ended) stops the folding there, so that none is both folded and kept.
   *
   * E.g. a gap of 30 s, events at 00:00, 00:10, 00:20, 00:20 and 00:30 replayed at a horizon of
   * 00:35: the first three are folded, the two at 00:20 are kept (the rows under 'changes' from
   * 00:20 on are not emitted yet), and the session continues from 00:00, open to 00:50.
   */
  private def foldSession(
      sessions: ContinuingSession,
      sorted: Array[Stored],
      folded: Option[FoldedSession]): (Retention, Option[FoldedSession]) = {
    val sessionStart = sessions.lastSessionStart
    val continued = folded.filter(_.start == sessionStart)
    val first = firstAtOrAfter(sorted, sessionStart)
    val latest = firstAtOrAfter(sorted, sorted.last.start)
    var until = first
    while (until < latest && sorted(until).end < StreamingRules.KeepNoEnded) until += 1
    if (until == first) return (Retention(first, StreamingRules.KeepNoEnded), continued)
    val buffer = continued.map(f => buffers.deserialize(f.buffer)).getOrElse(buffers.newBuffer())
    var heldTo = continued.map(_.end).getOrElse(Long.MinValue)
    (first until until).map(sorted).foreach { event =>
      // An empty lifetime is no event (the sweep skips it).
      if (event.end > event.start) {
        buffers.update(buffer, event.row)
        heldTo = Math.max(heldTo, sessions.heldOpenTo(event.end))
      }
    }
    (
      Retention(until, StreamingRules.KeepNoEnded),
      Some(FoldedSession(sessionStart, heldTo, buffers.serialize(buffer))))
  }

  /** The index of the first of the `sorted` events starting at or after `time`. */
  private def firstAtOrAfter(sorted: Array[Stored], time: Long): Int = {
    var lo = 0
    var hi = sorted.length
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (sorted(mid).start < time) lo = mid + 1 else hi = mid
    }
    lo
  }

  /**
   * Sessions with pieces: of the `sorted` events replayed, those the open rows need, and the
   * session to continue from in their stead. The open rows (the first is `firstOpen`) lie in the
   * last session, in its pieces from the one holding `firstOpen`'s start on; they need the events
   * reaching into that piece. The others only gave the session its start and held it open: the
   * session is kept as its start and the latest end they hold it open to (and that of `session`,
   * the events earlier firings forgot).
   */
  private def openPiece(
      sessions: ContinuingSession,
      sorted: Array[Stored],
      firstOpen: InternalRow,
      session: Option[SessionSeed]): (Retention, Option[SessionSeed]) = {
    val sessionStart = sessions.lastSessionStart
    val pieceStart = sessions.pieceHolding(sessionStart, WindowFields.start(firstOpen))
    var heldTo = session.map(_.end).getOrElse(Long.MinValue)
    sorted.foreach { event =>
      if (event.end <= pieceStart) heldTo = Math.max(heldTo, sessions.heldOpenTo(event.end))
    }
    (
      Retention(sorted.length, TimeArithmetic.add(pieceStart, 1L)),
      Some(SessionSeed(sessionStart, heldTo)))
  }

  /**
   * Update mode ([[StreamingWindowSpec.earlyRows]]): the current version of every row whose
   * result the `added` events change, open rows too, in the order the sweep gives them. Two
   * sweeps over every event known (not only up to the horizon), one without the `added` events
   * and one with them; a row of the second that the first does not give (a new row or a new
   * result) is emitted, unless it closed at or before `emittedThrough`: a late event that rows
   * still open count ([[io.eventwindows.plans.StreamingRules.lateByLastRow]]) may lie in rows
   * closed before too, which stay as they were emitted. So the last version emitted of each row
   * is the row append mode emits once it closes.
   */
  def changedRows(
      stored: Iterator[Array[Byte]],
      added: Array[Array[Byte]],
      emittedThrough: Long): Seq[Row] = {
    def openRows(events: Iterable[Stored]): Iterator[Row] = sweep(inOrder(events)).filter { out =>
      spec.rules.closeTime(windowOf(out)) > emittedThrough
    }.map(toRow)
    val before = stored.map(decode).toSeq
    val unchanged = mutable.HashMap.empty[Row, Int]
    openRows(before).foreach { row =>
      unchanged(row) = unchanged.getOrElse(row, 0) + 1
    }
    openRows(before ++ added.map(decode)).filter { row =>
      unchanged.get(row) match {
        case Some(n) =>
          if (n == 1) unchanged.remove(row) else unchanged(row) = n - 1
          false
        case None => true
      }
    }.toSeq
  }

  /**
   * Update mode: the current version of every row the `stored` events give, open rows too, in
   * the order the sweep gives them (one sweep over every event known): the rows of a key that
   * were never emitted, such as those of its initial state.
   */
  def currentRows(stored: Iterator[Array[Byte]]): Seq[Row] =
    sweep(inOrder(stored.map(decode).toSeq)).map(toRow).toSeq

  /** The `window` struct of a row the sweep gives. */
  private def windowOf(out: InternalRow): InternalRow =
    WindowSweepIterator.window(out, spec.aggregation.keys.size, windowFields)

  /** The stored event over `bytes`. */
  private def decode(bytes: Array[Byte]): Stored = {
    val row = new UnsafeRow(numFields)
    row.pointTo(bytes, bytes.length)
    lifetime(row)
    val start = times.getLong(0)
    new Stored(bytes, row, start, endOf(start))
  }

  /** `events` sorted as the batch operator sorts them. */
  private def inOrder(events: Iterable[Stored]): Array[Stored] = {
    val sorted = events.toArray
    java.util.Arrays.sort(sorted, (a: Stored, b: Stored) => ordering.compare(a.row, b.row))
    sorted
  }

  /**
   * `prefix` followed by the `forgotten` messages (the oldest replayed ones, in order), merged
   * as the sweep merges them, so the windows later replays seed with it are the batch query's.
   */
  private def fold(prefix: RunningPrefix, forgotten: Iterable[Stored]): RunningPrefix = {
    if (prefix.count == 0) folding.clear()
    else folding.seed(prefix.count, buffers.deserialize(prefix.buffer))
    forgotten.foreach { message =>
      folding.add(message.start, message.row)
      folding.include()
    }
    val firstTime = if (prefix.count == 0) forgotten.head.start else prefix.firstTime
    RunningPrefix(folding.tailIndex, firstTime, buffers.serialize(folding.merged))
  }

  /**
   * SPL windows: the events up to `emittedThrough` are the window the last firing left, put back
   * as they were; the later ones up to the horizon arrive. Every row the sweep gives is new. Time
   * instants up to the horizon pass if an arrival after them is known (a pending one), else up
   * to the last arrival, as at the end of a batch.
   */
  private def resume(
      resumed: ResumingSweep,
      sorted: Array[Stored],
      emittedThrough: Long,
      horizon: Long,
      trigger: ResumingSweep.TriggerState,
      pending: Seq[Array[Byte]],
      firstPending: Long): Firing = {
    val restored = sorted.count(_.start <= emittedThrough)
    resumed.resumeGroup(ResumingSweep.Resume(
      restored,
      trigger,
      if (pending.nonEmpty) Some(TimeArithmetic.add(horizon, 1L)) else None))
    val output = sweep(sorted).map(toRow).toArray.toSeq
    // No event, no group: the sweep did not run and nothing changed.
    val suspended = Option(resumed.takeSuspended())
    val state = suspended.map(_.state).getOrElse(trigger)
    val kept = suspended.map(_.window.map(i => sorted(i.toInt).bytes)).getOrElse(Array.empty) ++
      pending
    // Instants before a pending arrival fire once the watermark passes them.
    val nextClose =
      if (resumed.firesBetweenArrivals && pending.nonEmpty)
        Math.min(firstPending, state.nextInstant)
      else firstPending
    Firing(output, kept, nextClose, ResumePoint(state, RunningPrefix.Empty), None, None)
  }

  /** The family's sweep over `sorted`, one key group, as the batch operator runs it. */
  private def sweep(sorted: Array[Stored]): Iterator[InternalRow] =
    new WindowSweepIterator(
      sorted.iterator.map(_.row),
      spec.rows.input,
      spec.aggregation.keys,
      window,
      policy,
      memory,
      aggregates,
      unusedMetric)

  /** The exclusive end of the event whose lifetime `times` holds, as the sweep reads it. */
  private def endOf(start: Long): Long =
    if (window.end.isEmpty) TimeArithmetic.pointEventEnd(start, lineMax)
    else if (times.isNullAt(1)) lineMax // Open-ended: it never stops being needed.
    else times.getLong(1)
}

private[streaming] object StreamingReplay {

  /** No row can close: nothing to wait for. */
  final val NoClose: Long = Long.MaxValue

  /** One stored event: its bytes, the row over them, its start and exclusive end. */
  final class Stored(val bytes: Array[Byte], val row: UnsafeRow, val start: Long, val end: Long)

  /**
   * What a firing gives: the rows to emit, the events to keep (bytes), the earliest close time
   * of a row not emitted yet ([[NoClose]] if none is known), what the next firing resumes from
   * and the open session that sessions with pieces continue, or that sessions of one piece
   * continue with their folded events.
   */
  final case class Firing(
      output: Seq[Row],
      kept: Array[Array[Byte]],
      nextClose: Long,
      resumeFrom: ResumePoint,
      session: Option[SessionSeed],
      folded: Option[FoldedSession])

  /**
   * The messages of a key that a running window no longer keeps one by one, which every later
   * window holds: their number (the next message's index), the time of the first (every window's
   * `first`), and their aggregation buffer as [[io.eventwindows.execution.aggregate.AggregateBuffers.serialize]] stores it.
   */
  final case class RunningPrefix(count: Long, firstTime: Long, buffer: Array[Byte])

  object RunningPrefix {

    /** No message folded yet. */
    val Empty: RunningPrefix = RunningPrefix(0L, 0L, Array.emptyByteArray)
  }

  /**
   * What a key's next replay resumes from: the `trigger` state of an SPL sliding window (see
   * [[ResumingSweep.TriggerState]]) and the `prefix` of a running index window; each is its
   * initial value for the families that keep none.
   */
  final case class ResumePoint(trigger: ResumingSweep.TriggerState, prefix: RunningPrefix)

  object ResumePoint {

    /** Nothing to resume from: a key's first replay. */
    val Start: ResumePoint = ResumePoint(ResumingSweep.TriggerState.initial, RunningPrefix.Empty)
  }
}

/**
 * The open session of a key whose earlier events a firing forgot (sessions with pieces, see
 * [[io.eventwindows.plans.StreamingRules.continuesSessions]]): when it began, from which its
 * pieces are counted, and the end (exclusive) the forgotten events hold it open to.
 */
private[streaming] case class SessionSeed(start: Long, end: Long)

/**
 * The open session of a key, without a maximum duration, whose earlier events a firing folded
 * (see [[io.eventwindows.plans.StreamingRules.foldsSessions]]): when it began, the end
 * (exclusive) the folded events hold it open to, and their aggregation buffer, as
 * [[io.eventwindows.execution.aggregate.AggregateBuffers.serialize]] stores it.
 */
private[streaming] case class FoldedSession(start: Long, end: Long, buffer: Array[Byte])
