package io.eventwindows.expressions

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}

/**
 * The table of SQL functions eventwindows registers, by the source each family follows, as Spark's
 * `FunctionRegistry` lists its functions by group. Each source's file holds its registrations:
 * name, documentation (shown by `DESCRIBE FUNCTION EXTENDED`; the one source of the docstring of
 * the Python function of the same name, through the file `FunctionDocsSuite` writes) and builder. Builders check the arguments and turn constant
 * parameters into ticks, so every misuse is reported at analysis time, naming the parameter.
 */
object EventWindowsFunctions {

  /** One registration, as `SparkSessionExtensions.injectFunction` takes it. */
  type Registration = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression)

  /** Every registration, by source. */
  val all: Seq[Registration] = Seq(
    // StreamInsight: hopping, tumbling, snapshot and count windows (StreamInsightFunctions)
    StreamInsightFunctions.hoppingWindow,
    StreamInsightFunctions.tumblingWindow,
    StreamInsightFunctions.snapshotWindow,
    StreamInsightFunctions.countWindow,
    // Apache Flink: cumulating windows (FlinkFunctions)
    FlinkFunctions.cumulateWindow,
    // \psi: windows by message index and by relative time, dynamic windows (PsiFunctions)
    PsiFunctions.indexWindow,
    PsiFunctions.timeWindow,
    PsiFunctions.anchorWindow,
    // IBM Streams SPL: sliding and tumbling windows (SplFunctions)
    SplFunctions.slidingWindow,
    SplFunctions.splTumblingWindow,
    // Trill and Azure Stream Analytics: sessions over events (SessionFunctions)
    SessionFunctions.eventSessionWindow,
    // StreamInsight's input policy: clipped lifetimes and time-weighted aggregates
    // (ClippedLifetimeFunctions)
    ClippedLifetimeFunctions.clippedStart,
    ClippedLifetimeFunctions.clippedEnd,
    ClippedLifetimeFunctions.timeWeightedSum,
    ClippedLifetimeFunctions.timeWeightedAvg,
    // "Taming Hopping Windows": the scalar time helpers (ScalarFunctions)
    ScalarFunctions.snapToBoundary,
    ScalarFunctions.adjustStartTime,
    ScalarFunctions.adjustEndTime)
}
