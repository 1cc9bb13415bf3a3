package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A policy whose next group can continue after messages it is not handed: a running window on a
 * stream, whose messages no longer kept are folded into one aggregation buffer (see
 * `StreamingReplay`). Their aggregate starts every window, and indexes continue after them.
 */
private[execution] trait SeedingSweep extends SweepPolicy {

  /**
   * The next group continues after `count` messages it is not handed, the first one at
   * `firstTime`, their aggregation buffer `merged` (taken over).
   */
  def seedGroup(count: Long, firstTime: Long, merged: InternalRow): Unit
}
