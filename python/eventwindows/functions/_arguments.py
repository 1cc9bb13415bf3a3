"""How the Python values of the functions' parameters become the arguments of the SQL calls
(see the documentation of :mod:`eventwindows.functions`); every window family shares them."""

from __future__ import annotations

import datetime
import functools
import numbers
import re
import warnings
import weakref
from collections.abc import Callable
from typing import TypeVar

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.errors import extension_missing, invalid_type

#: A column or the name of a column.
ColumnOrName = Column | str
#: A window length or hop: interval string, timedelta, int ticks (BIGINT time only) or a Column.
DurationLike = str | datetime.timedelta | int | Column
#: A count or a message index: an int or a constant Column.
IntegerLike = int | Column
#: A time offset of any sign: interval string, timedelta, int ticks (BIGINT time) or a Column.
OffsetLike = str | datetime.timedelta | int | Column
#: An instant: timestamp string, datetime, date, int (BIGINT time) or a constant Column; an
#: alignment also an offset from the epoch (interval string, timedelta, int microseconds).
TimeLike = str | datetime.datetime | datetime.date | datetime.timedelta | int | Column


def _column(value: ColumnOrName, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.col(value)
    raise invalid_type(
        f"`{parameter}` must be a Column or a column name, got {type(value).__name__}: {value!r}"
    )


def _interval(value, parameter: str, kind: str, forms: str) -> Column:
    """An interval-like parameter: a Column, or an interval string, timedelta or int literal."""
    if isinstance(value, Column):
        return value
    if isinstance(value, bool):
        raise invalid_type(f"`{parameter}` must be {kind}, got bool: {value!r}")
    if isinstance(value, (str, datetime.timedelta, int)):
        return F.lit(value)
    raise invalid_type(
        f"`{parameter}` must be {forms} or a Column, got {type(value).__name__}: {value!r}"
    )


def _duration(value: DurationLike, parameter: str) -> Column:
    return _interval(
        value,
        parameter,
        "a duration",
        "an interval string such as '5 seconds', a datetime.timedelta, an int "
        "(ticks, for BIGINT time)",
    )


def _time(value: TimeLike | None, parameter: str) -> Column:
    if value is None:
        return F.lit(None)
    if isinstance(value, Column):
        return value
    if isinstance(value, bool):
        raise invalid_type(f"`{parameter}` must be a time, got bool: {value!r}")
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None and value.utcoffset() is not None:
            return F.lit(value)
        return F.lit(value.isoformat(sep=" "))
    if isinstance(value, (datetime.date, str)):
        return F.lit(str(value))
    if isinstance(value, (int, datetime.timedelta)):
        return F.lit(value)
    raise invalid_type(
        f"`{parameter}` must be a timestamp string, a datetime, a date, a timedelta, an int, "
        f"None or a Column, got {type(value).__name__}: {value!r}"
    )


def _integer(value: IntegerLike, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return F.lit(int(value))  # INT, or BIGINT when it does not fit: Spark sees an integer
    raise invalid_type(
        f"`{parameter}` must be an int or a Column, got {type(value).__name__}: {value!r}"
    )


def _offset(value: OffsetLike, parameter: str) -> Column:
    return _interval(
        value,
        parameter,
        "a time offset",
        "an interval string such as '-10 seconds', a datetime.timedelta (negative "
        "allowed), an int (BIGINT ticks)",
    )


def _choice(value: str | Column, parameter: str, allowed: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.lit(value)
    raise invalid_type(
        f"`{parameter}` must be {allowed}, None or a Column, got {type(value).__name__}: {value!r}"
    )


def _optional(*args: Column | None) -> list[Column]:
    """Drops trailing absent arguments; an absent one before a given one becomes NULL."""
    given = list(args)
    while given and given[-1] is None:
        given.pop()
    return [F.lit(None) if a is None else a for a in given]


def _lifetime(start: ColumnOrName, end: ColumnOrName | None) -> list[Column]:
    cols = [_column(start, "start")]
    if end is not None:
        cols.append(_column(end, "end"))
    return cols


_F = TypeVar("_F", bound=Callable[..., Column])

#: How an interval string begins ('5 seconds', '-1 day', 'INTERVAL 2 HOURS', '.5 seconds'); a
#: column name does not.
_INTERVAL_STRING = re.compile(r"\s*(interval\b|[+-]?\s*\.?\d)", re.IGNORECASE)


def _is_end_of_the_old_form(value, following: int, durations: int) -> bool:
    """True if `value`, the second positional argument of a window function, is the `end` of the
    form of earlier releases, f(start, end, <durations>, ...), and not the first duration of
    f(start, <durations>, ..., end=...): followed by at least the `durations` the old form needs,
    None (no end), a column name (a string that does not read as an interval) or a Column (which
    may otherwise hold a constant duration). A function without durations takes its second
    positional argument as the end."""
    if durations == 0:
        return True
    if following < durations:  # too few arguments after it for the old form
        return False
    if value is None:
        return True
    if isinstance(value, str):
        return not _INTERVAL_STRING.match(value)
    return isinstance(value, Column)


def end_keyword(durations: int) -> Callable[[_F], _F]:
    """Decorates a window function over events that may last, ``f(start, <durations>, ...,
    end=None)`` as ``F.window(timeColumn, windowDuration, ...)`` reads: `durations` is the number
    of required parameters after ``start``. Calls of the form of earlier releases,
    ``f(start, end, <durations>, ...)``, still work where the second argument is an end (see
    :func:`_is_end_of_the_old_form`), with a ``FutureWarning`` that names the new form."""

    def decorate(function: _F) -> _F:
        @functools.wraps(function)
        def call(*args, **kwargs):
            if len(args) >= 2 and _is_end_of_the_old_form(args[1], len(args) - 2, durations):
                if "end" in kwargs:
                    raise invalid_type(
                        f"{function.__name__}() got two ends: the second positional "
                        f"argument {args[1]!r} and end={kwargs['end']!r}"
                    )
                warnings.warn(
                    f"{function.__name__}(start, end, ...) is deprecated: pass the end as a "
                    f"keyword, {function.__name__}(start, ..., end=...), or omit it for point "
                    "events",
                    FutureWarning,
                    stacklevel=2,
                )
                kwargs["end"] = args[1]
                args = args[:1] + args[2:]
            return function(*args, **kwargs)

        return call  # type: ignore[return-value]

    return decorate


_SESSIONS_WITH_THE_EXTENSION: weakref.WeakSet[SparkSession] = weakref.WeakSet()
"""The sessions known to have the eventwindows extension (asked once each)."""


def call(function: str, *arguments: Column) -> Column:
    """The call of the eventwindows SQL function `function`, as ``F.call_function`` builds it, in
    classic PySpark and under Spark Connect. In an active session without the extension, an
    error that says what is missing, instead of Spark's UNRESOLVED_ROUTINE when the query is
    analyzed."""
    session = SparkSession.getActiveSession()
    if session is not None and session not in _SESSIONS_WITH_THE_EXTENSION:
        if not session.catalog.functionExists(function):
            raise extension_missing(function)
        _SESSIONS_WITH_THE_EXTENSION.add(session)
    return F.call_function(function, *arguments)
