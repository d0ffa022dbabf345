"""Migration 008: names become unique ignoring case; existing
duplicates keep their ids and the later ones are renamed "alice (2)"."""

from __future__ import annotations

import uuid

import asyncpg

from services.infra.db import migrate, migration_files
from tests.conftest import _with_database


async def test_duplicate_names_are_renamed_keeping_ids(servers):
    admin_url, _ = servers
    name = f"hanamichi_mig_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        conn = await asyncpg.connect(_with_database(admin_url, name))
        try:
            # The schema as it was before accounts: migrations 001-007.
            await conn.execute(
                "CREATE TABLE schema_migrations (version int PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            for version, file, sql in migration_files():
                if version < 8:
                    await conn.execute(sql)
                    await conn.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, file)
            rows = [  # (name, created) in creation order; "Alice (2)" already exists
                ("alice", "2026-01-01"),
                ("ALICE", "2026-01-02"),
                ("Alice (2)", "2026-01-03"),
                ("Alice", "2026-01-04"),
                ("bob", "2026-01-05"),
            ]
            ids = [uuid.uuid4() for _ in rows]
            for pid, (player, created) in zip(ids, rows, strict=True):
                await conn.execute(
                    "INSERT INTO players (player_id, name, token_hash, created_at) VALUES ($1, $2, $3,"
                    " $4::text::timestamptz)",
                    pid,
                    player,
                    uuid.uuid4().bytes,
                    created,
                )
            assert await migrate(conn) == [f for v, f, _ in migration_files() if v >= 8]
            names = {r["player_id"]: r["name"] for r in await conn.fetch("SELECT player_id, name FROM players")}
            assert names == {
                ids[0]: "alice",
                ids[1]: "ALICE (3)",
                ids[2]: "Alice (2)",
                ids[3]: "Alice (4)",
                ids[4]: "bob",
            }
            try:
                await conn.execute(
                    "INSERT INTO players (player_id, name, token_hash) VALUES ($1, 'BOB', $2)", uuid.uuid4(), b"x"
                )
            except asyncpg.UniqueViolationError as err:
                assert err.constraint_name == "players_name_ci"
            else:
                raise AssertionError("a second 'bob' was accepted")
        finally:
            await conn.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
