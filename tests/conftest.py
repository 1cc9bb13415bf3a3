"""One local Spark session for the whole pytest run, with the eventwindows jar and extension."""

import os

import pytest

import eventwindows

# As in Spark's own tests: the checks Spark makes only in tests (plan validation after each rule,
# the codegen contracts of operators) fail the test instead of logging a warning. Set before the
# JVM starts; child processes (Connect, spark-submit, local-cluster) inherit it.
os.environ.setdefault("SPARK_TESTING", "1")


@pytest.fixture(scope="session")
def spark():
    session = (
        eventwindows.builder()
        .master("local[2]")
        .appName("eventwindows-tests")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        # Generated code that does not compile fails the query instead of running without it.
        .config("spark.sql.codegen.fallback", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
