package io.eventwindows.execution.streaming

import org.apache.spark.sql.Encoders
import org.apache.spark.sql.streaming.{StatefulProcessorHandle, TTLConfig, ValueState}

import io.eventwindows.errors.EventWindowsErrors

/**
 * The definition of a join of two streams (`analysis.StateDefinition.ofRangeJoin`, `ofAsofJoin`)
 * as its processor keeps it, beside each key's rows: a value state named `definition`, the same
 * for both joins, so that a query restarted from the checkpoint of another join of two streams
 * (of either kind) fails with `EVENTWINDOWS_CHECKPOINT_MISMATCH` where it finds a key's state,
 * rather than read rows another join wrote. For example a key of a backward ASOF join keeps
 * `asof_join backward tolerance=none exact=true input=struct<...>`; the forward join, or a range
 * join, restarted on that checkpoint fails naming both definitions.
 *
 * A processor calls [[check]] as it starts on a key, then [[keep]] once it knows whether the key
 * still holds rows; the state is written only when that changes.
 *
 * @param join    how errors name the join, e.g. `asof_join`
 * @param current this query's definition
 */
private[streaming] final class StoredJoinDefinition(
    handle: StatefulProcessorHandle,
    join: String,
    current: String) {
  private val stored: ValueState[String] =
    handle.getValueState[String]("definition", Encoders.STRING, TTLConfig.NONE)

  /** Whether the current key's state holds the definition, as [[check]] found it. */
  private var held = false

  /** Fails where the current key's state was written by another join. */
  def check(): Unit = {
    held = stored.exists()
    if (held && stored.get() != current) {
      throw EventWindowsErrors.checkpointMismatch(s"$join: the checkpoint holds the state of " +
        s"another join [${stored.get()}], not of this query's [$current]; a changed join needs " +
        "a new checkpoint location")
    }
  }

  /** Keeps the definition beside the current key's rows if it `holdsRows`, else forgets it. */
  def keep(holdsRows: Boolean): Unit =
    if (holdsRows && !held) stored.update(current)
    else if (!holdsRows && held) stored.clear()
}
