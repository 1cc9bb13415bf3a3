"""Calendar windows: hopping and tumbling windows of days, weeks, months, quarters and years, and
of hours and minutes on the local clock, in a time zone, checked on hand-worked days and hours
across daylight saving changes, against a reference written on Python's zoneinfo
(tests/reference/calendar.py) on random events around the zones' transitions and leap days,
against pandas' DateOffset (a month from each day), Spark's own local hours (date_format) and
Polars' group_by_dynamic."""

import datetime
import random
from collections import defaultdict
from zoneinfo import ZoneInfo

import pandas as pd
import pytest
from pyspark.sql import functions as F

import eventwindows as ew
from harness import TIMESTAMP_MAX, analysis_error, grouped_calls, micros, run_stream, write_batches
from reference.calendar import calendar_window, local_micros

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"]
"""Daylight saving at 02:00/03:00, at 02:00 on other days, a half-hour shift, and +05:45."""

AGGREGATES = "unix_micros(window.start), unix_micros(window.end), count(*), sum(v), min(v), max(v)"


def utc(text):
    return micros(text)


def rows_of(spark, sql):
    return [tuple(r) for r in spark.sql(sql).collect()]


# ----------------------------------------------------------------------------------------------
# Hand-worked days, weeks and months


def test_a_berlin_day_is_23_hours_in_march_and_25_in_october(spark):
    events = [
        "2024-03-30 23:30:00",
        "2024-03-31 21:30:00",
        "2024-03-31 22:30:00",
        "2024-10-26 22:30:00",
        "2024-10-27 22:59:59",
    ]
    values = ", ".join(f"(TIMESTAMP '{t}')" for t in events)
    got = rows_of(
        spark,
        f"""
        SELECT window.start, window.end, count(*) FROM VALUES {values} AS t(ts)
        GROUP BY tumbling_window(ts, '1 day', time_zone => 'Europe/Berlin') ORDER BY 1""",
    )
    d = datetime.datetime
    # Session time zone UTC: local midnight in Berlin is 23:00 UTC in winter, 22:00 in summer.
    assert got == [
        (d(2024, 3, 30, 23), d(2024, 3, 31, 22), 2),  # 23 hours: the clocks spring forward
        (d(2024, 3, 31, 22), d(2024, 4, 1, 22), 1),
        (d(2024, 10, 26, 22), d(2024, 10, 27, 23), 2),  # 25 hours: the clocks fall back
    ]


def test_months_run_from_the_first_to_the_first_in_the_session_time_zone(spark):
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        got = rows_of(
            spark,
            """
            SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
            FROM VALUES (TIMESTAMP '2024-02-29 23:30:00'), (TIMESTAMP '2024-03-01 00:00:00'),
                        (TIMESTAMP '2024-03-31 23:59:59') AS t(ts)
            GROUP BY tumbling_window(ts, INTERVAL 1 MONTH) ORDER BY 1""",
        )
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    # March has 31 days, less one hour (New York springs forward on March 10).
    assert got == [
        ("2024-02-01 00:00:00", "2024-03-01 00:00:00", 1),
        ("2024-03-01 00:00:00", "2024-04-01 00:00:00", 2),
    ]


def test_weeks_start_on_monday_and_quarters_on_the_first_of_january(spark):
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), count(*)
        FROM VALUES (TIMESTAMP '2024-01-07 23:59:59'), (TIMESTAMP '2024-01-08 00:00:00'),
                    (TIMESTAMP '2024-04-01 00:00:00') AS t(ts)
        GROUP BY tumbling_window(ts, '1 week', time_zone => 'UTC') ORDER BY 1""",
    )
    assert got == [
        ("2024-01-01 00:00:00", 1),
        ("2024-01-08 00:00:00", 1),
        ("2024-04-01 00:00:00", 1),
    ]  # 2024-01-01 and 2024-04-01 are Mondays
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP '2024-03-31 23:59:59'), (TIMESTAMP '2024-04-01 00:00:00') AS t(ts)
        GROUP BY tumbling_window(ts, '3 months') ORDER BY 1""",
    )
    assert got == [
        ("2024-01-01 00:00:00", "2024-04-01 00:00:00", 1),
        ("2024-04-01 00:00:00", "2024-07-01 00:00:00", 1),
    ]


