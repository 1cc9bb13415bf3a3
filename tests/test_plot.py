"""``ew.plot``: pictures of a few events and the windows over them (matplotlib, optional).

Every window family's output is drawn and what was drawn is read back through the artists'
gids (documented in ``ew.plot``): the events' bars, ticks and arrows against the events'
lifetimes, the windows' bars, points, arrows and extents against the rows of the windowed
DataFrame, both worked out here independently of the plotting code (times as microseconds through
``unix_micros``, so no answer depends on the machine's time zone; the session's is UTC). Then the
time axis (dates or numbers), the limits (too many rows, windows or keys: an error before any
large collect), a missing matplotlib, and bad columns.
"""

import datetime
import doctest
import io
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import pytest  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import FancyArrow, Rectangle  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import eventwindows as ew  # noqa: E402

EPOCH = datetime.datetime(1970, 1, 1)
BIGINT_MAX = 2**63 - 1
TIMESTAMP_MAX = 253402300799999999  # 9999-12-31 23:59:59.999999 UTC, the end of time
DATE_TOLERANCE = 4e-12  # days (0.35 us): date numbers near 2012 are exact to about 3.6e-12 days


# ----------------------------------------------------------------------------------------------
# What was drawn, read back from the figure


def marks(ax, kind):
    """The artists of `ax` whose gid is `kind` (events) or `kind:<group>` (windows)."""
    return [
        a
        for a in ax.get_children()
        if (a.get_gid() or "") == kind or (a.get_gid() or "").startswith(kind + ":")
    ]


def drawn(fig):
    """{lane title: {kind: sorted marks}}: bars and extents as (x0, x1), ticks and points as x,
    arrows as (start, tip), labels as their text; only the kinds drawn."""
    out = {}
    for ax in fig.axes:
        lane = {}
        for kind, read in [
            ("event-bar", lambda a: (a.get_x(), a.get_x() + a.get_width())),
            ("event-tick", lambda a: a.get_xdata()[0]),
            ("event-open", lambda a: (min(a.get_xy()[:, 0]), max(a.get_xy()[:, 0]))),
            ("event-label", lambda a: a.get_text()),
            ("window-bar", lambda a: (a.get_x(), a.get_x() + a.get_width())),
            ("window-point", lambda a: a.get_xdata()[0]),
            ("window-open", lambda a: (min(a.get_xy()[:, 0]), max(a.get_xy()[:, 0]))),
            ("window-extent", lambda a: (a.get_x(), a.get_x() + a.get_width())),
            ("window-label", lambda a: a.get_text()),
        ]:
            found = sorted(read(a) for a in marks(ax, kind))
            if found:
                lane[kind] = found
        out[ax.get_title(loc="left")] = lane
    return out


def same(got, expected, tolerance=0.0):
    """Equal marks: lists and tuples alike item by item, numbers within `tolerance`."""
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(got, (list, tuple))
            and len(got) == len(expected)
            and all(same(g, e, tolerance) for g, e in zip(got, expected))
        )
    if isinstance(expected, float):
        return abs(got - expected) <= tolerance
    return got == expected


def assert_drawn(fig, expected, tolerance=0.0):
    """`fig` drew exactly `expected` (as `drawn` gives it), times within `tolerance`."""
    got = drawn(fig)
    assert sorted(got) == sorted(expected), (sorted(got), sorted(expected))
    for lane in expected:
        assert sorted(got[lane]) == sorted(expected[lane]), (lane, got[lane], expected[lane])
        for kind in expected[lane]:
            assert same(got[lane][kind], expected[lane][kind], tolerance), (
                lane,
                kind,
                got[lane][kind],
                expected[lane][kind],
            )


# ----------------------------------------------------------------------------------------------
# What should be drawn, from the DataFrames


