package io.eventwindows.execution.slices

import java.util.BitSet

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.unsafe.Platform

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.execution.aggregate.WindowMemory

/**
 * The aggregation buffers of one task's slices (see [[AnchorSliceAggregateExec]]), end to end in
 * one byte array: slice i's buffer is the UnsafeRow of fixed size at i times that size, which
 * holds the `initialValues` from the slice's first message on. The buffer fields must be ones an
 * UnsafeRow updates in place, as in the buffers of Spark's hash aggregate.
 */
private[execution] final class SliceBuffers(initialValues: Seq[Expression], slices: Int) {

  /** The operator's memory in this task: these buffers, then the tree of [[AnchorPartials]]. */
  val memory: WindowMemory = WindowMemory.forTask("AnchorSliceAggregate dynamic_window")

  private val empty = UnsafeProjection.create(initialValues).apply(InternalRow.empty).copy()
  private val size = empty.getSizeInBytes
  private val bytes = {
    val total = size.toLong * slices
    if (total > Int.MaxValue - 16) {
      throw EventWindowsErrors.invalidInput(
        s"dynamic windows: the $slices slices of the anchors' " +
          s"intervals need $total bytes of buffers per task, more than an array holds; lower " +
          "spark.sql.autoBroadcastJoinThreshold below the anchors' size so that they are not " +
          "broadcast")
    }
    // Held until the task ends, in Spark's execution memory, as a hash aggregate's map would be.
    memory.reserve(total)
    new Array[Byte](total.toInt)
  }
  private val touched = new BitSet(slices)

  /** Points `row` at the buffer of `slice`, setting it to the initial values the first time. */
  def bufferOf(slice: Int, row: UnsafeRow): Unit = {
    if (!touched.get(slice)) {
      touched.set(slice)
      Platform.copyMemory(empty.getBaseObject, empty.getBaseOffset, bytes, offset(slice), size)
    }
    pointTo(slice, row)
  }

  /** Points `row` at the buffer of `slice`. */
  def pointTo(slice: Int, row: UnsafeRow): Unit = row.pointTo(bytes, offset(slice), size)

  /** The first slice at or after `from` that has a message, or -1. */
  def nextTouched(from: Int): Int = touched.nextSetBit(from)

  /** The last slice at or before `from` that has a message, or -1. */
  def previousTouched(from: Int): Int = touched.previousSetBit(from)

  private def offset(slice: Int): Long = Platform.BYTE_ARRAY_OFFSET + slice.toLong * size
}