def test_a_month_aligned_on_the_31st_ends_on_the_last_day_of_shorter_months(spark):
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP '2024-02-15 00:00:00'), (TIMESTAMP '2024-03-30 00:00:00') AS t(ts)
        GROUP BY tumbling_window(ts, '1 month', '2024-01-31 00:00:00') ORDER BY 1""",
    )
    assert got == [
        ("2024-01-31 00:00:00", "2024-02-29 00:00:00", 1),
        ("2024-02-29 00:00:00", "2024-03-31 00:00:00", 1),
    ]


def test_a_month_every_day_lasts_a_month_from_each_day(spark):
    # Issue 43: each window ended a month after the alignment plus the hops' days, 31 days later
    # ([2019-02-21, 2019-03-24) in Berlin). An event at 13:00 local on 2019-03-20 is in the months
    # starting at local midnight from Feb 21 (to Mar 21) to Mar 20 (to Apr 20, less the hour the
    # clocks skip on Mar 31); Berlin's midnight is 23:00 UTC in winter, 22:00 in summer.
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP '2019-03-20 12:00:00') AS t(ts)
        GROUP BY hopping_window(ts, '1 month', '1 day', time_zone => 'Europe/Berlin') ORDER BY 1""",
    )
    assert len(got) == 28
    assert got[:2] == [
        ("2019-02-20 23:00:00", "2019-03-20 23:00:00", 1),
        ("2019-02-21 23:00:00", "2019-03-21 23:00:00", 1),
    ]
    assert got[-1] == ("2019-03-19 23:00:00", "2019-04-19 22:00:00", 1)


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("hop, starts", [("1 day", "D"), ("1 week", "W-MON")])
def test_monthly_active_users_every_day_or_week_match_pandas(spark, hop, starts):
    # A month from every local midnight (every Monday's), as pandas adds DateOffset(months=1) to
    # a zone's timestamps: over January's 31st (Feb 29 ends it), Berlin's spring forward and May.
    zone = "Europe/Berlin"
    rng = random.Random(f"monthly active users {hop}")
    first, last = utc("2024-01-01 00:00:00"), utc("2024-05-31 00:00:00")
    events = [(f"u{rng.randint(0, 30)}", rng.randrange(first, last)) for _ in range(400)]
    frame = spark.createDataFrame(events, "user string, us bigint").selectExpr(
        "user", "timestamp_micros(us) AS ts"
    )
    got = {
        (r[0], r[1]): r[2]
        for r in frame.groupBy(ew.hopping_window("ts", "1 month", hop, time_zone=zone))
        .agg(F.size(F.collect_set("user")).alias("users"))
        .selectExpr("unix_micros(window.start)", "unix_micros(window.end)", "users")
        .collect()
    }
    times = pd.to_datetime([t for _, t in events], unit="us", utc=True)
    users = pd.Series([u for u, _ in events], index=times)
    expected = {}
    for start in pd.date_range("2023-11-27", "2024-06-01", freq=starts).tz_localize(zone):
        end = start + pd.DateOffset(months=1)
        active = users[(users.index >= start) & (users.index < end)].nunique()
        if active:
            expected[(start.value // 1000, end.value // 1000)] = active
    assert got == expected


@pytest.mark.parametrize(
    "zone, events, windows",
    [
        # Kathmandu is +05:45 since 1986 (+05:30 at the alignment, 1970): 12:05 local is in 12:00-13:00.
        (
            "Asia/Kathmandu",
            ["2024-01-01 06:20:00"],
            [("2024-01-01 06:15:00", "2024-01-01 07:15:00", 1)],
        ),
        # Lord Howe leaves +11 for +10:30 at 02:00 local on 2024-04-07 (15:00 UTC): local 01:30-02:00
        # comes twice, so the local hour from 01:00 lasts 90 minutes.
        (
            "Australia/Lord_Howe",
            [
                "2024-04-06 14:10:00",
                "2024-04-06 14:40:00",
                "2024-04-06 15:10:00",
                "2024-04-06 15:40:00",
                "2024-04-06 16:10:00",
            ],
            [
                ("2024-04-06 14:00:00", "2024-04-06 15:30:00", 3),
                ("2024-04-06 15:30:00", "2024-04-06 16:30:00", 2),
            ],
        ),
        # ... and leaves +10:30 for +11 at 02:00 local on 2024-10-06 (15:30 UTC), skipping 02:00-02:30:
        # the local hour from 02:00 lasts 30 minutes.
        (
            "Australia/Lord_Howe",
            [
                "2024-10-05 14:10:00",
                "2024-10-05 14:40:00",
                "2024-10-05 15:10:00",
                "2024-10-05 15:40:00",
                "2024-10-05 16:10:00",
            ],
            [
                ("2024-10-05 13:30:00", "2024-10-05 14:30:00", 1),
                ("2024-10-05 14:30:00", "2024-10-05 15:30:00", 2),
                ("2024-10-05 15:30:00", "2024-10-05 16:00:00", 1),
                ("2024-10-05 16:00:00", "2024-10-05 17:00:00", 1),
            ],
        ),
        # Berlin skips 02:00-03:00 on 2024-03-31 (01:00 UTC): that hour is empty, no row.
        (
            "Europe/Berlin",
            ["2024-03-31 00:30:00", "2024-03-31 01:00:00", "2024-03-31 01:30:00"],
            [
                ("2024-03-31 00:00:00", "2024-03-31 01:00:00", 1),
                ("2024-03-31 01:00:00", "2024-03-31 02:00:00", 2),
            ],
        ),
        # ... and reads 02:00-03:00 twice on 2024-10-27 (from 00:00 to 02:00 UTC): a two-hour hour.
        (
            "Europe/Berlin",
            [
                "2024-10-26 23:30:00",
                "2024-10-27 00:00:00",
                "2024-10-27 00:30:00",
                "2024-10-27 01:00:00",
                "2024-10-27 01:30:00",
                "2024-10-27 02:00:00",
            ],
            [
                ("2024-10-26 23:00:00", "2024-10-27 00:00:00", 1),
                ("2024-10-27 00:00:00", "2024-10-27 02:00:00", 4),
                ("2024-10-27 02:00:00", "2024-10-27 03:00:00", 1),
            ],
        ),
    ],
)
def test_hours_run_from_one_local_full_hour_to_the_next(spark, zone, events, windows):
    values = ", ".join(f"(TIMESTAMP '{t}')" for t in events)
    assert (
        rows_of(
            spark,
            f"""
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES {values} AS t(ts)
        GROUP BY tumbling_window(ts, '1 hour', time_zone => '{zone}') ORDER BY 1""",
        )
        == windows
    )


@pytest.mark.parametrize(
    "size, window",
    [
        ("15 minutes", ("2024-10-27 00:45:00", "2024-10-27 02:00:00")),
        ("1 second", ("2024-10-27 00:59:59", "2024-10-27 02:00:00")),
    ],
)
def test_windows_shorter_than_the_repeated_hour_leave_it_to_the_last(spark, size, window):
    # 01:30:00.5 UTC is 02:30:00.5 the second time Berlin's clocks read it; each local time from
    # 02:00 to 03:00 starts its window at its first reading (00:00 to 01:00 UTC), so the one
    # ending at 03:00 local (02:00 UTC) holds the whole repeat.
    got = rows_of(
        spark,
        f"""
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING)
        FROM VALUES (TIMESTAMP '2024-10-27 01:30:00.5') AS t(ts)
        GROUP BY tumbling_window(ts, '{size}', time_zone => 'Europe/Berlin')""",
    )
    assert got == [window]


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("zone", ZONES)
def test_local_hours_match_sparks_own_local_hours(spark, zone):
    # An instant's local hour as Spark's date_format reads the zone's clock: in every zone here
    # the clocks skip or repeat at most the one hour holding the change, so each window of an hour
    # holds exactly the instants whose clock reads its hour.
    rng = random.Random(f"local hours {zone}")
    points = [
        t + rng.randint(-3 * 3_600_000_000, 3 * 3_600_000_000)
        for t in transitions(zone)
        for _ in range(20)
    ]
    frame = spark.createDataFrame([(p,) for p in points], "us bigint").selectExpr(
        "timestamp_micros(us) AS ts"
    )
    label = f"date_format(from_utc_timestamp({{}}, '{zone}'), 'yyyy-MM-dd HH')"
    ours = frame.groupBy(ew.tumbling_window("ts", "1 hour", time_zone=zone)).count()
    got = {r[0]: r[1] for r in ours.selectExpr(label.format("window.start"), "count").collect()}
    sparks = frame.groupBy(F.expr(label.format("ts")).alias("hour")).count()
    assert got == {r[0]: r[1] for r in sparks.collect()}
    assert len(got) == len(ours.collect())  # one window per local hour


def test_half_hour_and_quarter_hour_zones(spark):
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP '2024-04-06 13:00:00'), (TIMESTAMP '2024-04-06 13:40:00') AS t(ts)
        GROUP BY tumbling_window(ts, '1 day', time_zone => 'Australia/Lord_Howe') ORDER BY 1""",
    )
    # Lord Howe leaves +11 for +10:30 at 02:00 local on 2024-04-07: that day lasts 24.5 hours.
    assert got == [("2024-04-06 13:00:00", "2024-04-07 13:30:00", 2)]
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), count(*)
        FROM VALUES (TIMESTAMP '2024-01-01 18:14:59'), (TIMESTAMP '2024-01-01 18:15:00') AS t(ts)
        GROUP BY tumbling_window(ts, '1 day', time_zone => 'Asia/Kathmandu') ORDER BY 1""",
    )
    assert got == [("2023-12-31 18:15:00", 1), ("2024-01-01 18:15:00", 1)]  # +05:45


