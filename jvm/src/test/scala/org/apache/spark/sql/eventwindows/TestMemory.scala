package org.apache.spark.sql.eventwindows

import org.apache.spark.SparkConf
import org.apache.spark.memory.{TaskMemoryManager, UnifiedMemoryManager}

/** A task memory manager outside any Spark job, for suites of the structures that reserve memory. */
object TestMemory {

  /** A manager whose task may hold at most `bytes` of execution memory. */
  def taskMemoryManager(bytes: Long = 1L << 30): TaskMemoryManager = {
    // Spark's unified manager keeps 300 MB of the "system memory" (at least 450 MB) for itself
    // and gives execution and storage the fraction `spark.memory.fraction` of the rest.
    val reserved = 300L * 1024 * 1024
    val system = Math.max(450L * 1024 * 1024, reserved + bytes)
    val conf = new SparkConf()
      .set("spark.testing.memory", system.toString)
      .set("spark.memory.fraction", (bytes.toDouble / (system - reserved)).toString)
    new TaskMemoryManager(UnifiedMemoryManager(conf, 1), 0)
  }
}
