"""The package on every Spark line (README, "Spark versions"): the wheel carries a jar per line,
the package picks the installed pyspark's, another line is one clear error (the README's example
runs as a program wherever the package is installed: test_docs). In a smoke run (bin/smoke:
the wheel installed into a fresh virtualenv with one pyspark release), the tests marked `smoke`
check that this is what they run on."""

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pyspark
import pytest
from conftest import SMOKE_PYSPARK

import eventwindows as ew

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def line_of(version):
    return ".".join(version.split(".")[:2])


# ----------------------------------------------------------------------------------------------
# What runs on this line


@pytest.mark.smoke
def test_the_package_picks_the_jar_of_the_installed_pyspark(spark):
    line = line_of(pyspark.__version__)
    assert Path(ew.jar_path()).name == f"eventwindows-spark-{line}.jar"
    assert line_of(spark.version) == line
    assert ew.spark_line() == line


@pytest.mark.smoke
def test_a_smoke_run_runs_the_installed_wheel_on_its_pyspark():
    if SMOKE_PYSPARK is None:
        pytest.skip("not a smoke run (bin/smoke)")
    # pip kept the release bin/smoke installed first: the wheel's range took it as it was.
    assert pyspark.__version__ == SMOKE_PYSPARK
    # The package is the wheel's copy in the virtualenv, not the clone's python/ directory.
    assert Path(ew.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())
    assert not Path(ew.__file__).resolve().is_relative_to(ROOT / "python")


# ----------------------------------------------------------------------------------------------
# Other lines


@pytest.mark.smoke
@pytest.mark.parametrize("version", ["3.5.1", "4.4.0", "5.0.0"])
def test_an_unsupported_pyspark_is_one_error_naming_the_lines(version):
    message = (
        f"eventwindows has no jar for Spark {version}: it supports the Spark lines "
        "4.0, 4.1, 4.2, 4.3 (pyspark>=4.0,<4.4)"
    )
    with pytest.raises(ValueError) as e:
        ew.jar_path(version)
    assert str(e.value) == message
    with pytest.raises(ValueError):
        ew.spark_line(version)


@pytest.mark.parametrize("version", ["4.0.0", "4.1.4", "4.2.1", "4.3.0"])
def test_every_line_has_its_jar(version):
    assert Path(ew.jar_path(version)).name == f"eventwindows-spark-{line_of(version)}.jar"


@pytest.mark.slow  # spark-submit: a child process, a JVM of its own
def test_a_jar_on_another_line_stops_the_session_naming_the_jar_to_use(tmp_path):
    """spark-submit --jars with the jar of another line: the session does not start, and the error
    says which jar to use (a jar compiled against another line's internal API would otherwise
    fail later, at some call, with a NoSuchMethodError)."""
    line = line_of(pyspark.__version__)
    other = next(candidate for candidate in ew.session.SPARK_LINES if candidate != line)
    app = tmp_path / "app.py"
    app.write_text("from pyspark.sql import SparkSession\nSparkSession.builder.getOrCreate()\n")
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "spark-submit"),
            "--master",
            "local[1]",
            "--jars",
            ew.jar_path(other),
            "--conf",
            f"spark.sql.extensions={ew.EXTENSION_CLASS}",
            "--conf",
            "spark.ui.enabled=false",
            str(app),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
        timeout=300,
    )
    # PySpark's traceback of the JVM's error reaches stdout under spark-submit.
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert (
        f"java.lang.IllegalStateException: eventwindows-spark-{other}.jar is built for Spark "
        f"{other}.x, but this is Spark {pyspark.__version__}: use the jar of its line, "
        f"eventwindows-spark-{line}.jar" in output
    ), output[-3000:]


PANDAS_APP = """
import eventwindows as ew
import pandas as pd
from pyspark.sql import functions as F
spark = ew.builder().master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
@F.pandas_udf("long")
def size(v: pd.Series) -> int:
    return len(v)
rows = (spark.createDataFrame([(0,), (1,), (5,)], "t bigint")
        .groupBy(ew.tumbling_window("t", 4)).agg(size("t").alias("n"))
        .orderBy("window.start").collect())
print("RESULT", [(r.window.start, r.n) for r in rows])
"""