def test_timestamp_ntz_steps_the_wall_clock(spark):
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP_NTZ '2024-03-31 02:30:00') AS t(ts)
        GROUP BY tumbling_window(ts, '1 month')""",
    )
    assert got == [("2024-03-01 00:00:00", "2024-04-01 00:00:00", 1)]


def test_without_months_or_a_time_zone_windows_stay_exact_durations(spark):
    plan = spark.sql("""SELECT count(*) FROM VALUES (TIMESTAMP '2024-03-31 12:00:00') AS t(ts)
                        GROUP BY tumbling_window(ts, '1 day')""")
    assert "CalendarHopping" not in plan._jdf.queryExecution().analyzed().toString()


# ----------------------------------------------------------------------------------------------
# Against the zoneinfo reference on random events around the transitions


def transitions(zone, years=(2023, 2024)):
    """The instants (UTC microseconds) where `zone`'s offset changes in `years`, by hourly search,
    and each Feb 28 - Mar 1 of a leap year."""
    tz = ZoneInfo(zone)
    found = []
    t = datetime.datetime(years[0], 1, 1, tzinfo=datetime.timezone.utc)
    end = datetime.datetime(years[-1] + 1, 1, 1, tzinfo=datetime.timezone.utc)
    previous = t.astimezone(tz).utcoffset()
    while t < end:
        offset = t.astimezone(tz).utcoffset()
        if offset != previous:
            found.append(int(t.timestamp()) * 1_000_000)
        previous = offset
        t += datetime.timedelta(minutes=30)
    found.append(utc("2024-02-29 12:00:00"))
    return found


def random_rows(rng, zone, n_cases=12):
    """Cases of events within two days of a transition (or a leap day): point-like, hours long,
    days long, and open-ended ones."""
    rows = []
    hour = 3_600_000_000
    for c in range(n_cases):
        near = rng.choice(transitions(zone))
        for _ in range(rng.randint(1, 6)):
            s = near + rng.randint(-48, 48) * hour + rng.choice([0, 1, rng.randint(0, hour)])
            kind = rng.random()
            e = (
                None
                if kind < 0.1
                else s + 1
                if kind < 0.4
                else s + rng.randint(1, 30) * hour
                if kind < 0.8
                else s + rng.randint(1, 40) * 24 * hour
            )
            rows.append((c, rng.choice([None, "a"]), s, e, rng.randint(-9, 9)))
    return rows


CONFIGS = [
    # (size, hop, alignment as a local time or None, outputs)
    ((0, 1, 0), (0, 1, 0), None, ["window", "point", "changes"]),
    ((0, 2, 0), (0, 1, 0), None, ["window", "changes"]),
    ((0, 7, 0), (0, 7, 0), None, ["window"]),
    ((1, 0, 0), (1, 0, 0), None, ["window", "changes"]),
    ((3, 0, 0), (3, 0, 0), "2023-02-15 06:00:00", ["window"]),
    ((12, 0, 0), (12, 0, 0), None, ["point"]),
    ((1, 0, 0), (0, 7, 0), None, ["window", "changes"]),
    ((0, 0, 6 * 3_600_000_000), (0, 0, 6 * 3_600_000_000), None, ["window"]),
    ((0, 1, 3_600_000_000), (0, 1, 0), "1970-01-01 00:30:00", ["window"]),
    # A month every day (issue 43), a day every 6 hours, months and days as one hop.
    ((1, 0, 0), (0, 1, 0), "2023-01-31 00:00:00", ["window", "changes"]),
    ((0, 1, 0), (0, 0, 6 * 3_600_000_000), None, ["window"]),
    ((1, 1, 0), (1, 1, 0), None, ["window", "changes"]),
    # Hours and half hours on the local clock, across half-hour changes too (few outputs: an
    # event of 40 days is in a thousand windows of an hour).
    ((0, 0, 3_600_000_000), (0, 0, 3_600_000_000), None, ["window", "changes"]),
    ((0, 0, 3 * 3_600_000_000), (0, 0, 1_800_000_000), "1970-01-01 00:15:00", ["changes"]),
]


def interval(step):
    months, days, us = step
    return f"'{months} months {days} days {us} microseconds'"


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("zone", ZONES)
def test_calendar_windows_match_the_zoneinfo_reference(spark, zone):
    rng = random.Random(f"calendar {zone}")
    rows = random_rows(rng, zone)
    calls, expected = [], []
    for size, hop, alignment, outputs in CONFIGS:
        weekly = hop[0] == 0 and hop[2] == 0 and hop[1] % 7 == 0
        local = (
            local_micros(datetime.datetime.fromisoformat(alignment))
            if alignment
            else (4 * 86400 * 1_000_000 if weekly else 0)
        )
        for output in outputs:
            calls.append(
                f"hopping_window(s, e, {interval(size)}, {interval(hop)}, "
                f"{repr(alignment) if alignment else 'NULL'}, '{output}', "
                f"time_zone => '{zone}')"
            )
            reference = calendar_window(
                [((c, k), s, e, v) for c, k, s, e, v in rows], size, hop, local, zone, output
            )
            if output == "changes":
                reference = [
                    r if r[2] is not None else r[:2] + (TIMESTAMP_MAX,) + r[3:] for r in reference
                ]
            expected.append(reference)
    actual = grouped_calls(
        spark,
        rows,
        "c int, k string, s bigint, e bigint, v int",
        calls,
        AGGREGATES,
        source="(SELECT c, k, timestamp_micros(s) AS s, timestamp_micros(e) AS e, v FROM {view})",
    )
    for call, got, want in zip(calls, actual, expected):
        assert got == want, call


# ----------------------------------------------------------------------------------------------
# Against Polars


POLARS_CASES = [(zone, every) for zone in ZONES for every in ["1d", "1w", "1mo", "1q", "1y"]] + [
    # Polars steps hours as exact durations from the local full hour of its first window, which
    # stays on the local clock only where the zone's changes are whole hours: not Lord Howe's.
    (zone, every)
    for zone in ["Europe/Berlin", "America/New_York", "Asia/Kathmandu"]
    for every in ["1h", "15m"]
]


@pytest.mark.slow  # random inputs against a reference
@pytest.mark.parametrize("zone, every", POLARS_CASES)
def test_tumbling_calendar_windows_match_polars(spark, zone, every):
    import polars as pl

    rng = random.Random(f"polars {zone} {every}")
    if every in ("1h", "15m"):  # any second within three hours of each change
        points = sorted(
            t + rng.randint(-3 * 3600, 3 * 3600) * 1_000_000
            for t in transitions(zone)
            for _ in range(12)
        )
    else:
        points = sorted(
            t + rng.randint(-30, 30) * 3_600_000_000 for t in transitions(zone) for _ in range(3)
        )
    frame = pl.DataFrame({"us": points}).with_columns(
        pl.col("us").cast(pl.Datetime("us", "UTC")).dt.convert_time_zone(zone).alias("ts")
    )
    groups = frame.group_by_dynamic(
        "ts", every=every, closed="left", label="left", include_boundaries=True
    ).agg(pl.len().alias("n"))
    # Polars gives each reading of a repeated local time a boundary of its own (two at 02:00 when
    # Berlin falls back); here a boundary is a local time's first reading (fold 0), so a Polars
    # window starting or ending at a later reading (fold 1) is moved out to the first-reading
    # boundaries around it, by its own length (Polars' sub-daily windows are exact durations),
    # and the windows that then coincide are one.
    step = groups["_upper_boundary"][0] - groups["_lower_boundary"][0] if groups.height else None

    def first_reading(boundary, direction):
        instant = boundary.astimezone(datetime.timezone.utc)  # steps in UTC, not on the clock
        while instant.astimezone(ZoneInfo(zone)).fold:
            instant += direction * step
        return instant.replace(tzinfo=None)

    merged = defaultdict(lambda: [None, 0])
    for b, u, n in groups.select("_lower_boundary", "_upper_boundary", "n").iter_rows():
        window = merged[first_reading(b, -1)]
        window[0] = first_reading(u, 1)
        window[1] += n
    expected = sorted((b, u, n) for b, (u, n) in merged.items())
    size = {
        "1d": "1 day",
        "1w": "1 week",
        "1mo": "1 month",
        "1q": "3 months",
        "1y": "1 year",
        "1h": "1 hour",
        "15m": "15 minutes",
    }[every]
    events = spark.createDataFrame([(p,) for p in points], "us bigint").selectExpr(
        "timestamp_micros(us) AS ts"
    )
    got = sorted(
        tuple(r)
        for r in events.groupBy(ew.tumbling_window("ts", size, time_zone=zone))
        .count()
        .select("window.start", "window.end", "count")
        .collect()
    )
    assert got == expected


# ----------------------------------------------------------------------------------------------
# Time-weighted aggregates, streams and errors


def test_clipped_lifetimes_cover_each_local_day(spark):
    # Hours of one event from Saturday noon to Monday noon in Berlin, per day: Sunday, the day the
    # clocks spring forward, has 23; the time-weighted average of two events weighs them so.
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING),
               sum(unix_seconds(clipped_end()) - unix_seconds(clipped_start())) / 3600,
               time_weighted_avg(v)
        FROM VALUES (TIMESTAMP '2024-03-30 11:00:00', TIMESTAMP '2024-04-01 10:00:00', 1.0),
                    (TIMESTAMP '2024-03-31 21:00:00', TIMESTAMP '2024-03-31 22:00:00', 25.0)
                    AS t(s, e, v)
        GROUP BY tumbling_window(s, e, '1 day', time_zone => 'Europe/Berlin') ORDER BY 1""",
    )
    assert got == [
        ("2024-03-29 23:00:00", 12.0, 1.0),
        ("2024-03-30 23:00:00", 24.0, 2.0),
        ("2024-03-31 22:00:00", 12.0, 1.0),
    ]


