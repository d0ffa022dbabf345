"""The one classification of "a backing server went away" (by the client
libraries' exception hierarchies and causes) and the outage log's lines.
The real outages are in test_outage_under_load.py; this is the table."""

from __future__ import annotations

import logging

import asyncpg.exceptions as pg
import pytest
import redis.exceptions as rd

from services.infra.outages import POSTGRES, REDIS, Outages, outage_of


@pytest.mark.parametrize(
    "exc",
    [
        pg.InternalClientError("cannot switch to state 12; protocol is in the failed state"),
        pg.ProtocolError("unexpected message"),
        pg.InterfaceError("connection is closed"),
        pg.InterfaceError("pool is closing"),
        pg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        pg.ConnectionFailureError("failed"),
        pg.CannotConnectNowError("the database system is starting up"),
        pg.AdminShutdownError("terminating connection due to administrator command"),
        pg.TooManyConnectionsError("too many"),
    ],
)
def test_every_asyncpg_error_of_a_lost_server_is_a_postgresql_outage(exc):
    assert outage_of(exc) == POSTGRES


@pytest.mark.parametrize(
    "exc", [rd.ConnectionError("Connection refused"), rd.TimeoutError("Timeout"), rd.BusyLoadingError("loading")]
)
def test_redis_connection_errors_are_a_redis_outage(exc):
    assert outage_of(exc) == REDIS


@pytest.mark.parametrize(
    "exc",
    [
        pg.UniqueViolationError("duplicate key"),
        pg.ClientConfigurationError("bad dsn"),
        pg.OutdatedSchemaCacheError("stale"),
        rd.ResponseError("WRONGTYPE"),
        KeyError("x"),
        ValueError("y"),
    ],
)
def test_bugs_and_refusals_are_no_outage(exc):
    assert outage_of(exc) is None


def test_an_error_raised_because_of_an_outage_is_that_outage():
    try:
        try:
            raise ConnectionResetError("reset by peer")
        except OSError as lost:
            raise RuntimeError("while reading the log") from lost
    except RuntimeError as exc:
        assert outage_of(exc) == POSTGRES
    try:
        try:
            raise rd.ConnectionError("refused")
        except rd.ConnectionError:
            raise KeyError("handled it badly") from None
    except KeyError as exc:
        assert outage_of(exc) is None  # `from None`: the cause was set aside on purpose


def test_an_outage_logs_when_it_starts_and_when_it_ends(caplog):
    now = [0.0]
    outages = Outages(logging.getLogger("test.outages"), clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="test.outages"):
        for _ in range(500):
            assert outages.failed(pg.InterfaceError("connection is closed"), "spectator counts")
            assert outages.failed(rd.ConnectionError("refused"), "spectator counts")
            now[0] += 0.01
        assert not outages.failed(KeyError("a bug"), "spectator counts")
        outages.ok("spectator counts", POSTGRES)
        outages.back(REDIS)
        outages.ok("spectator counts")  # nothing open: no line
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "PostgreSQL unreachable: InterfaceError: connection is closed (spectator counts)",
        "Redis unreachable: ConnectionError: refused (spectator counts)",
        "PostgreSQL back after 5.0 s, 500 failures (spectator counts)",
        "Redis back after 5.0 s, 500 failures (spectator counts)",
    ]
