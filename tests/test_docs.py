"""Every example of the docs runs as written: the ```sql and ```python blocks of README.md and of
docs/*.md (but docs/DESIGN.md, which has no examples to run), each page's blocks in order in one
scope, so a block may use what an earlier block of its page made (a DataFrame, a temp view).

- SQL: `spark.sql(block)`; a query's result is printed as `.show(truncate=False)` prints it.
- Python: the block, exec'd with `spark` (the test session), `ew` (eventwindows) and `F`
  (pyspark.sql.functions) in scope; what it prints is its output. A block ending in an expression
  whose value is a DataFrame is run to the end (collected).
- ```python program: a whole program (it makes and stops its own session): run as a user runs it,
  `python example.py` in a fresh process; what it prints is its output.

A ```text block right after such a block (nothing but blank lines between) is that output, and the
test compares them: exactly when the example orders its rows (ORDER BY, orderBy), else as the same
lines in any order. A doc that drifts from the code fails here. ```bash blocks are commands, not
run here (test_spark_submit runs the README's spark-submit command)."""

import ast
import contextlib
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import eventwindows as ew
from eventwindows.functions._documentation import SQL_FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted(
    p for p in (ROOT / "docs").glob("*.md") if p.name != "DESIGN.md"
)

RUN = {"sql", "python", "python program"}
LANGUAGES = RUN | {"text", "bash"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
ORDERED = re.compile(r"\bORDER BY\b|\.orderBy\(|\.sort\(")

# The pages whose examples the smoke set runs on every Spark line: the README (its example as a
# program) and the pages of the examples the smoke set ran before they left the README.
SMOKE = {"README.md", "sessions.md", "spl-tumbling-windows.md", "clipped-lifetimes.md"}


@dataclass
class Block:
    page: Path
    line: int
    language: str
    code: str
    output: str = None
    """The ```text block right after it, if any: what it prints."""

    def __str__(self):
        return f"{self.page.relative_to(ROOT)}:{self.line} ({self.language})"


def blocks(page):
    """The fenced blocks of `page` (Blocks), each text block attached to the block before it."""
    text = page.read_text()
    found, end = [], 0
    for match in FENCE.finditer(text):
        language = match.group(1).strip()
        line = text.count("\n", 0, match.start()) + 1
        if language == "text" and found and not text[end : match.start()].strip():
            assert found[-1].language in RUN and found[-1].output is None, (
                f"{page.name}:{line}: a text block after {found[-1]}"
            )
            found[-1].output = match.group(2)
        else:
            found.append(Block(page, line, language, match.group(2)))
        end = match.end()
    return found


def page_id(page):
    return page.name


def run_sql(spark, code):
    frame = spark.sql(code)
    if not frame.columns:  # a command (CREATE TEMP VIEW ...): already run, prints nothing
        return ""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        frame.show(truncate=False)
    return out.getvalue()


def run_python(scope, block):
    body = ast.parse(block.code)
    last = body.body[-1] if body.body else None
    value = None
    with contextlib.redirect_stdout(io.StringIO()) as out:
        if isinstance(last, ast.Expr):
            body.body.pop()
            exec(compile(body, str(block), "exec"), scope)
            value = eval(compile(ast.Expression(last.value), str(block), "eval"), scope)
        else:
            exec(compile(body, str(block), "exec"), scope)
    if isinstance(value, DataFrame):
        value.collect()
    return out.getvalue()


def run_program(block, tmp_path):
    program = tmp_path / "example.py"
    program.write_text(block.code)
    result = subprocess.run(
        [sys.executable, str(program)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
        timeout=300,
    )
    assert result.returncode == 0, f"{block}\n{result.stderr[-3000:]}"
    return result.stdout


def assert_same_output(block, actual):
    lines = [line.rstrip() for line in actual.strip().splitlines()]
    expected = [line.rstrip() for line in block.output.strip().splitlines()]
    if not ORDERED.search(block.code):
        lines, expected = sorted(lines), sorted(expected)
    assert lines == expected, f"{block} prints\n{actual}\nbut the doc says\n{block.output}"


def test_every_block_is_run_or_marked():
    """Every fenced block says what it is; a text block is always the output of an example."""
    for page in PAGES:
        for block in blocks(page):
            assert block.language in LANGUAGES, f"{block}: a block of an unknown kind"
            assert block.language != "text", f"{block}: a text block not right after an example"


def test_the_readme_lists_every_function_and_page():
    """The README's "Window families" names every SQL function (the extension's table, as the
    Python docstrings' source holds it: a new family's function is listed or this fails) and links
    every page of docs/, and some page shows each function."""
    readme = (ROOT / "README.md").read_text()
    families = readme.split("\n## Window families\n")[1].split("\n## ")[0]
    pages = [p.read_text() for p in PAGES[1:]]
    for name in SQL_FUNCTIONS:
        assert re.search(rf"\b{name}\b", families), f"{name} is not in the README's families"
        assert any(re.search(rf"\b{name}\(", page) for page in pages), f"no page shows {name}"
    for page in PAGES[1:]:
        assert f"(docs/{page.name})" in families, f"the README's families do not link {page.name}"


def test_the_clipped_lifetimes_page_lists_the_families_that_clip():
    """The page's table of the windows that clip lifetimes has a row for every function that
    DESCRIBE FUNCTION clipped_start names (derived from the families), and for no other."""
    note = next(n for n in SQL_FUNCTIONS["clipped_start"]["notes"] if " GROUP BY over " in n)
    clipping = set(re.findall(r"\b\w+_window\b", note.split(" GROUP BY over ")[1].split(";")[0]))
    assert "cumulate_window" in clipping
    page = (ROOT / "docs" / "clipped-lifetimes.md").read_text()
    table = page.split("| windows | an event's lifetime is clipped to |")[1].split("\n\n")[0]
    rows = re.findall(r"^\| ([^|]*) \|", table, re.M)
    assert {n for row in rows for n in re.findall(r"`(\w+_window)`", row)} == clipping


LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_relative_links_lead_to_files_and_headings():
    for page in PAGES:
        text = FENCE.sub("", page.read_text())
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.exists(), f"{page.name}: a link to {target}, which is not there"
            if anchor and linked.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", FENCE.sub("", linked.read_text()), re.M)
                assert anchor in {slug(h) for h in headings}, f"{page.name}: no heading #{anchor}"


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(
            page,
            marks=([pytest.mark.smoke] if page.name in SMOKE else [])
            # A whole program runs in a child process (a JVM of its own): out of the quick tier.
            + (
                [pytest.mark.slow]
                if any(b.language == "python program" for b in blocks(page))
                else []
            ),
        )
        for page in PAGES
        if any(b.language in RUN for b in blocks(page))
    ],
    ids=page_id,
)
def test_the_examples_of_the_page_run_as_written(spark, page, tmp_path):
    examples = [b for b in blocks(page) if b.language in RUN]
    views = {t.name for t in spark.catalog.listTables() if t.isTemporary}
    scope = {"spark": spark, "ew": ew, "F": F}
    try:
        for block in examples:
            if block.language == "sql":
                actual = run_sql(spark, block.code)
            elif block.language == "python":
                actual = run_python(scope, block)
            else:
                actual = run_program(block, tmp_path)
            if block.output is not None:
                assert_same_output(block, actual)
    finally:
        for table in spark.catalog.listTables():
            if table.isTemporary and table.name not in views:
                spark.catalog.dropTempView(table.name)
