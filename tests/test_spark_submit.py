"""The jar works with plain spark-submit: --jars plus spark.sql.extensions, no Python package."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import eventwindows

APP = textwrap.dedent(
    """
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.getOrCreate()
    rows = spark.sql('''
        SELECT window.start, window.end, count(*) AS n
        FROM VALUES (0L, 4L), (2L, 6L) AS t(s, e)
        GROUP BY snapshot_window(s, e) ORDER BY 1
    ''').collect()
    print("RESULT", [tuple(r) for r in rows])
    spark.stop()
    """
)


def test_spark_submit_with_jars_and_extension_conf(tmp_path: Path):
    app = tmp_path / "app.py"
    app.write_text(APP)
    spark_submit = Path(sys.executable).parent / "spark-submit"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    result = subprocess.run(
        [
            str(spark_submit),
            "--master",
            "local[1]",
            "--jars",
            eventwindows.jar_path(),
            "--conf",
            f"spark.sql.extensions={eventwindows.EXTENSION_CLASS}",
            "--conf",
            "spark.ui.enabled=false",
            str(app),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    # [0,2) holds one event, [2,4) both, [4,6) one.
    assert "RESULT [(0, 2, 1), (2, 4, 2), (4, 6, 1)]" in result.stdout


def test_the_readme_command_in_a_fresh_shell(tmp_path: Path):
    """The README's spark-submit command, as written, from the clone's root in a shell that has
    nothing set up (no virtualenv active, no SPARK_HOME)."""
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    start = readme.index("```bash\nsource .venv/bin/activate")
    command = readme[start + len("```bash\n") : readme.index("```", start + 3)]
    assert command.rstrip().endswith(" app.py"), command
    (tmp_path / "app.py").write_text(APP)
    script = command.rstrip()[: -len("app.py")] + str(tmp_path / "app.py")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")}
    result = subprocess.run(
        ["bash", "-c", script], cwd=root, capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "RESULT [(0, 2, 1), (2, 4, 2), (4, 6, 1)]" in result.stdout
