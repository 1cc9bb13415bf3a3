package io.eventwindows.execution.aggregate

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.memory.{
  MemoryConsumer, MemoryMode, SparkOutOfMemoryError, TaskMemoryManager
}
import org.apache.spark.sql.eventwindows.SparkInternals

/**
 * The memory one window operator holds in a task, reserved from Spark's task memory manager as
 * on-heap execution memory before it is allocated: the pages of aggregation buffers
 * ([[BufferArray]]) and the primitive arrays of the aggregators and the sweep, as Spark's own
 * spillable collections account theirs (`acquireMemory`, then a JVM array).
 *
 * Window contents cannot be spilled: every event in them is needed for the next result. When the
 * memory manager cannot grant a reservation (after asking other consumers of the task, such as
 * the sort below the operator, to spill), the task fails with Spark's own
 * `SparkOutOfMemoryError` (UNABLE_TO_ACQUIRE_MEMORY), naming the operator and what it was holding
 * ([[holder]]: the current key); Spark does not treat that error as fatal, so the executor lives.
 * Everything is released when the task completes.
 *
 * What it costs, measured: with avg, sum, max and min (a buffer of 48 bytes) a snapshot window's
 * contents (the tree, its bookkeeping and the leave heap) take about 80 bytes per active event, so
 * 5,000,000 events active at once in one key (397 MB) complete within the ~430 MB that a 1 GiB
 * driver gives execution (217 MB with count(*) alone; `tests/test_memory.py`).
 *
 * Not reserved exactly: buffers of variable-width layouts (strings, arrays, the objects of
 * collect_list or `Aggregator` UDAFs) are reserved at an estimate of their initial size, not at
 * what their objects grow to (a collect_list in a segment tree node holds every value below it);
 * the SPL delta-eviction heap and the dynamic windows' open anchors are objects reserved at an
 * estimate or not at all (anchors are bounded by the broadcast threshold or by the open intervals);
 * on streams the events kept in state are Spark's state store's.
 *
 * @param operator how errors name the operator, e.g. `EventWindowAggregate snapshot_window`
 */
private[execution] final class WindowMemory(
    taskMemoryManager: TaskMemoryManager,
    operator: String)
    extends MemoryConsumer(taskMemoryManager, MemoryMode.ON_HEAP) {

  /** What the operator is holding, for errors: set by the loop that knows the current key. */
  var holder: () => String = () => "its window contents"

  /** The most held at once. */
  private var peak = 0L

  /** Reserves `bytes`, or fails the task naming the operator. */
  def reserve(bytes: Long): Unit = if (bytes > 0) {
    val granted = acquireMemory(bytes)
    if (granted < bytes) {
      freeMemory(granted)
      throw new SparkOutOfMemoryError(
        "UNABLE_TO_ACQUIRE_MEMORY",
        Map(
          "requestedBytes" -> bytes.toString,
          "receivedBytes" ->
            (s"$granted (eventwindows: $operator holds ${getUsed} bytes for " +
              s"${holder()}; give executors more memory (spark.executor.memory, spark.driver.memory " +
              "in local mode) or make the windows hold fewer events at once)")).asJava)
    }
    peak = Math.max(peak, getUsed)
  }

  /**
   * Reserves `bytes` if the memory manager grants all of them (after asking other consumers to
   * spill, as [[reserve]]), else reserves nothing: for what has another way to run without them.
   */
  def tryReserve(bytes: Long): Boolean = bytes <= 0 || {
    val granted = acquireMemory(bytes)
    if (granted < bytes) freeMemory(granted) else peak = Math.max(peak, getUsed)
    granted >= bytes
  }

  /** Returns `bytes` reserved earlier. */
  def release(bytes: Long): Unit = if (bytes > 0) freeMemory(bytes)

  /** A new array of `n` longs, reserved. */
  def longs(n: Int): Array[Long] = {
    reserve(8L * n)
    new Array[Long](n)
  }

  /** A new array of `n` ints, reserved. */
  def ints(n: Int): Array[Int] = {
    reserve(4L * n)
    new Array[Int](n)
  }

  /** Window contents are all needed: nothing can be written out. */
  override def spill(size: Long, trigger: MemoryConsumer): Long = 0L
}

private[execution] object WindowMemory {

  /**
   * The operator's memory in the running task, released when the task completes; its peak counts
   * in the task's peak execution memory, as Spark's own operators report theirs.
   */
  def forTask(operator: String): WindowMemory = {
    val context = TaskContext.get()
    val memory = new WindowMemory(SparkInternals.taskMemoryManager(context), operator)
    context.addTaskCompletionListener[Unit] { _ =>
      SparkInternals.incPeakExecutionMemory(context.taskMetrics(), memory.peak)
      memory.release(memory.getUsed)
    }
    memory
  }
}
