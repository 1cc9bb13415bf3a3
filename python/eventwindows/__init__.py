"""eventwindows: stream-engine windows (hopping, tumbling, snapshot, ...) for Apache Spark."""
from eventwindows.session import EXTENSION_CLASS, builder, jar_path

__all__ = ["EXTENSION_CLASS", "builder", "jar_path"]
