"""psi's dynamic windows over two DataFrames: ``eventwindows.dynamic_window(anchors, messages, ...)``.

The anchors and the messages are put in one DataFrame (``unionByName``: messages keep their
columns, each anchor row becomes its keys, its interval and a struct of its columns) and grouped
by the SQL window function ``anchor_window``: no join. Its plan sorts that union by key and time
and sweeps it once, or, with order-insensitive aggregates and anchors small enough to broadcast,
folds each task's messages into one partial aggregate per anchor. Only DataFrame operations and
``call_function`` are used, so the same code runs in classic PySpark and under Spark Connect.
"""

from __future__ import annotations

import datetime
import inspect
from collections.abc import Callable, Sequence

from pyspark.sql import DataFrame, GroupedData
from pyspark.sql import functions as F
from pyspark.sql.column import Column
from pyspark.sql.types import NumericType

from eventwindows.errors import invalid_type, invalid_value
from eventwindows.functions._arguments import _duration, call
from eventwindows.functions._documentation import documented

__all__ = ["dynamic_window", "DynamicWindow"]

#: Internal columns of the union (names no user table is expected to have).
_ANCHOR, _START, _END = "__ew_anchor", "__ew_start", "__ew_end"

_BOUNDS = ("[]", "[)", "(]", "()")


def _expression(value: Column | str, parameter: str) -> Column:
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return F.expr(value)
    raise invalid_type(
        f"`{parameter}` must be a Column or a SQL expression string over the anchors' columns, "
        f"got {type(value).__name__}: {value!r}"
    )


