"""What one account holds now, counted in PostgreSQL (the `CapCounts` port,
services/app/ports/caps.py): from the current rows at the moment of the
decision, never from a counter that could drift. Each count runs in the
caller's transaction after the player's advisory lock, and the caller
inserts in that same transaction."""

from __future__ import annotations

from typing import Any

import asyncpg

from services.infra.pg import on

# The advisory lock class of the caps: one lock per player in it (the
# two-key form, so it never meets the one-key locks of pg_accounts.py,
# eventstore.py and db.py).
CAP_LOCK = 7_240_020


class PgCapCounts:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def _locked(self, player_id: str, tx: Any) -> Any:
        db = on(self.pool, tx)
        await db.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", CAP_LOCK, player_id)
        return db

    async def open_tables(self, player_id: str, tx: Any) -> int:
        db = await self._locked(player_id, tx)
        return await db.fetchval(
            "SELECT count(*) FROM games WHERE created_by = $1::text::uuid AND status IN ('open', 'playing')", player_id
        )

    async def bot_seats(self, host_id: str, bot: str, tx: Any) -> tuple[int, int]:
        db = await self._locked(host_id, tx)
        row = await db.fetchrow(
            "SELECT count(*) AS bots, count(*) FILTER (WHERE s.bot = $2) AS experts"
            " FROM seats s JOIN games g ON g.game_id = s.game_id"
            " WHERE g.created_by = $1::text::uuid AND g.status IN ('open', 'playing') AND s.bot IS NOT NULL",
            host_id,
            bot,
        )
        return row["bots"], row["experts"]

    async def agents(self, owner_id: str, tx: Any) -> int:
        db = await self._locked(owner_id, tx)
        return await db.fetchval(
            "SELECT count(*) FROM agents WHERE owner_id = $1::text::uuid AND status <> 'deleted'", owner_id
        )

    async def sparring(self, owner_id: str, creation_s: float, tx: Any) -> int:
        db = await self._locked(owner_id, tx)
        return await db.fetchval(
            "SELECT count(*) FROM sparring sp JOIN agents a ON a.agent_id = sp.agent_id"
            " WHERE a.owner_id = $1::text::uuid AND EXISTS ("
            "   SELECT 1 FROM unnest(sp.game_ids || coalesce(sp.bot_game_ids, '{}')) AS t(game_id)"
            "   LEFT JOIN games g ON g.game_id = t.game_id"
            "   WHERE g.status IN ('open', 'playing')"
            "      OR (g.game_id IS NULL AND sp.created_at > now() - make_interval(secs => $2)))",
            owner_id,
            creation_s,
        )