class Expect:
    """The marks `ew.plot` must draw for `events` (and `windows`), worked out from their rows."""

    def __init__(self, events, start, end=None, key=None, value=None, dates=False):
        self.dates = dates
        self.key = key
        self.lanes = {}
        cols = [F.col(key) if key else F.lit(None)]
        cols += [
            self._ticks(F.col(start)),
            self._ticks(F.col(end)) if end else F.lit(None),
            F.col(end).isNull() if end else F.lit(False),
            F.col(value).cast("string") if value else F.lit(None),
        ]
        for k, s, e, open_, v in events.select(*cols).collect():
            lane = self.lane(k)
            if s is None:
                continue
            if end is None:
                self.add(lane, "event-tick", self.x(s))
            elif open_:
                self.add(lane, "event-open", (self.x(s), "edge"))
            else:
                self.add(lane, "event-bar", (self.x(s), self.x(e)))
            if value:
                self.add(lane, "event-label", v)

    def _ticks(self, column):
        return F.unix_micros(column.cast("timestamp")) if self.dates else column

    def x(self, ticks):
        if self.dates:
            return float(mdates.date2num(EPOCH + datetime.timedelta(microseconds=ticks)))
        return float(ticks)

    def lane(self, k):
        name = f"{self.key} = {'NULL' if k is None else k}" if self.key else ""
        return self.lanes.setdefault(name, {})

    def add(self, lane, kind, mark):
        lane.setdefault(kind, []).append(mark)

    def windows(self, windows, labels=(), label_text=None):
        """Adds the marks of a windowed result: points where the output lifetime is one tick,
        arrows where it lasts to the end of time, bars elsewhere; extents [first, last + 1 tick)
        where the row has them; the labels as `name=value`."""
        fields = windows.schema["window"].dataType.fieldNames()
        extent = "first" in fields
        cols = [F.col(self.key) if self.key else F.lit(None)]
        cols += [
            self._ticks(F.col(f"window.{f}"))
            for f in (("start", "end", "first", "last") if extent else ("start", "end"))
        ]
        cols += [F.col(c) for c in labels]
        last_tick = TIMESTAMP_MAX if self.dates else BIGINT_MAX
        for row in windows.select(*cols).collect():
            lane = self.lane(row[0])
            s, e = row[1], row[2]
            if e - s == 1:
                self.add(lane, "window-point", self.x(s))
            elif e == last_tick:
                self.add(lane, "window-open", (self.x(s), "edge"))
            else:
                self.add(lane, "window-bar", (self.x(s), self.x(e)))
            if extent:
                self.add(lane, "window-extent", (self.x(row[3]), self.x(row[4] + 1)))
            if labels:
                values = row[5 if extent else 3 :]
                text = label_text or (lambda c, v: f"{c}={v}")
                self.add(
                    lane, "window-label", ", ".join(text(c, v) for c, v in zip(labels, values))
                )
        return self

    def of(self, fig):
        """The expected marks, arrows reaching the figure's right edge; sorted as `drawn`."""
        edge = fig.axes[-1].get_xlim()[1]
        out = {}
        for name, lane in self.lanes.items():
            out[name] = {
                kind: sorted(
                    tuple(edge if v == "edge" else v for v in m) if isinstance(m, tuple) else m
                    for m in found
                )
                for kind, found in lane.items()
            }
        return out


def check(fig, expect):
    assert_drawn(fig, expect.of(fig), DATE_TOLERANCE if expect.dates else 0.0)
    fig.savefig(io.BytesIO(), format="png", dpi=40)  # it renders


def is_dates(fig):
    return isinstance(fig.axes[-1].xaxis.get_major_formatter(), mdates.ConciseDateFormatter)


_cached = []


def cached(frame):
    """`frame` computed once: ew.plot and Expect both read it (unpersisted after the module)."""
    _cached.append(frame.cache())
    return frame


@pytest.fixture(scope="module", autouse=True)
def _unpersist():
    yield
    for frame in _cached:
        frame.unpersist()


# ----------------------------------------------------------------------------------------------
# Inputs


@pytest.fixture(scope="module")
def intervals(spark):
    """BIGINT interval events of two keys, one open-ended (NULL end) and one point-like."""
    return spark.createDataFrame(
        [
            ("a", 0, 4, 1),
            ("a", 2, 9, 10),
            ("a", 6, None, 100),
            ("b", 1, 2, 1000),
            ("b", 3, 4, 10000),
            ("b", None, 5, 0),
        ],
        "k string, s bigint, e bigint, v bigint",
    )


@pytest.fixture(scope="module")
def messages(spark):
    """BIGINT point events (messages) of two keys, two of them at one time."""
    return spark.createDataFrame(
        [
            ("a", 1, 1.0),
            ("a", 3, 2.0),
            ("a", 3, 4.0),
            ("a", 4, 8.0),
            ("a", 6, 16.0),
            ("b", 2, 0.5),
            ("b", 5, 1.5),
        ],
        "k string, t bigint, v double",
    )


