package io.eventwindows.analysis

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.expressions.{And, AttributeReference, LessThan, Literal}
import org.apache.spark.sql.catalyst.plans.LeftOuter
import org.apache.spark.sql.types.{LongType, StructField, StructType, TimestampType}

import io.eventwindows.execution.streaming.{
  RowEndIsEventTime, SnappedStart, SnappedToWindows, StartIsEventTime
}
import io.eventwindows.plans.{
  AnchorWindow, Bounds, CalendarHopping, CountWindow, Cumulating, FamilyEncoding, Hopping,
  IndexWindow, JoinLifetime, OutputPolicy, RelativeTimeWindow, SessionWindow, SlidingWindow,
  Snapshot, SplPolicy, SplTumblingWindow
}
import io.eventwindows.time.{CalendarCumulating, CalendarStep, CalendarWindows, ExactCumulating}

/**
 * The stored definitions of version 1, as checkpoints written so far hold them: each family
 * ([[FamilyEncoding]]), horizon and whole definition gives the text the earlier releases wrote
 * (their case classes' `toString`, which these texts were checked against when the encoding was
 * spelled out), whatever its classes and fields are called now. `test_checkpoints.py` restores
 * checkpoints of an earlier release.
 */
class StateDefinitionSuite extends AnyFunSuite {
  private val day = CalendarStep(0, 1, 0L)
  private val month = CalendarStep(1, 0, 0L)
  private val sixHours = CalendarStep(0, 0, 6L * 3600 * 1000000)

  test("every family is written as the releases of version 1 wrote it") {
    val families = Seq(
      Hopping(5000000L, 1000000L, 0L, OutputPolicy.Window, None) ->
        "Hopping(5000000,1000000,0,window,None)",
      Hopping(10L, 10L, -3L, OutputPolicy.Point, Some(99L)) -> "Hopping(10,10,-3,point,Some(99))",
      CalendarHopping(CalendarWindows(month, day, 0L, "Europe/Paris"), OutputPolicy.Window, None) ->
        "CalendarHopping(CalendarWindows(1 months,1 days,0,Europe/Paris),window,None)",
      Cumulating(ExactCumulating(60L, 20L, 5L), OutputPolicy.Changes, Some(7L)) ->
        "Cumulating(ExactCumulating(60,20,5),changes,Some(7))",
      Cumulating(CalendarCumulating(day, sixHours, 0L, "UTC"), OutputPolicy.Window, None) ->
        "Cumulating(CalendarCumulating(1 days,6 hours,0,UTC),window,None)",
      Snapshot -> "Snapshot",
      CountWindow(3L, OutputPolicy.Point) -> "CountWindow(3,point)",
      IndexWindow(None, 0L) -> "IndexWindow(None,0)",
      IndexWindow(Some(-2L), 1L) -> "IndexWindow(Some(-2),1)",
      RelativeTimeWindow(-5L, 0L, Bounds("(]")) -> "RelativeTimeWindow(-5,0,(])",
      SlidingWindow(SplPolicy.Count(3L), SplPolicy.Delta("v", "2.5")) ->
        "SlidingWindow(count(3),delta(v, 2.5))",
      SplTumblingWindow(SplPolicy.Time(5000000L, "5.0"), flushAtEnd = false) ->
        "SplTumblingWindow(time(5.0),false)",
      SplTumblingWindow(SplPolicy.Punct("p"), flushAtEnd = true) ->
        "SplTumblingWindow(punct(p),true)",
      SessionWindow(3000000L, Some(10000000L), OutputPolicy.Changes) ->
        "SessionWindow(3000000,Some(10000000),changes)",
      AnchorWindow(Bounds("[]")) -> "AnchorWindow([])",
      AnchorWindow(Bounds("[)"), Some(2500000L)) -> "AnchorWindow([), lookback 2500000)")
    for ((family, text) <- families) assert(FamilyEncoding.of(family) === text)
  }

  test("every horizon is written as the releases of version 1 wrote it") {
    val horizons = Seq(
      StartIsEventTime -> "StartIsEventTime",
      SnappedStart(10L, 5L, 0L, Long.MinValue, Long.MaxValue) ->
        s"SnappedStart(10,5,0,${Long.MinValue},${Long.MaxValue})",
      SnappedToWindows(CalendarWindows(day, day, 0L, "UTC"), 0L, 1L) ->
        "SnappedToWindows(CalendarWindows(1 days,1 days,0,UTC),0,1)",
      RowEndIsEventTime(pointOutput = true) -> "RowEndIsEventTime(true)")
    for ((horizon, text) <- horizons) assert(StateDefinition.horizon(horizon) === text)
  }

  test("a definition and its fingerprint are those version 1 wrote") {
    val ts = AttributeReference("ts", TimestampType)()
    val aggregation = StateDefinition.ofAggregation(
      "hopping_window",
      Hopping(5000000L, 1000000L, 0L, OutputPolicy.Window, None),
      ts,
      None)
    assert(aggregation ===
      "hopping_window Hopping(5000000,1000000,0,window,None) start=ts end=point")
    // MurmurHash3.stringHash of that text, as the state of Spark's aggregation holds it.
    assert(StateDefinition.fingerprint(aggregation) === -595994104L)

    val input = StructType(Seq(StructField("k", LongType), StructField("ts", TimestampType)))
    val replay = StateDefinition.ofReplay(
      "index_window",
      IndexWindow(None, 0L),
      StartIsEventTime,
      ts,
      None,
      Nil,
      Nil,
      Seq("k"),
      input,
      Some((Seq(Literal(1L)), Seq(Literal(true)))))
    assert(replay === "index_window IndexWindow(None,0) StartIsEventTime start=ts end=point " +
      "order=[] values=[] keys=[k] input=struct<k:bigint,ts:timestamp> aggregates=[1L] " +
      "filters=[true]")
  }

  test("a range join of two streams is stored as its type, condition, lifetimes and input") {
    val Seq(s, e, bs, be) = Seq("s", "e", "bs", "be").map(AttributeReference(_, TimestampType)())
    val input = StructType(Seq(StructField("__eventwindows_key0", LongType)))
    val definition = StateDefinition.ofRangeJoin(
      LeftOuter,
      And(LessThan(s, be), LessThan(bs, e)),
      JoinLifetime(s, e),
      JoinLifetime(bs, be),
      input)
    assert(definition === "range_join LEFT OUTER condition=((s < be) AND (bs < e)) left=[s, e] " +
      "right=[bs, be] input=struct<__eventwindows_key0:bigint>")
  }
}
