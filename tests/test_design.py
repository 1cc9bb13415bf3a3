"""docs/DESIGN.md stays a design read in minutes, and true as the code changes: at most 20 KB, and
every class, member and file it names in backticks exists in the tree (Spark's own names are
written without backticks). Its map of packages is checked by test_layout."""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "DESIGN.md"
MAX_BYTES = 20_000
# Where named files live; build output, virtualenvs and caches are no part of the design.
SKIPPED_DIRS = {".git", ".venv", "target", "__pycache__", "node_modules", "jars", ".bsp"}

CLASS_LIKE = re.compile(r"[A-Z]\w*(?:\.\w+)*")
MEMBER_LIKE = re.compile(r"[a-z]+[A-Z]\w*")
PATH_LIKE = re.compile(r"[\w.<>-]+(?:/[\w.<>-]*)+|\w+\.(?:py|scala|md|json|sbt|toml)")


def scala_sources():
    """{path: text} of every Scala source (main and test, every Spark line's copy)."""
    return {path: path.read_text() for path in sorted((ROOT / "jvm" / "src").rglob("*.scala"))}


def declarations(sources):
    """{name: the text of the files declaring it} for every class, trait and object of `sources`
    ({path: text}), and for every file by its name (`CalendarArithmetic`)."""
    declared = {}
    for path, text in sources.items():
        file_name = Path(path).stem
        for name in {file_name} | set(re.findall(r"\b(?:class|trait|object)\s+(\w+)", text)):
            declared[name] = declared.get(name, "") + text
    return declared


def tree_paths():
    """Every file and directory of the tree, as paths relative to the root with '/'."""
    paths = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        here = Path(folder).relative_to(ROOT).as_posix()
        for name in dirs + files:
            paths.add(name if here == "." else f"{here}/{name}")
    return paths


def named_in_backticks(text):
    return set(re.findall(r"`([^`\n]+)`", text))


def missing_names(text, declared, paths, scala_text):
    """The names in backticks of `text` that the tree lacks: classes (and `Class.member`), members
    in camelCase, files and directories (a path may be the end of one: `plans/WindowFamily.scala`;
    `<...>` stands for any name), test modules."""
    missing = []
    for name in sorted(named_in_backticks(text)):
        if CLASS_LIKE.fullmatch(name):
            owner, *members = name.split(".")
            if owner not in declared or any(
                not re.search(rf"\b{re.escape(m)}\b", declared[owner]) for m in members
            ):
                missing.append(name)
        elif MEMBER_LIKE.fullmatch(name):
            if not re.search(rf"\b{name}\b", scala_text):
                missing.append(name)
        elif name.startswith("test_") and re.fullmatch(r"\w+", name):
            if f"tests/{name}.py" not in paths:
                missing.append(name)
        elif PATH_LIKE.fullmatch(name) and "*" not in name:
            parts = re.split(r"<[^>]*>", name.rstrip("/"))
            pattern = re.compile(r"(?:.*/)?" + "[^/]+".join(map(re.escape, parts)))
            if not any(pattern.fullmatch(path) for path in paths):
                missing.append(name)
    return missing


def test_design_is_at_most_20_kb():
    size = len(DESIGN.read_bytes())
    assert size <= MAX_BYTES, (
        f"docs/DESIGN.md has {size} bytes, more than {MAX_BYTES}: put what belongs to one class "
        "into its Scaladoc and what belongs to users into their page of docs/"
    )


def test_every_name_in_design_exists():
    sources = scala_sources()
    missing = missing_names(
        DESIGN.read_text(), declarations(sources), tree_paths(), "\n".join(sources.values())
    )
    assert not missing, "docs/DESIGN.md names what the tree lacks: " + ", ".join(missing)


def test_the_name_check_sees_a_missing_name():
    declared = {"WindowFamily": "trait WindowFamily { def onStreams = 1 }"}
    paths = {
        "jvm/src/main/scala/io/eventwindows/plans/WindowFamily.scala",
        "tests/test_docs.py",
        "jvm/src/main/spark-4.2/scala",
    }
    text = (
        "`WindowFamily.onStreams` `WindowFamily.offStreams` `NoSuchFamily` `onStreams` "
        "`plans/WindowFamily.scala` `plans/NoSuch.scala` `jvm/src/main/spark-<line>/scala` "
        "`test_docs` `test_nothing` `'changes'` `window.start` `*Exec`"
    )
    assert missing_names(text, declared, paths, declared["WindowFamily"]) == [
        "NoSuchFamily",
        "WindowFamily.offStreams",
        "plans/NoSuch.scala",
        "test_nothing",
    ]
