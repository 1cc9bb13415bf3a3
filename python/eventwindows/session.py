"""The one obvious way to get a Spark session with eventwindows: ``eventwindows.builder()``."""
from __future__ import annotations

import re
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

#: The class to set as ``spark.sql.extensions``.
EXTENSION_CLASS = "io.eventwindows.EventWindowsExtensions"

#: The state store that windows on streams keep their state in (Spark's transformWithState, which
#: carries every family but hopping and tumbling windows on streams, needs it).
STATE_STORE_PROVIDER = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

#: The Spark lines this package carries a jar for, ``major.minor``, as in the README's
#: compatibility table (and build.sbt's project/SparkLines.scala).
SPARK_LINES = ("4.0", "4.1", "4.2", "4.3")

_JARS = Path(__file__).resolve().parent / "jars"


def spark_line(version: str | None = None) -> str:
    """The Spark line (``major.minor``) of a Spark version, by default the installed pyspark's;
    a ``ValueError`` names the lines supported if eventwindows has no jar for it."""
    version = pyspark.__version__ if version is None else version
    match = re.match(r"(\d+)\.(\d+)", version)
    line = f"{match.group(1)}.{match.group(2)}" if match else version
    if line not in SPARK_LINES:
        raise ValueError(
            f"eventwindows has no jar for Spark {version}: it supports the Spark lines "
            f"{', '.join(SPARK_LINES)} (pyspark>=4.0,<4.4)")
    return line


def jar_path(version: str | None = None) -> str:
    """The path of the eventwindows jar this package carries for a Spark version, by default the
    installed pyspark's (for ``--jars`` / ``spark.jars``)::

        spark-submit --jars "$(python -c 'import eventwindows; print(eventwindows.jar_path())')"
    """
    packaged = _JARS / f"eventwindows-spark-{spark_line(version)}.jar"
    if packaged.is_file():
        return str(packaged)
    raise FileNotFoundError(
        f"eventwindows jar not found at {packaged}; build it with bin/setup")


def builder() -> SparkSession.Builder:
    """A ``SparkSession.Builder`` already set up with the eventwindows jar for the installed
    pyspark, the extension, and the RocksDB state store that windows on streaming DataFrames keep
    their state in.

    Add a master, an app name or more configuration, then call ``getOrCreate()``::

        spark = eventwindows.builder().master("local[2]").getOrCreate()
    """
    return (
        SparkSession.builder
        .config("spark.jars", jar_path())
        .config("spark.sql.extensions", EXTENSION_CLASS)
        .config("spark.sql.streaming.stateStore.providerClass", STATE_STORE_PROVIDER)
    )
