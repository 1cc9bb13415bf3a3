"""Brute-force, pure-Python references for every window family, written from SPEC.md and the
issues (not from the Scala code) to be obviously right rather than fast: ``streaminsight``
(hopping, tumbling, snapshot windows and 'changes'), ``sessions`` (sessions over events, their
pieces and 'changes'), ``psi`` (count, index and relative-time windows), ``spl`` (SPL sliding and
tumbling windows), ``dynamic`` (psi's dynamic windows), ``clipped`` (clipped lifetimes and
time-weighted aggregates)."""
