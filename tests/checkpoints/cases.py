"""Streaming queries whose checkpoints a release wrote, kept as fixtures beside this module: each
case's query, its two parts of micro-batches, and how a fixture is written.

A fixture (``<case>/``) holds the checkpoint of the case's query after the micro-batches of its
first part, written by the release named in ``<case>/release.json`` with the rows that run emitted;
``test_checkpoints.py`` restores each with this build, runs the second part and checks that the
rows of both runs are the batch query's. Written by running this module with that release's
package first on the path (once per release whose checkpoints must restore)::

    PYTHONPATH=<release>/python python tests/checkpoints/cases.py
"""

import datetime
import json
import os
import shutil
import sys
import tempfile

from pyspark.sql import functions as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import eventwindows as ew  # noqa: E402
from eventwindows import spl  # noqa: E402
from harness import configured, plain, write_batches  # noqa: E402

BASE = datetime.datetime(2024, 1, 1)
MESSAGES = "k string, ts timestamp, v bigint"
ANCHORS = "id int, k string, s timestamp, e timestamp"

FIRST_MTIME = {1: 1_700_000_000, 2: 1_700_000_100}
"""The modification times of the parts' first files: the second part's files come after every
file the checkpoint saw (a file stream reads the files it has not seen, in that order)."""

MESSAGE_PARTS = {
    1: [[("a", 0, 1), ("b", 1, 2), ("a", 2, 3)], [("a", 3, 4), ("b", 4, 5), ("a", 5, 6)]],
    2: [[("a", 6, 7), ("b", 7, 8), ("a", 8, 9)], [("b", 9, 10), ("a", 11, 11), ("b", 40, 12)]],
}
"""Messages (key, second, value) of each part's micro-batches: windows open across both parts,
and the last message moves the watermark past every other one."""

ANCHOR_PARTS = {
    1: [[(1, "a", 0, 4), (2, "b", 1, 6)], [(3, "a", 4, 9)]],
    2: [[(4, "b", 7, 10)], [(5, "a", 38, 45)]],
}
"""Anchors (id, key, start second, end second) of the dynamic window, by part."""


def _at(second):
    return (BASE + datetime.timedelta(seconds=second)).isoformat()


def _messages(spark, folder):
    return (
        spark.readStream.schema(MESSAGES)
        .option("maxFilesPerTrigger", 1)
        .json(str(folder))
        .withWatermark("ts", "1 second")
    )


def _aggregated(windows):
    return windows.agg(F.count("*").alias("n"), F.sum("v").alias("total")).select(
        "k", F.col("window.start").alias("start"), "n", "total"
    )


def hopping(messages, anchors):
    """Spark's own streaming aggregation (the state holds the definition's fingerprint)."""
    return _aggregated(messages.groupBy("k", ew.hopping_window("ts", "4 seconds", "2 seconds")))


def session(messages, anchors):
    """transformWithState, events kept per key."""
    return _aggregated(messages.groupBy("k", ew.event_session_window("ts", "3 seconds")))


def count(messages, anchors):
    return _aggregated(messages.groupBy("k", ew.count_window("ts", 3)))


def spl_sliding(messages, anchors):
    """An SPL sliding window: the progress holds the trigger's state."""
    return _aggregated(messages.groupBy("k", ew.sliding_window("ts", spl.count(3), spl.count(2))))


def running_index(messages, anchors):
    """A running index window: the progress holds the prefix's aggregation buffer."""
    return _aggregated(messages.groupBy("k", ew.index_window("ts", None, 0)))


def dynamic(messages, anchors):
    """Dynamic windows over a stream of anchors."""
    return (
        ew.dynamic_window(anchors, messages, "ts", "s", "e", on="k")
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
        .select("id", "k", F.col("window.start").alias("start"), "n", "total")
    )


CASES = {f.__name__: f for f in (hopping, session, count, spl_sliding, running_index, dynamic)}


