package io.eventwindows.execution.streaming

import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.streaming.{
  ExpiredTimerInfo, ListState, OutputMode, StatefulProcessorWithInitialState, TimeMode, TimerValues,
  TTLConfig, ValueState
}

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.sweep.ResumingSweep
import io.eventwindows.time.TimeArithmetic

/**
 * Runs an event-window aggregation on a stream, per key, inside Spark's `TransformWithState` in
 * event-time mode ("replay and emit by close time"):
 *
 *  - each micro-batch, the key's new rows are appended to its state (a list of events) and a
 *    timer is set at the current watermark, so the key fires in this very batch;
 *  - a firing at watermark w replays the events kept in state that are final at w through the
 *    family's own sweep ([[StreamingReplay]]), emits the rows that closed since the last firing,
 *    keeps only the events rows still open can need, and sets a timer where the next row can
 *    close. SPL sliding windows, whose triggers depend on every earlier arrival, resume their
 *    sweep instead: the window's tuples and the trigger state are kept, only new events are
 *    consumed. Running index windows keep the aggregate of the messages they no longer keep, sessions
 *    without a maximum duration that of their open session's earlier events.
 *
 * The initial state, when the query has one (the static anchors of dynamic windows over a stream
 * of messages, see [[StreamingWindowSpec]]), is a row per key holding its rows of the input, read
 * in the first micro-batch as if they had arrived then. `handleInitialState` cannot emit rows, so
 * in update mode the key's rows of them (an anchor that no message reaches too) are emitted at the
 * key's first input or firing, whichever comes first: see [[unemittedInitialRows]].
 *
 * So every row is emitted once, complete, when the watermark has passed its close time; rows
 * behind the watermark were dropped by Spark before they got here. In update mode, for families
 * whose rows are known while open ([[StreamingWindowSpec.earlyRows]]), the new rows of a key
 * instead emit at once the current version of every row whose result they change, and firings
 * emit nothing (a row is not emitted again only because it closed). The state holds, per key, the
 * events kept and a [[KeyProgress]] (stored as [[StreamingProgress]]): what was emitted, the
 * pending timer, what the next replay resumes from, and the definition of the aggregation, checked
 * on every use so that a changed query cannot read another one's state.
 */
