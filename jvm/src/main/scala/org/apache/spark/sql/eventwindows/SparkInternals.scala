package org.apache.spark.sql.eventwindows

import scala.reflect.ClassTag

import org.apache.spark.executor.TaskMetrics
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
}