def test_windows_at_the_ends_of_the_time_line_are_clipped_to_it(spark):
    # Berlin keeps its local mean time (+00:53:28) before 1893: January of year 1 starts 53:28
    # before the time line does; the last month ends at 9999-12-31 23:00 UTC.
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP '0001-01-01 00:30:00'), (TIMESTAMP '9999-12-31 22:00:00') AS t(ts)
        GROUP BY tumbling_window(ts, '1 month', time_zone => 'Europe/Berlin') ORDER BY 1""",
    )
    assert got == [
        ("0001-01-01 00:00:00", "0001-01-31 23:06:32", 1),
        ("9999-11-30 23:00:00", "9999-12-31 23:00:00", 1),
    ]
    # Kathmandu keeps +05:41:16 before 1920 and +05:45 after 1986: the first hour starts 41:16
    # before the line, the last (from 05:00 local on 10000-01-01) ends 15 minutes after it.
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP '0001-01-01 00:10:00'), (TIMESTAMP '9999-12-31 23:50:00') AS t(ts)
        GROUP BY tumbling_window(ts, '1 hour', time_zone => 'Asia/Kathmandu') ORDER BY 1""",
    )
    assert got == [
        ("0001-01-01 00:00:00", "0001-01-01 00:18:44", 1),
        ("9999-12-31 23:15:00", "9999-12-31 23:59:59.999999", 1),
    ]
    # A month from each local midnight: 05:51:16 local on 0001-01-01 is in the 31 months from
    # Dec 2 (year 0) to Jan 1, ending at local midnights from Jan 2 (18:18:44 UTC); 05:35 local on
    # 10000-01-01 in those from Dec 2 to Jan 1 (18:15 UTC the evening before), ending after it.
    got = rows_of(
        spark,
        """
        SELECT CAST(window.start AS STRING), CAST(window.end AS STRING), count(*)
        FROM VALUES (TIMESTAMP '0001-01-01 00:10:00'), (TIMESTAMP '9999-12-31 23:50:00') AS t(ts)
        GROUP BY hopping_window(ts, '1 month', '1 day', time_zone => 'Asia/Kathmandu')
        ORDER BY 2, 1""",
    )
    assert len(got) == 62
    assert got[0] == ("0001-01-01 00:00:00", "0001-01-01 18:18:44", 1)
    assert got[30] == ("0001-01-01 00:00:00", "0001-01-31 18:18:44", 1)
    assert got[31] == ("9999-12-01 18:15:00", "9999-12-31 23:59:59.999999", 1)
    assert got[-1] == ("9999-12-31 18:15:00", "9999-12-31 23:59:59.999999", 1)


