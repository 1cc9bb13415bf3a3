package io.eventwindows.execution

import org.apache.spark.sql.catalyst.optimizer.JoinSelectionHelper
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.internal.SQLConf

/**
 * When a join this project sweeps broadcasts a side (`built`), sorted once
 * ([[io.eventwindows.execution.sweep.SortedBroadcastMode]]), instead of shuffling both: where
 * Spark's own `JoinSelection` would broadcast it by size alone (at most
 * `spark.sql.autoBroadcastJoinThreshold`; the callers check that the join type can build it),
 * and only if it is also at most the `other` side's size divided by `spark.sql.shuffle.partitions`
 * (the tasks, as far as planning knows them). Unlike a hash table, which a task probes, a sweep
 * reads all of the broadcast side in every task of the other side, so that side must be much
 * smaller for the tasks' reading of it to cost less than the shuffle of the other side it spares.
 * For example, 10,000 intervals joined with 2,000,000 points in 4 tasks are broadcast; two
 * tables of 500,000 intervals are both shuffled.
 */
private[execution] object SweepBroadcast extends JoinSelectionHelper {
  def worthIt(built: LogicalPlan, other: LogicalPlan): Boolean = {
    val conf = SQLConf.get
    canBroadcastBySize(built, conf) &&
    built.stats.sizeInBytes * conf.numShufflePartitions <= other.stats.sizeInBytes
  }
}
