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
 * The ASOF join's two consumers of the sorted right side alone: the merge, on rows sorted as the
 * operator's input is, and the probe ([[AsofJoinProbe]] over an [[AsofRightIndex]]), which reads
 * the left rows as they come. The worked example of their Scaladoc in every direction, the same
 * answers from both; right rows larger than the task's memory, for the merge (Spark's error) and
 * for the index (the rows given back, in their order).
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
      memory: WindowMemory = taskMemory()) = {
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

  private def taskMemory(bytes: Long = 1L << 30) =
    new WindowMemory(TestMemory.taskMemoryManager(bytes), "AsofJoin test")

  /** The index of right rows sorted as the right sorter gives them, or the rows given back. */
  private def index(r: Seq[(Int, Long, String)], memory: WindowMemory) = {
    // The keys' ordinals in the order first seen, as the right sorter gives them.
    val ordinals = new KeyOrdinals
    val key = UnsafeProjection.create(Array[DataType](IntegerType))
    r.foreach { case (k, _, _) => ordinals.assign(key(InternalRow(k))) }
    AsofRightIndex.build(
      rows(right, r),
      Seq(right.head),
      right(1),
      right,
      ordinals,
      memory,
      Long.MaxValue)
  }

  private def probe(
      direction: AsofDirection,
      exact: Boolean,
      tolerance: Option[Long],
      l: Seq[(Int, Long, String)],
      r: Seq[(Int, Long, String)]) = {
    val task = taskMemory()
    new AsofJoinProbe(
      rows(left, l),
      index(r, task).getOrElse(fail("the index was refused memory")),
      Seq(left.head),
      left(1),
      new AsofRule(direction, tolerance, exact),
      left,
      right,
      task,
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

  /** (direction, exact matches, tolerance) and the right rows chosen for the rows at 3 and 4. */
  private val answers = Seq(
    (Backward, true, None, "r3b", "r3b"),
    (Backward, false, None, "r1", "r3b"),
    (Forward, true, None, "r3a", "r6"),
    (Forward, false, None, "r6", "r6"),
    (Nearest, true, None, "r3b", "r3b"),
    (Nearest, false, None, "r1", "r3b"),
    (Nearest, false, Some(1L), null, "r3b"),
    (Forward, false, Some(2L), null, "r6"))

  test("the worked example, every direction, with and without exact matches and tolerance") {
    answers.foreach { case (direction, exact, tolerance, at3, at4) =>
      assert(
        chosen(sweep(direction, exact, tolerance, l, r)) ==
          Seq("at3" -> at3, "at4" -> at4, "other" -> null),
        (direction, exact, tolerance))
    }
  }

  test("the probe: the worked example's answers, the left rows in the order they come") {
    val unsorted = Seq(l(1), l(2), l(0))
    answers.foreach { case (direction, exact, tolerance, at3, at4) =>
      assert(
        chosen(probe(direction, exact, tolerance, unsorted, r)) ==
          Seq("at4" -> at4, "other" -> null, "at3" -> at3),
        (direction, exact, tolerance))
    }
  }

  test("right rows beyond the index's memory come back in their order, the memory given back") {
    // 1 MB for the task, 64 right rows of 32 KB: the index takes some, then is refused.
    val task = taskMemory(1L << 20)
    val large = (0 until 64).map(i => (i / 8, i.toLong, f"$i%02d" + "x" * (32 << 10)))
    val given = index(large, task) match {
      case Left(rows) => rows.map(_.getUTF8String(2).toString.take(2)).toList
      case Right(_) => fail("2 MB of right rows fit in 1 MB")
    }
    assert(given == (0 until 64).map(i => f"$i%02d").toList)
    assert(task.getUsed == 0)
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
