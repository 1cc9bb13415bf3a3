package io.eventwindows.conf

import org.apache.spark.sql.internal.SQLConf

import io.eventwindows.errors.EventWindowsErrors

/** The configuration keys of eventwindows, each read from the session's SQL configuration. */
object EventWindowsConf {

  /**
   * The most windows one event may lie in under per-window hopping output: each window is a row,
   * so an event beyond it (a long lifetime over short hops, an open-ended event up to a far
   * horizon) fails the query, naming the event and `'changes'` as the way out, instead of
   * emitting rows for years (or, on a stream, filling memory with them).
   */
  val MaxWindowsPerEvent = "spark.eventwindows.maxWindowsPerEvent"
  val DefaultMaxWindowsPerEvent = 1000000L

  /** Whether dynamic windows with order-insensitive aggregates fold their messages by slice. */
  val SliceDynamicWindows = "spark.eventwindows.sliceDynamicWindows"

  /**
   * Whether `applyInPandas` over event windows also gives each event's lifetime clipped to the
   * window, as two more columns `clipped_start` and `clipped_end` (families with clipped
   * lifetimes only).
   */
  val ClippedLifetimeColumns = "spark.eventwindows.applyInPandas.clippedLifetimes"

  /**
   * Whether joins whose condition holds an overlap of lifetimes or a point in an interval are
   * planned as a sweep (`RangeJoin`) instead of Spark's pairing of every candidate row.
   */
  val RangeJoinEnabled = "spark.eventwindows.rangeJoin.enabled"

  /**
   * For tests: the most bytes an ASOF join's index of one task's right rows (`AsofRightIndex`)
   * may hold; a task whose right rows need more merges the two sorted sides instead, as it does
   * when the task memory manager refuses the index memory. Unset (the default), only the memory
   * manager limits it.
   */
  val AsofIndexMaxBytes = "spark.eventwindows.asofJoin.maxIndexBytes"

  def asofIndexMaxBytes: Long = {
    val text = SQLConf.get.getConfString(AsofIndexMaxBytes, Long.MaxValue.toString)
    text.trim.toLongOption.filter(_ >= 0).getOrElse(
      throw EventWindowsErrors.invalidParameter(
        AsofIndexMaxBytes,
        s"must be a whole number of bytes, 0 or more, got '$text'"))
  }

  def rangeJoinEnabled: Boolean = SQLConf.get.getConfString(RangeJoinEnabled, "true").trim.toBoolean

  def clippedLifetimeColumns: Boolean =
    SQLConf.get.getConfString(ClippedLifetimeColumns, "false").trim.toBoolean

  def maxWindowsPerEvent: Long = {
    val text = SQLConf.get.getConfString(MaxWindowsPerEvent, DefaultMaxWindowsPerEvent.toString)
    // An event's windows on a stream are one array: at most Int.MaxValue of them.
    text.trim.toLongOption.filter(n => n > 0 && n <= Int.MaxValue).getOrElse(
      throw EventWindowsErrors.invalidParameter(
        MaxWindowsPerEvent,
        s"must be a whole number from 1 to ${Int.MaxValue}, got '$text'"))
  }

  def sliceDynamicWindows: Boolean =
    SQLConf.get.getConfString(SliceDynamicWindows, "true").toBoolean
}
