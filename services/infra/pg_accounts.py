"""The accounts in PostgreSQL: `players`, `sessions` and `app_secrets` (the
`AccountStore` port, services/app/ports/accounts.py), and what a person's
data export and deletion read and write of their rows elsewhere."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from services.infra.account_records import (
    AccountSummary,
    Credentials,
    NameColumns,
    NameHolder,
    NameTaken,
    NewPlayer,
    PlayerRecord,
    ScrubbedPlayer,
    SessionRecord,
)
from services.infra.pg import on

# Names of people and agents are unique: no two share a name_key, nor a
# name_skeleton (services/app/names.py), checked by `name_holder` under
# NAME_LOCK; migration 008's index on lower(name) stays as a backstop.
NAME_INDEX = "players_name_ci"
# Serialises new names (any fixed key: registrations are rare), so that two
# look-alike names registered at once cannot both pass the check.
NAME_LOCK = 7_240_011
# A player found by name: by its key, or a row not filled yet by lower(name).
BY_NAME = "(name_key = $1 OR (name_key IS NULL AND lower(name) = lower($2)))"


def _player(row: Any) -> PlayerRecord | None:
    return None if row is None else PlayerRecord(str(row["player_id"]), row["name"], row["kind"])


class PgAccounts:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def shared_secret(self, name: str, drawn: bytes) -> bytes:
        await self.pool.execute(
            "INSERT INTO app_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", name, drawn
        )
        return await self.pool.fetchval("SELECT value FROM app_secrets WHERE name = $1", name)

    async def name_holder(self, key: str, name: str, skeleton: str, tx: Any) -> NameHolder | None:
        db = on(self.pool, tx)
        await db.execute("SELECT pg_advisory_xact_lock($1)", NAME_LOCK)
        row = await db.fetchrow(
            f"SELECT name, {BY_NAME} AS same FROM players"
            f" WHERE {BY_NAME} OR name_skeleton = $3 ORDER BY 2 DESC LIMIT 1",
            key,
            name,
            skeleton,
        )
        return None if row is None else NameHolder(row["name"], bool(row["same"]))

    async def insert_player(self, new: NewPlayer, tx: Any = None) -> None:
        try:
            await on(self.pool, tx).execute(
                "INSERT INTO players (player_id, name, kind, token_hash, password_hash, name_key, name_skeleton)"
                " VALUES ($1::text::uuid, $2, $3, $4, $5, $6, $7)",
                new.player_id,
                new.name,
                new.kind,
                new.token_hash,
                new.password_hash,
                new.name_key,
                new.name_skeleton,
            )
        except asyncpg.UniqueViolationError as err:
            if err.constraint_name != NAME_INDEX:
                raise
            raise NameTaken(new.name) from err

    async def unfilled_names(self) -> list[tuple[str, str]]:
        rows = await self.pool.fetch(
            "SELECT player_id, name FROM players WHERE name_key IS NULL OR name_skeleton IS NULL"
        )
        return [(str(r["player_id"]), r["name"]) for r in rows]

    async def fill_names(self, rows: list[NameColumns]) -> None:
        if rows:
            await self.pool.executemany(
                "UPDATE players SET name_key = $2, name_skeleton = $3 WHERE player_id = $1",
                [(r.player_id, r.name_key, r.name_skeleton) for r in rows],
            )

    async def current_names(self, player_ids: list[str]) -> dict[str, str]:
        rows = await self.pool.fetch(
            "SELECT player_id::text AS id, name FROM players WHERE player_id::text = ANY($1::text[])", player_ids
        )
        return {r["id"]: r["name"] for r in rows}

    async def credentials_by_name(self, key: str, name: str) -> Credentials | None:
        row = await self.pool.fetchrow(
            f"SELECT player_id, name, kind, password_hash FROM players WHERE {BY_NAME}"
            " ORDER BY name = $2 DESC, created_at LIMIT 1",
            key,
            name,
        )
        if row is None:
            return None
        return Credentials(str(row["player_id"]), row["name"], row["kind"], row["password_hash"])

    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None:
        return _player(
            await self.pool.fetchrow("SELECT player_id, name, kind FROM players WHERE token_hash = $1", token_hash)
        )

    async def player_by_session(self, session_hash: bytes) -> PlayerRecord | None:
        return _player(
            await self.pool.fetchrow(
                "SELECT p.player_id, p.name, p.kind FROM sessions s JOIN players p USING (player_id)"
                " WHERE s.session_hash = $1 AND s.expires_at > now()",
                session_hash,
            )
        )

    async def password_hash(self, player_id: str) -> str | None:
        return await self.pool.fetchval("SELECT password_hash FROM players WHERE player_id = $1::text::uuid", player_id)

    async def has_password(self, player_id: str) -> bool:
        return (
            await self.pool.fetchval(
                "SELECT password_hash IS NOT NULL FROM players WHERE player_id = $1::text::uuid", player_id
            )
            or False
        )

    async def set_password(self, player_id: str, password_hash: str, tx: Any = None) -> None:
        await on(self.pool, tx).execute(
            "UPDATE players SET password_hash = $2 WHERE player_id = $1::text::uuid", player_id, password_hash
        )

    async def set_token(self, player_id: str, token_hash: bytes, tx: Any = None) -> None:
        await on(self.pool, tx).execute(
            "UPDATE players SET token_hash = $2 WHERE player_id = $1::text::uuid", player_id, token_hash
        )

    async def open_session(self, session_hash: bytes, player_id: str, expires_at: datetime) -> None:
        await self.pool.execute(
            "INSERT INTO sessions (session_hash, player_id, expires_at) VALUES ($1, $2::text::uuid, $3)",
            session_hash,
            player_id,
            expires_at,
        )

    async def end_session(self, session_hash: bytes) -> str | None:
        player_id = await self.pool.fetchval(
            "DELETE FROM sessions WHERE session_hash = $1 RETURNING player_id", session_hash
        )
        return None if player_id is None else str(player_id)

    async def end_other_sessions(self, player_id: str, keep: bytes, tx: Any = None) -> None:
        await on(self.pool, tx).execute(
            "DELETE FROM sessions WHERE player_id = $1::text::uuid AND session_hash <> $2", player_id, keep
        )

    async def end_sessions(self, player_ids: list[str], tx: Any = None) -> None:
        await on(self.pool, tx).execute("DELETE FROM sessions WHERE player_id = ANY($1::text[]::uuid[])", player_ids)

    async def account(self, player_id: str) -> AccountSummary | None:
        row = await self.pool.fetchrow(
            "SELECT created_at, password_hash IS NOT NULL AS has_password FROM players"
            " WHERE player_id = $1::text::uuid",
            player_id,
        )
        return None if row is None else AccountSummary(row["created_at"], row["has_password"])

    async def sessions_of(self, player_id: str) -> list[SessionRecord]:
        rows = await self.pool.fetch(
            "SELECT created_at, expires_at FROM sessions WHERE player_id = $1::text::uuid ORDER BY created_at",
            player_id,
        )
        return [SessionRecord(r["created_at"], r["expires_at"]) for r in rows]

    async def seats_of(self, player_id: str) -> list[tuple[str, int]]:
        rows = await self.pool.fetch(
            "SELECT g.game_id::text AS game_id, s.seat FROM seats s JOIN games g ON g.game_id = s.game_id"
            " WHERE s.player_id = $1::text::uuid ORDER BY g.created_at",
            player_id,
        )
        return [(r["game_id"], r["seat"]) for r in rows]

    async def registering_tournaments(self) -> list[str]:
        rows = await self.pool.fetch("SELECT tournament_id::text AS id FROM tournaments WHERE status = 'registering'")
        return [r["id"] for r in rows]

    async def scrub_player(self, scrubbed: ScrubbedPlayer, tx: Any = None) -> None:
        db = on(self.pool, tx)
        await db.execute(
            "UPDATE players SET name = $2, name_key = $3, name_skeleton = $4, password_hash = NULL,"
            " token_hash = $5, deleted_at = coalesce(deleted_at, now()) WHERE player_id = $1::text::uuid",
            scrubbed.player_id,
            scrubbed.name,
            scrubbed.name_key,
            scrubbed.name_skeleton,
            scrubbed.token_hash,
        )
        await db.execute("UPDATE ratings SET name = rated_id WHERE rated_id = $1", scrubbed.player_id)

    async def scrub_agent(self, agent_id: str, name: str, tx: Any = None) -> None:
        await on(self.pool, tx).execute(
            "UPDATE agents SET name = $2, endpoint = NULL, sealed_secret = NULL, previous_sealed_secret = NULL,"
            " previous_secret_until = NULL, secret = NULL WHERE agent_id = $1::text::uuid",
            agent_id,
            name,
        )
