"""Checkpoints written by an earlier release restore: each fixture under ``checkpoints/`` (see
``checkpoints/cases.py``) is the checkpoint of a streaming query after its first micro-batches;
this build continues it over the rest, and the rows of both runs are those of one uninterrupted
run, each a row of the batch query."""

import json
import os
import shutil

import pyspark
import pytest
from checkpoints import cases

from harness import plain

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints")


def _release(case):
    with open(os.path.join(FIXTURES, case, "release.json")) as f:
        return json.load(f)


def _version(text):
    return tuple(int(part) for part in text.split(".")[:3])


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_a_checkpoint_of_the_previous_release_restarts_and_continues(spark, tmp_path, case):
    release = _release(case)
    if _version(pyspark.__version__) < _version(release["pyspark"]):
        pytest.skip(
            f"the fixture's checkpoint was written by Spark {release['pyspark']}, which "
            f"Spark {pyspark.__version__} cannot be expected to read"
        )
    # The earlier release's checkpoint after the first part; this build runs the second part.
    shutil.copytree(
        os.path.join(FIXTURES, case),
        tmp_path / "checkpoint",
        ignore=shutil.ignore_patterns("release.json"),
    )
    cases.relocate(tmp_path / "checkpoint", cases.FOLDER, str(tmp_path))
    cases.write_part(tmp_path / "restored", 2)
    restored = cases.run(spark, case, tmp_path / "restored", tmp_path / "checkpoint")
    written = [cases.parse_row(r) for r in release["rows"]]

    # One uninterrupted run of this build over both parts, in the same micro-batches.
    for part in (1, 2):
        cases.write_part(tmp_path / "whole", part)
    uninterrupted = cases.run(spark, case, tmp_path / "whole", tmp_path / "fresh")

    assert sorted(written + restored, key=repr) == sorted(uninterrupted, key=repr)
    batch = {plain(r) for r in cases.batch_query(spark, case, (1, 2)).collect()}
    assert set(uninterrupted) <= batch
    # The restored run continued the state: a row it emitted holds messages of the first part.
    second_part_alone = {plain(r) for r in cases.batch_query(spark, case, (2,)).collect()}
    assert set(restored) - second_part_alone, "no restored row holds a message of the first part"
