"""The harness's child processes (Connect, local-cluster, memory suites): a child that cannot
start its session fails the test, on every line, instead of skipping it."""

import os
import textwrap

import pytest

from harness import child_result

TESTS = os.path.dirname(os.path.abspath(__file__))


def child(tmp_path, body):
    """A script that runs `body` (with the harness importable) as a child_result child."""
    script = tmp_path / "child.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {TESTS!r})\n"
        "from harness import child_session, print_result\n" + textwrap.dedent(body)
    )
    return str(script)


def test_a_child_that_cannot_start_fails_the_test(tmp_path):
    script = child(
        tmp_path,
        """
        def start():
            raise RuntimeError("no jar at /nowhere/eventwindows.jar")
        child_session(start)
        print_result("unreachable")
        """,
    )
    # Caught as any outcome (a skip is one too), so that a skip fails this test.
    with pytest.raises(BaseException) as info:
        child_result(script, "a test session")
    assert info.type is pytest.fail.Exception, info.type
    assert (
        "cannot start a test session: CANNOT_START RuntimeError: no jar at "
        "/nowhere/eventwindows.jar"
    ) in str(info.value)


def test_a_child_that_starts_hands_its_result(tmp_path):
    script = child(
        tmp_path,
        """
        session = child_session(lambda: {"started": True})
        print_result({"session": session, "answer": 42})
        """,
    )
    assert child_result(script, "a test session") == {"session": {"started": True}, "answer": 42}
