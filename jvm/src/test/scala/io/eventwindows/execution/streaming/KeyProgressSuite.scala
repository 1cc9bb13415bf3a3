package io.eventwindows.execution.streaming

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.Encoders
import org.apache.spark.sql.types._

import io.eventwindows.execution.sweep.ResumingSweep

/**
 * A key's progress in named parts ([[KeyProgress]]) and its stored encoding
 * ([[StreamingProgress]]): the encoding keeps the value schema that checkpoints already written
 * hold (Spark refuses to restore a state variable whose schema changed), and every part survives
 * the way through it.
 */
class KeyProgressSuite extends AnyFunSuite {

  test("the stored progress keeps the flat value schema of the checkpoints already written") {
    val written = StructType(Seq(
      StructField("definition", StringType),
      StructField("emittedThrough", LongType, nullable = false),
      StructField("hasTimer", BooleanType, nullable = false),
      StructField("timerMs", LongType, nullable = false),
      StructField("splArrivals", LongType, nullable = false),
      StructField("splLastArrival", LongType, nullable = false),
      StructField("splNextInstant", LongType, nullable = false),
      StructField("splHasReference", BooleanType, nullable = false),
      StructField("splReferenceExact", LongType, nullable = false),
      StructField("splReferenceDouble", DoubleType, nullable = false),
      StructField("prefixCount", LongType, nullable = false),
      StructField("prefixFirstTime", LongType, nullable = false),
      StructField("prefixBuffer", BinaryType)))
    assert(Encoders.product[StreamingProgress].schema == written)
  }

  test("every part of a key's progress is stored and read back as it was") {
    val trigger = ResumingSweep.TriggerState(
      arrivals = 3L,
      lastArrival = -5L,
      nextInstant = Long.MaxValue,
      hasReference = true,
      referenceExact = 11L,
      referenceDouble = 2.5)
    val prefix = StreamingReplay.RunningPrefix(4L, Long.MinValue, Array[Byte](1, 2, 3))
    Seq(
      KeyProgress("d", 7L, Some(12L), StreamingReplay.ResumePoint(trigger, prefix)),
      KeyProgress("d", 7L, Some(0L), StreamingReplay.ResumePoint.Start),
      KeyProgress.fresh("d")).foreach { progress =>
      val stored = progress.stored
      val restored = KeyProgress.of(stored)
      assert(restored.definition == progress.definition)
      assert(restored.emittedThrough == progress.emittedThrough)
      assert(restored.timer == progress.timer)
      assert(restored.resumeFrom.trigger == progress.resumeFrom.trigger)
      assert(restored.resumeFrom.prefix.count == progress.resumeFrom.prefix.count)
      assert(restored.resumeFrom.prefix.firstTime == progress.resumeFrom.prefix.firstTime)
      assert(restored.resumeFrom.prefix.buffer.toSeq == progress.resumeFrom.prefix.buffer.toSeq)
    }
    // No timer is stored as the first release stored it.
    assert(!KeyProgress.fresh("d").stored.hasTimer)
    assert(KeyProgress.fresh("d").stored.timerMs == 0L)
  }
}
