package io.eventwindows.execution.sweep

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.memory.SparkOutOfMemoryError
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.{
  FullOuter, Inner, JoinType, LeftAnti, LeftOuter, LeftSemi
}
import org.apache.spark.sql.eventwindows.TestMemory
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.{DataType, IntegerType, LongType}

import io.eventwindows.execution.aggregate.WindowMemory
import io.eventwindows.plans.JoinLifetime

/**
 * The range join's sweep alone, on rows sorted as the operator's input is: the worked example of
 * its Scaladoc by join type, replayed as a stream's processor drives it, and a key whose active
 * events outgrow the task's memory.
 */
class RangeJoinSweepSuite extends AnyFunSuite {

  private def side(name: String) = Seq(
    AttributeReference(s"${name}k", IntegerType)(),
    AttributeReference(s"${name}s", LongType)(),
    AttributeReference(s"${name}e", LongType)())
  private val (left, right) = (side("l"), side("r"))

  private def rows(attributes: Seq[AttributeReference], values: Seq[(Int, Long, Long)]) = {
    val project = UnsafeProjection.create(attributes.map(_.dataType).toArray)
    values.iterator.map { case (k, s, e) => project(InternalRow(k, s, e)).copy() }
  }

  private def sweep(
      joinType: JoinType,
      l: Seq[(Int, Long, Long)],
      r: Seq[(Int, Long, Long)],
      memory: WindowMemory = new WindowMemory(TestMemory.taskMemoryManager(), "RangeJoin test")) = {
    val output = joinType match {
      case LeftSemi | LeftAnti => left
      case _ => (left ++ right).map(_.withNullability(true))
    }
    // The keys' ordinals as the operator's sorters give them: in the order first seen, right
    // side first (the rows here are in that order).
    val ordinals = new KeyOrdinals
    val key = UnsafeProjection.create(Array[DataType](IntegerType))
    (r ++ l).foreach { case (k, _, _) => ordinals.assign(key(InternalRow(k))) }
    new RangeJoinSweep(
      rows(left, l),
      rows(right, r),
      Seq(left.head),
      Seq(right.head),
      JoinLifetime(left(1), left(2)),
      JoinLifetime(right(1), right(2)),
      None,
      joinType,
      left,
      right,
      output,
      ordinals,
      memory,
      new SQLMetric("sum", 0L))
  }

  private def collect(rows: Iterator[InternalRow], fields: Int): Set[Seq[Any]] =
    rows.map(row =>
      (0 until fields).map(i =>
        if (row.isNullAt(i)) null
        else row.get(
          i,
          if (i % 3 == 0) IntegerType else LongType))).toSet

  // The Scaladoc's example: a [0, 4] and c [6, 9] on the left, b [2, 7] on the right, one key;
  // d [20, 30] on the right and e [1, 2] of key 2 on the left meet nothing.
  private val l = Seq((1, 0L, 4L), (1, 6L, 9L), (2, 1L, 2L))
  private val r = Seq((1, 2L, 7L), (1, 20L, 30L))

  test("the worked example, by join type") {
    assert(collect(sweep(Inner, l, r), 6) ==
      Set(Seq(1, 0L, 4L, 1, 2L, 7L), Seq(1, 6L, 9L, 1, 2L, 7L)))
    assert(collect(sweep(FullOuter, l, r), 6) ==
      Set(
        Seq(1, 0L, 4L, 1, 2L, 7L),
        Seq(1, 6L, 9L, 1, 2L, 7L),
        Seq(2, 1L, 2L, null, null, null),
        Seq(null, null, null, 1, 20L, 30L)))
    assert(collect(sweep(LeftSemi, l, r), 3) == Set(Seq(1, 0L, 4L), Seq(1, 6L, 9L)))
    assert(collect(sweep(LeftAnti, l, r), 3) == Set(Seq(2, 1L, 2L)))
  }

