"""eventwindows: stream-engine windows for Apache Spark: StreamInsight's hopping, tumbling, snapshot
and count windows, Flink's cumulating windows, psi's windows by message index, by relative time and dynamic windows, sessions
over events (Trill's session windows, with a maximum duration and progressive output), and IBM
Streams SPL sliding and tumbling windows."""

from eventwindows import errors, spl
from eventwindows.asof import asof_join, to_signal
from eventwindows.dynamic import DynamicWindow, dynamic_window
from eventwindows.functions import (
    adjust_end_time,
    adjust_start_time,
    anchor_window,
    clipped_end,
    clipped_start,
    count_window,
    cumulate_window,
    event_session_window,
    hopping_window,
    index_window,
    sliding_window,
    snap_to_boundary,
    snapshot_window,
    spl_tumbling_window,
    time_weighted_avg,
    time_weighted_sum,
    time_window,
    tumbling_window,
)
from eventwindows.joins import temporal_join
from eventwindows.plotting import plot
from eventwindows.session import EXTENSION_CLASS, SPARK_LINES, builder, jar_path, spark_line

__all__ = [
    "EXTENSION_CLASS",
    "SPARK_LINES",
    "builder",
    "jar_path",
    "spark_line",
    "adjust_end_time",
    "adjust_start_time",
    "anchor_window",
    "asof_join",
    "clipped_end",
    "clipped_start",
    "count_window",
    "cumulate_window",
    "dynamic_window",
    "DynamicWindow",
    "event_session_window",
    "hopping_window",
    "index_window",
    "plot",
    "sliding_window",
    "snap_to_boundary",
    "snapshot_window",
    "spl",
    "temporal_join",
    "spl_tumbling_window",
    "time_weighted_avg",
    "to_signal",
    "time_weighted_sum",
    "time_window",
    "tumbling_window",
]


_MOVED_TO_SPL = {"count", "time", "delta", "punct"}


def __getattr__(name):
    """``ew.count``, ``ew.time``, ``ew.delta`` and ``ew.punct`` of earlier releases: the SPL
    policies, now ``ew.spl.<name>`` (a ``FutureWarning`` says so)."""
    if name in _MOVED_TO_SPL:
        import warnings

        warnings.warn(
            f"eventwindows.{name} is deprecated: use eventwindows.spl.{name}",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(spl, name)
    raise AttributeError(f"module 'eventwindows' has no attribute {name!r}")
