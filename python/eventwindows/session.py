"""The one obvious way to get a Spark session with eventwindows: ``eventwindows.builder()``."""

from __future__ import annotations

import os
import re
import sys
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
            f"{', '.join(SPARK_LINES)} (pyspark>=4.0,<4.4)"
        )
    return line


def jar_path(version: str | None = None) -> str:
    """The path of the eventwindows jar this package carries for a Spark version, by default the
    installed pyspark's (for ``--jars`` / ``spark.jars``)::

        spark-submit --jars "$(python -c 'import eventwindows; print(eventwindows.jar_path())')"
    """
    packaged = _JARS / f"eventwindows-spark-{spark_line(version)}.jar"
    if packaged.is_file():
        return str(packaged)
    raise FileNotFoundError(f"eventwindows jar not found at {packaged}; build it with bin/setup")


#: The setting that names the Python interpreter of Spark's Python workers (pandas UDFs,
#: ``applyInPandas``), as ``spark-submit`` reads it.
PYTHON_CONF = "spark.pyspark.python"


class _Builder(SparkSession.Builder):
    """Spark's builder, which also starts Spark's Python workers with this process's interpreter.

    A Python program run directly (``.venv/bin/python app.py``) starts its workers with the
    interpreter ``PYSPARK_PYTHON`` names, else ``python3`` from the PATH, which need not have
    pandas and pyarrow. Before the session's context starts, an unset ``PYSPARK_PYTHON`` becomes
    ``spark.pyspark.python`` if the builder was given one, else this process's interpreter: the
    one that has the packages the driver's code imports. A ``PYSPARK_PYTHON`` already set is
    left as it is (``spark-submit`` sets it from ``spark.pyspark.python``).
    """

    def getOrCreate(self) -> SparkSession:
        self._apply_worker_python()
        return super().getOrCreate()

    def _apply_worker_python(self) -> None:
        if "PYSPARK_PYTHON" not in os.environ:
            os.environ["PYSPARK_PYTHON"] = str(self._options.get(PYTHON_CONF, sys.executable))


def builder() -> SparkSession.Builder:
    """A ``SparkSession.Builder`` already set up with the eventwindows jar for the installed
    pyspark, the extension, and the RocksDB state store that windows on streaming DataFrames keep
    their state in. Its Python workers (pandas UDFs, ``applyInPandas``) run on this process's
    interpreter unless ``PYSPARK_PYTHON`` or ``spark.pyspark.python`` names another.

    Add a master, an app name or more configuration, then call ``getOrCreate()``::

        spark = eventwindows.builder().master("local[2]").getOrCreate()
    """
    return (
        _Builder()
        .config("spark.jars", jar_path())
        .config("spark.sql.extensions", EXTENSION_CLASS)
        .config("spark.sql.streaming.stateStore.providerClass", STATE_STORE_PROVIDER)
    )
