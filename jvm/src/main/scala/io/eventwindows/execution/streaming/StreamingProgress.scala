package io.eventwindows.execution.streaming

import io.eventwindows.execution.sweep.ResumingSweep

/**
 * A key's progress as the processor reads and writes it, in named parts: the `definition` of the
 * aggregation that wrote it, the horizon up to which rows were emitted (`emittedThrough`,
 * operator time), the key's one pending `timer` (epoch milliseconds), if any, and what the next
 * replay resumes from ([[StreamingReplay.ResumePoint]]).
 *
 * Stored as the flat [[StreamingProgress]], the one place that knows its encoding: [[stored]]
 * writes it, [[KeyProgress.of]] reads it back. For example the progress of a key of an SPL
 * sliding window emitted through 7, with a timer at 12 ms, 3 arrivals and no running prefix,
 * `KeyProgress(d, 7, Some(12), ResumePoint(TriggerState(3, ...), RunningPrefix.Empty))`, is
 * stored as `StreamingProgress(d, 7, hasTimer = true, 12, splArrivals = 3, ..., prefixCount = 0,
 * ...)`.
 */
private[streaming] final case class KeyProgress(
    definition: String,
    emittedThrough: Long,
    timer: Option[Long],
    resumeFrom: StreamingReplay.ResumePoint) {

  /** This progress in its stored encoding. */
  def stored: StreamingProgress = {
    val trigger = resumeFrom.trigger
    val prefix = resumeFrom.prefix
    StreamingProgress(
      definition = definition,
      emittedThrough = emittedThrough,
      hasTimer = timer.isDefined,
      timerMs = timer.getOrElse(0L),
      splArrivals = trigger.arrivals,
      splLastArrival = trigger.lastArrival,
      splNextInstant = trigger.nextInstant,
      splHasReference = trigger.hasReference,
      splReferenceExact = trigger.referenceExact,
      splReferenceDouble = trigger.referenceDouble,
      prefixCount = prefix.count,
      prefixFirstTime = prefix.firstTime,
      prefixBuffer = prefix.buffer)
  }
}

private[streaming] object KeyProgress {

  /** The progress of a key that has none yet, under the aggregation `definition`. */
  def fresh(definition: String): KeyProgress =
    KeyProgress(definition, Long.MinValue, None, StreamingReplay.ResumePoint.Start)

  /** The progress `stored` encodes. */
  def of(stored: StreamingProgress): KeyProgress = KeyProgress(
    stored.definition,
    stored.emittedThrough,
    if (stored.hasTimer) Some(stored.timerMs) else None,
    StreamingReplay.ResumePoint(
      ResumingSweep.TriggerState(
        stored.splArrivals,
        stored.splLastArrival,
        stored.splNextInstant,
        stored.splHasReference,
        stored.splReferenceExact,
        stored.splReferenceDouble),
      StreamingReplay.RunningPrefix(
        stored.prefixCount,
        stored.prefixFirstTime,
        stored.prefixBuffer)))
}

/**
 * The stored encoding of a [[KeyProgress]], the value of the processor's `progress` state
 * variable: flat, as the first release wrote it, because Spark refuses to restore a state
 * variable whose value schema (these fields' names and types, in order) changed, so every
 * checkpoint written before would fail. Read and written only through [[KeyProgress]]; the
 * `spl*` fields are the SPL trigger state ([[ResumingSweep.TriggerState]]), the `prefix*` fields
 * a running window's prefix ([[StreamingReplay.RunningPrefix]]), and `timerMs` means nothing
 * unless `hasTimer`.
 */
private[streaming] case class StreamingProgress(
    definition: String,
    emittedThrough: Long,
    hasTimer: Boolean,
    timerMs: Long,
    splArrivals: Long,
    splLastArrival: Long,
    splNextInstant: Long,
    splHasReference: Boolean,
    splReferenceExact: Long,
    splReferenceDouble: Double,
    prefixCount: Long,
    prefixFirstTime: Long,
    prefixBuffer: Array[Byte])
