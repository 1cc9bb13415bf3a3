package io.eventwindows

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.{DataFrame, Row, SparkSession}

/** One local Spark session with the extension, shared by every suite of the test run. */
object EventWindowsSession {
  lazy val spark: SparkSession = {
    val session = SparkSession.builder()
      .master("local[2]")
      .appName("eventwindows-scalatest")
      .config("spark.sql.extensions", classOf[EventWindowsExtensions].getName)
      .config("spark.sql.session.timeZone", "UTC")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.ui.enabled", "false")
      // As in Spark's own test sessions: generated code that does not compile fails the query
      // instead of running silently without whole-stage codegen.
      .config("spark.sql.codegen.fallback", "false")
      .getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    session
  }
}

/** A suite running queries on the shared session. */
trait EventWindowsSuite extends AnyFunSuite {
  protected def spark: SparkSession = EventWindowsSession.spark

  protected def sql(text: String): DataFrame = spark.sql(text)

  /** The rows of `df`, in order, as sequences of values. */
  protected def rows(df: DataFrame): Seq[Seq[Any]] = df.collect().toSeq.map(_.toSeq)

  /** Runs `body` and returns the message of the exception it must throw. */
  protected def errorOf(body: => Any): String = {
    val e = intercept[Exception](body)
    Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString("\n")
  }

  protected def ts(text: String): java.sql.Timestamp = java.sql.Timestamp.valueOf(text)

  protected def row(values: Any*): Row = Row(values: _*)

  /** Runs `body` with the session's `conf` set, then restores it. */
  protected def withConf[T](conf: (String, String)*)(body: => T): T = {
    val previous = conf.map { case (key, _) => key -> spark.conf.getOption(key) }
    conf.foreach { case (key, value) => spark.conf.set(key, value) }
    try body
    finally previous.foreach {
        case (key, Some(value)) => spark.conf.set(key, value)
        case (key, None) => spark.conf.unset(key)
      }
  }
}