def write_part(folder, part):
    """The micro-batches of `part` as files under `folder` (`messages/`, `anchors/`)."""
    folder.mkdir(parents=True, exist_ok=True)
    write_batches(
        folder / "messages",
        [[{"k": k, "ts": _at(t), "v": v} for k, t, v in batch] for batch in MESSAGE_PARTS[part]],
        first_mtime=FIRST_MTIME[part],
    )
    write_batches(
        folder / "anchors",
        [
            [{"id": i, "k": k, "s": _at(s), "e": _at(e)} for i, k, s, e in batch]
            for batch in ANCHOR_PARTS[part]
        ],
        first_mtime=FIRST_MTIME[part],
    )


def query(spark, case, folder):
    """The streaming query of `case` over the sources under `folder`."""
    anchors = (
        spark.readStream.schema(ANCHORS)
        .option("maxFilesPerTrigger", 1)
        .json(str(folder / "anchors"))
        .withWatermark("s", "1 second")
    )
    return CASES[case](_messages(spark, folder / "messages"), anchors)


def batch_query(spark, case, parts):
    """The batch query of `case` over the micro-batches of `parts`."""
    messages = spark.createDataFrame(
        [
            (k, BASE + datetime.timedelta(seconds=t), v)
            for part in parts
            for batch in MESSAGE_PARTS[part]
            for k, t, v in batch
        ],
        MESSAGES,
    )
    anchors = spark.createDataFrame(
        [
            (i, k, BASE + datetime.timedelta(seconds=s), BASE + datetime.timedelta(seconds=e))
            for part in parts
            for batch in ANCHOR_PARTS[part]
            for i, k, s, e in batch
        ],
        ANCHORS,
    )
    return CASES[case](messages, anchors)


def run(spark, case, folder, checkpoint):
    """Runs the query of `case` to the end of its sources from `checkpoint`; the rows emitted."""
    rows = []
    stream = (
        query(spark, case, folder)
        .writeStream.outputMode("append")
        .foreachBatch(lambda batch, _: rows.extend(plain(r) for r in batch.collect()))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    stream.awaitTermination()
    return rows


FOLDER = "@FOLDER@"
"""What a fixture's checkpoint says for the folder it was written in: the state's metadata names
its schema files by absolute path (Spark's checkpoints do not move), so a test puts it back."""


def relocate(checkpoint, old, new):
    """Replaces the folder `old` by `new` wherever a file of `checkpoint` names it."""
    for root, _, files in os.walk(checkpoint):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                data = f.read()
            if old.encode() in data:
                with open(path, "wb") as f:
                    f.write(data.replace(old.encode(), new.encode()))


def write_fixture(spark, case, target):
    """Writes the fixture of `case` into `target`: the checkpoint after the first part, the rows
    emitted and the release that wrote them."""
    import pathlib

    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        write_part(folder, 1)
        rows = run(spark, case, folder, folder / "checkpoint")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(
            folder / "checkpoint", target, ignore=shutil.ignore_patterns("*.crc", ".*.crc")
        )
        relocate(target, str(folder), FOLDER)
    with open(os.path.join(target, "release.json"), "w") as f:
        json.dump(
            {
                "eventwindows": release(),
                "pyspark": spark.version,
                "rows": [encode_row(r) for r in sorted(rows, key=repr)],
            },
            f,
            indent=1,
        )


def encode_row(row):
    """A row as JSON values, each timestamp as ``{"timestamp": ISO text}``."""
    return [{"timestamp": x.isoformat()} if isinstance(x, datetime.datetime) else x for x in row]


def parse_row(values):
    """The row that `encode_row` gave `values`."""
    return tuple(
        datetime.datetime.fromisoformat(x["timestamp"]) if isinstance(x, dict) else x
        for x in values
    )


def release():
    """The commit of the package that runs (the release that writes a fixture)."""
    import subprocess

    folder = os.path.dirname(ew.__file__)
    return subprocess.run(
        ["git", "-C", folder, "log", "-1", "--format=%h %cs"], capture_output=True, text=True
    ).stdout.strip()


def session_builder():
    """The fixtures' session: the test settings, one shuffle partition (a small checkpoint)."""
    return configured(
        ew.builder().master("local[1]").appName("eventwindows-checkpoints"),
        {"spark.sql.shuffle.partitions": "1"},
    )


if __name__ == "__main__":
    spark = session_builder().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    for name in sys.argv[1:] or CASES:
        write_fixture(spark, name, os.path.join(HERE, name))
        print("wrote", name, "with eventwindows", release(), "from", ew.__file__)
