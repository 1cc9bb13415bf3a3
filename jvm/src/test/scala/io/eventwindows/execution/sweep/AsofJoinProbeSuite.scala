package io.eventwindows.execution.sweep

import org.scalatest.funsuite.AnyFunSuite

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
 * The ASOF join's probe alone: the worked example of [[AsofJoinSweepSuite]] with the left rows in
 * another order (the probe reads them as they come), every direction; and the index given back as
 * rows, in their order, when the task's memory manager refuses it.
 */
class AsofJoinProbeSuite extends AnyFunSuite {

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

  private def memory(bytes: Long = 1L << 30) =
    new WindowMemory(TestMemory.taskMemoryManager(bytes), "AsofJoin test")

  /** The index of right rows sorted as the right sorter gives them, or the rows given back. */
  private def build(r: Seq[(Int, Long, String)], memory: WindowMemory) = {
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
      r: Seq[(Int, Long, String)]): Seq[(String, String)] = {
    val task = memory()
    val index = build(r, task).getOrElse(fail("the index was refused memory"))
    new AsofJoinProbe(
      rows(left, l),
      index,
      Seq(left.head),
      left(1),
      new AsofRule(direction, tolerance, exact),
      left,
      right,
      task,
      new SQLMetric("sum", 0L)).map(row =>
      (
        row.getUTF8String(2).toString,
        if (row.isNullAt(5)) null else row.getUTF8String(5).toString)).toSeq
  }

  // Right rows at 1, 3, 3, 6 of key 1 (ordered by their names at 3); left rows at 4, of key 2
  // (which has no right rows) and at 3, in that order.
  private val l = Seq((1, 4L, "at4"), (2, 0L, "other"), (1, 3L, "at3"))
  private val r = Seq((1, 1L, "r1"), (1, 3L, "r3a"), (1, 3L, "r3b"), (1, 6L, "r6"))

  test("the worked example, every direction, with and without exact matches and tolerance") {
    def check(
        direction: AsofDirection,
        exact: Boolean,
        tolerance: Option[Long],
        at3: String,
        at4: String): Unit =
      assert(
        probe(direction, exact, tolerance, l, r) ==
          Seq("at4" -> at4, "other" -> null, "at3" -> at3),
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

  test("right rows beyond the task's memory come back in their order, the memory given back") {
    // 1 MB for the task, 64 right rows of 32 KB: the index takes some, then is refused.
    val task = memory(1L << 20)
    val large = (0 until 64).map(i => (i / 8, i.toLong, f"$i%02d" + "x" * (32 << 10)))
    val given = build(large, task) match {
      case Left(rows) => rows.map(_.getUTF8String(2).toString.take(2)).toList
      case Right(_) => fail("2 MB of right rows fit in 1 MB")
    }
    assert(given == (0 until 64).map(i => f"$i%02d").toList)
    assert(task.getUsed == 0)
  }
}
