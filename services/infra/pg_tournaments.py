"""The tournaments in PostgreSQL: `tournaments` (the `TournamentStore` port,
services/app/ports/tournaments.py), and what they read and write of the
`players` and `games` rows."""

from __future__ import annotations

from typing import Any

import asyncpg

from services.infra.pg import on
from services.infra.tournament_records import EntrantName, NewTournament, TournamentRow


class PgTournaments:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def insert_tournament(self, new: NewTournament, tx: Any = None) -> None:
        await on(self.pool, tx).execute(
            "INSERT INTO tournaments (tournament_id, game, start_at, created_by)"
            " VALUES ($1::text::uuid, $2, to_timestamp($3 / 1000.0), $4::text::uuid)",
            new.tournament_id,
            new.game,
            new.start_ms,
            new.created_by,
        )

    async def listing(self, status: str | None) -> list[TournamentRow]:
        rows = await self.pool.fetch(
            "SELECT tournament_id::text AS id, game, status, extract(epoch FROM start_at) * 1000 AS start_ms"
            " FROM tournaments WHERE ($1::text IS NULL OR status = $1) ORDER BY start_at DESC LIMIT 200",
            status,
        )
        return [TournamentRow(r["id"], r["game"], r["status"], int(r["start_ms"])) for r in rows]

    async def set_status(self, tournament_id: str, status: str) -> None:
        await self.pool.execute(
            "UPDATE tournaments SET status = $2 WHERE tournament_id = $1::text::uuid", tournament_id, status
        )

    async def due_to_start(self) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT tournament_id::text AS id FROM tournaments WHERE status = 'registering' AND start_at <= now()"
        )
        return [r["id"] for r in rows]

    async def running(self) -> list[str]:
        rows = await self.pool.fetch("SELECT tournament_id::text AS id FROM tournaments WHERE status = 'running'")
        return [r["id"] for r in rows]

    async def entrant_names(self, player_ids: list[str]) -> list[EntrantName]:
        rows = await self.pool.fetch(
            "SELECT player_id::text AS id, name, deleted_at IS NOT NULL AS gone FROM players"
            " WHERE player_id::text = ANY($1::text[])",
            player_ids,
        )
        return [EntrantName(r["id"], r["name"], r["gone"]) for r in rows]

    async def finished_tables(self, tournament_id: str) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT game_id::text AS id FROM games WHERE tournament_id = $1 AND status = 'finished'", tournament_id
        )
        return [r["id"] for r in rows]
