// eventwindows: stream-engine windows for Apache Spark, as a Catalyst extension.

// The Spark version is the one of the pyspark release the Python package pins
// (python/pyproject.toml); both must move together.
val sparkVersion = "4.2.0"

ThisBuild / organization := "io.eventwindows"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.18"

lazy val root = (project in file("."))
  .settings(
    name := "eventwindows",
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % "provided",
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    // One jar, named without the Scala suffix, for --jars and for the Python package.
    Compile / packageBin / artifactPath := baseDirectory.value / "target" / "eventwindows.jar",
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
      "-Dio.netty.tryReflectionSetAccessible=true"
    )
  )
