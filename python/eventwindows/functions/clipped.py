"""Clipped lifetimes and the time-weighted aggregates over them: StreamInsight's input policy for
time-sensitive aggregates (its "Hopping Windows" and "Count Windows" documentation), where an
aggregate sees each event's lifetime clipped to the window."""
from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql.column import Column

from eventwindows.functions._arguments import call, ColumnOrName, _column

def clipped_start() -> Column:
    """clipped_start() - The start of the event an aggregate reads, clipped to the window it is
    read for: the later of the event's start and the window's start, of the window's time type.
    The window's extent is [start, start + size) for hopping and tumbling windows (also under
    output 'point'), the snapshot interval, [s_i, s_k + 1 tick) for count windows, and the
    session or its piece for event_session_window.

    Arguments: none.

    Allowed only inside the arguments and FILTER of the aggregates of a GROUP BY over
    hopping_window, tumbling_window (outputs 'window' and 'point'), snapshot_window,
    count_window or event_session_window (output 'window'); not with output 'changes', where
    one row stands for many windows. Each
    window reads each of its events once: the cost is O(events in the window) per window. For
    time-weighted sums and averages use time_weighted_sum and time_weighted_avg, which cost
    O(log n) per event and per window whatever the events' lengths.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7), (4, 5)], "s bigint, e bigint")
    >>> (df.groupBy(tumbling_window("s", 4, end="e"))
    ...    .agg(F.min(clipped_start()).alias("first"),
    ...         F.sum(clipped_end() - clipped_start()).alias("length"))
    ...    .orderBy("window").select("window.start", "first", "length").show())
    +-----+-----+------+
    |start|first|length|
    +-----+-----+------+
    |    0|    1|     3|
    |    4|    4|     4|
    +-----+-----+------+
    """
    return call("clipped_start")


def clipped_end() -> Column:
    """clipped_end() - The end of the event an aggregate reads, clipped to the window it is read
    for: the earlier of the event's exclusive end and the window's end (an open-ended event under
    per-window hopping output ends one tick after the horizon).

    Arguments: none.

    Allowed only inside the arguments and FILTER of the aggregates of a GROUP BY over
    hopping_window, tumbling_window (outputs 'window' and 'point'), snapshot_window,
    count_window or event_session_window (output 'window'); not with output 'changes', where
    one row stands for many windows. Each
    window reads each of its events once: the cost is O(events in the window) per window. For
    time-weighted sums and averages use time_weighted_sum and time_weighted_avg, which cost
    O(log n) per event and per window whatever the events' lengths.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7), (4, 5)], "s bigint, e bigint")
    >>> (df.groupBy(tumbling_window("s", 4, end="e"))
    ...    .agg(F.collect_list(clipped_end()).alias("ends"))
    ...    .orderBy("window").select("window.start", "ends").show())
    +-----+------+
    |start|  ends|
    +-----+------+
    |    0|   [4]|
    |    4|[7, 5]|
    +-----+------+
    """
    return call("clipped_end")


def time_weighted_sum(v: ColumnOrName) -> Column:
    """time_weighted_sum(v) - The sum over the window's events of v times the length of the
    event's lifetime clipped to the window; NULL if every v is NULL.

    Arguments:
      * v - a numeric column, read as DOUBLE; events whose v is NULL are left out.

    Allowed inside the aggregates of a GROUP BY over hopping_window, tumbling_window (outputs
    'window' and 'point'), snapshot_window, count_window or event_session_window (output
    'window'); not with output 'changes'. The
    length of a clipped lifetime is in seconds for TIMESTAMP and TIMESTAMP_NTZ time and in ticks
    for BIGINT time. The window operator integrates v over time once per key: O(log n) per event
    and per window, whatever the events' lengths or the windows they span.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7, 2.0), (4, 5, 10.0)], "s bigint, e bigint, v double")
    >>> (df.groupBy(tumbling_window("s", 4, end="e")).agg(time_weighted_sum("v").alias("sum"))
    ...    .orderBy("window").select("window.start", "sum").show())
    +-----+----+
    |start| sum|
    +-----+----+
    |    0| 6.0|
    |    4|16.0|
    +-----+----+
    """
    return call("time_weighted_sum", _column(v, "v"))


def time_weighted_avg(v: ColumnOrName) -> Column:
    """time_weighted_avg(v) - The average of v over the window weighted by the length of each
    event's lifetime clipped to the window: time_weighted_sum(v) divided by the summed clipped
    lengths of the events whose v is not NULL; NULL if there are none.

    Arguments:
      * v - a numeric column, read as DOUBLE; events whose v is NULL are left out.

    Allowed inside the aggregates of a GROUP BY over hopping_window, tumbling_window (outputs
    'window' and 'point'), snapshot_window, count_window or event_session_window (output
    'window'); not with output 'changes'. The
    length of a clipped lifetime is in seconds for TIMESTAMP and TIMESTAMP_NTZ time and in ticks
    for BIGINT time. The window operator integrates v over time once per key: O(log n) per event
    and per window, whatever the events' lengths or the windows they span.

    Examples
    --------
    >>> df = spark.createDataFrame([(1, 7, 2.0), (4, 5, 10.0)], "s bigint, e bigint, v double")
    >>> (df.groupBy(tumbling_window("s", 4, end="e")).agg(time_weighted_avg("v").alias("avg"))
    ...    .orderBy("window").select("window.start", "avg").show())
    +-----+---+
    |start|avg|
    +-----+---+
    |    0|2.0|
    |    4|4.0|
    +-----+---+
    """
    return call("time_weighted_avg", _column(v, "v"))
