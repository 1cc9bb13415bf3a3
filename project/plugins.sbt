// scalafmt for bin/lint (settings in .scalafmt.conf, which also names the scalafmt release the
// plugin fetches); from Maven Central, as everything sbt resolves (project/repositories).
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.6.2")
