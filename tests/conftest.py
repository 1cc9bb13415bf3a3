"""One local Spark session for the whole pytest run, with the eventwindows jar and extension."""

import os

import pytest

import eventwindows
from harness import configured

# As in Spark's own tests: the checks Spark makes only in tests (plan validation after each rule,
# the codegen contracts of operators) fail the test instead of logging a warning. Set before the
# JVM starts; child processes (Connect, spark-submit, local-cluster) inherit it.
os.environ.setdefault("SPARK_TESTING", "1")


@pytest.fixture(scope="session")
def spark():
    session = configured(
        eventwindows.builder().master("local[2]").appName("eventwindows-tests")).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