final class StreamingWindowProcessor(
    val spec: StreamingWindowSpec,
    lateEventsWatermarkMs: Long = Long.MinValue)
    extends StatefulProcessorWithInitialState[Row, Row, Row, Row] {
  import StreamingWindowProcessor._

  @transient private var events: ListState[Array[Byte]] = _
  @transient private var progress: ValueState[StreamingProgress] = _

  /**
   * Present for a key whose rows of the initial state are not emitted yet, in update mode only
   * ([[tracksInitialRows]]). A state variable of its own, not a field of [[StreamingProgress]]:
   * Spark refuses to restore a state variable whose value schema changed (a field added to the
   * progress would fail every checkpoint written before), while it takes a new variable, or one no
   * longer registered, on restart (Spark 4.0 to 4.2 compare the schemas of the variables that
   * both runs have, and `transformWithState`'s properties refuse only a variable whose type
   * changed). Every key of the initial state fires in the first micro-batch (its timer is at that
   * batch's watermark), so the variable is set and cleared within that batch: no checkpoint holds
   * it set, and a checkpoint serves update and append mode alike.
   */
  @transient private var unemittedInitialRows: ValueState[Boolean] = _

  /**
   * The open session of a key whose earlier events were forgotten, for sessions with pieces
   * ([[io.eventwindows.plans.StreamingRules.continuesSessions]]). A state variable of its own, as
   * [[unemittedInitialRows]] is: a checkpoint written before it existed restores (its keys hold
   * every event of their open session, and the next firing forgets what it can).
   */
  @transient private var openSession: ValueState[SessionSeed] = _

  /**
   * The open session of a key whose earlier events were folded into its aggregation buffer, for
   * sessions without a maximum duration ([[StreamingWindowSpec.foldsSessions]]). A state variable
   * of its own, as [[openSession]] is: a checkpoint written before it existed restores (its keys
   * hold every event of their open session, and the next firing folds what it can).
   */
  @transient private var foldedSession: ValueState[FoldedSession] = _
  @transient private lazy val replay = new StreamingReplay(spec)

  /**
   * This processor for a micro-batch whose late rows Spark drops by `watermarkMs` (the previous
   * micro-batch's watermark; Spark gives it to the operator, not to the processor): see
   * [[closedBeforeInput]].
   */
  def withLateEventsWatermark(watermarkMs: Long): StreamingWindowProcessor =
    new StreamingWindowProcessor(spec, watermarkMs)

  /**
   * `current` with every row that closed at the late-row watermark counted as emitted, for rules
   * whose late rows count in their rows still open
   * ([[io.eventwindows.plans.StreamingRules.lateByLastRow]]): a row closed there was emitted, or
   * it did not exist before this input and no late row may make it (Spark's aggregation drops a
   * late row for a closed window). A key that was idle or forgotten has emitted less.
   */
  private def closedBeforeInput(current: KeyProgress): KeyProgress =
    if (!spec.rules.lateByLastRow || lateEventsWatermarkMs == Long.MinValue) current
    else current.copy(emittedThrough = Math.max(
      current.emittedThrough,
      spec.horizon.horizon(micros(lateEventsWatermarkMs))))

  /** True if the initial state's rows must be emitted apart: update mode with initial state. */
  private def tracksInitialRows: Boolean = spec.emission.earlyRows && spec.emission.hasInitialState

  override def init(outputMode: OutputMode, timeMode: TimeMode): Unit = {
    events = getHandle.getListState[Array[Byte]]("events", Encoders.BINARY, TTLConfig.NONE)
    progress = getHandle.getValueState[StreamingProgress](
      "progress",
      Encoders.product[StreamingProgress],
      TTLConfig.NONE)
    if (tracksInitialRows) {
      unemittedInitialRows = getHandle.getValueState[Boolean](
        "unemittedInitialRows",
        Encoders.scalaBoolean,
        TTLConfig.NONE)
    }
    if (spec.rules.continuesSessions) {
      openSession = getHandle.getValueState[SessionSeed](
        "openSession",
        Encoders.product[SessionSeed],
        TTLConfig.NONE)
    }
    if (spec.foldsSessions) {
      foldedSession = getHandle.getValueState[FoldedSession](
        "foldedSession",
        Encoders.product[FoldedSession],
        TTLConfig.NONE)
    }
  }

  override def handleInputRows(
      key: Row,
      inputRows: Iterator[Row],
      timerValues: TimerValues): Iterator[Row] = {
    val current = closedBeforeInput(load())
    val added = inputRows.flatMap(replay.encode).toArray
    val changed =
      if (takeUnemittedInitialRows()) replay.currentRows(events.get() ++ added.iterator)
      else if (spec.emission.earlyRows && added.nonEmpty) {
        replay.changedRows(events.get(), added, current.emittedThrough)
      } else Nil
    if (added.nonEmpty) keep(current, added, timerValues)
    changed.iterator
  }

  /**
   * A key's rows of the initial state (one array of input rows) arrive as its first input; in
   * update mode its rows are emitted at its first input or firing, in this micro-batch.
   */
  override def handleInitialState(key: Row, initialState: Row, timerValues: TimerValues): Unit = {
    val current = load()
    val added = initialState.getSeq[Row](0).iterator.flatMap(replay.encode).toArray
    if (added.nonEmpty) {
      keep(current, added, timerValues)
      if (tracksInitialRows) unemittedInitialRows.update(true)
    }
  }

  /**
   * Appends `added` events to the key's state and makes the key fire in this batch: the new
   * events may close rows at the current watermark already.
   */
  private def keep(
      current: KeyProgress,
      added: Array[Array[Byte]],
      timerValues: TimerValues): Unit = {
    events.appendList(added)
    val watermark = timerValues.getCurrentWatermarkInMs()
    store(
      if (current.timer.exists(_ <= watermark)) current
      else schedule(current, watermark))
  }

  /** True, once, if the key's rows of the initial state are still to be emitted. */
  private def takeUnemittedInitialRows(): Boolean = {
    val unemitted = tracksInitialRows && unemittedInitialRows.exists()
    if (unemitted) unemittedInitialRows.clear()
    unemitted
  }

  override def handleExpiredTimer(
      key: Row,
      timerValues: TimerValues,
      expiredTimerInfo: ExpiredTimerInfo): Iterator[Row] = {
    val initialRows = if (takeUnemittedInitialRows()) replay.currentRows(events.get()) else Nil
    // Spark deletes the timer that fires.
    val current = load().copy(timer = None)
    val watermarkMs = timerValues.getCurrentWatermarkInMs()
    val horizon = spec.horizon.horizon(micros(watermarkMs))
    val session =
      if (spec.rules.continuesSessions && openSession.exists()) Some(openSession.get()) else None
    val folded =
      if (spec.foldsSessions && foldedSession.exists()) Some(foldedSession.get()) else None
    val firing = replay.fire(
      events.get(),
      current.emittedThrough,
      horizon,
      current.resumeFrom,
      session,
      folded)
    if (spec.rules.continuesSessions) {
      firing.session.filter(_ => firing.kept.nonEmpty).map(openSession.update)
        .getOrElse(openSession.clear())
    }
    if (spec.foldsSessions) {
      // An open folded session keeps its latest events: no key holds a buffer alone.
      firing.folded.filter(_ => firing.kept.nonEmpty).map(foldedSession.update)
        .getOrElse(foldedSession.clear())
    }
    if (firing.kept.isEmpty && spec.rules.forgetsIdleKeys) {
      // Nothing left that a later row can need: forget the key. (An SPL trigger's state and a
      // running window's prefix are needed by every later arrival.)
      events.clear()
      progress.clear()
    } else {
      if (firing.kept.isEmpty) events.clear() else events.put(firing.kept)
      val emitted = current.copy(
        emittedThrough = Math.max(current.emittedThrough, horizon),
        resumeFrom = firing.resumeFrom)
      store(
        if (firing.nextClose == StreamingReplay.NoClose) emitted
        else schedule(
          emitted,
          Math.max(
            watermarkMs + 1,
            TimeArithmetic.ceilMillis(spec.horizon.watermarkReaching(firing.nextClose)))))
    }
    (initialRows ++ firing.output).iterator
  }

  /** The key's progress, checked against this query's definition, or a fresh one. */
  private def load(): KeyProgress =
    if (progress.exists()) {
      val stored = KeyProgress.of(progress.get())
      if (!spec.state.accepts(stored.definition)) {
        throw EventWindowsErrors.checkpointMismatch(
          s"${spec.window.function}: the checkpoint holds the state " +
            s"of another window definition [${stored.definition}], not of this query's " +
            s"[${spec.state.current}]; a changed window definition needs a new checkpoint location")
      }
      // A former definition of this very query is stored as the current one from now on.
      stored.copy(definition = spec.state.current)
    } else {
      KeyProgress.fresh(spec.state.current)
    }

  /** Keeps `current` as the key's progress, in its stored encoding. */
  private def store(current: KeyProgress): Unit = progress.update(current.stored)

  /** `current` with its one timer moved to `ms`. */
  private def schedule(current: KeyProgress, ms: Long): KeyProgress = {
    current.timer.foreach(getHandle.deleteTimer)
    getHandle.registerTimer(ms)
    current.copy(timer = Some(ms))
  }
}

object StreamingWindowProcessor {

  /** Microseconds of a watermark in milliseconds, saturated. */
  def micros(ms: Long): Long =
    if (ms > Long.MaxValue / 1000) Long.MaxValue
    else if (ms < Long.MinValue / 1000) Long.MinValue
    else ms * 1000
}