class DynamicWindow:
    """The dynamic windows of ``anchors`` over ``messages``, waiting for their aggregates, as
    ``GroupedData`` after ``DataFrame.groupBy``: :meth:`agg`, :meth:`count`, :meth:`sum`,
    :meth:`avg` (:meth:`mean`), :meth:`min`, :meth:`max` and :meth:`applyInPandas`. Build it
    with :func:`dynamic_window`."""

    def __init__(
        self,
        anchors: DataFrame,
        messages: DataFrame,
        time: Column,
        start: Column,
        end: Column,
        on: list[str],
        bounds: str,
        lookback: Column | None,
    ):
        self._anchors, self._messages = anchors, messages
        self._time, self._start, self._end = time, start, end
        self._on, self._bounds, self._lookback = on, bounds, lookback

    def count(self) -> DataFrame:
        """One row per anchor with ``count``, the number of messages in its window."""
        return self.agg(F.count("*").alias("count"))

    def sum(self, *columns: str) -> DataFrame:
        """The sum of each named numeric column of the messages (all, if none is named) per
        anchor, in columns named ``sum(<column>)``."""
        return self._numeric("sum", columns)

    def avg(self, *columns: str) -> DataFrame:
        """The mean of each named numeric column of the messages (all, if none is named) per
        anchor, in columns named ``avg(<column>)``."""
        return self._numeric("avg", columns)

    mean = avg

    def min(self, *columns: str) -> DataFrame:
        """The least value of each named numeric column of the messages (all, if none is
        named) per anchor, in columns named ``min(<column>)``."""
        return self._numeric("min", columns)

    def max(self, *columns: str) -> DataFrame:
        """The greatest value of each named numeric column of the messages (all, if none is
        named) per anchor, in columns named ``max(<column>)``."""
        return self._numeric("max", columns)

    def _numeric(self, function: str, columns: Sequence[str]) -> DataFrame:
        numeric = [
            f.name for f in self._messages.schema.fields if isinstance(f.dataType, NumericType)
        ]
        for c in columns:
            if not isinstance(c, str):
                raise invalid_type(
                    f"{function}() takes column names, got {type(c).__name__}: {c!r}"
                )
            if c not in numeric:
                raise invalid_value(
                    f"{function}(): {c!r} is not a numeric column of the messages: {numeric}"
                )
        return self.agg(
            *[
                getattr(F, function)(F.col(f"`{c}`")).alias(f"{function}({c})")
                for c in (columns or numeric)
            ]
        )

    def agg(self, *columns: Column | dict[str, str]) -> DataFrame:
        """One row per anchor row: all the anchor's columns, ``window`` (struct of ``start`` and
        ``end``: the anchor's interval) and one column per aggregate, computed over the messages
        (with equal ``on`` keys) whose time lies in the interval; over no message when none does
        (``count`` 0, ``sum`` NULL).

        The aggregates are Columns over the messages' columns, or, as ``GroupedData.agg`` takes
        them, one dict from a column name to an aggregate function's name
        (``{"v": "max"}`` gives ``max(v)``). Their output names must differ from the anchors'
        column names and from ``window``.
        """
        if len(columns) == 1 and isinstance(columns[0], dict):
            columns = tuple(
                F.expr(f"{function}(`{name}`)").alias(f"{function}({name})")
                for name, function in columns[0].items()
            )
        if not columns:
            raise invalid_value("agg() needs at least one aggregate column, e.g. F.count('*')")
        for c in columns:
            if not isinstance(c, Column):
                raise invalid_type(f"agg() takes Columns, got {type(c).__name__}: {c!r}")
        anchor_columns = self._anchors.columns
        grouped = self._grouped().agg(*columns)
        results = grouped.columns[len(self._on) + 1 :]
        clashes = sorted(set(results) & (set(anchor_columns) | {"window"}))
        if clashes:
            raise invalid_value(
                f"dynamic_window: the aggregate column names {clashes} are also anchor columns (or "
                "`window`); give the aggregates other names with .alias(...)"
            )
        # The interval keeps the window column's metadata (Spark's window marker, the messages'
        # watermark), by which window_time(window) reads it, as over any window column.
        return grouped.select(
            *[F.col("window.anchor").getField(c).alias(c) for c in anchor_columns],
            F.struct(F.col("window.start").alias("start"), F.col("window.end").alias("end")).alias(
                "window", metadata=grouped.schema["window"].metadata
            ),
            *[F.col(f"`{c}`") for c in results],
        )

    def applyInPandas(self, func: Callable, schema) -> DataFrame:  # noqa: N802 (PySpark's name)
        """Calls ``func`` once per anchor row, as ``GroupedData.applyInPandas`` calls it once per
        group: with a pandas DataFrame of the messages in the anchor's interval (with equal
        ``on`` keys; the messages' columns, in time order, no rows where none is), and, if
        ``func`` takes two arguments, first the key: the ``on`` key values, then the window, whose
        ``start`` and ``end`` are the interval and ``anchor`` the anchor's row. ``schema`` is the
        schema of what ``func`` returns, as for ``applyInPandas``."""
        takes_key = len(inspect.signature(func).parameters) == 2
        internal = [_ANCHOR, _START, _END]

        def per_anchor(key, pdf):
            messages = pdf.drop(columns=[c for c in internal if c in pdf.columns])
            return func(key, messages) if takes_key else func(messages)

        return self._grouped().applyInPandas(per_anchor, schema)

    def _grouped(self) -> GroupedData:
        """The union of messages and anchors grouped by the ``on`` keys and ``anchor_window``."""
        anchors = self._anchors.select(
            *self._on,
            F.struct(*[F.col(f"`{c}`") for c in self._anchors.columns]).alias(_ANCHOR),
            self._start.alias(_START),
            self._end.alias(_END),
        )
        union = self._messages.unionByName(anchors, allowMissingColumns=True)
        window = call(
            "anchor_window",
            self._time,
            F.col(_START),
            F.col(_END),
            F.col(_ANCHOR),
            F.lit(self._bounds),
            *([] if self._lookback is None else [self._lookback]),
        )
        return union.groupBy(*self._on, window)


