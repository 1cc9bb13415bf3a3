package io.eventwindows.execution.aggregate

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  CollectList, Count, First, Last, Max, Sum
}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.eventwindows.TestMemory
import org.apache.spark.sql.types.LongType

import io.eventwindows.SlowTest

/**
 * The sliding aggregate against recomputation from scratch, on random appends (panes of one or
 * more rows), removals in any order and range queries
 * (their ends anywhere in their blocks), long enough to pack and grow the tree many times across
 * blocks and pages of buffers, then restarted: buffers kept as bytes (sum, count, max, first,
 * last) and as objects (with collect_list, which also shows arrival order).
 */
class SlidingAggregatorSuite extends AnyFunSuite {

  private val v = AttributeReference("v", LongType)()
  private val functions = Seq(
    Sum(v),
    Count(Seq(v)),
    Max(v),
    First(v, ignoreNulls = false),
    Last(v, ignoreNulls = false),
    CollectList(v))

  private def buffersOf(withList: Boolean): AggregateBuffers = {
    val fs = if (withList) functions else functions.init
    new AggregateBuffers(fs, fs.map(_ => Literal.TrueLiteral), Seq(v))
  }

  /** The results over panes of values, in order, as the functions give them. */
  private def expected(values: Seq[java.lang.Long], withList: Boolean): Seq[Any] = {
    val present = values.filter(_ != null).map(_.longValue)
    Seq(
      if (present.isEmpty) null else present.sum,
      present.size.toLong,
      if (present.isEmpty) null else present.max,
      values.headOption.orNull,
      values.lastOption.orNull) ++ (if (withList) Seq(present) else Nil)
  }

  private def actual(row: InternalRow, withList: Boolean): Seq[Any] = Seq(
    if (row.isNullAt(0)) null else row.getLong(0),
    row.getLong(1),
    if (row.isNullAt(2)) null else row.getLong(2),
    if (row.isNullAt(3)) null else row.getLong(3),
    if (row.isNullAt(4)) null else row.getLong(4)) ++
    (if (withList) Seq(row.get(5, null).asInstanceOf[ArrayData].toLongArray().toSeq) else Nil)

  for ((layout, withList) <- Seq("bytes" -> false, "objects" -> true))
    test(
      s"random appends, removals and range queries agree with recomputation ($layout)",
      SlowTest) {
      val buffers = buffersOf(withList)
      assert(buffers.fixedWidth === !withList)
      val memory = new WindowMemory(TestMemory.taskMemoryManager(), "SlidingAggregatorSuite")
      val random = new Random(if (withList) 11 else 5)
      val tree = new SlidingAggregator(buffers, memory, withTimes = true)
      val restarted = mutable.Set.empty[Long]
      for (round <- 0 until 6) {
        // The live entries, in arrival order: entry, time, its pane of values.
        val held = mutable.ArrayBuffer.empty[(Long, Long, Seq[java.lang.Long])]
        // Phases that grow the contents to thousands of entries, then shrink them.
        val target = Seq(3000, 40, 2500, 0, 1200)
        for ((size, phase) <- target.zipWithIndex; step <- 0 until 2000) {
          val grow = held.size < size || (held.size == size && random.nextBoolean())
          if (grow || held.isEmpty) {
            val time = round * 100000L + phase * 10000L + step
            val entry = tree.append(time)
            val pane = Seq.fill(1 + random.nextInt(3)) {
              if (random.nextInt(8) == 0) null
              else java.lang.Long.valueOf(random.nextInt(1000).toLong)
            }
            pane.foreach(value => tree.update(entry, InternalRow(value)))
            tree.seal(entry)
            held += ((entry, time, pane))
          } else {
            // Mostly near the front, as events leave windows, sometimes anywhere.
            val i = if (random.nextInt(4) == 0) random.nextInt(held.size)
            else random.nextInt(Math.min(held.size, 8))
            tree.remove(held.remove(i)._1)
          }
          if (step % 7 == 0 || held.size < 3) {
            val where = s"round $round phase $phase step $step (${held.size} entries)"
            assert(tree.isEmpty === held.isEmpty, where)
            assert(
              actual(tree.results(), withList) === expected(held.flatMap(_._3).toSeq, withList),
              where)
            if (held.nonEmpty) {
              assert(tree.oldest === held.head._1, where)
              assert(tree.newest === held.last._1, where)
              assert(tree.timeOf(tree.oldest) === held.head._2, where)
              val a = random.nextInt(held.size)
              val b = a + random.nextInt(held.size - a)
              assert(
                actual(tree.rangeResults(held(a)._1, held(b)._1), withList) ===
                  expected(held.slice(a, b + 1).flatMap(_._3).toSeq, withList),
                s"$where range $a..$b")
            }
          }
        }
        held.foreach(h => tree.remove(h._1))
        tree.restart()
        assert(actual(tree.results(), withList) === expected(Nil, withList))
        // What the thousands of entries took is given back: every restart leaves the same.
        restarted += memory.getUsed
        assert(restarted.size === 1, s"round $round: $restarted")
      }
    }

