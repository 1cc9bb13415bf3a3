"""Column functions for the eventwindows SQL functions, for classic PySpark and Spark Connect.

Every function here builds a call of the SQL function of the same name with
``pyspark.sql.functions.call_function``; the eventwindows extension must be enabled in the
session (``eventwindows.builder()`` does it). Each docstring is made from the SQL function's
documentation (``DESCRIBE FUNCTION EXTENDED <name>``, kept for Python in ``sql_functions.json``)
in PySpark's numpydoc form (:mod:`~eventwindows.functions._documentation`), then says how Python
values map to SQL.

The functions live in one module per source document, as the SQL functions do, and are all
imported here: :mod:`~eventwindows.functions.streaminsight` (StreamInsight's hopping, tumbling,
snapshot and count windows), :mod:`~eventwindows.functions.flink` (Flink's cumulating windows),
:mod:`~eventwindows.functions.psi` (psi's windows by message index,
by relative time and dynamic windows), :mod:`~eventwindows.functions.spl` (IBM Streams SPL's
sliding and tumbling windows and their policies), :mod:`~eventwindows.functions.sessions`
(sessions over events, after Trill and Azure Stream Analytics),
:mod:`~eventwindows.functions.clipped` (clipped lifetimes and time-weighted aggregates) and
:mod:`~eventwindows.functions.scalars` (the time helpers of "Taming Hopping Windows").

Python values for the constant parameters:

* time columns (``start``, ``end``, ``t``, ``time``): a :class:`~pyspark.sql.Column` or a column
  name.
* durations (``size``, ``hop``, ``step``, ``period``, ``gap``, ``max_duration``): an interval string such
  as ``'5 seconds'``, a :class:`datetime.timedelta` (a day-time interval), an ``int`` number of
  ticks for BIGINT time (for timestamps an ``int`` is an error, as ``F.window`` refuses one:
  write ``'600 seconds'``), or a :class:`~pyspark.sql.Column` holding a constant.
* times (``alignment``, ``horizon``): a timestamp string, a :class:`datetime.datetime` or
  :class:`datetime.date`, an ``int`` (BIGINT time), ``None`` (the default) or a
  :class:`~pyspark.sql.Column`. A string, a date or a naive datetime is read as a timestamp
  string: in the session time zone for TIMESTAMP time, as is for TIMESTAMP_NTZ. A datetime with
  a ``tzinfo`` is that instant (a TIMESTAMP). For timestamps, an ``alignment`` may also be an
  offset from the epoch, as Spark's ``window()`` takes its start time: an interval string such
  as ``'15 minutes'``, a :class:`datetime.timedelta` or an ``int`` number of microseconds.
* ``output``: ``'window'``, ``'point'``, ``'changes'`` or ``None`` (the default, ``'window'``);
  for ``count_window``, ``'point'``, ``'window'`` or ``None`` (the default, ``'point'``); for
  ``event_session_window``, ``'window'``, ``'changes'`` or ``None`` (the default, ``'window'``).
* counts and message indices (``n`` of ``count_window``, ``lo`` and ``hi`` of ``index_window``):
  an ``int`` (negative indices are before the anchor) or a :class:`~pyspark.sql.Column` holding
  a constant integer; ``lo=None`` of ``index_window`` is a SQL NULL: no lower end (a running
  window).
* time offsets (``lo``, ``hi`` of ``time_window``), of any sign or zero: an interval string such
  as ``'-10 seconds'``, a :class:`datetime.timedelta` (a day-time interval, may be negative), an
  ``int`` number of ticks for BIGINT time, or a :class:`~pyspark.sql.Column` holding a constant.
* ``bounds`` of ``time_window``: ``'[]'``, ``'[)'``, ``'(]'``, ``'()'`` or ``None`` (the default,
  ``'[]'``).
* ``order`` of ``index_window``: a :class:`~pyspark.sql.Column`, a column name or ``None``.
* SPL policies (``eviction``, ``trigger`` of ``sliding_window``, ``eviction`` of
  ``spl_tumbling_window``): a string as in SPL, such as ``'count(4)'``, what ``ew.spl.count``,
  ``ew.spl.time``, ``ew.spl.delta`` and ``ew.spl.punct`` (``spl_tumbling_window`` only) return
  (:mod:`eventwindows.spl`), or a :class:`~pyspark.sql.Column` holding a constant string.
* ``flush_at_end`` of ``spl_tumbling_window``: ``False`` (the default) or ``None`` omit it,
  ``True`` passes ``TRUE``; or a :class:`~pyspark.sql.Column` holding a constant BOOLEAN.

A ``None`` before a later optional parameter that is given is passed as a SQL NULL, which the
SQL functions read as the default.
"""

from eventwindows.functions._arguments import (
    ColumnOrName,
    DurationLike,
    IntegerLike,
    OffsetLike,
    TimeLike,
)
from eventwindows.functions.clipped import (
    clipped_end,
    clipped_start,
    time_weighted_avg,
    time_weighted_sum,
)
from eventwindows.functions.flink import cumulate_window
from eventwindows.functions.psi import anchor_window, index_window, time_window
from eventwindows.functions.scalars import adjust_end_time, adjust_start_time, snap_to_boundary
from eventwindows.functions.sessions import event_session_window
from eventwindows.functions.spl import (
    PolicyLike,
    count,
    delta,
    punct,
    sliding_window,
    spl_tumbling_window,
    time,
)
from eventwindows.functions.streaminsight import (
    count_window,
    hopping_window,
    snapshot_window,
    tumbling_window,
)

__all__ = [
    # StreamInsight (streaminsight.py)
    "hopping_window",
    "tumbling_window",
    "snapshot_window",
    "count_window",
    # Apache Flink (flink.py)
    "cumulate_window",
    # psi, the Platform for Situated Intelligence (psi.py)
    "index_window",
    "time_window",
    "anchor_window",
    # IBM Streams SPL (spl.py): the windows (the helpers that write their policies are
    # eventwindows.spl's, so that `import *` shadows neither F.count nor the time module)
    "sliding_window",
    "spl_tumbling_window",
    # Trill and Azure Stream Analytics: sessions over events (sessions.py)
    "event_session_window",
    # StreamInsight's input policy: clipped lifetimes, time-weighted aggregates (clipped.py)
    "clipped_start",
    "clipped_end",
    "time_weighted_sum",
    "time_weighted_avg",
    # "Taming Hopping Windows": the scalar time helpers (scalars.py)
    "snap_to_boundary",
    "adjust_start_time",
    "adjust_end_time",
]
