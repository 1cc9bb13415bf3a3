package io.eventwindows.execution.aggregate

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{CollectList, Count, First, Last, Max, Sum}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.eventwindows.TestMemory
import org.apache.spark.sql.types.LongType

/**
 * The segment tree against recomputation from scratch, on random appends (panes of one or more
 * rows), removals in any order and range queries, long enough to pack and grow the tree many
 * times across pages of buffers: buffers kept as bytes (sum, count, max, first, last) and as
 * objects (with collect_list, which also shows arrival order).
 */
class SlidingAggregatorSuite extends AnyFunSuite {

  private val v = AttributeReference("v", LongType)()
  private val functions = Seq(Sum(v), Count(Seq(v)), Max(v), First(v, ignoreNulls = false),
    Last(v, ignoreNulls = false), CollectList(v))

  private def buffersOf(withList: Boolean): AggregateBuffers = {
    val fs = if (withList) functions else functions.init
    new AggregateBuffers(fs, fs.map(_ => Literal.TrueLiteral), Seq(v))
  }

  /** The results over panes of values, in order, as the functions give them. */
  private def expected(values: Seq[java.lang.Long], withList: Boolean): Seq[Any] = {
    val present = values.filter(_ != null).map(_.longValue)
    Seq(if (present.isEmpty) null else present.sum, present.size.toLong,
      if (present.isEmpty) null else present.max, values.headOption.orNull,
      values.lastOption.orNull) ++ (if (withList) Seq(present) else Nil)
  }

  private def actual(row: InternalRow, withList: Boolean): Seq[Any] = Seq(
    if (row.isNullAt(0)) null else row.getLong(0), row.getLong(1),
    if (row.isNullAt(2)) null else row.getLong(2), if (row.isNullAt(3)) null else row.getLong(3),
    if (row.isNullAt(4)) null else row.getLong(4)) ++
    (if (withList) Seq(row.get(5, null).asInstanceOf[ArrayData].toLongArray().toSeq) else Nil)

  for ((layout, withList) <- Seq("bytes" -> false, "objects" -> true))
  test(s"random appends, removals and range queries agree with recomputation ($layout)") {
    val buffers = buffersOf(withList)
    assert(buffers.fixedWidth === !withList)
    val memory = new WindowMemory(TestMemory.taskMemoryManager(), "SlidingAggregatorSuite")
    val random = new Random(if (withList) 11 else 5)
    for (round <- 0 until 6) {
      val tree = new SlidingAggregator(buffers, memory, withTimes = true)
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
            if (random.nextInt(8) == 0) null else java.lang.Long.valueOf(random.nextInt(1000).toLong)
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
          assert(actual(tree.results(), withList) === expected(held.flatMap(_._3).toSeq, withList),
            where)
          if (held.nonEmpty) {
            assert(tree.oldest === held.head._1, where)
            assert(tree.newest === held.last._1, where)
            assert(tree.timeOf(tree.oldest) === held.head._2, where)
            val a = random.nextInt(held.size)
            val b = a + random.nextInt(held.size - a)
            assert(actual(tree.rangeResults(held(a)._1, held(b)._1), withList) ===
              expected(held.slice(a, b + 1).flatMap(_._3).toSeq, withList), s"$where range $a..$b")
          }
        }
      }
      held.foreach(h => tree.remove(h._1))
      tree.restart()
      assert(actual(tree.results(), withList) === expected(Nil, withList))
    }
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
