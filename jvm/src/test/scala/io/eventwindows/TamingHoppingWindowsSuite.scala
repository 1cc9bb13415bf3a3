package io.eventwindows

import io.eventwindows.expressions.{AdjustEndTime, AdjustStartTime}
import io.eventwindows.plans.{EventWindowAggregate, Snapshot}

/**
 * The worked example of the "Taming Hopping Windows" post (StreamInsight's HoppingWindow2):
 * windows of 5 s every 2 s aligned on 2012-03-15 12:00:00 UTC over e0 (open-ended from
 * 00:00:00), e1 [00:00:01, 00:00:02), e2 [00:00:03, 00:00:10) and e3 [00:00:09, 00:00:10) on
 * 2012-06-28. The expected tables are the post's "Adjusted Events" and "Query", with its
 * "12/31/9999 11:59:59 PM" end of time at microsecond precision.
 */
class TamingHoppingWindowsSuite extends EventWindowsSuite {

  private val events =
    """WITH events(payload, s, e) AS (VALUES
      |  ('e0', TIMESTAMP '2012-06-28 00:00:00', CAST(NULL AS TIMESTAMP)),
      |  ('e1', TIMESTAMP '2012-06-28 00:00:01', TIMESTAMP '2012-06-28 00:00:02'),
      |  ('e2', TIMESTAMP '2012-06-28 00:00:03', TIMESTAMP '2012-06-28 00:00:10'),
      |  ('e3', TIMESTAMP '2012-06-28 00:00:09', TIMESTAMP '2012-06-28 00:00:10'))
      |""".stripMargin

  private val window = "INTERVAL 5 SECONDS, INTERVAL 2 SECONDS, TIMESTAMP '2012-03-15 12:00:00'"
  private val endOfTime = ts("9999-12-31 23:59:59.999999")
  private def at(second: Int) = ts(f"2012-06-28 00:00:$second%02d")

  test("Adjusted Events, through adjust_start_time and adjust_end_time") {
    val adjusted = rows(sql(events +
      s"""SELECT adjust_start_time(s, $window), adjust_end_time(e, $window), payload
         |FROM events ORDER BY payload""".stripMargin))
    assert(adjusted === Seq(
      Seq(at(1), endOfTime, "e0"),
      Seq(at(3), at(7), "e1"),
      Seq(at(5), at(15), "e2"),
      Seq(at(11), at(15), "e3")))
  }

  private val query = events +
    s"""SELECT window.start, window.end, count(*) AS n
       |FROM events GROUP BY hopping_window(s, e, $window, 'changes')""".stripMargin

  test("Query, through hopping_window(..., 'changes')") {
    assert(rows(sql(query + " ORDER BY 1")) === Seq(
      Seq(at(1), at(3), 1L),
      Seq(at(3), at(5), 2L),
      Seq(at(5), at(7), 3L),
      Seq(at(7), at(11), 2L),
      Seq(at(11), at(15), 3L),
      Seq(at(15), endOfTime, 1L)))
  }

  test("'changes' is planned as snapped lifetimes feeding a snapshot window") {
    val analyzed = sql(query).queryExecution.analyzed
    val node = analyzed.collectFirst { case a: EventWindowAggregate => a }.get
    assert(node.window.family === Snapshot)
    val below = node.child.expressions.flatMap(_.collect {
      case a: AdjustStartTime => "start"
      case a: AdjustEndTime => "end"
    })
    assert(below.toSet === Set("start", "end"))
    val explained = sql(query).queryExecution.analyzed.treeString
    assert(explained.contains("adjust_start_time") && explained.contains("snapshot_window"))
  }

  test("per-window output stops at the horizon; 'changes' rows expand to the 'point' rows") {
    val points = rows(sql(events +
      s"""SELECT window.start, count(*) FROM events
         |GROUP BY hopping_window(s, e, $window, 'point') ORDER BY 1""".stripMargin))
    // Window ends every 2 s from 00:00:01; the latest finite time is 00:00:09.999999, so the
    // last window holding anything but e0 ... and e0 up to that horizon is [00:00:08, 00:00:13).
    assert(points === Seq(1 -> 1L, 3 -> 2L, 5 -> 3L, 7 -> 2L, 9 -> 2L, 11 -> 3L, 13 -> 3L)
      .map { case (s, n) => Seq(at(s), n) })
    val expanded = rows(sql(query + " ORDER BY 1")).flatMap {
      case Seq(
            from: java.sql.Timestamp,
            to: java.sql.Timestamp,
            n) =>
        Iterator.iterate(from.getTime)(_ + 2000L).takeWhile(t =>
          t < to.getTime && t <= at(13).getTime)
          .map(t => Seq(new java.sql.Timestamp(t), n))
    }
    assert(expanded === points)
  }

  test("an explicit horizon extends per-window output over open-ended events") {
    val points = rows(sql(events +
      s"""SELECT window.start, count(*) FROM events
         |GROUP BY hopping_window(s, e, $window, 'point', TIMESTAMP '2012-06-28 00:00:20')
         |ORDER BY 1""".stripMargin))
    assert(points.last === Seq(at(25), 1L)) // [00:00:20, 00:00:25) still holds e0
    assert(points.map(_.head) === (1 to 25 by 2).map(at))
  }
}
