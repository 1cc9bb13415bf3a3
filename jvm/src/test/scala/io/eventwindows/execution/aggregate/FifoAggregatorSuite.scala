package io.eventwindows.execution.aggregate

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{CollectList, Count, First, Max, Sum}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.eventwindows.TestMemory
import org.apache.spark.sql.types.LongType

import io.eventwindows.SlowTest

/**
 * The two-stacks aggregator against recomputation from scratch, on random sequences of adds,
 * includes and evictions, with declarative (sum, count, max, first) and imperative (collect_list,
 * which also shows that arrival order is kept) functions: buffers kept as objects (with
 * collect_list) and as bytes (without).
 */
class FifoAggregatorSuite extends AnyFunSuite {

  private val v = AttributeReference("v", LongType)()
  private val functions = Seq(
    Sum(v),
    Count(Seq(v)),
    Max(v),
    First(v, ignoreNulls = false),
    CollectList(v))
  private val buffers =
    new AggregateBuffers(functions, functions.map(_ => Literal.TrueLiteral), Seq(v))
  private val fixedWidth = new AggregateBuffers(
    functions.init,
    functions.init.map(_ => Literal.TrueLiteral),
    Seq(v))
  private val memory = new WindowMemory(TestMemory.taskMemoryManager(), "FifoAggregatorSuite")

  test("buffers without objects are kept as bytes") {
    assert(!buffers.fixedWidth)
    assert(fixedWidth.fixedWidth)
  }

  private def expected(values: Seq[java.lang.Long], withList: Boolean = true): Seq[Any] = {
    val present = values.filter(_ != null).map(_.longValue)
    Seq(
      if (present.isEmpty) null else present.sum,
      present.size.toLong,
      if (present.isEmpty) null else present.max,
      values.headOption.orNull) ++
      (if (withList) Seq(present) else Nil)
  }

  private def actual(row: InternalRow, withList: Boolean = true): Seq[Any] = Seq(
    if (row.isNullAt(0)) null else row.getLong(0),
    row.getLong(1),
    if (row.isNullAt(2)) null else row.getLong(2),
    if (row.isNullAt(3)) null else row.getLong(3)) ++
    (if (withList) Seq(row.get(4, null).asInstanceOf[ArrayData].toLongArray().toSeq) else Nil)

  for ((layout, withList) <- Seq("objects" -> true, "bytes" -> false))
    test(s"random adds, includes and evictions agree with recomputation ($layout)", SlowTest) {
      val random = new Random(42)
      for (round <- 0 until 200) {
        val fifo = new FifoAggregator(if (withList) buffers else fixedWidth, memory)
        val held = scala.collection.mutable.ArrayBuffer.empty[java.lang.Long]
        var included = 0
        for (step <- 0 until 300) {
          random.nextInt(10) match {
            case 0 | 1 | 2 | 3 =>
              val value: java.lang.Long =
                if (random.nextInt(8) == 0) null else random.nextInt(100).toLong
              fifo.add(step, InternalRow(value))
              held += value
            case 4 | 5 | 6 if included < held.size =>
              fifo.include()
              included += 1
            case 7 | 8 if included > 0 =>
              fifo.evict()
              held.remove(0)
              included -= 1
            case 9 if round % 2 == 0 && random.nextInt(20) == 0 =>
              fifo.clear()
              held.clear()
              included = 0
            case _ =>
          }
          assert(fifo.isEmpty === (included == 0))
          assert(
            actual(fifo.results(), withList) === expected(held.take(included).toSeq, withList),
            s"round $round step $step")
        }
      }
    }

  test("seeded with the merge of a prefix, through bytes, it continues as if it held the prefix") {
    val random = new Random(7)
    for (round <- 0 until 100) {
      val values: Seq[java.lang.Long] = Seq.fill(1 + random.nextInt(60)) {
        if (random.nextInt(8) == 0) null else java.lang.Long.valueOf(random.nextInt(100).toLong)
      }
      val whole = new FifoAggregator(buffers, memory)
      var continued = new FifoAggregator(buffers, memory)
      val seedAt = random.nextInt(values.size)
      for ((value, i) <- values.zipWithIndex) {
        if (i == seedAt) {
          // What a stream keeps in state: the bytes of the merged buffer of the first messages.
          val bytes = buffers.serialize(continued.merged)
          continued = new FifoAggregator(buffers, memory)
          continued.seed(i, buffers.deserialize(bytes))
        }
        for (fifo <- Seq(whole, continued)) {
          fifo.add(i, InternalRow(value))
          fifo.include()
        }
        assert(continued.tailIndex === i + 1)
        assert(actual(continued.results()) === actual(whole.results()), s"round $round step $i")
        assert(actual(continued.results()) === expected(values.take(i + 1)))
      }
      if (seedAt > 0) {
        val message = intercept[IllegalArgumentException](continued.evict()).getMessage
        assert(message.contains("a seeded aggregator cannot evict"), message)
      }
    }
  }
}
