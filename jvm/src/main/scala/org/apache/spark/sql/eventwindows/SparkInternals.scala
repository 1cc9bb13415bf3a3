package org.apache.spark.sql.eventwindows

import scala.reflect.ClassTag

import org.apache.spark.{SparkThrowableHelper, TaskContext}
import org.apache.spark.api.python.{PythonFunction, SimplePythonFunction}
import org.apache.spark.executor.TaskMetrics
import org.apache.spark.memory.TaskMemoryManager
import org.apache.spark.rdd.RDD
import org.apache.spark.serializer.Serializer
import org.apache.spark.sql.catalyst.expressions.{PythonUDAF, PythonUDF}
import org.apache.spark.sql.execution.UnsafeRowSerializer

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

  /** The task's memory manager (`TaskContext.taskMemoryManager` is private to Spark). */
  def taskMemoryManager(task: TaskContext): TaskMemoryManager = task.taskMemoryManager()

  /**
   * `udaf` running `command` of its pickled command instead of it, with the rest of its Python
   * function (environment, includes, broadcasts) as it is (Spark's `PythonFunction` is private).
   */
  def withPythonCommand(udaf: PythonUDAF)(command: Array[Byte] => Array[Byte]): PythonUDAF =
    udaf.copy(func = withCommand(udaf.func, command))

  /** `udf` running `command` of its pickled command instead of it, as for a `PythonUDAF`. */
  def withPythonCommand(udf: PythonUDF)(command: Array[Byte] => Array[Byte]): PythonUDF =
    udf.copy(func = withCommand(udf.func, command))

  private def withCommand(f: PythonFunction, command: Array[Byte] => Array[Byte]) =
    SimplePythonFunction(
      command(f.command.toArray).toSeq,
      f.envVars,
      f.pythonIncludes,
      f.pythonExec,
      f.pythonVer,
      f.broadcastVars,
      f.accumulator)

  /** The message of a Spark error of `condition`, formatted as Spark formats its own errors. */
  def errorMessage(condition: String, parameters: Map[String, String]): String =
    SparkThrowableHelper.getMessage(condition, parameters)

  /** Spark's serializer of `UnsafeRow`s of `fields` columns in a shuffle, as its exchanges use. */
  def rowSerializer(fields: Int): Serializer = new UnsafeRowSerializer(fields)
}
