package io.eventwindows

import org.scalatest.Tag

/**
 * The tests that `bin/test --quick` leaves out (`-l io.eventwindows.SlowTest`): random inputs
 * through whole queries or through one operator's structure (the sliding and FIFO aggregates,
 * the time integral), streams stopped and restarted from a checkpoint, what the state keeps
 * (memory), and the further windows of a family whose first one the quick tier runs (a
 * streaming query each). `bin/test` runs them.
 */
object SlowTest extends Tag("io.eventwindows.SlowTest")
