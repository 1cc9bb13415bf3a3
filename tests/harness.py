"""What the Python suites share: the test sessions' settings (the ``spark`` fixture's and the child
processes' that need a session of their own), comparisons of whole results with a reference, and
queries that run many window calls over one input at once.

The reference implementations themselves are in the ``reference`` package beside this module.
"""

import calendar
import contextlib
import datetime
import itertools
import json
import logging
import os
import subprocess
import sys

import pyspark
import pytest
from pyspark.errors import AnalysisException
from pyspark.logger import PySparkLogger

# ----------------------------------------------------------------------------------------------
# Sessions

LOG4J2_CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")
"""The test sessions' logging (log4j2): errors only, without Spark's logs of the failures tests
expect (failed tasks and streaming queries, errors a Connect server returns, each with its stack
trace); see the file."""

TEST_CONFIG = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "4",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    # As in Spark's own test sessions: generated code that does not compile fails the query
    # instead of running without whole-stage codegen.
    "spark.sql.codegen.fallback": "false",
    # Read when the driver JVM starts (quoted: the launcher splits this option at spaces).
    "spark.driver.extraJavaOptions": f'-Dlog4j2.configurationFile="{LOG4J2_CONFIG}"',
    # Streams' checkpoint files renamed through Hadoop's FileSystem, Spark's other checkpoint file
    # manager: the default renames through Hadoop's FileContext, which without Hadoop's native
    # library starts a readlink process per file (a good part of each micro-batch here).
    "spark.sql.streaming.checkpointFileManagerClass": "org.apache.spark.sql.execution.streaming."
    + ("" if pyspark.__version__.startswith("4.0.") else "checkpointing.")
    + "FileSystemBasedCheckpointFileManager",
}
"""Every test session's settings; no answer depends on the machine's time zone."""

# PySpark logs every SQL error it raises that carries a query context (SQLQueryContextLogger,
# DataFrameQueryContextLogger: an ERROR with the JVM's stack trace) besides raising it; many tests
# expect such errors. The error itself still reaches the test.
for _name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
    PySparkLogger.getLogger(_name).setLevel(logging.CRITICAL)

CANNOT_START = 3
"""A child process's exit code when it cannot start its session (the test fails saying why)."""

CHILD_TIMEOUT_SECONDS = 300


def configured(builder, overrides=None):
    """The session `builder` with TEST_CONFIG, then the settings of `overrides` (a dict)."""
    for key, value in {**TEST_CONFIG, **(overrides or {})}.items():
        builder = builder.config(key, value)
    return builder


def child_session(build):
    """In a child process: the session `build()` gives, or exit with CANNOT_START saying why."""
    try:
        return build()
    except Exception as e:  # noqa: BLE001  (any failure to start: the reason the test fails)
        print(f"CANNOT_START {type(e).__name__}: {e}", flush=True)
        sys.exit(CANNOT_START)


