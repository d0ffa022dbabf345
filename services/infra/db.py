"""PostgreSQL pool and versioned schema migrations (applied at start)."""

from __future__ import annotations

from importlib import resources

import asyncpg

# Any fixed key works: it only serialises concurrent migrators.
MIGRATION_LOCK = 7_240_001


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


async def create_pool(dsn: str | None, size: int = 10) -> asyncpg.Pool:
    conn = await asyncpg.connect(dsn)
    try:
        await migrate(conn)
    finally:
        await conn.close()
    return await asyncpg.create_pool(dsn, min_size=min(2, size), max_size=size, connection_class=LogConnection)
