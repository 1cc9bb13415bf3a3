package io.eventwindows

import io.eventwindows.analysis.{AsofJoinTableFunction, DynamicWindowTableFunction, TemporalJoinTableFunction}
import io.eventwindows.expressions.EventWindowsFunctions

import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic
import org.apache.spark.sql.execution.HiveResult

/**
 * `DESCRIBE FUNCTION EXTENDED` of every registered function (new ones are covered as soon as they
 * are in `EventWindowsFunctions.all`): the class its builder really returns, its usage, and its
 * examples, which must run and give the rows shown, formatted as Spark's own example checks
 * format them (tab-separated, `HiveResult`).
 */
class FunctionDocsSuite extends EventWindowsSuite {

  private def sessionState = spark.asInstanceOf[classic.SparkSession].sessionState

  /** The `> SELECT ...;` lines of an examples text, each with the output lines below it. */
  private def examples(text: String): Seq[(String, Seq[String])] = {
    val lines = text.split("\n").map(_.trim).filter(_.nonEmpty).dropWhile(_ != "Examples:").drop(1)
    assert(lines.headOption.exists(_.startsWith("> ")), s"no example in: $text")
    lines.foldLeft(Vector.empty[(String, Vector[String])]) {
      case (parsed, line) if line.startsWith("> ") =>
        assert(line.endsWith(";"), s"an example must be one line ending with ';': $line")
        parsed :+ (line.stripPrefix("> ").stripSuffix(";") -> Vector.empty)
      case (parsed, line) =>
        parsed.init :+ (parsed.last._1 -> (parsed.last._2 :+ line))
    }
  }

  /**
   * The class of the expression `builder` returns for the first call of `name` in `query`, its
   * arguments resolved against the query's input (a VALUES table or no table).
   */
  private def builtClass(name: String, builder: Seq[Expression] => Expression, query: String)
      : String = {
    val parsed = sessionState.sqlParser.parsePlan(query)
    val (call, node) = parsed.collect { case node =>
      node.expressions.flatMap(_.collect {
        case f: UnresolvedFunction if f.nameParts == Seq(name) => (f, node)
      })
    }.flatten.head
    val input = sessionState.executePlan(node.children.head).analyzed
    val arguments = call.arguments.map(_.transform {
      case a: UnresolvedAttribute => input.resolve(a.nameParts, sessionState.conf.resolver).get
    })
    builder(arguments).getClass.getName
  }

  for ((id, info, builder) <- EventWindowsFunctions.all) {
    val name = id.funcName
    test(s"DESCRIBE FUNCTION EXTENDED $name: class, usage, and examples that give their rows") {
      val described = rows(sql(s"DESCRIBE FUNCTION EXTENDED $name")).map(_.head.toString)
        .map { line =>
          val (label, text) = line.span(_ != ':')
          label -> text.drop(1).trim
        }.toMap
      assert(described("Function") === name)
      val usage = described("Usage")
      assert(usage.startsWith(s"$name(") && usage.contains(") - "), usage)
      assert(!usage.contains("_FUNC_"))

      val examplesText = info.getExamples.replace("_FUNC_", name)
      assert(described("Extended Usage").contains(examplesText.trim))
      val shown = examples(examplesText)
      for ((query, expected) <- shown) {
        val result = HiveResult.hiveResultString(sql(query).queryExecution.executedPlan)
        assert(result.map(_.trim) === expected, query)
      }

      assert(described("Class") === builtClass(name, builder, shown.head._1))
    }
  }

  for ((owner, info, name, tables) <- Seq(
      (DynamicWindowTableFunction, DynamicWindowTableFunction.info, DynamicWindowTableFunction.Name,
        "TABLE(anchors), TABLE(messages)"),
      (TemporalJoinTableFunction, TemporalJoinTableFunction.info, TemporalJoinTableFunction.Name,
        "TABLE(left), TABLE(right)"),
      (AsofJoinTableFunction, AsofJoinTableFunction.info, AsofJoinTableFunction.Name,
        "TABLE(left), TABLE(right)"))) {
    test(s"DESCRIBE FUNCTION EXTENDED $name (a table function): usage and examples") {
      val described =
        rows(sql(s"DESCRIBE FUNCTION EXTENDED $name")).map(_.head.toString).mkString("\n")
      assert(described.contains(s"Class: ${owner.getClass.getName.stripSuffix("$")}"))
      assert(described.contains(s"$name($tables"), described)
      for ((query, expected) <- examples(info.getExamples.replace("_FUNC_", name))) {
        val result = HiveResult.hiveResultString(sql(query).queryExecution.executedPlan)
        assert(result.map(_.trim) === expected, query)
      }
    }
  }
}
