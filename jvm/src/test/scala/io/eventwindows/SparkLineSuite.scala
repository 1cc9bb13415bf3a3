package io.eventwindows

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.SPARK_VERSION

import io.eventwindows.shims.SparkLine

class SparkLineSuite extends AnyFunSuite {

  test("the jar under test is the one of the Spark line it runs on") {
    assert(SPARK_VERSION.startsWith(SparkLine.line + "."))
    EventWindowsExtensions.checkSparkLine(SPARK_VERSION)
  }

  test("any release of the line is accepted") {
    EventWindowsExtensions.checkSparkLine(s"${SparkLine.line}.0")
    EventWindowsExtensions.checkSparkLine(s"${SparkLine.line}.17")
    EventWindowsExtensions.checkSparkLine(s"${SparkLine.line}.1-SNAPSHOT")
  }

  test("another line's Spark is an error naming the jar to use") {
    val other = EventWindowsExtensions.SparkLines.find(_ != SparkLine.line).get
    val e = intercept[IllegalStateException](EventWindowsExtensions.checkSparkLine(s"$other.2"))
    assert(e.getMessage === s"eventwindows-spark-${SparkLine.line}.jar is built for " +
      s"Spark ${SparkLine.line}.x, but this is Spark $other.2: use the jar of its line, " +
      s"eventwindows-spark-$other.jar")
  }

  test("a Spark no line is built for is an error naming the lines") {
    for (unsupported <- Seq("3.5.1", "4.9.0", "5.0.0")) {
      val e = intercept[IllegalStateException](
        EventWindowsExtensions.checkSparkLine(unsupported))
      assert(
        e.getMessage.endsWith(s"but this is Spark $unsupported: eventwindows runs on the " +
          "Spark lines 4.0, 4.1, 4.2, 4.3"),
        e.getMessage)
    }
  }
}
