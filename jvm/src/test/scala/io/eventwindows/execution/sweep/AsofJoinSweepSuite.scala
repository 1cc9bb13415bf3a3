package io.eventwindows.execution.sweep

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.memory.SparkOutOfMemoryError
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, UnsafeProjection}
import org.apache.spark.sql.eventwindows.TestMemory
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.{DataType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.plans.AsofDirection
import io.eventwindows.plans.AsofDirection.{Backward, Forward, Nearest}

/**
 * The ASOF join's merge alone, on rows sorted as the operator's input is: the worked example of
 * its Scaladoc in every direction, and right rows larger than the task's memory.
 */
class AsofJoinSweepSuite extends AnyFunSuite {

  private def side(name: String) = Seq(
    AttributeReference(s"${name}k", IntegerType)(),
    AttributeReference(s"${name}t", LongType)(),
    AttributeReference(s"${name}v", StringType)())
  private val (left, right) = (side("l"), side("r"))

  private def rows(attributes: Seq[AttributeReference], values: Seq[(Int, Long, String)]) = {
    val project = UnsafeProjection.create(attributes.map(_.dataType).toArray)
    values.iterator.map { case (k, t, v) =>
      project(InternalRow(k, t, UTF8String.fromString(v))).copy()
    }
  }

  private def sweep(
      direction: AsofDirection,
      exact: Boolean,
      tolerance: Option[Long],
      l: Seq[(Int, Long, String)],
      r: Seq[(Int, Long, String)],
      memory: WindowMemory = new WindowMemory(TestMemory.taskMemoryManager(), "AsofJoin test")) = {
    // The keys' ordinals as the operator's sorters give them: in the order first seen, right
    // side first (the rows here are in that order).
    val ordinals = new KeyOrdinals
    val key = UnsafeProjection.create(Array[DataType](IntegerType))
    (r ++ l).foreach { case (k, _, _) => ordinals.assign(key(InternalRow(k))) }
    new AsofJoinSweep(
      rows(left, l),
      rows(right, r),
      Seq(left.head),
      Seq(right.head),
      left(1),
      right(1),
      direction,
      tolerance,
      exact,
      left,
      right,
      ordinals,
      memory,
      new SQLMetric("sum", 0L))
  }

  /** Each left row's name with the name of the right row it got (null for none). */
  private def chosen(rows: Iterator[InternalRow]): Seq[(String, String)] =
    rows.map(row =>
      (
        row.getUTF8String(2).toString,
        if (row.isNullAt(5)) null else row.getUTF8String(5).toString)).toSeq

  // The Scaladoc's example: right rows at 1, 3, 3, 6 of key 1 (ordered by their names at 3); a
  // left row at 3, then one at 4; a left row of key 2, which has no right rows.
  private val l = Seq((1, 3L, "at3"), (1, 4L, "at4"), (2, 0L, "other"))
  private val r = Seq((1, 1L, "r1"), (1, 3L, "r3a"), (1, 3L, "r3b"), (1, 6L, "r6"))

  test("the worked example, every direction, with and without exact matches and tolerance") {
    def check(
        direction: AsofDirection,
        exact: Boolean,
        tolerance: Option[Long],
        at3: String,
        at4: String): Unit =
      assert(
        chosen(sweep(direction, exact, tolerance, l, r)) ==
          Seq("at3" -> at3, "at4" -> at4, "other" -> null),
        (direction, exact, tolerance))
    check(Backward, exact = true, None, "r3b", "r3b")
    check(Backward, exact = false, None, "r1", "r3b")
    check(Forward, exact = true, None, "r3a", "r6")
    check(Forward, exact = false, None, "r6", "r6")
    check(Nearest, exact = true, None, "r3b", "r3b")
    check(Nearest, exact = false, None, "r1", "r3b")
    check(Nearest, exact = false, Some(1L), null, "r3b")
    check(Forward, exact = false, Some(2L), null, "r6")
  }

  test("a right row larger than the task's memory fails with Spark's error naming the key") {
    val memory = new WindowMemory(TestMemory.taskMemoryManager(1L << 20), "AsofJoin backward")
    val large = "x" * (2 << 20)
    val error = intercept[SparkOutOfMemoryError](
      sweep(Backward, exact = true, None, Seq((7, 5L, "a")), Seq((7, 1L, large)), memory).size)
    assert(
      error.getMessage.contains("eventwindows: AsofJoin backward holds") &&
        error.getMessage.contains("key (lk=7)"),
      error.getMessage)
  }
}
