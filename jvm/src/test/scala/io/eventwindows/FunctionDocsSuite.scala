package io.eventwindows

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.util.{LinkedHashMap => JLinkedHashMap}

import scala.jdk.CollectionConverters._
import scala.reflect.runtime.{universe => ru}

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode

import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.classic
import org.apache.spark.sql.execution.HiveResult

import io.eventwindows.analysis.{
  AsofJoinTableFunction, DynamicWindowTableFunction, TemporalJoinTableFunction
}
import io.eventwindows.expressions.EventWindowsFunctions
import io.eventwindows.plans.WindowFamily

/**
 * `DESCRIBE FUNCTION EXTENDED` of every registered function (new ones are covered as soon as they
 * are in `EventWindowsFunctions.all`): the class its builder really returns, its usage, and its
 * examples, which must run and give the rows shown, formatted as Spark's own example checks
 * format them (tab-separated, `HiveResult`).
 *
 * The same texts are the one source of the Python docstrings: the golden file
 * `python/eventwindows/functions/sql_functions.json` holds, for every function (the table
 * functions too), its signature, description, each argument's text by name and the notes after
 * the arguments, parsed from its `ExpressionInfo` by [[FunctionDocsSuite.texts]], in the order
 * the extension registers them; the Python
 * package makes its numpydoc `Parameters` from it. Regenerate it after a change of a text with
 * {{{
 *   EVENTWINDOWS_GENERATE_GOLDEN=1 build/sbt "testOnly io.eventwindows.FunctionDocsSuite"
 * }}}
 * The lists of families in the texts are derived from `WindowFamily.Samples`, which this suite
 * checks holds every concrete family class.
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
      (
        DynamicWindowTableFunction,
        DynamicWindowTableFunction.info,
        DynamicWindowTableFunction.Name,
        "TABLE(anchors), TABLE(messages)"),
      (
        TemporalJoinTableFunction,
        TemporalJoinTableFunction.info,
        TemporalJoinTableFunction.Name,
        "TABLE(left), TABLE(right)"),
      (
        AsofJoinTableFunction,
        AsofJoinTableFunction.info,
        AsofJoinTableFunction.Name,
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

  private val pythonTexts = Paths.get("python/eventwindows/functions/sql_functions.json")

  test("the Python package's texts are DESCRIBE FUNCTION's (golden file)") {
    val mapper = new ObjectMapper()
    val all = new JLinkedHashMap[String, Any]()
    for ((_, info, _) <- EventWindowsFunctions.all ++ EventWindowsExtensions.TableFunctions) {
      all.put(info.getName, FunctionDocsSuite.texts(info))
    }
    val actual = mapper.writerWithDefaultPrettyPrinter().writeValueAsString(all) + "\n"
    if (sys.env.get("EVENTWINDOWS_GENERATE_GOLDEN").contains("1")) {
      Files.write(pythonTexts, actual.getBytes(UTF_8))
    } else {
      assert(
        actual === new String(Files.readAllBytes(pythonTexts), UTF_8),
        s"$pythonTexts is not what the functions' texts give; regenerate it (see the scaladoc)")
    }
    val parsed = mapper.readTree(actual).asInstanceOf[ObjectNode]
    assert(parsed.get("hopping_window").get("arguments").get("size").asText()
      .startsWith("the window length: a day-time interval"))
  }

  test("every concrete window family has a sample, from which the lists of families are made") {
    val mirror = ru.runtimeMirror(getClass.getClassLoader)
    def concrete(symbol: ru.ClassSymbol): Set[String] =
      symbol.knownDirectSubclasses.map(_.asClass).flatMap { sub =>
        concrete(sub) ++ (if (sub.isAbstract || sub.isTrait) Nil else Seq(sub.fullName))
      }
    val families = concrete(ru.typeOf[WindowFamily].typeSymbol.asClass)
    assert(families.size > 10, families)
    val sampled = WindowFamily.Samples.map(f => mirror.classSymbol(f.getClass).fullName).toSet
    assert(families -- sampled === Set.empty, "families without a sample in WindowFamily.Samples")
    val registered = EventWindowsFunctions.all.map(_._1.funcName).toSet
    assert(WindowFamily.Samples.map(_.functionName).toSet -- registered === Set.empty)
  }

  test("the clipped-lifetime functions' texts name every family that clips lifetimes") {
    val clipping = WindowFamily.Samples.filter(_.clipsLifetimes).map(_.functionName).distinct
    assert(clipping.contains("cumulate_window"))
    for (name <- Seq("clipped_start", "clipped_end", "time_weighted_sum", "time_weighted_avg")) {
      val described =
        rows(sql(s"DESCRIBE FUNCTION EXTENDED $name")).map(_.head.toString).mkString(" ")
          .split("\\s+").mkString(" ")
      for (function <- clipping) assert(described.contains(function), s"$name: $function")
      val refusing = WindowFamily.Samples.map(_.functionName).distinct.filterNot(clipping.contains)
      for (function <- refusing) assert(!described.contains(function), s"$name: $function")
    }
  }
}

object FunctionDocsSuite {

  /**
   * The texts of a function's `ExpressionInfo` by part, as the Python package reads them: the
   * usage's `signature` and `description`, the `arguments` (each `* name - text` entry of the
   * `Arguments:` block by name; `* start, end - text` gives both names the text), the `notes`
   * (the paragraphs after the entries), `group` and `since`. Line breaks within a text become
   * spaces.
   * {{{
   *   Arguments:
   *     * n - the number of distinct start times
   *         in a window.                            -> arguments: {n: "the number ... window."}
   *   Allowed only inside GROUP BY.                 -> notes: ["Allowed only inside GROUP BY."]
   * }}}
   */
  def texts(info: ExpressionInfo): JLinkedHashMap[String, Any] = {
    val usage = joined(info.getUsage.replace("_FUNC_", info.getName).linesIterator.toSeq)
    val split = usage.indexOf(") - ") + 1
    val arguments = new JLinkedHashMap[String, String]()
    val notes = Seq.newBuilder[String]
    // Each text is a run of lines: an entry with its continuation lines, or a paragraph of notes.
    var entryNames: Option[Seq[String]] = None
    var entryIndent = 0
    var lines = Vector.empty[String]
    def close(): Unit = {
      if (lines.nonEmpty) entryNames match {
        case Some(names) => names.foreach(arguments.put(_, joined(lines)))
        case None => notes += joined(lines)
      }
      entryNames = None
      lines = Vector.empty
    }
    val block = info.getArguments.linesIterator.dropWhile(_.trim.isEmpty).toSeq
    require(block.headOption.exists(_.trim.startsWith("Arguments:")), info.getArguments)
    require(Set("", "none.").contains(block.head.trim.stripPrefix("Arguments:").trim), block.head)
    for (line <- block.tail) {
      val indent = line.length - line.stripLeading().length
      val text = line.trim
      if (text.isEmpty) close()
      else if (text.startsWith("* ")) {
        close()
        require(text.contains(" - "), s"${info.getName}: an argument is `* name - text`: $text")
        val (names, entry) = text.stripPrefix("* ").splitAt(text.indexOf(" - ") - 2)
        entryNames = Some(names.split(",").map(_.trim).toSeq)
        entryIndent = indent
        lines = Vector(entry.stripPrefix(" - "))
      } else if (entryNames.isDefined && indent <= entryIndent) {
        close()
        lines = Vector(text)
      } else {
        lines :+= text
      }
    }
    close()
    val texts = new JLinkedHashMap[String, Any]()
    texts.put("signature", usage.take(split))
    texts.put("description", usage.drop(split).stripPrefix(" - "))
    texts.put("arguments", arguments)
    texts.put("notes", notes.result().asJava)
    texts.put("group", info.getGroup)
    texts.put("since", info.getSince)
    texts
  }

  private def joined(lines: Seq[String]): String =
    lines.map(_.trim).filter(_.nonEmpty).mkString(" ")
}
