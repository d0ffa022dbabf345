"""Which errors mean PostgreSQL or Redis went away, and what an outage logs.

`outage_of(exc)` is the one classification every route, stream and job
uses: it goes by the client libraries' exception hierarchies (and the
exception's causes), not by a list of the errors seen so far, because a
server dying under load surfaces as whichever error the connection's state
happened to give (asyncpg's `InternalClientError: cannot switch to state
12` on a pooled connection whose server just died, `InterfaceError:
connection is closed`, a raw ConnectionResetError...).

`OUTAGES` logs an outage once per server and kind of work, when it starts,
and once when it ends (with its length and how many failures it caused),
instead of a warning per failed request: 5 s of PostgreSQL down under load
must be two lines, not two thousand."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger("hanamichi")

POSTGRES = "PostgreSQL"
REDIS = "Redis"

# How often a server that went away is asked whether it is back, and how
# long one question may take.
PROBE_EVERY_S = 0.25
PROBE_TIMEOUT_S = 2.0


def _pg_kinds() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    import asyncpg.exceptions as pg

    down = (
        pg.PostgresConnectionError,  # class 08, ConnectionDoesNotExistError: a connection lost mid-query
        pg.OperatorInterventionError,  # class 57: shutting down, starting up (CannotConnectNowError)
        pg.InsufficientResourcesError,  # class 53: too many connections, disk full
        pg.InterfaceError,  # the client side of a lost connection: "connection is closed", a closing pool
        pg.InternalClientError,  # a protocol left mid-operation by a dead server ("cannot switch to state")
    )
    # Mistakes in this code or its configuration, whatever the server's state.
    bugs = (pg.ClientConfigurationError, pg.UnsupportedClientFeatureError, pg.OutdatedSchemaCacheError)
    return down, bugs


def _redis_kinds() -> tuple[type[BaseException], ...]:
    import redis.exceptions as rd

    return (rd.ConnectionError, rd.TimeoutError)  # BusyLoadingError (a restart) is a ConnectionError


_PG_DOWN, _PG_BUGS = _pg_kinds()
_REDIS_DOWN = _redis_kinds()


def _raised_in(exc: BaseException) -> str:
    """Which client library an OSError came out of (its traceback's frames)."""
    tb = exc.__traceback__
    found = POSTGRES  # a bare socket error with no client frame: the event log is what every request reads
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if "/redis/" in name or "/arq/" in name:
            found = REDIS
        elif "/asyncpg/" in name:
            found = POSTGRES
        tb = tb.tb_next
    return found


def _one(exc: BaseException) -> str | None:
    if isinstance(exc, _REDIS_DOWN):
        return REDIS
    if isinstance(exc, _PG_DOWN) and not isinstance(exc, _PG_BUGS):
        return POSTGRES
    if isinstance(exc, OSError):  # refused, reset, unreachable, connect timeouts (both clients raise these raw)
        return _raised_in(exc)
    return None


def outage_of(exc: BaseException) -> str | None:
    """The backing server (POSTGRES or REDIS) that `exc` says is unreachable
    or not taking work for now, or None: any other error is a bug to report.
    An error raised because of an outage (its cause, or the error it was
    handling) is that outage too."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 10:
        if isinstance(current, BaseExceptionGroup):
            found = {outage_of(e) for e in current.exceptions}
            if len(found) == 1 and None not in found:
                return found.pop()
        dependency = _one(current)
        if dependency is not None:
            return dependency
        seen += 1
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return None


@dataclass
class _Open:
    since: float
    failures: int


class Outages:
    """One warning when work of a kind starts failing because a server went
    away, one when that server is back. The end is known by asking the server
    (a probe registered by whoever owns the pool or client) or by the kind's
    next success (`ok`), whichever comes first."""

    def __init__(self, logger: logging.Logger = log, clock: Callable[[], float] = time.monotonic) -> None:
        self.log = logger
        self.clock = clock
        self._open: dict[tuple[str, str], _Open] = {}
        self._probes: dict[str, Callable[[], Awaitable[object]]] = {}
        self._probing: dict[str, asyncio.Task] = {}

    def failed(self, exc: BaseException, kind: str, dependency: str | None = None) -> bool:
        """Count one failure of `kind` of work (e.g. "spectator counts") caused
        by `exc`. False if `exc` is no outage: the caller reports it as the bug
        it is. The warning is logged only when this kind's outage starts."""
        dependency = dependency or outage_of(exc)
        if dependency is None:
            return False
        key = (dependency, kind)
        current = self._open.get(key)
        if current is not None:
            current.failures += 1
            return True
        self._open[key] = _Open(self.clock(), 1)
        self.log.warning("%s unreachable: %s: %s (%s)", dependency, type(exc).__name__, exc, kind)
        self._probe(dependency)
        return True

    def ok(self, kind: str, dependency: str | None = None) -> None:
        """`kind` of work succeeded: its outages are over."""
        if not self._open:
            return
        for key in [k for k in self._open if k[1] == kind and (dependency is None or k[0] == dependency)]:
            self._end(key)

    def back(self, dependency: str) -> None:
        """The server answers again: every kind of work waiting on it is over."""
        for key in [k for k in self._open if k[0] == dependency]:
            self._end(key)

    def down(self) -> list[tuple[str, str]]:
        """(server, kind) of every outage still open."""
        return list(self._open)

    def _end(self, key: tuple[str, str]) -> None:
        current = self._open.pop(key)
        self.log.warning(
            "%s back after %.1f s, %d failures (%s)", key[0], self.clock() - current.since, current.failures, key[1]
        )

    def probe(self, dependency: str, check: Callable[[], Awaitable[object]]) -> Callable[[], None]:
        """While `dependency` is down, `check()` is awaited every PROBE_EVERY_S
        until it returns; then the outage is over. Returns the unregistering."""
        self._probes[dependency] = check

        def unregister() -> None:
            if self._probes.get(dependency) is check:
                del self._probes[dependency]
                task = self._probing.pop(dependency, None)
                if task is not None:
                    task.cancel()

        return unregister

    def _probe(self, dependency: str) -> None:
        check = self._probes.get(dependency)
        running = self._probing.get(dependency)
        if check is None or (running is not None and not running.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._probing[dependency] = loop.create_task(self._until_back(dependency, check))

    async def _until_back(self, dependency: str, check: Callable[[], Awaitable[object]]) -> None:
        while any(k[0] == dependency for k in self._open):
            await asyncio.sleep(PROBE_EVERY_S)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(check(), PROBE_TIMEOUT_S)
                self.back(dependency)
                return


class _LibraryOutages(logging.Filter):
    """A client library's own warning about an outage (asyncpg's pool logs
    each failed reconnect of its floor, with a traceback) counts as a
    failure of that outage instead of a line of its own."""

    def __init__(self, outages: Outages, kind: str) -> None:
        super().__init__()
        self.outages, self.kind = outages, kind

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return exc is None or not self.outages.failed(exc, self.kind)


def quiet_library_outages(outages: Outages) -> None:
    """Route asyncpg's per-reconnect warnings and arq's per-job failures
    caused by an outage through `outages` (idempotent)."""
    for name, kind in (
        ("asyncpg.pool", "pool reconnects"),
        ("arq.worker", "worker jobs; the reconcile sweep redoes them"),
    ):
        library_log = logging.getLogger(name)
        if not any(isinstance(f, _LibraryOutages) for f in library_log.filters):
            library_log.addFilter(_LibraryOutages(outages, kind))


# This process's: every module that logs a failure of a backing server logs it here.
OUTAGES = Outages()
