"""One local Spark session for the whole pytest run, with the eventwindows jar and extension."""

import os
import sys

import pytest

import eventwindows
from harness import configured

# As in Spark's own tests: the checks Spark makes only in tests (plan validation after each rule,
# the codegen contracts of operators) fail the test instead of logging a warning. Set before the
# JVM starts; child processes (Connect, spark-submit, local-cluster) inherit it.
os.environ.setdefault("SPARK_TESTING", "1")
# Python UDFs run in workers of this interpreter (its pandas and pyarrow), not of whatever
# `python3` is first on the PATH.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


@pytest.fixture(scope="session")
def spark():
    session = configured(
        eventwindows.builder().master("local[2]").appName("eventwindows-tests")
    ).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# ----------------------------------------------------------------------------------------------
# The smoke set: what bin/smoke runs on every Spark line but the default one (`pytest -m smoke`).

SMOKE_PYSPARK = os.environ.get("EVENTWINDOWS_SMOKE_PYSPARK")
"""The pyspark release bin/smoke installed for a line's smoke run, or None in other runs."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "smoke: in the smoke set run on every Spark line (bin/smoke)"
    )
    config.addinivalue_line(
        "markers",
        "slow: left out of the quick tier (bin/test --quick, `-m 'not slow and not package'`)",
    )
    config.addinivalue_line(
        "markers",
        "package: needs the wheel bin/package builds (dist/), which only bin/test builds: left out "
        "of the quick tier",
    )
    # The tests and the docs' examples write the current call forms: a deprecated one is an error
    # (test_signatures checks the old forms with pytest.warns).
    config.addinivalue_line(
        "filterwarnings", "error:.*is deprecated. pass the end as a keyword:FutureWarning"
    )


# ----------------------------------------------------------------------------------------------
# The quick tier (bin/test --quick): every test but the slow kinds, which bin/test runs too. Besides
# the modules and words below, a test is marked slow where it stands (`@pytest.mark.slow  # why`):
# random inputs under another name, what the state keeps, a further variant of a family whose
# small case stays quick. A test of the wheel is marked `package` (only bin/package builds it).

SLOW_MODULES = {
    "test_bad_input_generated",  # generated bad input, many queries
    "test_connect",  # child processes, each a session of its own
    "test_local_cluster",
    "test_memory",
    "test_spark_submit",
}
"""Modules whose every test is slow: child processes (a JVM each), memory, generated input."""

SLOW_WORDS = ("random", "restart", "program")
"""Words in a test's name that make it slow: random inputs against a reference, streams stopped
and restarted from a checkpoint, programs run in a child process."""


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rpartition(".")[2]
        if module in SLOW_MODULES or any(word in item.name for word in SLOW_WORDS):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In a line's smoke run a skipped test is a failure: a skip would hide that the line does not
    run a test of the smoke set."""
    outcome = yield
    report = outcome.get_result()
    if SMOKE_PYSPARK and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped in the smoke run of pyspark {SMOKE_PYSPARK}: {report.longrepr}"
