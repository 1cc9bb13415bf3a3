package io.eventwindows.plans

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The layout of the `window` struct of a family's output rows, the one place that knows where each
 * field is: `start` and `end` (the row's output lifetime), then, for the families whose windows
 * span the times of their first and last events ([[WindowFields.FirstAndLast]]: count, index and
 * SPL windows), `first` and `last`; dynamic windows add their anchor's row after these. A family
 * says which layout it has ([[WindowFamily.windowFields]]); the sweep writes the fields through
 * [[WindowFields.lifetime]] and [[WindowFields.firstAndLast]], the streaming rules read them by
 * name, as Spark's `UpdatingSessionsIterator` reads a session through `getSessionStart` and
 * `getSessionEnd`.
 *
 * For example `count_window(start, 3, 'point')` over the starts 1, 4 and 7 writes the window
 * `firstAndLast(start = 7, end = 8, first = 1, last = 7)`, the struct
 * `{start: 7, end: 8, first: 1, last: 7}`, and its streaming rules read `last(window)`, 7, as the
 * time it closes at.
 */
sealed abstract class WindowFields(val extra: Seq[String]) extends Product with Serializable {

  /** The names of the struct's time fields, in order. */
  final def names: Seq[String] = WindowFields.Start +: WindowFields.End +: extra
}

object WindowFields {
  val Start = "start"
  val End = "end"
  val First = "first"
  val Last = "last"

  private val StartOrdinal = 0
  private val EndOrdinal = 1
  private val FirstOrdinal = 2
  private val LastOrdinal = 3

  /** A window's output lifetime alone. */
  case object Lifetime extends WindowFields(Nil)

  /** The output lifetime, then the times of the window's first and last events. */
  case object FirstAndLast extends WindowFields(Seq(First, Last))

  /** The fields of a window of [[Lifetime]]. */
  def lifetime(start: Long, end: Long): Array[Long] = Array(start, end)

  /** The fields of a window of [[FirstAndLast]]. */
  def firstAndLast(start: Long, end: Long, first: Long, last: Long): Array[Long] = {
    val fields = new Array[Long](4)
    fields(StartOrdinal) = start
    fields(EndOrdinal) = end
    fields(FirstOrdinal) = first
    fields(LastOrdinal) = last
    fields
  }

  /** Writes a window's output lifetime into the struct `window`. */
  def setLifetime(window: InternalRow, start: Long, end: Long): Unit = {
    window.setLong(StartOrdinal, start)
    window.setLong(EndOrdinal, end)
  }

  /** The start of a window's output lifetime. */
  def start(window: InternalRow): Long = window.getLong(StartOrdinal)

  /** The end of a window's output lifetime. */
  def end(window: InternalRow): Long = window.getLong(EndOrdinal)

  /** The time of the first event of a window of [[FirstAndLast]]. */
  def first(window: InternalRow): Long = window.getLong(FirstOrdinal)

  /** The time of the last event of a window of [[FirstAndLast]]. */
  def last(window: InternalRow): Long = window.getLong(LastOrdinal)
}