@documented(
    "the grouping of the messages by anchor, to aggregate as ``GroupedData``.",
    parameters={
        "anchors": "the anchors: every row gives an interval and gets one output row.",
        "messages": "the messages.",
        "time": "the messages' time column, or its name: TIMESTAMP, TIMESTAMP_NTZ or BIGINT. "
        "Messages with a NULL time are skipped.",
        "start": "the start of the anchor's interval, a Column or a SQL expression string over "
        "the anchors' columns, of the type of ``time``. An anchor with a NULL start or "
        "end, or an end before its start, is an error naming the row.",
        "end": "the end of the anchor's interval, as ``start``.",
        "on": "key columns present in both tables: messages match only anchors with equal keys "
        "(NULL keys match each other, as in GROUP BY).",
        "lookback": "on a stream of anchors only: how long before its own time an anchor's "
        "interval may start, where ``start`` is not the anchors' watermarked time "
        'column less a constant (such as ``F.col("t") - F.expr("INTERVAL 5 '
        'SECONDS")`` over anchors with a watermark on ``t``, which gives it). An '
        "anchor is late once the watermark passes its time (its start plus the "
        "lookback), and the messages stay in state that long for the anchors still "
        "to come.",
    },
)
def dynamic_window(
    anchors: DataFrame,
    messages: DataFrame,
    time: Column | str,
    start: Column | str,
    end: Column | str,
    on: str | Sequence[str] | None = None,
    bounds: str = "[]",
    lookback: str | datetime.timedelta | int | Column | None = None,
) -> DynamicWindow:
    """
    Call ``.agg(*columns)``, ``.count()``, ``.sum()``, ``.avg()``, ``.min()``, ``.max()``,
    ``.mean()`` or ``.applyInPandas()`` on the result, as on ``DataFrame.groupBy``'s
    ``GroupedData``: aggregates over the messages' columns, one row per anchor with the anchor's
    columns, ``window`` (struct of ``start`` and ``end``) and the aggregates. ``explain()`` shows
    ``AnchorWindowResults anchor_window`` where each task folds its messages into one partial
    aggregate per anchor, ``EventWindowAggregate anchor_window`` where both tables are swept.

    Examples
    --------
    >>> messages = spark.createDataFrame([(1, 1), (2, 2), (5, 4)], "ts bigint, v bigint")
    >>> anchors = spark.createDataFrame([("x", 0, 2), ("y", 3, 4)], "id string, s bigint, e bigint")
    >>> (dynamic_window(anchors, messages, "ts", "s", "e")
    ...    .agg(F.count("v").alias("n"), F.sum("v").alias("total"))
    ...    .orderBy("id").select("id", "window.start", "window.end", "n", "total").show())
    +---+-----+---+---+-----+
    | id|start|end|  n|total|
    +---+-----+---+---+-----+
    |  x|    0|  2|  2|    3|
    |  y|    3|  4|  0| NULL|
    +---+-----+---+---+-----+
    """
    for name, frame in (("anchors", anchors), ("messages", messages)):
        if not isinstance(frame, DataFrame):
            raise invalid_type(f"`{name}` must be a DataFrame, got {type(frame).__name__}")
    if not isinstance(time, (str, Column)):
        raise invalid_type(
            f"`time` must be the messages' time column or its name, got "
            f"{type(time).__name__}: {time!r}"
        )
    if on is not None and not isinstance(on, (str, list, tuple)):
        raise invalid_type(f"`on` must be a column name or a list of column names, got {on!r}")
    keys = [on] if isinstance(on, str) else list(on or [])
    if not all(isinstance(k, str) for k in keys):
        raise invalid_type(f"`on` must be a column name or a list of column names, got {on!r}")
    if "window" in anchors.columns:
        raise invalid_value(
            "dynamic_window: the anchors have a column named `window`, which the "
            "result uses for the interval; rename it first"
        )
    if bounds not in _BOUNDS:
        raise invalid_value(f"`bounds` must be one of {', '.join(_BOUNDS)}, got {bounds!r}")
    for k in keys:
        for name, frame in (("anchors", anchors), ("messages", messages)):
            if k not in frame.columns:
                raise invalid_value(f"`on` key {k!r} is not a column of {name}: {frame.columns}")
    time = F.col(f"`{time}`") if isinstance(time, str) else time
    return DynamicWindow(
        anchors,
        messages,
        time,
        _expression(start, "start"),
        _expression(end, "end"),
        keys,
        bounds,
        None if lookback is None else _duration(lookback, "lookback"),
    )
