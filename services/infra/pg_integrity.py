"""The finished games' logs in PostgreSQL, for the collusion screening (the
`FinishedGames` port, services/app/ports/integrity.py): the streams that
hold an `hm.game_finished` event, each read whole."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg

from services.infra.integrity_records import FinishedLog, LogEvent


class PgFinishedGames:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def finished_logs(self, game: str | None = None) -> AsyncIterator[FinishedLog]:
        # One repeatable-read snapshot: a game finishing meanwhile is either
        # wholly in the report or not at all.
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            finished = await conn.fetch(
                "SELECT stream_id FROM events WHERE type = 'hm.game_finished'"
                " AND ($1::text IS NULL OR convert_from(data, 'UTF8')::jsonb ->> 'game' = $1)"
                " ORDER BY position",
                game,
            )
            for row in finished:
                records = await conn.fetch(
                    "SELECT version, type, data FROM events WHERE stream_id = $1 ORDER BY version", row["stream_id"]
                )
                yield FinishedLog(
                    row["stream_id"], [LogEvent(r["version"], r["type"], bytes(r["data"])) for r in records]
                )
