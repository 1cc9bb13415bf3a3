package io.eventwindows

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

/**
 * Golden SQL files, as Spark's own `sql-tests`: each `inputs/<name>.sql` holds queries separated
 * by `;` at the end of a line, and `results/<name>.sql.out` the query and its rows (columns cast to
 * strings, tab-separated) or its error. Regenerate after a deliberate change with
 * {{{
 *   EVENTWINDOWS_GENERATE_GOLDEN=1 build/sbt "testOnly io.eventwindows.GoldenSqlSuite"
 * }}}
 * and read the diff: every expected table was checked by hand against the seeds when written.
 */
class GoldenSqlSuite extends EventWindowsSuite {

  private val root = Paths.get("jvm/src/test/resources/sql-tests")
  private val regenerate = sys.env.get("EVENTWINDOWS_GENERATE_GOLDEN").contains("1")

  private def run(query: String): String = try {
    val df = sql(query)
    val named = df.toDF(df.columns.indices.map("c" + _): _*)
    named.selectExpr(named.columns.map(c => s"CAST($c AS STRING)").toSeq: _*).collect()
      .map(_.toSeq.map(v => if (v == null) "NULL" else v.toString).mkString("\t")).mkString("\n")
  } catch {
    case e: org.apache.spark.sql.AnalysisException => s"ERROR ${e.getMessage.linesIterator.next()}"
  }

  private def render(input: Path): String = {
    val queries = new String(Files.readAllBytes(input), UTF_8).split(";\\s*\n").map(_.trim)
      .filter(q => q.linesIterator.exists(l => l.trim.nonEmpty && !l.trim.startsWith("--")))
    queries.map(q => s"-- !query\n$q\n-- !query output\n${run(q)}\n").mkString("\n")
  }

  private val inputs = Files.list(root.resolve("inputs")).iterator().asScala
    .filter(_.toString.endsWith(".sql")).toSeq.sortBy(_.toString)

  for (input <- inputs) {
    val name = input.getFileName.toString
    test(name) {
      val golden = root.resolve("results").resolve(name + ".out")
      val actual = render(input)
      if (regenerate) {
        Files.write(golden, actual.getBytes(UTF_8))
      } else {
        assert(Files.exists(golden), s"no golden file for $name; generate it (see scaladoc)")
        assert(actual === new String(Files.readAllBytes(golden), UTF_8))
      }
    }
  }
}
