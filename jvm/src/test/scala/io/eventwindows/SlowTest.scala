package io.eventwindows

import org.scalatest.Tag

/**
 * The tests that `bin/test --quick` leaves out (`-l io.eventwindows.SlowTest`): random inputs
 * through whole queries or long random sequences through one operator's structure (the sliding
 * aggregate's tree), streams stopped and restarted from a checkpoint. `bin/test` runs them.
 */
object SlowTest extends Tag("io.eventwindows.SlowTest")