@pytest.mark.parametrize(
    "aggregate",
    # collect_list through the window operator's own state: a further stream, not in the quick tier.
    ["count(*) AS n", pytest.param("collect_list(v) AS n", marks=pytest.mark.slow)],
)
def test_calendar_windows_on_a_stream_equal_the_batch_query(spark, tmp_path, aggregate):
    # count runs as Spark's streaming aggregation, collect_list (order-sensitive) on
    # transformWithState; both emit a Berlin day once the watermark passes its end.
    days = [
        ["2024-03-30 20:00:00", "2024-03-30 23:30:00"],
        ["2024-03-31 21:00:00"],
        ["2024-03-31 22:30:00", "2024-03-30 22:00:00"],
        ["2024-04-03 00:00:00"],
    ]
    write_batches(
        tmp_path / "in", [[{"ts": t, "v": i} for i, t in enumerate(batch)] for batch in days]
    )
    stream = (
        spark.readStream.schema("ts timestamp, v int")
        .json(str(tmp_path / "in"))
        .withWatermark("ts", "1 hour")
    )
    query = (
        f"SELECT window.start, window.end, {aggregate} FROM {{}} GROUP BY "
        "tumbling_window(ts, '1 day', time_zone => 'Europe/Berlin')"
    )
    stream.createOrReplaceTempView("calendar_stream")
    run_stream(spark.sql(query.format("calendar_stream")), tmp_path / "out", tmp_path / "cp")
    got = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    batch = spark.read.schema("ts timestamp, v int").json(str(tmp_path / "in"))
    batch.createOrReplaceTempView("calendar_batch")
    want = sorted(
        tuple(r)
        for r in spark.sql(query.format("calendar_batch")).collect()
        if r[1] <= datetime.datetime(2024, 4, 2, 0)
    )  # closed by the last watermark
    assert [r[:2] for r in got] == [r[:2] for r in want]
    assert [sorted(r[2]) if isinstance(r[2], list) else r[2] for r in got] == [
        sorted(r[2]) if isinstance(r[2], list) else r[2] for r in want
    ]


