// eventwindows: stream-engine windows for Apache Spark, as a Catalyst extension.
//
// One jar per Spark line, as Delta Lake and Apache Sedona build theirs. Every line compiles the
// shared sources in jvm/src/main/scala and its own small directory jvm/src/main/spark-<line>/scala,
// the one place where Spark's internal API differs between lines. `root` is the default line
// (the newest release on Maven Central): the Scala suites run there, and its jar is the one
// `build/sbt package` builds. `build/sbt packageLines` builds every line's jar (bin/setup).

ThisBuild / organization := "io.eventwindows"
ThisBuild / version := "0.1.0"
ThisBuild / licenses := List(
  "Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))

/** What every line's project shares: sources, compiler flags, Spark as a provided dependency. */
def lineSettings(l: SparkLine): Seq[Setting[_]] = Seq(
  scalaVersion := l.scala,
  Compile / unmanagedSourceDirectories := Seq(
    (LocalRootProject / baseDirectory).value / "jvm" / "src" / "main" / "scala",
    (LocalRootProject / baseDirectory).value / "jvm" / "src" / "main" / s"spark-${l.line}" /
      "scala"),
  Compile / resourceDirectory :=
    (LocalRootProject / baseDirectory).value / "jvm" / "src" / "main" / "resources",
  scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
  // Named by line, without the Scala suffix, for --jars and for the Python package.
  Compile / packageBin / artifactPath :=
    (LocalRootProject / baseDirectory).value / "target" / l.jar,
  Compile / unmanagedJars ++= {
    if (!l.fromPyPI) Nil
    else {
      val dir = (LocalRootProject / baseDirectory).value / "target" / "pyspark-jars" / l.spark
      if (!dir.isDirectory) {
        sys.error(s"Spark ${l.spark} is on PyPI only: run bin/pyspark-jars ${l.spark} first")
      }
      // The Scala library comes from scalaVersion, the same release.
      (dir * "*.jar").get.filterNot(_.getName.startsWith("scala-library")).classpath
    }
  },
  libraryDependencies ++= {
    if (l.fromPyPI) Nil else Seq("org.apache.spark" %% "spark-sql" % l.spark % "provided")
  })

lazy val root = (project in file("."))
  .settings(lineSettings(SparkLines.default))
  .settings(
    name := "eventwindows",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    libraryDependencies += "org.scalatest" %% "scalatest" % "3.2.19" % Test,
    // Spark sessions in tests run in a forked JVM with the module flags Spark needs on Java 17.
    Test / fork := true,
    Test / parallelExecution := false,
    // As in Spark's own tests: the checks Spark makes only in tests (plan validation after each
    // rule, the codegen contracts of operators) fail the test instead of logging a warning.
    Test / envVars := Map("SPARK_TESTING" -> "1"),
    Test / javaOptions ++= Seq(
      // The tests' log settings: Spark's logs of the failures tests cause on purpose stay out.
      s"-Dlog4j2.configurationFile=${(baseDirectory.value / "tests" / "log4j2.properties").getPath}",
      "-Xmx2g",
      "-XX:+IgnoreUnrecognizedVMOptions",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true"))

/** The other lines: a jar each, no tests of their own (tests/smoke runs against each, bin/test). */
def otherLine(l: SparkLine): Project =
  Project(l.project, file("target") / "lines" / l.project)
    .settings(lineSettings(l))
    .settings(
      name := s"eventwindows-spark-${l.line}",
      // bin/lint: root checks the shared sources, each other line its own directory only.
      Compile / scalafmt / unmanagedSources := {
        val own = (LocalRootProject / baseDirectory).value / "jvm" / "src" / "main" /
          s"spark-${l.line}"
        (Compile / unmanagedSources).value.filter(_.toPath.startsWith(own.toPath))
      })

lazy val spark40 = otherLine(SparkLines("4.0"))
lazy val spark41 = otherLine(SparkLines("4.1"))
lazy val spark43 = otherLine(SparkLines("4.3"))

/** Every line at once: `build/sbt packageLines` compiles and packages them in parallel. */
lazy val lines = (project in file("target") / "lines" / "all")
  .aggregate(root, spark40, spark41, spark43)
  .settings(publish / skip := true)

addCommandAlias("packageLines", "lines/package")
