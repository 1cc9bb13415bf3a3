/**
 * The Spark lines eventwindows builds a jar for (build.sbt). The Python package picks among the
 * same jars by the installed pyspark (python/eventwindows/session.py), and bin/setup, bin/test and
 * the README's compatibility table list the same lines: a new line is added in all four.
 *
 * @param line     the Spark line, `major.minor`
 * @param spark    the release the line compiles against
 * @param scala    the Scala release that Spark release is built with
 * @param fromPyPI the release is on PyPI only: its jars come from the pyspark package
 *                 (bin/pyspark-jars extracts them to target/pyspark-jars/<release>)
 */
case class SparkLine(line: String, spark: String, scala: String, fromPyPI: Boolean = false) {

  /** The sbt project of the line: `spark40` for 4.0. */
  def project: String = "spark" + line.replace(".", "")

  /** The jar's file name, without the Scala suffix (Spark 4 is Scala 2.13 alone). */
  def jar: String = s"eventwindows-spark-$line.jar"
}

object SparkLines {
  val all: Seq[SparkLine] = Seq(
    SparkLine("4.0", "4.0.4", "2.13.16"),
    SparkLine("4.1", "4.1.3", "2.13.17"),
    SparkLine("4.2", "4.2.0", "2.13.18"),
    SparkLine("4.3", "4.3.0", "2.13.18", fromPyPI = true))

  /** The line of the full test suite: the newest on Maven Central. */
  val default: SparkLine = all.find(_.line == "4.2").get

  def apply(line: String): SparkLine = all.find(_.line == line).get
}
