package io.eventwindows.execution.sweep

import io.eventwindows.EventWindowsSuite

/**
 * The operator's own sort: each key's rows together and by start, also for keys past the
 * ordinal limit (which share one prefix ordinal) and for starts beyond the prefix's time range;
 * and a broadcast side sorted in the same order once ([[SortedBroadcastMode]]).
 * The answers are worked out with Spark alone (every window of every event, then GROUP BY).
 */
class KeyTimeSorterSuite extends EventWindowsSuite {

  test("more keys in a partition than ordinals, starts far beyond the prefix range") {
    val keys = KeyTimeSorter.SharedOrdinal + 4000
    // Three overlapping events per key, starting within 30 ticks of one of five bases 2^49 apart
    // (the prefix holds 2^47 ticks around the first start seen, so most starts are clamped), lasting
    // 1 to 40 ticks: the rows of many keys interleave in time. Every 97th row has a NULL start.
    val events =
      s"""SELECT k, s, s + 1 + pmod(xxhash64(id, 1), 40) AS e, id AS v FROM (
         |  SELECT id, id % $keys AS k, CASE WHEN id % 97 = 0 THEN NULL
         |    ELSE (id % $keys % 5 - 2) * (1L << 49) + pmod(xxhash64(id), 30) END AS s
         |  FROM range(${3 * keys}))""".stripMargin
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    try {
      val ours = rows(sql(
        s"""SELECT k, window.start, window.end, count(*), sum(v) FROM ($events)
           |GROUP BY k, tumbling_window(s, e, 10L) ORDER BY k, window.start""".stripMargin))
      // The same windows with Spark alone: window n = [10n, 10n + 10) for
      // n from floor((s - 10) / 10) + 1 to floor((e - 1) / 10).
      val floor10 = (x: String) => s"(($x) - pmod($x, 10)) div 10"
      val expected = rows(sql(
        s"""SELECT k, n * 10, n * 10 + 10, count(*), sum(v) FROM (
           |  SELECT k, v, explode(sequence(${floor10("s - 10")} + 1, ${floor10("e - 1")})) AS n
           |  FROM ($events) WHERE s IS NOT NULL)
           |GROUP BY k, n ORDER BY k, n""".stripMargin))
      assert(ours.size === expected.size)
      assert(ours === expected)
      assert(ours.map(_.head).distinct.size === keys)
    } finally {
      spark.conf.set("spark.sql.shuffle.partitions", "4")
    }
  }

  test("a range join's broadcast side, sorted once, with more keys than ordinals") {
    val keys = KeyTimeSorter.SharedOrdinal + 2000
    // Eight events a key on the streamed side (in 3 partitions), one on the broadcast side (at
    // most the other's size over the 4 shuffle partitions, so it is broadcast), its keys first
    // seen in another order; starts near one of three bases 2^49 apart (clamped in the prefix),
    // every 89th start NULL.
    def side(seed: Int, order: String, perKey: Int) =
      s"""SELECT k, s, s + 1 + pmod(xxhash64(id, $seed), 40) AS e FROM (
         |  SELECT id, $order AS k, CASE WHEN id % 89 = 0 THEN NULL
         |    ELSE (id % 3 - 1) * (1L << 49) + pmod(xxhash64(id, ${seed + 1}), 60) END AS s
         |  FROM range(0, ${perKey * keys}, 1, 3))""".stripMargin
    val join =
      s"""SELECT a.k, a.s, a.e, b.s, b.e FROM (${side(1, s"id % $keys", 8)}) a
         |JOIN (${side(3, s"($keys - 1 - id % $keys)", 1)}) b
         |ON a.k = b.k AND a.s < b.e AND b.s < a.e""".stripMargin
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "1g")
    try {
      val ours = sql(join)
      assert(ours.queryExecution.executedPlan.toString.contains("broadcast right"))
      spark.conf.set("spark.eventwindows.rangeJoin.enabled", "false")
      val expected = rows(sql(join)).map(_.toString).sorted
      spark.conf.unset("spark.eventwindows.rangeJoin.enabled")
      val got = rows(ours).map(_.toString).sorted
      assert(got.size === expected.size)
      assert(got === expected)
      assert(got.size > keys / 2)
    } finally {
      spark.conf.unset("spark.eventwindows.rangeJoin.enabled")
      spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    }
  }
}
