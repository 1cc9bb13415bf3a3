"""IBM Streams SPL's window policies, in SPL's syntax: ``ew.spl.count(1000)``,
``ew.spl.time("5 seconds")``, ``ew.spl.delta("temperature", 1.5)`` and
``ew.spl.punct("last_of_batch")``, for :func:`~eventwindows.sliding_window` and
:func:`~eventwindows.spl_tumbling_window`.

They live in a namespace of their own, so that ``from eventwindows import *`` binds no name that
shadows PySpark's (``count``) or the standard library's (``time``).

>>> from eventwindows import spl
>>> spl.count(3), spl.time("5 seconds"), spl.delta("ts", 2), spl.punct("flush")
('count(3)', 'time(5 seconds)', 'delta(ts, 2)', 'punct(flush)')
"""

from eventwindows.functions.spl import PolicyLike, count, delta, punct, time

__all__ = ["PolicyLike", "count", "time", "delta", "punct"]