@pytest.fixture(scope="module")
def taming_events(spark):
    """The events of the "Taming Hopping Windows" post (TIMESTAMP), e0 open-ended."""
    day = datetime.datetime(2012, 6, 28)

    def at(seconds):
        return (day + datetime.timedelta(seconds=seconds)).isoformat(sep=" ")

    return spark.createDataFrame(
        [("e0", at(0), None), ("e1", at(1), at(2)), ("e2", at(3), at(10)), ("e3", at(9), at(10))],
        "id string, s string, e string",
    ).select("id", F.col("s").cast("timestamp").alias("s"), F.col("e").cast("timestamp").alias("e"))


# ----------------------------------------------------------------------------------------------
# Every family's output


@pytest.mark.parametrize("output", ["window", "point", "changes"])
def test_hopping_window_bigint(intervals, output):
    windows = cached(
        intervals.groupBy("k", ew.hopping_window("s", 4, 2, output=output, end="e")).agg(
            F.count("*").alias("n"), F.sum("v").alias("total")
        )
    )
    fig = ew.plot(intervals, "s", "e", key="k", value="v", windows=windows, labels=["n", "total"])
    expect = Expect(intervals, "s", "e", key="k", value="v").windows(windows, ["n", "total"])
    check(fig, expect)
    got = drawn(fig)
    # the open-ended event is an arrow to the right edge; the NULL-start row is not drawn
    assert got["k = a"]["event-open"] == [(6.0, fig.axes[0].get_xlim()[1])]
    assert sorted(got["k = b"]["event-bar"]) == [(1.0, 2.0), (3.0, 4.0)]
    if output == "point":
        # a point at each window end: no bars, no extent (the row does not give it)
        assert "window-bar" not in got["k = a"] and "window-extent" not in got["k = a"]
        assert got["k = b"]["window-point"] == [2.0, 4.0, 6.0]
    elif output == "changes":
        # the last run, over the open-ended event alone, lasts to the end of time: an arrow from
        # adjust_end_time(9) = 14, where [2, 9) leaves
        assert [start for start, _ in got["k = a"]["window-open"]] == [14.0]
    else:
        assert got["k = b"]["window-bar"] == [(-2.0, 2.0), (0.0, 4.0), (2.0, 6.0)]
    assert not is_dates(fig)
    assert fig.axes[-1].get_xlabel() == "s (BIGINT ticks)"


@pytest.mark.parametrize("output", ["window", "changes", "point"])
def test_hopping_window_timestamp_taming_hopping_windows(taming_events, output):
    windows = cached(
        taming_events.groupBy(
            ew.hopping_window(
                "s",
                "5 seconds",
                "2 seconds",
                alignment="2012-03-15 12:00:00",
                output=output,
                end="e",
            )
        ).agg(F.count("*").alias("count"))
    )
    fig = ew.plot(taming_events, "s", "e", value="id", windows=windows, labels=["count"])
    expect = Expect(taming_events, "s", "e", value="id", dates=True).windows(windows, ["count"])
    check(fig, expect)
    got = drawn(fig)[""]
    day = datetime.datetime(2012, 6, 28)

    def x(seconds, micro=0):
        return float(mdates.date2num(day + datetime.timedelta(seconds=seconds, microseconds=micro)))

    edge = fig.axes[0].get_xlim()[1]
    assert same(got["event-open"], [(x(0), edge)], DATE_TOLERANCE)
    assert same(got["event-bar"], [(x(1), x(2)), (x(3), x(10)), (x(9), x(10))], DATE_TOLERANCE)
    if output == "changes":
        # the post's "Query" table
        assert same(
            got["window-bar"],
            [(x(1), x(3)), (x(3), x(5)), (x(5), x(7)), (x(7), x(11)), (x(11), x(15))],
            DATE_TOLERANCE,
        )
        assert same(got["window-open"], [(x(15), edge)], DATE_TOLERANCE)
        assert got["window-label"] == sorted(f"count={n}" for n in (1, 2, 3, 2, 3, 1))
    elif output == "point":
        assert same(got["window-point"], [x(s) for s in (1, 3, 5, 7, 9, 11, 13)], DATE_TOLERANCE)
    assert is_dates(fig)
    assert fig.axes[-1].get_xlabel() == "s (TIMESTAMP, UTC)"
    fig.savefig(io.BytesIO(), format="png")
    assert fig.axes[-1].xaxis.get_offset_text().get_text() == "2012-Jun-28 00:00"