@pytest.mark.slow  # random inputs against a reference
def test_calendar_changes_on_a_stream_equal_the_batch_query(spark, tmp_path):
    # 'changes' is a snapshot window over lifetimes snapped to the calendar's windows; on a stream
    # the watermark on s is mapped through the snapping.
    rng = random.Random("calendar changes stream")
    base = datetime.datetime(2024, 3, 28)
    batches = []
    for b in range(4):
        batch = []
        for _ in range(5):
            s = base + datetime.timedelta(hours=b * 30 + rng.randint(0, 40))
            batch.append(
                {
                    "s": s.isoformat(sep=" "),
                    "e": (s + datetime.timedelta(hours=rng.randint(1, 50))).isoformat(sep=" "),
                }
            )
        batches.append(batch)
    write_batches(tmp_path / "in", batches)
    schema = "s timestamp, e timestamp"
    query = (
        "SELECT window.start, window.end, count(*) AS n FROM {} GROUP BY "
        "hopping_window(s, e, '2 days', '1 day', NULL, 'changes', time_zone => 'Europe/Berlin')"
    )
    spark.readStream.schema(schema).json(str(tmp_path / "in")).withWatermark(
        "s", "2 hours"
    ).createOrReplaceTempView("calendar_changes_stream")
    run_stream(
        spark.sql(query.format("calendar_changes_stream")), tmp_path / "out", tmp_path / "cp"
    )
    got = sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out")).collect())
    spark.read.schema(schema).json(str(tmp_path / "in")).createOrReplaceTempView(
        "calendar_changes_batch"
    )
    want = sorted(tuple(r) for r in spark.sql(query.format("calendar_changes_batch")).collect())
    latest = max(datetime.datetime.fromisoformat(r["s"]) for batch in batches for r in batch)
    assert set(got) <= set(want)
    # Every row ending a day before the last watermark has been emitted.
    assert [r for r in want if r[1] <= latest - datetime.timedelta(days=1)] == [
        r for r in got if r[1] <= latest - datetime.timedelta(days=1)
    ]
    assert len(got) >= 3


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "SELECT count(*) FROM range(3) GROUP BY tumbling_window(id, '1 month')",
            "tumbling_window: `size` must be an integer number of ticks for BIGINT time",
        ),
        (
            "SELECT count(*) FROM range(3) GROUP BY tumbling_window(id, 5, time_zone => 'UTC')",
            "tumbling_window: `time_zone` needs TIMESTAMP time, got BIGINT",
        ),
        (
            "SELECT count(*) FROM VALUES (TIMESTAMP_NTZ '2024-01-01 00:00:00') AS t(ts) "
            "GROUP BY tumbling_window(ts, '1 day', time_zone => 'UTC')",
            "TIMESTAMP_NTZ calendar windows step the wall clock",
        ),
        (
            "SELECT count(*) FROM VALUES (TIMESTAMP '2024-01-01 00:00:00') AS t(ts) "
            "GROUP BY tumbling_window(ts, '1 day', time_zone => 'Mars/Olympus')",
            "tumbling_window: `time_zone` is not a valid time zone: 'Mars/Olympus'",
        ),
        (
            "SELECT count(*) FROM VALUES (TIMESTAMP '2024-01-01 00:00:00') AS t(ts) "
            "GROUP BY hopping_window(ts, '1 month', '-1 day')",
            "hopping_window: `hop` must be positive, with no negative part",
        ),
        (
            "SELECT count(*) FROM VALUES (TIMESTAMP '2024-01-01 00:00:00') AS t(ts) "
            "GROUP BY hopping_window(ts, '1 day', '1 month', output => 'changes')",
            "hopping_window: `output` 'changes' needs windows without gaps",
        ),
    ],
)
def test_bad_calendar_parameters_fail_naming_the_parameter(spark, sql, message):
    assert message in analysis_error(spark, sql)
