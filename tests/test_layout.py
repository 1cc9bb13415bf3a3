"""docs/DESIGN.md's map of the Scala packages is true: every package has its row, every import of
one of our packages names a package its row allows, and the map goes one way: a row allows only
rows below it, so no two packages import each other, even through others."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAIN = ROOT / "jvm" / "src" / "main"
# The shared sources, and each Spark line's own directory (spark-4.0/scala, ...).
SOURCES = [MAIN / "scala", *sorted(MAIN.glob("spark-*/scala"))]
BRIDGE = "org.apache.spark.sql.eventwindows"


def full_name(name):
    """A package as the map writes it (`plans`, `execution.sweep`, `io.eventwindows`) in full."""
    name = name.strip("` ")
    return name if name.startswith(("io.", "org.")) else f"io.eventwindows.{name}"


def package_map():
    """{package: set of packages it may use}, read from the map's table, in its order (the top
    down)."""
    design = (ROOT / "docs" / "DESIGN.md").read_text()
    section = design.split("## The map", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:4] for line in section.splitlines() if line.startswith("| `")]
    packages = [full_name(package) for package, _, _ in rows]
    allowed = {}
    for (_package, _, uses), name in zip(rows, packages):
        may = set()
        for part in re.sub(r"\([^)]*\)", "", uses).split(","):
            part = part.strip()
            if part == "every package below":
                may |= set(packages[packages.index(name) + 1 :])
            elif part == "its rooms":
                may |= {p for p in packages if p.startswith(name + ".")}
            elif part == "the bridge":
                may.add(BRIDGE)
            elif part.startswith("`"):
                may.add(full_name(part))
            else:
                assert part == "Spark only", f"unknown use {part!r} in the row of {name}"
        allowed[name] = may
    return allowed


def uses_going_up(allowed):
    """The uses of `allowed` ({package: packages it may use}, in the map's order from the top
    down) that do not go down the map, as (package, used): each one a cycle or the order broken."""
    order = list(allowed)
    return [
        (package, used)
        for package, uses in allowed.items()
        for used in sorted(uses)
        if used not in order or order.index(used) <= order.index(package)
    ]


def our_imports(text):
    """The packages of ours a Scala file imports from."""
    used = set()
    for target in re.findall(
        r"^import ((?:io\.eventwindows|org\.apache\.spark\.sql\.eventwindows)"
        r"[\w.]*)",
        text,
        re.M,
    ):
        parts = target.rstrip(".").split(".")
        # A package ends before its first capitalized part (a class or object).
        package = []
        for part in parts:
            if part[:1].isupper():
                break
            package.append(part)
        used.add(".".join(package))
    return used


def scala_files():
    return [path for root in SOURCES for path in sorted(root.rglob("*.scala"))]


def test_every_package_has_a_row():
    sources = {re.match(r"package (\S+)", p.read_text()).group(1) for p in scala_files()}
    assert sources == set(package_map())


def test_every_import_is_one_the_map_allows():
    allowed = package_map()
    wrong = []
    for path in scala_files():
        text = path.read_text()
        package = re.match(r"package (\S+)", text).group(1)
        for used in sorted(our_imports(text) - {package} - allowed[package]):
            wrong.append(f"{path.relative_to(MAIN)} ({package}) imports {used}")
    assert not wrong, "imports the map in docs/DESIGN.md does not allow:\n" + "\n".join(wrong)


def test_the_map_goes_one_way():
    upward = uses_going_up(package_map())
    assert not upward, "docs/DESIGN.md's map lets packages use rows above them: " + ", ".join(
        f"{package} -> {used}" for package, used in upward
    )


def test_the_one_way_check_sees_a_cycle():
    assert uses_going_up({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    # Two rows allowing each other, and a cycle through a third row.
    assert uses_going_up({"a": {"b"}, "b": {"a"}}) == [("b", "a")]
    assert uses_going_up({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [("c", "a")]
    # A row allowing itself, or a package without a row.
    assert uses_going_up({"a": {"a", "z"}}) == [("a", "a"), ("a", "z")]


def test_the_check_sees_a_wrong_import():
    assert our_imports("package a\nimport io.eventwindows.execution.sweep.{A, B}\n") == {
        "io.eventwindows.execution.sweep"
    }
    assert "io.eventwindows.analysis" not in package_map()["io.eventwindows.execution.sweep"]


# What a family is and can do is said by the family (plans/WindowFamily.scala): the analyzer's rules
# and the streaming room ask it instead of matching on its class, so a new family does not touch
# them. The few names left are the dynamic windows' own rewrites.
FAMILY_NAME_BUDGET = 12
ASKING_ROOMS = ["analysis", "execution/streaming"]


def family_classes():
    """The concrete window families: the case classes and objects of WindowFamily.scala that extend
    a family trait."""
    text = (MAIN / "scala" / "io" / "eventwindows" / "plans" / "WindowFamily.scala").read_text()
    return set(
        re.findall(r"case (?:class|object) (\w+)(?:\([^{]*?\))?\s+extends \w*Family\b", text, re.S)
    )


def family_names_in(text):
    return len(re.findall(r"\b(?:{})\b".format("|".join(sorted(family_classes()))), text))


def test_the_rules_ask_the_family_instead_of_naming_it():
    rooms = [MAIN / "scala" / "io" / "eventwindows" / room for room in ASKING_ROOMS]
    counts = {
        path.relative_to(MAIN): family_names_in(path.read_text())
        for room in rooms
        for path in sorted(room.rglob("*.scala"))
    }
    named = {path: n for path, n in counts.items() if n}
    assert sum(named.values()) <= FAMILY_NAME_BUDGET, (
        f"analysis/ and execution/streaming/ name concrete families {sum(named.values())} times "
        f"(at most {FAMILY_NAME_BUDGET}): {named}; ask the family (WindowFamily's members) instead"
    )


def test_the_family_budget_sees_the_families():
    assert {
        "Hopping",
        "Snapshot",
        "CountWindow",
        "IndexWindow",
        "RelativeTimeWindow",
        "SlidingWindow",
        "SplTumblingWindow",
        "SessionWindow",
        "AnchorWindow",
    } <= family_classes()
    assert family_names_in("case h: Hopping => Snapshot // SessionWindow(gap)") == 3
    assert family_names_in("HoppingAxis SnapshotStreaming") == 0
