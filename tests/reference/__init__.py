"""Brute-force, pure-Python references for every window family, written from SPEC.md (not from
the Scala code) to be obviously right rather than fast: ``streaminsight`` (hopping, tumbling,
snapshot windows and 'changes'), ``psi`` (count, index and relative-time windows), ``spl`` (SPL
sliding windows), ``dynamic`` (psi's dynamic windows)."""