def test_windows_by_name_in_groups_of_their_own(taming_events):
    def hopping(output):
        return taming_events.groupBy(
            ew.hopping_window(
                "s",
                "5 seconds",
                "2 seconds",
                alignment="2012-03-15 12:00:00",
                output=output,
                end="e",
            )
        ).agg(F.count("*").alias("count"))

    fig = ew.plot(
        taming_events,
        "s",
        "e",
        value="id",
        labels=["count"],
        windows={"'window'": hopping("window"), "'changes'": hopping("changes")},
    )
    ax = fig.axes[0]
    gids = {a.get_gid() for a in ax.get_children() if a.get_gid()}
    assert {"window-bar:'window'", "window-bar:'changes'", "window-open:'changes'"} <= gids
    assert len([a for a in ax.patches if a.get_gid() == "window-bar:'window'"]) == 7
    assert len([a for a in ax.patches if a.get_gid() == "window-bar:'changes'"]) == 5
    assert [t.get_text() for t in ax.get_yticklabels()] == ["events", "'window'", "'changes'"]


def test_tumbling_window_point_events(messages):
    windows = cached(messages.groupBy("k", ew.tumbling_window("t", 3)).agg(F.count("*").alias("n")))
    fig = ew.plot(messages, "t", key="k", windows=windows, labels=["n"])
    check(fig, Expect(messages, "t", key="k").windows(windows, ["n"]))
    got = drawn(fig)
    # point events are tick marks at their times, the two at 3 both drawn
    assert got["k = a"]["event-tick"] == [1.0, 3.0, 3.0, 4.0, 6.0]
    assert "event-bar" not in got["k = a"]
    assert got["k = a"]["window-bar"] == [(0.0, 3.0), (3.0, 6.0), (6.0, 9.0)]
    ticks = [a for a in marks(fig.axes[0], "event-tick")]
    assert all(isinstance(a, Line2D) and a.get_marker() == "|" for a in ticks)


def test_snapshot_window(intervals):
    windows = cached(
        intervals.groupBy("k", ew.snapshot_window("s", end="e")).agg(
            F.collect_list("v").alias("vs")
        )
    )
    fig = ew.plot(intervals, "s", "e", key="k", windows=windows, labels=["vs"])
    check(
        fig,
        Expect(intervals, "s", "e", key="k").windows(
            windows, ["vs"], label_text=lambda c, v: f"{c}=[{', '.join(map(str, v))}]"
        ),
    )
    got = drawn(fig)
    assert got["k = a"]["window-bar"][:2] == [(0.0, 2.0), (2.0, 4.0)]
    # a one-tick lifetime is a point event: a point, not a bar
    assert got["k = b"]["window-point"] == [1.0, 3.0] and "window-bar" not in got["k = b"]


@pytest.mark.parametrize("output", ["point", "window"])
def test_count_window_bigint(intervals, output):
    windows = cached(
        intervals.groupBy("k", ew.count_window("s", 2, output=output, end="e")).agg(
            F.count("*").alias("n")
        )
    )
    fig = ew.plot(intervals, "s", "e", key="k", windows=windows, labels=["n"])
    check(fig, Expect(intervals, "s", "e", key="k").windows(windows, ["n"]))
    got = drawn(fig)["k = a"]
    # starts 0, 2, 6: windows [0, 3) and [2, 7), the extent [first, last + 1 tick)
    assert got["window-extent"] == [(0.0, 3.0), (2.0, 7.0)]
    if output == "point":
        assert got["window-point"] == [2.0, 6.0]  # a point at the last start
    else:
        assert got["window-bar"] == got["window-extent"]


