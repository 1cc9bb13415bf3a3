package io.eventwindows.execution.slices

import scala.util.Random

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.logical.RepartitionByExpression
import org.apache.spark.sql.execution.{SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeExec, ShuffleExchangeExec}
import org.apache.spark.sql.types.{DataType, IntegerType, LongType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import io.eventwindows.{EventWindowsSuite, SlowTest}
import io.eventwindows.analysis.SliceAnchorWindows
import io.eventwindows.conf.EventWindowsConf
import io.eventwindows.errors.EventWindowsInputException
import io.eventwindows.execution.{
  AnchorSliceAggregateExec, AnchorWindowResultsExec, EventWindowAggregateExec
}
import io.eventwindows.plans.{AnchorWindowAggregate, Bounds}

/**
 * Dynamic windows with the messages folded into slices before the shuffle
 * ([[SliceAnchorWindows]]): the three plans (slices between broadcast boundaries, one slice per
 * message time when the anchors are too large to broadcast, and the sweep over every message) are
 * compared with a brute-force reference on random inputs, for each bounds.
 */
class AnchorSlicesSuite extends EventWindowsSuite with AdaptiveSparkPlanHelper {
  import AnchorSlicesSuite._

  private lazy val session = spark
  import session.implicits._

  test("boundaries: ticks are integers, an end beyond the line has none") {
    val max = Long.MaxValue
    assert(AnchorEndpoints.boundaries(2, 5, Bounds("[]")) === Seq(2L, 6L))
    assert(AnchorEndpoints.boundaries(2, 5, Bounds("[)")) === Seq(2L, 5L))
    assert(AnchorEndpoints.boundaries(2, 5, Bounds("(]")) === Seq(3L, 6L))
    assert(AnchorEndpoints.boundaries(2, 5, Bounds("()")) === Seq(3L, 5L))
    assert(AnchorEndpoints.boundaries(max, max, Bounds("[]")) === Seq(max))
    assert(AnchorEndpoints.boundaries(max, max, Bounds("(]")) === Nil)
  }

  private val intKeys = AnchorEndpointsMode(
    Seq(BoundReference(0, IntegerType, nullable = true)),
    BoundReference(1, LongType, nullable = true),
    BoundReference(2, LongType, nullable = true),
    Bounds("[]"),
    None)

  test("endpoints: slices are numbered key after key, a time finds the slice that holds it") {
    // Key 7: [2, 5] and [4, 8] -> boundaries 2, 4, 6, 9; key NULL: [0, 0] -> 0, 1; key 3: none.
    val anchors = Seq[(Integer, Long, Long)]((7, 2, 5), (null, 0, 0), (7, 4, 8), (3, 5, 1))
      .map { case (k, s, e) => InternalRow(k, s, e) }
    val endpoints =
      new AnchorEndpoints.Reader(Seq(IntegerType)).read(intKeys.transform(anchors.toArray))
    assert(endpoints.keyCount === 2 && endpoints.sliceCount === 6 && endpoints.anchorCount === 0)
    assert(endpoints.ordinalOfValue(3) === -1 && endpoints.ordinalOfValue(8) === -1)
    val seven = endpoints.ordinalOfValue(7)
    val slices = Seq(1L, 2L, 3L, 4L, 8L, 9L, Long.MaxValue).map(endpoints.sliceOf(seven, _))
    assert(slices.tail.map(endpoints.sliceStart) === Seq(2L, 2L, 4L, 6L, 9L, 9L))
    assert(slices.head === -1)
    val none = endpoints.ordinalOfNull
    assert(Seq(-1L, 0L, 1L).map(endpoints.sliceOf(none, _)).map {
      case -1 => None
      case i => Some(endpoints.sliceStart(i))
    } === Seq(None, Some(0L), Some(1L)))
  }

  test("anchors broadcast: numbered by start, end and bytes whatever their order, each a run of " +
    "its key's slices; a bad anchor is an error naming it") {
    val rowType = StructType.fromDDL("id STRING")
    val mode = intKeys.copy(
      bounds = Bounds("[)"),
      anchor = Some(BoundReference(3, rowType, nullable = false)))
    val toRow = UnsafeProjection.create(Array[DataType](IntegerType, LongType, LongType, rowType))
    def row(k: Integer, s: java.lang.Long, e: java.lang.Long, id: String): InternalRow =
      toRow(InternalRow(k, s, e, InternalRow(UTF8String.fromString(id)))).copy()
    // Key 1: [2, 6), [4, 9), [4, 4) -> boundaries 2, 4, 6, 9; key 2: [0, MAX) -> 0, MAX.
    val anchors = Seq(
      row(1, 4, 9, "b"),
      row(2, 0, Long.MaxValue, "z"),
      row(1, 4, 4, "e"),
      row(1, 2, 6, "a"),
      row(1, 4, 9, "a"))
    def ids(rows: Array[InternalRow]) = rows.tail.map(_.getStruct(3, 1).getUTF8String(0).toString)
    val broadcast = mode.transform(anchors.toArray)
    assert(ids(broadcast).toSeq === Seq("z", "a", "e", "a", "b"))
    assert(ids(mode.transform(anchors.reverse.toArray)).toSeq === ids(broadcast).toSeq)
    val endpoints = new AnchorEndpoints.Reader(Seq(IntegerType)).read(broadcast)
    def starts(a: Int) = (endpoints.firstSliceOf(a) to endpoints.lastSliceOf(a))
      .map(endpoints.sliceStart)
    assert((0 until endpoints.anchorCount).map(starts) ===
      Seq(Seq(0L), Seq(2L, 4L), Nil, Seq(4L, 6L), Seq(4L, 6L)))
    // A bad anchor does not fail the broadcast (every stage reusing it would fail with it): the
    // tasks that read it do, naming the anchor.
    for ((s, e, what) <- Seq[(java.lang.Long, java.lang.Long, String)](
        (5L, 4L, "an end before its start"),
        (null, 4L, "a NULL start or end"))) {
      val bad = mode.transform((anchors :+ row(1, s, e, "bad-17")).toArray)
      val error = intercept[EventWindowsInputException] {
        new AnchorEndpoints.Reader(Seq(IntegerType)).read(bad)
      }
      assert(error.getMessage.contains(s"the anchor (id=bad-17) has $what"), error.getMessage)
    }
  }

  test("slice directory: the slice of any time is the binary search's, also where boundaries " +
    "crowd or span the whole line") {
    val rng = new Random(5)
    val special =
      Seq(Long.MinValue, Long.MinValue + 1, -1L, 0L, 1L, Long.MaxValue - 1, Long.MaxValue)
    val keys = Seq.fill(40) {
      val n = 1 + rng.nextInt(60)
      val points = rng.nextInt(4) match {
        case 0 => Seq.fill(n)(rng.nextLong()) // across the line
        case 1 => Seq.fill(n)(rng.nextInt(50).toLong) // crowded
        case 2 => Seq.fill(n)(1000L + rng.nextInt(3)) ++ Seq(1L << 40) // one crowded bucket
        case _ => special.filter(_ => rng.nextBoolean()) :+ rng.nextLong()
      }
      points.distinct.sorted.toArray
    }
    val directory = new SliceDirectory(keys.flatten.toArray, keys.scanLeft(0)(_ + _.length).toArray)
    for ((points, o) <- keys.zipWithIndex) {
      val first = keys.take(o).map(_.length).sum
      val times = special ++ points ++ points.map(_ - 1) ++ points.map(_ + 1) ++
        Seq.fill(200)(rng.nextLong()) ++ Seq.fill(200)(rng.nextInt(60).toLong)
      for (t <- times) {
        val i = java.util.Arrays.binarySearch(points, t)
        val expected = if (i >= 0) i else -i - 2
        assert(
          directory.floor(o, t) === (if (expected < 0) -1 else first + expected),
          s"time $t in ${points.mkString(", ")}")
      }
    }
  }

  test("long ordinals: every key found, others not, including 0 and the ends of the line") {
    val keys = (Seq(0L, -1L, Long.MinValue, Long.MaxValue) ++ (1L to 300L).map(_ * 1024)).distinct
    val ordinals = new LongOrdinals(keys.map(Some(_)).toArray :+ None)
    assert(keys.zipWithIndex.forall { case (k, i) => ordinals.ordinalOf(k) == i })
    assert(Seq(1L, 1023L, -2L, Long.MaxValue - 1).forall(ordinals.ordinalOf(_) == -1))
    assert(ordinals.ordinalOfNull === keys.size)
    assert(new LongOrdinals(Array()).ordinalOf(0) === -1)
  }

  private val aggregates = "count(*) AS n, count(v) AS nv, sum(v) AS total, min(v) AS lo, " +
    "max(v) AS hi, avg(v) AS mean, sum(v) FILTER (WHERE v > 3) AS big"

  private def query(bounds: String): DataFrame = sql(
    s"""SELECT id, window.start AS ws, window.end AS we, n, nv, total, lo, hi, mean, big
       |FROM dynamic_window(TABLE(anchors), TABLE(messages), 't', 's', 'e', '$aggregates', 'k',
       |                    '$bounds')""".stripMargin)

  /** The plans to compare: name, confs. */
  private val plans = Seq(
    "broadcast slices" -> Nil,
    // Two broadcasts of the anchors, one per operator: they number the anchors alike.
    "broadcast slices, no adaptive execution, no exchange reuse" -> Seq(
      "spark.sql.adaptive.enabled" -> "false",
      "spark.sql.exchange.reuse" -> "false"),
    "a slice per message time" -> Seq("spark.sql.autoBroadcastJoinThreshold" -> "-1"),
    "the sweep over every message" -> Seq(EventWindowsConf.SliceDynamicWindows -> "false"))

  for (bounds <- Bounds.all.map(_.sqlName); seed <- 1 to 3) {
    test(
      s"random messages and anchors, bounds $bounds, seed $seed: every plan is the reference",
      SlowTest) {
      val rng = new Random(seed * 31 + bounds.hashCode)
      val (messages, anchors) = randomInput(rng)
      spark.sparkContext.parallelize(messages, 3).toDF("k", "t", "v")
        .createOrReplaceTempView("messages")
      anchors.toDF("k", "id", "s", "e").createOrReplaceTempView("anchors")
      val expected = reference(messages, anchors, Bounds(bounds))
      assert(expected.exists(_(3) == 0L) && expected.exists(_(3).asInstanceOf[Long] > 2L))
      for ((name, confs) <- plans) withConf(confs: _*) {
        val actual = rows(query(bounds)).sortBy(_.head.asInstanceOf[Int])
        assert(actual === expected, s"($name)")
      }
    }
  }

  test("the plan: anchors broadcast, a partial aggregate per anchor in whole-stage codegen, " +
    "Spark's final aggregate by anchor, no join") {
    Seq((Option(1), 1L, Option(1L)), (Some(1), 5L, Some(2L))).toDF("k", "t", "v")
      .createOrReplaceTempView("messages")
    Seq((Option(1), 1, 0L, 3L), (Some(2), 2, 0L, 9L)).toDF("k", "id", "s", "e")
      .createOrReplaceTempView("anchors")
    val df = query("[]")
    assert(rows(df).map(_.take(4)) === Seq(Seq(1, 0L, 3L, 1L), Seq(2, 0L, 9L, 0L)))
    assert(df.queryExecution.optimizedPlan.collect { case a: AnchorWindowAggregate => a }.size ===
      1)
    val plan = df.queryExecution.executedPlan
    assert(collect(plan) { case b: BroadcastExchangeExec => b }.size === 1, plan)
    val codegen = collect(plan) { case w: WholeStageCodegenExec => w }
    assert(codegen.exists(_.child.exists(_.isInstanceOf[AnchorSliceAggregateExec])), plan)
    assert(collect(plan) { case r: AnchorWindowResultsExec => r }.size === 1, plan)
    assert(
      collect(plan) { case h: HashAggregateExec => h }.map(_.groupingExpressions.map(_.name))
        === Seq(Seq("anchor")),
      plan)
    assert(collect(plan) { case e: EventWindowAggregateExec => e }.isEmpty, plan)
    assert(!plan.toString.contains("Join"), plan)
  }

  test("anchors Spark cannot size (an RDD): measured by adaptive execution, then broadcast or " +
    "swept over by their size; without adaptive execution, swept over") {
    val (messages, anchors) = randomInput(new Random(7))
    spark.sparkContext.parallelize(messages, 3).toDF("k", "t", "v")
      .createOrReplaceTempView("messages")
    spark.sparkContext.parallelize(anchors, 2).toDF("k", "id", "s", "e")
      .createOrReplaceTempView("anchors")
    val expected = reference(messages, anchors, Bounds("[]"))
    def run(): (Seq[Seq[Any]], SparkPlan) = {
      val df = query("[]")
      val result = rows(df).sortBy(_.head.asInstanceOf[Int])
      (result, df.queryExecution.executedPlan)
    }
    def operators(plan: SparkPlan): Seq[String] = collect(plan) {
      case _: AnchorSliceAggregateExec => "broadcast"
      case _: EventWindowAggregateExec => "sweep"
    }
    val (measured, broadcast) = run()
    assert(measured === expected)
    assert(operators(broadcast) === Seq("broadcast"), broadcast)
    assert(query("[]").queryExecution.optimizedPlan.collectFirst {
      case a: AnchorWindowAggregate => a.anchors
    }.exists(_.isInstanceOf[RepartitionByExpression]))
    withConf("spark.sql.adaptive.autoBroadcastJoinThreshold" -> "10") {
      val (tooLarge, sweep) = run()
      assert(tooLarge === expected)
      assert(operators(sweep) === Seq("sweep"), sweep)
    }
    withConf("spark.sql.adaptive.enabled" -> "false") {
      val (unknown, sweep) = run()
      assert(unknown === expected)
      assert(operators(sweep) === Seq("sweep"), sweep)
      assert(collect(sweep) { case e: ShuffleExchangeExec => e }.size === 1, sweep)
    }
  }

  test("messages over several partitions, the first empty: every anchor once, as the reference") {
    val (messages, anchors) = randomInput(new Random(5))
    val context = spark.sparkContext
    val partitions = context.parallelize(Seq.empty[Message], 1) ++ context.parallelize(messages, 3)
    partitions.toDF("k", "t", "v").createOrReplaceTempView("messages")
    anchors.toDF("k", "id", "s", "e").createOrReplaceTempView("anchors")
    val plan = query("[)").queryExecution.executedPlan
    assert(plan.toString.contains("AnchorSliceAggregate"), plan)
    assert(partitions.getNumPartitions === 4 && partitions.partitions.head.index === 0)
    assert(rows(query("[)")).sortBy(_.head.asInstanceOf[Int]) ===
      reference(messages, anchors, Bounds("[)")))
  }

  test("intervals over more slices with messages than the direct fold takes: the segment tree " +
    "gives the reference's rows") {
    // A message at every time 0-299, point anchors at the even ones (a slice per time) and long
    // nested intervals over up to 300 slices.
    val messages: Seq[Message] = (0 until 300).map(t =>
      (Some(1), Some(t.toLong), Some(t * 7 % 23 - 5L)))
    val anchors: Seq[Anchor] = (0 until 150).map(i => (Option(1), i, 2L * i, 2L * i)) ++
      Seq((Some(1), 150, 0L, 299L), (Some(1), 151, 5L, 250L), (Some(1), 152, -10L, 400L))
    assert(AnchorPartials.DirectFold < 240)
    spark.sparkContext.parallelize(messages, 2).toDF("k", "t", "v")
      .createOrReplaceTempView("messages")
    anchors.toDF("k", "id", "s", "e").createOrReplaceTempView("anchors")
    for (bounds <- Seq("[]", "()")) {
      assert(query(bounds).queryExecution.executedPlan.toString.contains("AnchorSliceAggregate"))
      assert(
        rows(query(bounds)).sortBy(_.head.asInstanceOf[Int]) ===
          reference(messages, anchors, Bounds(bounds)),
        bounds)
    }
  }

  test("string keys, big decimals (updated in place) and a string max (not): the range join's " +
    "answer") {
    val (messages, anchors) = randomInput(new Random(11))
    messages.toDF("k", "t", "v").selectExpr("CAST(k AS STRING) AS k", "t", "v")
      .createOrReplaceTempView("messages")
    anchors.toDF("k", "id", "s", "e").selectExpr("CAST(k AS STRING) AS k", "id", "s", "e")
      .createOrReplaceTempView("anchors")
    val dense = "count(v) AS n, sum(CAST(v AS DECIMAL(30, 2))) AS total, " +
      "avg(CAST(v AS DECIMAL(30, 2))) AS mean"
    val hashed = "count(v) AS n, max(CAST(v AS STRING)) AS hi"
    for (bounds <- Seq("[)", "(]");
      (aggregates, exec) <- Seq(
        dense -> "AnchorSliceAggregate",
        hashed -> "AnchorSlices")) {
      val df = sql(s"""SELECT id, * EXCEPT (id, k, s, e, window)
                      |FROM dynamic_window(TABLE(anchors), TABLE(messages), 't', 's', 'e',
                      |                    '$aggregates', 'k', '$bounds') ORDER BY id""".stripMargin)
      assert(df.queryExecution.executedPlan.toString.contains(exec + " "))
      val (lo, hi) = (if (bounds.head == '[') ">=" else ">", if (bounds.last == ']') "<=" else "<")
      val joined = sql(s"""SELECT id, ${aggregates.replace("(v", "(m.v")}
                          |FROM anchors a LEFT JOIN messages m
                          |  ON a.k <=> m.k AND m.t $lo a.s AND m.t $hi a.e
                          |GROUP BY id ORDER BY id""".stripMargin)
      assert(rows(df) === rows(joined), s"$bounds $aggregates")
    }
  }

  test("no anchors: no slices, no buffers, no rows; no messages: every anchor with count 0") {
    Seq((Option(1), 1L, Option(1L))).toDF("k", "t", "v").createOrReplaceTempView("messages")
    Seq.empty[(Option[Int], Int, Long, Long)].toDF("k", "id", "s", "e")
      .createOrReplaceTempView("anchors")
    assert(rows(query("[]")).isEmpty)
    Seq.empty[(Option[Int], Long, Option[Long])].toDF("k", "t", "v")
      .createOrReplaceTempView("messages")
    Seq((Option(1), 1, 0L, 3L)).toDF("k", "id", "s", "e").createOrReplaceTempView("anchors")
    assert(rows(query("[]")).map(_.take(5)) === Seq(Seq(1, 0L, 3L, 0L, 0L)))
  }

  test("order-sensitive aggregates (first, collect_list) keep the sweep over every message") {
    Seq((Option(1), 1L, Option(1L)), (Some(1), 2L, Some(2L))).toDF("k", "t", "v")
      .createOrReplaceTempView("messages")
    Seq((Option(1), 1, 0L, 3L)).toDF("k", "id", "s", "e").createOrReplaceTempView("anchors")
    val df = sql("""SELECT id, f, vs FROM dynamic_window(TABLE(anchors), TABLE(messages), 't',
                   |  's', 'e', 'first(v) AS f, collect_list(v) AS vs', 'k')""".stripMargin)
    assert(rows(df) === Seq(Seq(1, 1L, Seq(1L, 2L))))
    assert(!df.queryExecution.optimizedPlan.toString.contains("AnchorSlices"))
  }

  test("without whole-stage codegen the slices are the same") {
    val (messages, anchors) = randomInput(new Random(7))
    messages.toDF("k", "t", "v").createOrReplaceTempView("messages")
    anchors.toDF("k", "id", "s", "e").createOrReplaceTempView("anchors")
    val actual = withConf("spark.sql.codegen.wholeStage" -> "false") {
      rows(query("(]")).sortBy(_.head.asInstanceOf[Int])
    }
    assert(actual === reference(messages, anchors, Bounds("(]")))
  }
}

object AnchorSlicesSuite {
  type Message = (Option[Int], Option[Long], Option[Long])
  type Anchor = (Option[Int], Int, Long, Long)

  /**
   * Messages in keys 0-2 and NULL at times 0-40 (some NULL, many ties), values -5-9 or NULL;
   * anchors in keys 0-3 (3 has no message) with short, long, empty, nested and overlapping
   * intervals, some reaching the ends of the line.
   */
  def randomInput(rng: Random): (Seq[Message], Seq[Anchor]) = {
    def key(n: Int) = if (rng.nextInt(8) == 0) None else Some(rng.nextInt(n))
    val messages = Seq.fill(150) {
      (
        key(3),
        if (rng.nextInt(20) == 0) None else Some(rng.nextInt(41).toLong),
        if (rng.nextInt(6) == 0) None else Some(rng.nextInt(15) - 5L))
    }
    val anchors = (1 to 60).map { id =>
      val s = rng.nextInt(10) match {
        case 0 => Long.MinValue
        case _ => rng.nextInt(46) - 3L
      }
      val e = rng.nextInt(10) match {
        case 0 => Long.MaxValue
        case 1 => s
        case _ => math.max(s, s + rng.nextInt(25))
      }
      (key(4), id, s, e)
    }
    (messages, anchors)
  }

  private def within(t: Long, s: Long, e: Long, bounds: Bounds): Boolean =
    (if (bounds.lowerInclusive) t >= s else t > s) && (if (bounds.upperInclusive) t <= e else t < e)

  /** Per anchor, by id: id, start, end, n, nv, total, lo, hi, mean, big (as the query gives). */
  def reference(messages: Seq[Message], anchors: Seq[Anchor], bounds: Bounds): Seq[Seq[Any]] =
    anchors.sortBy(_._2).map { case (k, id, s, e) =>
      val in = messages.collect { case (mk, Some(t), v) if mk == k && within(t, s, e, bounds) => v }
      val vs = in.flatten
      val big = vs.filter(_ > 3)
      Seq(
        id,
        s,
        e,
        in.size.toLong,
        vs.size.toLong,
        if (vs.isEmpty) null else vs.sum,
        if (vs.isEmpty) null else vs.min,
        if (vs.isEmpty) null else vs.max,
        if (vs.isEmpty) null else vs.sum.toDouble / vs.size,
        if (big.isEmpty) null else big.sum)
    }
}
