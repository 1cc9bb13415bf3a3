package org.apache.spark.sql.eventwindows

import scala.reflect.ClassTag

import org.apache.spark.{SparkThrowableHelper, TaskContext}
import org.apache.spark.executor.TaskMetrics
import org.apache.spark.memory.{MemoryConsumer, MemoryMode, SparkOutOfMemoryError, TaskMemoryManager}
import org.apache.spark.rdd.RDD

/**
 * The one place where eventwindows uses Spark API that is private to `org.apache.spark`; it lives
 * in Spark's package for that reason alone.
 */
object SparkInternals {

  /** `RDD.mapPartitionsInternal`: no closure cleaning, no task context wrapping. */
  def mapPartitions[T, U: ClassTag](rdd: RDD[T])(f: Iterator[T] => Iterator[U]): RDD[U] =
    rdd.mapPartitionsInternal(f)

  /** `TaskMetrics.incPeakExecutionMemory`, as Spark's own sort reports its memory. */
  def incPeakExecutionMemory(metrics: TaskMetrics, bytes: Long): Unit =
    metrics.incPeakExecutionMemory(bytes)

  /**
   * Reserves `bytes` of on-heap execution memory for the rest of the task (`TaskMemoryManager` is
   * private to Spark), as the memory of a structure that cannot spill: Spark may spill other
   * consumers to make room, and the task fails with Spark's own out-of-memory error if there is
   * none. The memory is counted in the task's peak execution memory and freed when the task ends.
   */
  def reserveExecutionMemory(task: TaskContext, bytes: Long): Unit = if (bytes > 0) {
    val consumer = new MemoryConsumer(task.taskMemoryManager(), MemoryMode.ON_HEAP) {
      override def spill(size: Long, trigger: MemoryConsumer): Long = 0L
    }
    val granted = consumer.acquireMemory(bytes)
    if (granted < bytes) {
      consumer.freeMemory(granted)
      throw new SparkOutOfMemoryError("UNABLE_TO_ACQUIRE_MEMORY", java.util.Map.of(
        "requestedBytes", bytes.toString, "receivedBytes", granted.toString))
    }
    task.addTaskCompletionListener[Unit](_ => consumer.freeMemory(bytes))
    task.taskMetrics().incPeakExecutionMemory(bytes)
  }

  /** The task's memory manager (`TaskContext.taskMemoryManager` is private to Spark). */
  def taskMemoryManager(task: TaskContext): TaskMemoryManager = task.taskMemoryManager()

  /** The message of a Spark error of `condition`, formatted as Spark formats its own errors. */
  def errorMessage(condition: String, parameters: Map[String, String]): String =
    SparkThrowableHelper.getMessage(condition, parameters)
}