def child_result(script, what, env=None):
    """Runs `script` (a test file run as a script) in a child process and returns the JSON of its
    last ``RESULT <json>`` line. A child that cannot start `what` fails the test, as one that
    fails later does: a broken jar or package must not pass as a skip. (A Spark line that lacks a
    feature skips its tests at collection, naming the feature: ``pytest.mark.skipif``.)"""
    env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1")
    proc = subprocess.run(
        [sys.executable, os.path.abspath(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_SECONDS,
    )
    lines = proc.stdout.splitlines()
    if proc.returncode == CANNOT_START:
        reason = next((line for line in lines if line.startswith("CANNOT_START")), "")
        pytest.fail(f"cannot start {what}: {reason}\n{proc.stderr[-6000:]}", pytrace=False)
    results = [line[len("RESULT ") :] for line in lines if line.startswith("RESULT ")]
    assert proc.returncode == 0 and results, (
        f"{what} child failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n"
        f"{proc.stderr[-6000:]}"
    )
    return json.loads(results[-1])


def print_result(result):
    """In a child process: hands `result` to the test (see child_result)."""
    print("RESULT " + json.dumps(result), flush=True)


# ----------------------------------------------------------------------------------------------
# Times

BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
"""The ends of BIGINT time."""

TIMESTAMP_MIN = -62135596800000000
"""The first instant of TIMESTAMP time: 0001-01-01 00:00:00 UTC in microseconds."""

TIMESTAMP_MAX = 253402300799999999
"""The end of time of TIMESTAMP time: 9999-12-31 23:59:59.999999 UTC in microseconds."""


LINES = {
    "bigint": (BIGINT_MIN, BIGINT_MAX),
    "timestamp": (TIMESTAMP_MIN, TIMESTAMP_MAX),
    "timestamp_ntz": (TIMESTAMP_MIN, TIMESTAMP_MAX),
}
"""The first and the last instant of each time line, by the time type's name."""


def at_an_end(rows, start, end, line, side, margin, latest_start=None):
    """The rows with their times moved next to one `side` ("start" or "end") of the time `line`,
    `margin` ticks in, and clipped to the line, so that many windows reach past its end and times
    pile up there (ties). `start` is the index of the start (or time) column, `end` that of the
    end column or None. Starts end up at most one tick before the end of time, ends after their
    start and at most at the end of time; a row without a start keeps an end at the first tick
    (below every start, so it cannot move a default horizon). Messages (no end column) may sit at
    the end of time itself: `latest_start` is the line's last instant for them."""
    first, last = LINES[line]
    latest_start = last - 1 if latest_start is None else latest_start
    base = first + margin if side == "start" else last - margin
    out = []
    for row in rows:
        row = list(row)
        if row[start] is None:
            if end is not None and row[end] is not None:
                row[end] = first
        else:
            row[start] = min(max(row[start] + base, first), latest_start)
            if end is not None and row[end] is not None:
                row[end] = min(max(row[end] + base, row[start] + 1), last)
        out.append(tuple(row))
    return out


def micros(text):
    """Microseconds since the epoch of a UTC 'YYYY-MM-DD HH:MM:SS[.ffffff]'."""
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S"
    d = datetime.datetime.strptime(text, fmt)
    return calendar.timegm(d.timetuple()) * 1_000_000 + d.microsecond


def sql_int(n):
    """An integer (or None) as a SQL literal."""
    return "NULL" if n is None else (str(n) if n >= 0 else f"({n})")


# ----------------------------------------------------------------------------------------------
# Comparisons


def plain(row, sequence=tuple):
    """A collected row as a tuple of plain values, arrays (collect_list) as `sequence`."""
    return tuple(sequence(x) if isinstance(x, list) else x for x in row)


def sort_key(row):
    """Sorts rows that may hold ``None`` (keys, aggregates), tuples and lists of such."""

    def part(x):
        if isinstance(x, (tuple, list)):
            return (1, tuple(part(y) for y in x))
        return (0, 0) if x is None else (1, x)

    return tuple(part(x) for x in row)


def sort_rows(rows):
    return sorted(rows, key=sort_key)


def assert_same_cases(actual, expected, rows, context, input_columns, output_columns=""):
    """Compares whole results, whose rows start with their key (case, key), for rows whose first
    field is the case; on a difference, fails showing the smallest differing case in full: the
    `context` lines (what ran), its input rows (fields named by `input_columns`) and both
    results (fields named by `output_columns`, if given)."""
    if actual == expected:
        return

    def case(result, c):
        return [r for r in result if r[0][0] == c]

    bad = {c for c in {r[0][0] for r in actual + expected} if case(actual, c) != case(expected, c)}
    sizes = {c: sum(1 for r in rows if r[0] == c) for c in bad}
    c = min(bad, key=lambda x: (sizes[x], x))
    lines = [
        f"{len(bad)} case(s) differ: {sorted(bad)}; smallest is case {c}.",
        *context,
        f"input rows {input_columns} of case {c}:",
        *(f"  {r}" for r in sorted((r for r in rows if r[0] == c), key=sort_key)),
        "expected (reference)" + (f": {output_columns}" if output_columns else ":"),
        *(f"  {r}" for r in case(expected, c)),
        "actual (operator):",
        *(f"  {r}" for r in case(actual, c)),
    ]
    pytest.fail("\n".join(lines))


# ----------------------------------------------------------------------------------------------
# Errors


def analysis_error(spark, sql):
    """The message of the analysis error `sql` raises (before any job runs), which is not an
    internal error."""
    with pytest.raises(AnalysisException) as info:
        spark.sql(sql).schema  # noqa: B018  (analysis is enough)
    message = str(info.value)
    assert "XX000" not in message and "INTERNAL_ERROR" not in message, message
    return message


# ----------------------------------------------------------------------------------------------
# Streams


def second(t):
    """Second `t` of 2024-01-01 00:00, as a stream's JSON gives a timestamp; None stays None."""
    return None if t is None else f"2024-01-01 00:00:{t:02d}"


def write_batches(source, batches, first_mtime=1_700_000_000):
    """One JSON file per micro-batch (a list of records, dicts), in order of modification time
    (the order a file stream reads them in)."""
    source.mkdir(exist_ok=True)
    for mtime, records in enumerate(batches, start=first_mtime):
        path = source / f"{mtime}.json"
        path.write_text("".join(json.dumps(record) + "\n" for record in records))
        os.utime(path, (mtime, mtime))


def run_stream(frame, out, checkpoint):
    """Runs the streaming `frame` in append mode into Parquet files under `out` over every file
    its source has (a file sink resumes from its checkpoint; a memory sink in append mode does
    not); returns the query."""
    query = (
        frame.writeStream.format("parquet")
        .option("path", str(out))
        .outputMode("append")
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    return query


# ----------------------------------------------------------------------------------------------
# Random interval events (hopping, snapshot and count windows, sessions, clipped lifetimes)

ONE_TICK, EMPTY, OPEN = "one tick", "empty", "open-ended"
"""Lifetimes of random_interval_rows besides (lo, hi) lengths: a point event (end = start + 1),
an empty lifetime (end = start: in no window) and an open-ended one (a NULL end)."""


def random_interval_rows(
    rng,
    n_cases,
    lifetimes,
    times=((-30, 30),),
    values=((-20, 20),),
    scale=1,
    jitter=(),
    max_events=25,
    small_cases=0.6,
    null_values=0.1,
    null_starts=0.05,
):
    """Rows (c, k, s, e, v) of n_cases random cases of interval events.

    Each case has 1-3 keys (NULL among them), a range of times and a range of values, drawn from
    `times` and `values` (lists of (lo, hi): narrow ones make dense cases, with ties), and 0-2
    events (a share `small_cases` of the cases) or 3 to max_events. Starts are integers of the
    time range times `scale`, plus one of `jitter` (ticks) now and then, and often ties of earlier
    starts. Lengths are drawn from `lifetimes`, pairs (share, length) whose shares add up to 1:
    ONE_TICK, EMPTY, OPEN or (lo, hi), that many times `scale`, the end then moved by one of
    `jitter` now and then (never to its start). A share `null_values` of the values are NULL, and
    `null_starts` of the rows have a NULL start, their end NULL or below every start (so that they
    cannot move a default horizon).
    """
    first = min(lo for lo, _ in times)
    rows = []
    for c in range(n_cases):
        keys = rng.sample([None, 0, 1, 2], rng.randint(1, 3))
        lo, hi = rng.choice(times)
        low_value, high_value = rng.choice(values)
        size = rng.randint(0, 2) if rng.random() < small_cases else rng.randint(3, max_events)
        starts = []
        for _ in range(size):
            k = rng.choice(keys)
            v = None if rng.random() < null_values else rng.randint(low_value, high_value)
            if rng.random() < null_starts:
                end = None if rng.random() < 0.5 else (first - rng.randint(5, 15)) * scale
                rows.append((c, k, None, end, v))
                continue
            if starts and rng.random() < 0.3:
                s = rng.choice(starts)  # a tie
            else:
                s = rng.randint(lo, hi) * scale
                if jitter and rng.random() < 0.3:
                    s += rng.choice(jitter)
                starts.append(s)
            rows.append((c, k, s, random_end(rng, s, lifetimes, scale, jitter), v))
    rng.shuffle(rows)
    return rows


def random_end(rng, s, lifetimes, scale=1, jitter=()):
    """An end for the start s, its lifetime drawn from `lifetimes` (see random_interval_rows)."""
    r = rng.random()
    for share, length in lifetimes:  # noqa: B007  (the one drawn is read after the loop)
        if r < share:
            break
        r -= share
    if length == OPEN:
        return None
    if length == ONE_TICK:
        return s + 1
    if length == EMPTY:
        return s
    e = s + rng.randint(*length) * scale
    if jitter and rng.random() < 0.3:
        e = max(e + rng.choice(jitter), s + 1)
    return e


def one_big_key_rows(rng, span, open_ended, one_tick, max_length, n=400):
    """Rows (c, k, s, e, v) of n events in one case and key: starts in [-span, span], a share
    `open_ended` of them open-ended, `one_tick` of them one tick long, the others 1 to max_length
    ticks; values in [-1000, 1000]."""
    rows = []
    for _ in range(n):
        s = rng.randint(-span, span)
        r = rng.random()
        e = (
            None
            if r < open_ended
            else s + (1 if r < open_ended + one_tick else rng.randint(1, max_length))
        )
        rows.append((0, 1, s, e, rng.randint(-1000, 1000)))
    return rows


# ----------------------------------------------------------------------------------------------
# Random SPL tuples (sliding and tumbling windows)


def next_attribute(rng, x, style):
    """Small non-monotone (or, for 'up', non-decreasing) attribute values, so that differences hit
    the deltas exactly."""
    if style == "walk":
        return x + rng.randint(-2, 3)
    if style == "up":
        return x + rng.randint(0, 2)
    return rng.randint(-4, 4)


def spl_random_rows(
    rng,
    n_cases,
    max_len=12,
    gaps=None,
    base=0,
    scale=1,
    jitter=(),
    attribute=lambda x: x,
    punctuation=False,
):
    """Rows (c, k, o, v, a, b), and with `punctuation` (c, k, o, v, a, b, p), of n_cases random
    cases: per case 1-3 keys (NULL among them), per key up to max_len tuples at strictly
    increasing orders base + gaps (times scale, plus one of jitter now and then), or in some cases
    also ties (tied rows get distinct v, so the tie order by v is defined), NULL values of v,
    small attributes a and b (walks, jumps or non-decreasing, mapped by `attribute`),
    punctuations p (TRUE now and then), and rows with a NULL order (skipped; their attributes and
    punctuation may be NULL)."""
    rows = []
    for c in range(n_cases):
        keys = rng.sample([None, 0, 1, 2], rng.randint(1, 3))
        ties = rng.random() < 0.35
        case_gaps = gaps or rng.choice([(1,), (1, 2, 3), (1, 1, 2, 5, 9), (1, 4, 13)])
        punctuated = rng.choice([0.1, 0.3, 0.6]) if punctuation else 0.0
        for k in keys:
            o = rng.randint(-20, 20) * scale + base
            a, b = rng.randint(-3, 3), rng.randint(-3, 3)
            style_a = rng.choice(["walk", "jump", "up"])
            style_b = rng.choice(["walk", "jump", "up"])
            tied_values = set()
            for i in range(rng.randint(1, max_len)):
                if i and ties and rng.random() < 0.3:
                    v = rng.choice(
                        [x for x in [None] + list(range(-9, 10)) if x not in tied_values]
                    )
                else:
                    if i:
                        o += rng.choice(case_gaps) * scale
                        if jitter and rng.random() < 0.3:
                            o += rng.choice(jitter)
                    tied_values = set()
                    v = None if rng.random() < 0.1 else rng.randint(-9, 9)
                tied_values.add(v)
                a, b = next_attribute(rng, a, style_a), next_attribute(rng, b, style_b)
                row = (c, k, o, v, attribute(a), attribute(b))
                rows.append(row + (rng.random() < punctuated,) if punctuation else row)
            if rng.random() < 0.2:
                null_a = None if rng.random() < 0.5 else attribute(a)
                row = (c, k, None, rng.randint(-9, 9), null_a, attribute(b))
                rows.append(row + (rng.choice([None, True, False]),) if punctuation else row)
    rng.shuffle(rows)
    return rows


# ----------------------------------------------------------------------------------------------
# Many random cases and many calls in one query

_views = itertools.count()


@contextlib.contextmanager
def temp_view(spark, rows, schema):
    """A temporary view of `rows` (with `schema`) for the duration of the block; its name."""
    view = f"ev_test_{next(_views)}"
    spark.createDataFrame(rows, schema).createOrReplaceTempView(view)
    try:
        yield view
    finally:
        spark.catalog.dropTempView(view)


def ticks(expression, time):
    """An expression of the time type `time` ("bigint", "timestamp" or "timestamp_ntz") as BIGINT
    ticks (microseconds for timestamps)."""
    return expression if time == "bigint" else f"unix_micros(CAST({expression} AS TIMESTAMP))"


def source_of(time, values="v"):
    """A grouped_calls `source` over rows (c, k, s, e, values...) whose BIGINT s and e become the
    time type `time` (microseconds for timestamps)."""
    if time == "bigint":
        return "{view}"
    cast = "TIMESTAMP" if time == "timestamp" else "TIMESTAMP_NTZ"
    return (
        f"(SELECT c, k, CAST(timestamp_micros(s) AS {cast}) AS s, "
        f"CAST(timestamp_micros(e) AS {cast}) AS e, {values} FROM {{view}})"
    )


def grouped_calls(spark, rows, schema, calls, select, source="{view}", sequence=tuple):
    """The results of ``SELECT c, k, <select> FROM <source> GROUP BY c, k, <call>`` for every
    call, from one UNION ALL query over the rows, so one Spark job checks many parameter sets.

    Every random case has its own id ``c``, grouped by next to the case's key ``k`` (which may be
    NULL), so the cases do not mix. `source` may wrap the view (``{view}``), e.g. to make
    timestamps. Each call's result is a sorted list of reference-shaped rows
    ``((c, k), <select>...)``, arrays as `sequence`.
    """
    with temp_view(spark, rows, schema) as view:
        frm = source.format(view=view)
        query = "\nUNION ALL ".join(
            f"SELECT {i} AS q, c, k, {select} FROM {frm} GROUP BY c, k, {call}"
            for i, call in enumerate(calls)
        )
        result = spark.sql(query).collect()
    out = [[] for _ in calls]
    for r in result:
        out[r[0]].append(((r[1], r[2]),) + plain(r[3:], sequence))
    return [sort_rows(x) for x in out]