def test_count_window_timestamp_tied_starts(spark):
    base = datetime.datetime(2024, 1, 1)
    points = spark.createDataFrame(
        [
            ((base + datetime.timedelta(seconds=s)).isoformat(sep=" "), v)
            for s, v in [(1, 1), (3, 2), (3, 4), (4, 8), (6, 16)]
        ],
        "ts string, v bigint",
    ).select(F.col("ts").cast("timestamp").alias("ts"), "v")
    windows = cached(
        points.groupBy(ew.count_window("ts", 2)).agg(
            F.count("*").alias("count"), F.sum("v").alias("sum")
        )
    )
    fig = ew.plot(points, "ts", value="v", windows=windows, labels=["count", "sum"])
    check(fig, Expect(points, "ts", value="v", dates=True).windows(windows, ["count", "sum"]))
    got = drawn(fig)[""]

    def x(seconds, micro=0):
        return float(
            mdates.date2num(base + datetime.timedelta(seconds=seconds, microseconds=micro))
        )

    # [s_i, s_k + 1 us): the extent ends one microsecond after the last start
    assert same(
        got["window-extent"], [(x(1), x(3, 1)), (x(3), x(4, 1)), (x(4), x(6, 1))], DATE_TOLERANCE
    )
    assert got["window-extent"][0][1] > x(3) + 0.5e-11
    assert got["window-label"] == ["count=2, sum=24", "count=3, sum=14", "count=3, sum=7"]
    assert is_dates(fig)


def test_index_window(messages):
    windows = cached(
        messages.groupBy("k", ew.index_window("t", -1, 0)).agg(F.sum("v").alias("total"))
    )
    fig = ew.plot(messages, "t", key="k", value="v", windows=windows, labels=["total"])
    check(
        fig,
        Expect(messages, "t", key="k", value="v").windows(
            windows, ["total"], label_text=lambda c, v: f"{c}={v:.1f}"
        ),
    )
    got = drawn(fig)["k = b"]
    assert got["window-point"] == [5.0] and got["window-extent"] == [(2.0, 6.0)]
    assert drawn(fig)["k = a"]["event-label"] == ["1.0", "16.0", "2.0", "4.0", "8.0"]


def test_time_window(messages):
    windows = cached(messages.groupBy("k", ew.time_window("t", -2, 0)).agg(F.count("*").alias("n")))
    fig = ew.plot(messages, "t", key="k", windows=windows, labels=["n"])
    check(fig, Expect(messages, "t", key="k").windows(windows, ["n"]))
    got = drawn(fig)["k = a"]
    # a point at every message, no extent: the row does not say where its window lay
    assert got["window-point"] == [1.0, 3.0, 3.0, 4.0, 6.0]
    assert "window-extent" not in got


def test_sliding_window(spark):
    temps = [17.1, 16.4, 16.0, 17.6, 14.0]
    readings = spark.createDataFrame(list(enumerate(temps, 1)), "o bigint, temperature double")
    windows = cached(
        readings.groupBy(ew.sliding_window("o", ew.spl.delta("temperature", 1.5))).agg(
            F.count("*").alias("n")
        )
    )
    fig = ew.plot(readings, "o", value="temperature", windows=windows, labels=["n"])
    check(fig, Expect(readings, "o", value="temperature").windows(windows, ["n"]))
    got = drawn(fig)[""]
    assert got["window-point"] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert got["window-extent"] == [(1.0, 2.0), (1.0, 3.0), (1.0, 4.0), (1.0, 5.0), (1.0, 6.0)]
    assert got["window-label"] == ["n=1", "n=2", "n=3", "n=3", "n=4"]


def test_dynamic_window(spark, messages):
    anchors = spark.createDataFrame(
        [("a", "x", 0, 3), ("a", "y", 3, 7), ("b", "z", 4, 4)],
        "k string, id string, lo bigint, hi bigint",
    )
    windows = cached(
        ew.dynamic_window(anchors, messages, "t", "lo", "hi", on="k").agg(F.count("*").alias("n"))
    )
    fig = ew.plot(messages, "t", key="k", windows=windows, labels=["id", "n"])
    check(fig, Expect(messages, "t", key="k").windows(windows, ["id", "n"]))
    got = drawn(fig)
    assert got["k = a"]["window-bar"] == [(0.0, 3.0), (3.0, 7.0)]
    assert got["k = a"]["window-label"] == ["id=x, n=3", "id=y, n=4"]  # [lo, hi] inclusive
    assert got["k = b"]["window-bar"] == [(4.0, 4.0)]  # an empty interval, drawn as it is


