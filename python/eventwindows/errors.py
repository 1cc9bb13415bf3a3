"""The errors the Python layer raises, each with an error condition of eventwindows, as PySpark's
own errors have theirs: PySpark's exception classes (so ``except TypeError`` and
``except PySparkTypeError`` both catch them), whose ``getCondition()`` and ``getSqlState()`` give
the condition and SQLSTATE below. The errors of the SQL functions themselves come from the JVM
with conditions of their own (``docs/errors.md``).

>>> try:
...     ew.tumbling_window("ts", 1.5)
... except TypeError as e:
...     print(e.getCondition(), e.getSqlState())
EVENTWINDOWS_INVALID_ARGUMENT_TYPE 42K09
"""

from __future__ import annotations

from pyspark.errors import PySparkRuntimeError, PySparkTypeError, PySparkValueError

#: The conditions of the Python layer: SQLSTATE and message template (``<name>`` is a parameter).
CONDITIONS: dict[str, dict[str, str]] = {
    "EVENTWINDOWS_INVALID_ARGUMENT_TYPE": {
        "sqlState": "42K09",
        "message": "<message>",
    },
    "EVENTWINDOWS_INVALID_ARGUMENT_VALUE": {
        "sqlState": "22023",
        "message": "<message>",
    },
    "EVENTWINDOWS_EXTENSION_MISSING": {
        "sqlState": "42883",
        "message": "<function> is an eventwindows SQL function, but this Spark session does not "
        "have the eventwindows extension: make the session with "
        "eventwindows.builder(), or start Spark with the eventwindows jar "
        "(--jars <jar>, eventwindows.jar_path() gives it) and "
        "spark.sql.extensions=io.eventwindows.EventWindowsExtensions.",
    },
}


def _message(condition: str, parameters: dict[str, str]) -> str:
    text = CONDITIONS[condition]["message"]
    for name, value in parameters.items():
        text = text.replace(f"<{name}>", value)
    return text


class _Condition:
    """What every error here adds to PySpark's exception class: the condition's SQLSTATE."""

    def __init__(self, condition: str, parameters: dict[str, str]):
        # Positional: the keyword names of PySparkException differ between Spark lines.
        super().__init__(_message(condition, parameters), condition, parameters)  # type: ignore

    def getSqlState(self) -> str | None:  # noqa: N802 (PySpark's name)
        return CONDITIONS[self.getCondition()]["sqlState"]  # type: ignore[attr-defined]


class EventWindowsTypeError(_Condition, PySparkTypeError):
    """An argument of the wrong Python type (EVENTWINDOWS_INVALID_ARGUMENT_TYPE)."""


class EventWindowsValueError(_Condition, PySparkValueError):
    """An argument of the right type with a value not allowed (EVENTWINDOWS_INVALID_ARGUMENT_VALUE)."""


class EventWindowsRuntimeError(_Condition, PySparkRuntimeError):
    """A session that cannot run eventwindows' functions (EVENTWINDOWS_EXTENSION_MISSING)."""


def invalid_type(message: str) -> EventWindowsTypeError:
    """The error for an argument of the wrong type; `message` names the function or parameter."""
    return EventWindowsTypeError("EVENTWINDOWS_INVALID_ARGUMENT_TYPE", {"message": message})


def invalid_value(message: str) -> EventWindowsValueError:
    """The error for an argument value not allowed; `message` names the function or parameter."""
    return EventWindowsValueError("EVENTWINDOWS_INVALID_ARGUMENT_VALUE", {"message": message})


def extension_missing(function: str) -> EventWindowsRuntimeError:
    """The error for a call of `function` in a session without the extension."""
    return EventWindowsRuntimeError("EVENTWINDOWS_EXTENSION_MISSING", {"function": function})
