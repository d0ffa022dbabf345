"""PostgreSQL pool and versioned schema migrations (applied at start)."""

from __future__ import annotations

import asyncio
import logging
import time
from importlib import resources

import asyncpg

log = logging.getLogger("hanamichi")

# Any fixed key works: it only serialises concurrent migrators.
MIGRATION_LOCK = 7_240_001

# How long a process's start waits for a PostgreSQL that is not there (down,
# restarting) before it fails: uvicorn stops every API process of `serve`
# when one of them fails its start, so an API process that uvicorn starts
# again during an outage must wait the outage out, not exit.
START_WAIT_S = 120.0


def migration_files() -> list[tuple[int, str, str]]:
    folder = resources.files("services.infra") / "migrations"
    found = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql"):
            found.append((int(name.split("_", 1)[0]), name, entry.read_text()))
    return sorted(found)


async def migrate(conn: asyncpg.Connection) -> list[str]:
    """Apply every migration not applied yet, in order, each in a transaction."""
    applied: list[str] = []
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        for version, name, sql in migration_files():
            if version in done:
                continue
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, name)
            applied.append(name)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
    return applied


class LogConnection(asyncpg.Connection):
    """Pooled connections skip asyncpg's reset query on release (a round trip
    per query): this code leaves no session state behind: no LISTEN, no
    session settings, only transaction-scoped advisory locks."""

    def get_reset_query(self) -> str:
        return ""


async def _connect_when_up(dsn: str | None, wait_s: float) -> asyncpg.Connection:
    """A connection, retried with a backoff while PostgreSQL is unreachable, up to `wait_s`."""
    from services.infra.outages import POSTGRES, outage_of

    deadline = time.monotonic() + wait_s
    pause_s = 0.25
    while True:
        try:
            return await asyncpg.connect(dsn)
        except Exception as exc:
            if outage_of(exc) != POSTGRES or time.monotonic() + pause_s > deadline:
                raise
            log.warning(
                "PostgreSQL unreachable at start (%s: %s); trying again in %g s", type(exc).__name__, exc, pause_s
            )
            await asyncio.sleep(pause_s)
            pause_s = min(5.0, pause_s * 2)


async def create_pool(dsn: str | None, size: int = 10, wait_s: float = START_WAIT_S) -> asyncpg.Pool:
    conn = await _connect_when_up(dsn, wait_s)
    try:
        await migrate(conn)
    finally:
        await conn.close()
    return await asyncpg.create_pool(dsn, min_size=min(2, size), max_size=size, connection_class=LogConnection)
