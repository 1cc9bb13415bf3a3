"""One local Spark session for the whole pytest run, with the eventwindows jar and extension."""

import pytest

import eventwindows


@pytest.fixture(scope="session")
def spark():
    session = (
        eventwindows.builder()
        .master("local[2]")
        .appName("eventwindows-tests")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
