"""The docstrings of the Python functions, in PySpark's numpydoc form, made from the texts of the
SQL functions: ``sql_functions.json`` holds, for every SQL function, the signature, description,
each argument's text by name and the notes that ``DESCRIBE FUNCTION EXTENDED`` shows, as the
Scala suite ``FunctionDocsSuite`` writes and checks them (a golden file: the Scala descriptions
are the one source). :func:`documented` makes a function's docstring from them and from what the
function's own docstring says in Python (a paragraph, then its ``Examples``)::

    <description>

    .. versionadded:: <since>

    Parameters
    ----------
    <name> : <type from the annotation>[, optional]
        <the SQL argument's text, or the Python one given>
    Returns
    -------
    <type>
        <returns>

    Notes
    -----
    <the SQL notes>, <the function's own paragraph>

    Examples
    --------
    <the function's own examples>
"""

from __future__ import annotations

import inspect
import json
import re
import textwrap
from collections.abc import Callable
from importlib import resources
from typing import TypeVar

#: The texts of every SQL function, by name.
SQL_FUNCTIONS: dict[str, dict] = json.loads(
    resources.files(__package__).joinpath("sql_functions.json").read_text(encoding="utf-8")
)

#: The numpydoc types of the annotations the functions use (their aliases in ``_arguments``).
_TYPES = {
    "Column": ":class:`~pyspark.sql.Column`",
    "DataFrame": ":class:`~pyspark.sql.DataFrame`",
    "ColumnOrName": ":class:`~pyspark.sql.Column` or str",
    "DurationLike": "str, :class:`datetime.timedelta`, int or :class:`~pyspark.sql.Column`",
    "OffsetLike": "str, :class:`datetime.timedelta`, int or :class:`~pyspark.sql.Column`",
    "IntegerLike": "int or :class:`~pyspark.sql.Column`",
    "TimeLike": "str, :class:`datetime.datetime`, :class:`datetime.date`, "
    ":class:`datetime.timedelta`, int or :class:`~pyspark.sql.Column`",
    "PolicyLike": "str or :class:`~pyspark.sql.Column`",
}

_WIDTH = 96
_F = TypeVar("_F", bound=Callable)


def _members(arguments: str) -> list[str]:
    """The top-level members of a subscript's arguments: "str, Sequence[str]" -> both."""
    members, depth, current = [], 0, ""
    for character in arguments + ",":
        depth += {"[": 1, "]": -1}.get(character, 0)
        if character == "," and depth == 0:
            members.append(current.strip())
            current = ""
        else:
            current += character
    return members


def _type(annotation: str) -> str:
    """The numpydoc type of an annotation string: an alias's, ``Union``'s members joined by "or"
    (``Optional`` is said by ", optional"), or the annotation as written."""
    subscript = re.fullmatch(r"(Optional|Union)\[(.*)\]", annotation)
    if subscript:
        members = [m for m in _members(subscript.group(2)) if m != "None"]
        return " or ".join(_type(m) for m in members)
    return _TYPES.get(annotation, annotation)


def _wrapped(text: str, indent: str = "") -> str:
    return textwrap.fill(
        text,
        _WIDTH,
        initial_indent=indent,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _section(title: str, body: str) -> str:
    return f"{title}\n{'-' * len(title)}\n{body}"


def documented(
    returns: str, *, sql: str | None = None, parameters: dict[str, str] | None = None
) -> Callable[[_F], _F]:
    """Makes the docstring of a function from the texts of the SQL function `sql` (by default of
    its own name): its description, ``.. versionadded::``, ``Parameters`` in the order of the
    Python signature with each one's SQL text (or the Python text in `parameters`, for one that
    the SQL function has not or takes otherwise), ``Returns`` (`returns`), ``Notes`` (the SQL
    notes, then the paragraph of the function's own docstring) and the function's own
    ``Examples``. A parameter without a text is an error when the module is imported. The
    function keeps what its docstring was made from, for the tests: ``__sql_function__``,
    ``__parameter_texts__`` (by name) and ``__python_parameters__`` (the names of `parameters`)."""

    def decorate(function: _F) -> _F:
        texts = SQL_FUNCTIONS[sql or function.__name__]
        own = textwrap.dedent(function.__doc__ or "").strip()
        paragraph, _, examples = own.partition("Examples\n--------")
        signature = inspect.signature(function)
        given: dict[str, str] = {**texts["arguments"], **(parameters or {})}
        entries: list[str] = []
        used: dict[str, str] = {}
        for name, parameter in signature.parameters.items():
            if name not in given:
                raise TypeError(f"{function.__name__}: no text for the parameter `{name}`")
            optional = ", optional" if parameter.default is not inspect.Parameter.empty else ""
            used[name] = given[name]
            entries.append(
                f"{name} : {_type(str(parameter.annotation))}{optional}\n"
                f"{_wrapped(given[name], '    ')}"
            )
        notes = [*texts["notes"], *([paragraph.strip()] if paragraph.strip() else [])]
        parts = [
            _wrapped(texts["description"]),
            f".. versionadded:: {texts['since']}",
            _section("Parameters", "\n".join(entries)) if entries else None,
            _section(
                "Returns", f"{_type(str(signature.return_annotation))}\n{_wrapped(returns, '    ')}"
            ),
            _section(
                "Notes", "\n\n".join(n if n == paragraph.strip() else _wrapped(n) for n in notes)
            )
            if notes
            else None,
            _section("Examples", examples.strip("\n")) if examples else None,
        ]
        function.__doc__ = "\n\n".join(p for p in parts if p) + "\n"
        function.__sql_function__ = sql or function.__name__  # type: ignore[attr-defined]
        function.__parameter_texts__ = used  # type: ignore[attr-defined]
        function.__python_parameters__ = frozenset(parameters or ())  # type: ignore[attr-defined]
        return function

    return decorate


#: What ``clipped_start`` returns.
CLIPPED_START = (
    "the start of the event an aggregate reads, clipped to the window: use it inside "
    "the aggregates of ``agg`` over a window."
)
#: What ``clipped_end`` returns.
CLIPPED_END = (
    "the end of the event an aggregate reads, clipped to the window: use it inside the "
    "aggregates of ``agg`` over a window."
)
#: What the time-weighted aggregates return.
TIME_WEIGHTED = "the aggregate, a DOUBLE: use it in ``agg`` over a window."
#: What the scalar time helpers return.
TIME = "the times, of the type of ``t``."
#: What a window function returns.
WINDOW = (
    "the window column: group by it (``df.groupBy(..., window)``); it becomes the "
    "column ``window``, a struct of ``start`` and ``end``, the lifetime of each output row."
)