def test_keys_in_order_and_windows_of_keys_without_events(spark):
    events = spark.createDataFrame(
        [("b", 1, 2), (None, 0, 1), ("a", 2, 3)], "k string, s bigint, e bigint"
    )
    windows = spark.createDataFrame(
        [("c", (0, 5))], "k string, window struct<start: bigint, end: bigint>"
    )
    fig = ew.plot(events, "s", "e", key="k", windows=windows)
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["k = NULL", "k = a", "k = b", "k = c"]
    assert drawn(fig)["k = c"] == {"window-bar": [(0.0, 5.0)]}


def test_timestamp_ntz_and_multiple_keys(spark):
    events = spark.createDataFrame(
        [("a", 1, "2024-01-01 10:00:00", "2024-01-01 10:30:00")],
        "k string, j int, s string, e string",
    ).select(
        "k",
        "j",
        F.col("s").cast("timestamp_ntz").alias("s"),
        F.col("e").cast("timestamp_ntz").alias("e"),
    )
    fig = ew.plot(events, "s", "e", key=["k", "j"])
    assert fig.axes[0].get_title(loc="left") == "k = a, j = 1"
    [(x0, x1)] = drawn(fig)["k = a, j = 1"]["event-bar"]
    assert same(
        (x0, x1),
        (
            float(mdates.date2num(datetime.datetime(2024, 1, 1, 10))),
            float(mdates.date2num(datetime.datetime(2024, 1, 1, 10, 30))),
        ),
        DATE_TOLERANCE,
    )
    assert is_dates(fig) and fig.axes[-1].get_xlabel() == "s (TIMESTAMP_NTZ)"


def test_timestamps_drawn_in_the_session_time_zone(spark, taming_events):
    """The wall clock of the session time zone, as show() prints it; east of UTC the end of time
    is past 9999 on the wall clock, still drawn as an arrow to the edge."""
    windows = taming_events.groupBy(
        ew.hopping_window(
            "s",
            "5 seconds",
            "2 seconds",
            alignment="2012-03-15 12:00:00",
            output="changes",
            end="e",
        )
    ).count()
    zone = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
    try:
        fig = ew.plot(taming_events, "s", "e", windows=windows)
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)
    got = drawn(fig)[""]
    nine = datetime.datetime(2012, 6, 28, 9)  # 2012-06-28 00:00:00 UTC in Tokyo
    assert same(
        got["event-bar"][0],
        (
            float(mdates.date2num(nine + datetime.timedelta(seconds=1))),
            float(mdates.date2num(nine + datetime.timedelta(seconds=2))),
        ),
        DATE_TOLERANCE,
    )
    assert same(
        got["window-open"],
        [
            (
                float(mdates.date2num(nine + datetime.timedelta(seconds=15))),
                fig.axes[0].get_xlim()[1],
            )
        ],
        DATE_TOLERANCE,
    )
    assert fig.axes[-1].get_xlabel() == "s (TIMESTAMP, Asia/Tokyo)"


def test_artists_are_of_the_documented_kinds(intervals, messages):
    fig = ew.plot(
        intervals,
        "s",
        "e",
        key="k",
        windows=intervals.groupBy("k", ew.count_window("s", 2, end="e")).count(),
        labels=["count"],
    )
    ax = fig.axes[0]
    assert all(isinstance(a, Rectangle) for a in marks(ax, "event-bar"))
    assert all(isinstance(a, FancyArrow) for a in marks(ax, "event-open"))
    assert all(
        isinstance(a, Rectangle) and a.get_linestyle() == "--" for a in marks(ax, "window-extent")
    )
    assert all(isinstance(a, Line2D) and a.get_marker() == "D" for a in marks(ax, "window-point"))
    assert all(isinstance(a, Text) for a in marks(ax, "window-label"))


def test_docstring_example_runs(spark):
    globs = {"spark": spark, "F": F, "io": io, "plot": ew.plot, "hopping_window": ew.hopping_window}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = []
    for test in doctest.DocTestFinder().find(ew.plot, "plot", globs=globs):
        runner.run(test, out=report.append)
    assert runner.tries >= 5 and runner.failures == 0, "".join(report)


def test_exported():
    assert "plot" in ew.__all__ and ew.plot.__module__ == "eventwindows.plotting"


# ----------------------------------------------------------------------------------------------
# Limits: an error naming the limit, before anything large is collected


