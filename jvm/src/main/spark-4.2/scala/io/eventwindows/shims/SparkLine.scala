package io.eventwindows.shims

/**
 * The Spark line this jar is built for, `major.minor`: 4.2 in this copy (every line has its own in
 * jvm/src/main/spark-<line>/scala). Apart from `SparkShims` because it must load on any Spark:
 * `EventWindowsExtensions` reads it to fail clearly on a Spark of another line, where loading
 * `SparkShims` itself could fail on a class that line does not have.
 */
object SparkLine {
  val line: String = "4.2"
}