  test("a replay meets only the pairs with a new event, emits no unmatched row, marks matches") {
    // The replay of the Scaladoc's example, with d [3, 5] new and f [20, 30] kept on the right:
    // a (kept) meets nothing new; b (kept) meets the left's new events (none); d (new) meets a;
    // c (new) evicts d (5 < 6) and meets b; f (kept) meets the left's new events (c has left).
    // The kept pair (a, b) was met before; f, unmatched, is the consumer's to emit or keep.
    val replaying = new RangeJoinSweep(
      Iterator.empty,
      Iterator.empty,
      Nil,
      Nil,
      JoinLifetime(left(1), left(2)),
      JoinLifetime(right(1), right(2)),
      None,
      FullOuter,
      left,
      right,
      (left ++ right).map(_.withNullability(true)),
      new KeyOrdinals,
      new WindowMemory(TestMemory.taskMemoryManager(), "RangeJoin test"),
      new SQLMetric("sum", 0L),
      replaying = true)
    val (leftSide, rightSide) =
      (new ReplayedSide(Array(true, false)), new ReplayedSide(Array(true, false, true)))
    val pairs = replaying.replay(
      rows(left, Seq((1, 0L, 4L), (1, 6L, 9L))),
      leftSide,
      rows(right, Seq((1, 2L, 7L), (1, 3L, 5L), (1, 20L, 30L))),
      rightSide)
    assert(collect(pairs, 6) == Set(Seq(1, 0L, 4L, 1, 3L, 5L), Seq(1, 6L, 9L, 1, 2L, 7L)))
    assert(leftSide.matched.toSeq == Seq(true, true))
    assert(rightSide.matched.toSeq == Seq(true, true, false))
    // The same sweep replays the next key from its start: all new, as a batch sweep would meet
    // them, but for the unmatched row.
    val (x, y) = (new ReplayedSide(Array(false)), new ReplayedSide(Array(false, false)))
    val next =
      replaying.replay(
        rows(left, Seq((2, 1L, 2L))),
        x,
        rows(right, Seq((2, 2L, 3L), (2, 5L, 6L))),
        y)
    assert(collect(next, 6) == Set(Seq(2, 1L, 2L, 2, 2L, 3L)))
    assert(x.matched.toSeq == Seq(true) && y.matched.toSeq == Seq(true, false))
  }

  test("an event no later event of the other side can meet is not kept") {
    // 100,000 left events at the same instant [0, 0] of key 7, the right side's one event of the
    // key starting later: none can meet it, so each leaves as it arrives (a left outer join's
    // unmatched row) instead of staying active to the key's end, which 1 MB would not hold.
    val memory = new WindowMemory(TestMemory.taskMemoryManager(1L << 20), "RangeJoin LeftOuter")
    val points = (0 until 100000).map(_ => (7, 0L, 0L))
    val out = sweep(LeftOuter, points, Seq((7, 1L, 2L)), memory)
      .map(row => (row.getInt(0), row.getLong(1), row.isNullAt(3)))
      .toSeq
    assert(out.size == points.size && out.forall(_ == ((7, 0L, true))))
    assert(memory.getUsed == 0)
  }

  test("a key with more active events than memory fails with Spark's error naming the key") {
    val memory = new WindowMemory(TestMemory.taskMemoryManager(1L << 20), "RangeJoin Inner")
    // 100,000 events of key 7 that all last to the end, where one of the right side starts: every
    // one stays active.
    val many = (0 until 100000).map(i => (7, i.toLong, Long.MaxValue))
    val last = Seq((7, Long.MaxValue - 1, Long.MaxValue))
    val error = intercept[SparkOutOfMemoryError](sweep(Inner, many, last, memory).size)
    assert(
      error.getMessage.contains(
        "eventwindows: RangeJoin Inner holds") && error.getMessage.contains("key (lk=7)"),
      error.getMessage)
  }
}
