"""eventwindows: stream-engine windows (hopping, tumbling, snapshot, ...) for Apache Spark."""
from eventwindows.functions import (
    adjust_end_time,
    adjust_start_time,
    hopping_window,
    snap_to_boundary,
    snapshot_window,
    tumbling_window,
)
from eventwindows.session import EXTENSION_CLASS, builder, jar_path

__all__ = [
    "EXTENSION_CLASS",
    "builder",
    "jar_path",
    "adjust_end_time",
    "adjust_start_time",
    "hopping_window",
    "snap_to_boundary",
    "snapshot_window",
    "tumbling_window",
]