  test("entries sealed out of arrival order are merged in arrival order") {
    def panes(values: Long*): Seq[java.lang.Long] = values.map(java.lang.Long.valueOf)
    for (withList <- Seq(false, true)) {
      val memory = new WindowMemory(TestMemory.taskMemoryManager(), "SlidingAggregatorSuite")
      val tree = new SlidingAggregator(buffersOf(withList), memory)
      val Seq(a, b, c) = Seq(1L, 2L, 3L).map { value =>
        val entry = tree.append(value)
        tree.update(entry, InternalRow(value))
        entry
      }
      tree.seal(c)
      assert(actual(tree.results(), withList) === expected(panes(3L), withList))
      tree.seal(a)
      assert(actual(tree.results(), withList) === expected(panes(1L, 3L), withList))
      tree.seal(b)
      assert(actual(tree.results(), withList) === expected(panes(1L, 2L, 3L), withList))
      assert(actual(tree.rangeResults(b, c), withList) === expected(panes(2L, 3L), withList))
    }
  }

  test("a large aggregator (blocks of 16) agrees with recomputation and holds a buffer per " +
    "entry and a fraction of one for the tree") {
    val buffers = buffersOf(withList = false)
    val slotBytes = 8L * buffers.initialWords.length
    val memory = new WindowMemory(TestMemory.taskMemoryManager(), "SlidingAggregatorSuite")
    val tree = new SlidingAggregator(buffers, memory)
    val random = new Random(3)
    // Entry i holds the value i.
    val held = mutable.ArrayBuffer.empty[Long]
    def add(count: Int): Unit = for (_ <- 0 until count) {
      val entry = tree.append(0L)
      tree.update(entry, InternalRow(entry))
      tree.seal(entry)
      held += entry
    }
    def check(): Unit = {
      assert(
        actual(tree.results(), withList = false) ===
          expected(held.map(java.lang.Long.valueOf).toSeq, withList = false),
        s"${held.size} entries")
      for (_ <- 0 until 8) {
        val a = random.nextInt(held.size)
        val b = a + random.nextInt(Math.min(held.size - a, 100))
        val c = a + random.nextInt(held.size - a)
        for (last <- Seq(b, c)) {
          assert(
            actual(tree.rangeResults(held(a), held(last)), withList = false) ===
              expected(held.slice(a, last + 1).map(java.lang.Long.valueOf).toSeq, withList = false),
            s"range $a..$last of ${held.size}")
        }
      }
    }
    val n = 100000
    add(n)
    check()
    // Leaves and the tree over blocks, with up to a page of buffers (1024) per level of the tree
    // left partly used, a long per entry and the live bits, counts and flags of a capacity
    // under twice the entries; where a full binary tree over the leaves would take twice the
    // leaves' bytes.
    val bound = n * (slotBytes + 2 * slotBytes / 16 + 8 + 1) + 32 * 1024 * slotBytes
    assert(memory.getUsed <= bound, s"${memory.getUsed} bytes held for $n entries")
    // Two thirds leave, anywhere; the rest stay through packing as more arrive.
    val leaving = held.filter(_ => random.nextInt(3) > 0)
    leaving.foreach(tree.remove)
    // Not `held --= leaving`: that searches the buffer once per entry removed.
    val left = leaving.toSet
    held.filterInPlace(e => !left.contains(e))
    check()
    add(n)
    check()
  }

  test("a task that cannot reserve the memory fails with Spark's out-of-memory error naming " +
    "the operator and what it holds") {
    val memory = new WindowMemory(TestMemory.taskMemoryManager(4L << 20), "EventWindowAggregate x")
    memory.holder = () => "the window contents of the key (k=7)"
    val tree = new SlidingAggregator(buffersOf(withList = false), memory)
    val error = intercept[org.apache.spark.memory.SparkOutOfMemoryError] {
      for (i <- 0 until 10000000) tree.seal(tree.append(i))
    }
    assert(error.getCondition === "UNABLE_TO_ACQUIRE_MEMORY")
    assert(error.getMessage.contains("EventWindowAggregate x holds"), error.getMessage)
    assert(error.getMessage.contains("the window contents of the key (k=7)"), error.getMessage)
  }
}
