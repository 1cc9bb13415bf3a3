"""The one obvious way to get a Spark session with eventwindows: ``eventwindows.builder()``."""
from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

#: The class to set as ``spark.sql.extensions``.
EXTENSION_CLASS = "io.eventwindows.EventWindowsExtensions"

#: The state store that windows on streams keep their state in (Spark's transformWithState, which
#: carries every family but hopping and tumbling windows on streams, needs it).
STATE_STORE_PROVIDER = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def jar_path() -> str:
    """The path of the eventwindows jar this package carries (for ``--jars`` / ``spark.jars``)."""
    packaged = Path(__file__).resolve().parent / "jars" / "eventwindows.jar"
    if packaged.is_file():
        return str(packaged)
    raise FileNotFoundError(
        f"eventwindows jar not found at {packaged}; build it with bin/setup")


def builder() -> SparkSession.Builder:
    """A ``SparkSession.Builder`` already set up with the eventwindows jar and extension, and with
    the RocksDB state store that windows on streaming DataFrames keep their state in.

    Add a master, an app name or more configuration, then call ``getOrCreate()``::

        spark = eventwindows.builder().master("local[2]").getOrCreate()
    """
    return (
        SparkSession.builder
        .config("spark.jars", jar_path())
        .config("spark.sql.extensions", EXTENSION_CLASS)
        .config("spark.sql.streaming.stateStore.providerClass", STATE_STORE_PROVIDER)
    )