def test_too_many_events(spark):
    huge = spark.range(0, 10**12).select(F.col("id").alias("t"))  # never collected
    with pytest.raises(
        ValueError,
        match=r"at most 200 events \(max_events\).*filter it first, "
        r"e\.g\. events\.where",
    ):
        ew.plot(huge, "t")
    small = spark.range(0, 6).select(F.col("id").alias("t"))
    with pytest.raises(ValueError, match=r"at most 5 events \(max_events\)"):
        ew.plot(small, "t", max_events=5)
    assert len(marks(ew.plot(small, "t", max_events=6).axes[0], "event-tick")) == 6


def test_too_many_windows(spark, messages):
    huge = spark.range(0, 10**12).select(
        F.lit("a").alias("k"),
        F.struct(F.col("id").alias("start"), (F.col("id") + 1).alias("end")).alias("window"),
    )
    with pytest.raises(ValueError, match=r"at most 200 windows \(max_windows\).*windows\.where"):
        ew.plot(messages, "t", key="k", windows=huge)


def test_too_many_keys(spark):
    events = spark.range(0, 12).select(F.col("id").alias("k"), F.col("id").alias("t"))
    with pytest.raises(
        ValueError,
        match=r"at most 10 keys \(max_keys\); the events and windows "
        r"have 12: filter them first",
    ):
        ew.plot(events, "t", key="k")
    assert len(ew.plot(events, "t", key="k", max_keys=12).axes) == 12


def test_without_matplotlib(monkeypatch, messages):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install eventwindows\[plot\]"):
        ew.plot(messages, "t")


def test_import_does_not_import_matplotlib():
    code = "import sys, eventwindows; print('matplotlib' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------------------------
# Bad input


def test_windows_without_a_window_column(messages):
    with pytest.raises(
        ValueError,
        match=r"no `window` struct column.*GROUP BY over an "
        r"eventwindows window function",
    ):
        ew.plot(messages, "t", windows=messages)
    flat = messages.select("k", F.col("t").alias("window"))
    with pytest.raises(ValueError, match=r"no `window` struct column"):
        ew.plot(messages, "t", key="k", windows=flat)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda m, w: ew.plot(m, "time"),
            r"`start` 'time' is not a column of events; its columns "
            r"are \['k', 't', 'v'\]",
        ),
        (lambda m, w: ew.plot(m, "t", end="e"), r"`end` 'e' is not a column of events"),
        (lambda m, w: ew.plot(m, "t", key="key"), r"`key` 'key' is not a column of events"),
        (lambda m, w: ew.plot(m, "t", value="x"), r"`value` 'x' is not a column of events"),
        (
            lambda m, w: ew.plot(m, "t", windows=w, labels=["count(1)"]),
            r"`labels` 'count\(1\)' is not a column of windows",
        ),
        (
            lambda m, w: ew.plot(m, "t", key="k", windows=w.drop("k")),
            r"`key` 'k' is not a column of windows",
        ),
        (
            lambda m, w: ew.plot(m, "v"),
            r"`start` \('v'\) must be a TIMESTAMP, TIMESTAMP_NTZ or "
            r"BIGINT \(ticks\), got double",
        ),
        (
            lambda m, w: ew.plot(m.withColumn("t", F.timestamp_seconds("t")), "t", windows=w),
            r"`window.start` of windows is bigint, the events' time is TIMESTAMP",
        ),
        (lambda m, w: ew.plot(m, "t", max_events=0), r"`max_events` must be a positive int"),
    ],
)
def test_bad_columns_and_parameters(messages, call, message):
    windows = messages.groupBy("k", ew.time_window("t", -1, 0)).count()
    with pytest.raises(ValueError, match=message):
        call(messages, windows)


def test_bad_types(messages):
    with pytest.raises(TypeError, match="`events` must be a DataFrame"):
        ew.plot([(1,)], "t")
    with pytest.raises(TypeError, match="`windows` must be a DataFrame or a dict"):
        ew.plot(messages, "t", windows=[messages])
    with pytest.raises(TypeError, match="`start` must be a column name"):
        ew.plot(messages, F.col("t"))


def test_column_names_as_spark_resolves_them(messages):
    # Spark's names are case-insensitive by default: so are ew.plot's
    fig = ew.plot(messages, "T", key="K")
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["k = a", "k = b"]