@pytest.mark.smoke
def test_a_program_run_by_its_python_runs_pandas_udfs_on_that_python(tmp_path):
    """A program run directly by the virtualenv's Python, without PYSPARK_PYTHON: ew.builder()
    starts the Python workers with that interpreter. `python3` on the PATH here is a stand-in that
    fails, as a system Python without pandas would."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3", "python"):
        stand_in = bin_dir / name
        stand_in.write_text("#!/bin/sh\necho 'not the driver python' >&2\nexit 1\n")
        stand_in.chmod(0o755)
    app = tmp_path / "app.py"
    app.write_text(PANDAS_APP)
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    result = subprocess.run(
        [sys.executable, str(app)], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    # [0, 4) holds 0 and 1, [4, 8) holds 5.
    assert "RESULT [(0, 2), (4, 1)]" in result.stdout


def test_a_python_the_user_names_is_kept(monkeypatch):
    """PYSPARK_PYTHON already set stays; spark.pyspark.python given to the builder is used."""
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/their/python")
    ew.builder()._apply_worker_python()
    assert os.environ["PYSPARK_PYTHON"] == "/opt/their/python"
    monkeypatch.delenv("PYSPARK_PYTHON")
    ew.builder().config("spark.pyspark.python", "/opt/named/python")._apply_worker_python()
    assert os.environ["PYSPARK_PYTHON"] == "/opt/named/python"


# ----------------------------------------------------------------------------------------------
# The wheel, and the lines listed alike everywhere


@pytest.mark.package
def test_the_wheel_carries_every_line_and_a_pyspark_range():
    wheels = sorted((ROOT / "dist").glob("eventwindows-*-py3-none-any.whl"))
    assert len(wheels) == 1, "bin/package builds dist/eventwindows-<version>-py3-none-any.whl"
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
        metadata = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    for line in ew.session.SPARK_LINES:
        assert f"eventwindows/jars/eventwindows-spark-{line}.jar" in names
    # Every module, also those of the subpackages (eventwindows.functions), and their data (the
    # SQL functions' texts the docstrings are made from).
    for module in [
        *(ROOT / "python" / "eventwindows").rglob("*.py"),
        *(ROOT / "python" / "eventwindows").rglob("*.json"),
    ]:
        assert module.relative_to(ROOT / "python").as_posix() in names
    requires = [r for r in metadata.splitlines() if r.startswith("Requires-Dist: pyspark")]
    assert "Requires-Dist: pyspark<4.4,>=4.0" in requires, requires


def test_every_list_of_the_lines_agrees():
    lines = list(ew.session.SPARK_LINES)
    build = re.findall(
        r'SparkLine\("(\d\.\d)"', (ROOT / "project" / "SparkLines.scala").read_text()
    )
    extension = (
        ROOT / "jvm/src/main/scala/io/eventwindows/EventWindowsExtensions.scala"
    ).read_text()
    scala = re.findall(
        r'"(\d\.\d)"', re.search(r"SparkLines: Seq\[String\] = Seq\(([^)]*)\)", extension).group(1)
    )
    shims = sorted(p.name[len("spark-") :] for p in (ROOT / "jvm/src/main").glob("spark-*"))
    table = re.findall(r"^\| (\d\.\d)\.x \|", README, re.M)
    tested = re.search(r"for release in ([\d. ]+); do", (ROOT / "bin" / "test").read_text())
    smoke = sorted(line_of(v) for v in tested.group(1).split())
    assert build == scala == shims == table == lines
    # Every line but the default one (its newest release in .venv runs the whole suite) has its
    # smoke run.
    default = re.search(
        r'default: SparkLine = all.find\(_.line == "(\d\.\d)"\)',
        (ROOT / "project" / "SparkLines.scala").read_text(),
    ).group(1)
    venv = re.search(r"'pyspark\[connect\]==([\d.]+)'", (ROOT / "bin" / "setup").read_text())
    assert line_of(venv.group(1)) == default
    assert sorted(smoke + [default]) == lines
    pyproject = (ROOT / "python" / "pyproject.toml").read_text()
    assert f'"pyspark>={lines[0]},<4.{int(lines[-1][2:]) + 1}"' in pyproject
