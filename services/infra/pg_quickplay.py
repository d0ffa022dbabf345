"""Play now's pool in PostgreSQL (the `QuickPlayPool` port): the
`quick_play` rows of migration 016."""

from __future__ import annotations

import zlib
from typing import Any

import asyncpg

from services.infra.pg import on
from services.infra.quickplay_records import NewTicket, SeatedTicket, TicketRow

# The advisory lock's key space: pools are (game, players), hashed under this tag.
_LOCK_TAG = 0x5150_0000


def _row(r: Any) -> TicketRow:
    ticket = NewTicket(
        str(r["ticket_id"]), str(r["player_id"]), r["game"], r["players"], r["rating"], r["bots_now"], r["client_seed"]
    )
    game_id = str(r["game_id"]) if r["game_id"] is not None else None
    return TicketRow(ticket, r["status"], r["created_at"], game_id, r["seat"])


class PgQuickPlay:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def lock(self, game: str, players: int, tx: Any) -> None:
        key = _LOCK_TAG ^ zlib.crc32(f"{game}/{players}".encode())
        await tx.execute("SELECT pg_advisory_xact_lock($1)", key)

    async def join(self, new: NewTicket, tx: Any) -> TicketRow:
        await tx.execute(
            "INSERT INTO quick_play (ticket_id, player_id, game, players, rating, bots_now, client_seed)"
            " VALUES ($1::text::uuid, $2::text::uuid, $3, $4, $5, $6, $7)"
            " ON CONFLICT (player_id, game, players) WHERE status = 'waiting' DO NOTHING",
            new.ticket_id,
            new.player_id,
            new.game,
            new.players,
            new.rating,
            new.bots_now,
            new.client_seed,
        )
        row = await tx.fetchrow(
            "SELECT * FROM quick_play WHERE player_id = $1::text::uuid AND game = $2 AND players = $3"
            " AND status = 'waiting'",
            new.player_id,
            new.game,
            new.players,
        )
        return _row(row)

    async def waiting(self, game: str, players: int, tx: Any = None) -> list[TicketRow]:
        rows = await on(self.pool, tx).fetch(
            "SELECT * FROM quick_play WHERE game = $1 AND players = $2 AND status = 'waiting'"
            " ORDER BY created_at, ticket_id",
            game,
            players,
        )
        return [_row(r) for r in rows]

    async def seat(self, game_id: str, seated: list[SeatedTicket], tx: Any) -> None:
        await tx.executemany(
            "UPDATE quick_play SET status = 'seated', game_id = $1::text::uuid, seat = $3"
            " WHERE ticket_id = $2::text::uuid AND status = 'waiting'",
            [(game_id, s.ticket_id, s.seat) for s in seated],
        )

    async def seated_at(self, game_id: str) -> list[TicketRow]:
        rows = await self.pool.fetch(
            "SELECT * FROM quick_play WHERE game_id = $1::text::uuid AND status = 'seated' ORDER BY seat", game_id
        )
        return [_row(r) for r in rows]

    async def ticket(self, ticket_id: str) -> TicketRow | None:
        try:
            row = await self.pool.fetchrow("SELECT * FROM quick_play WHERE ticket_id = $1::text::uuid", ticket_id)
        except asyncpg.DataError:  # not a uuid
            return None
        return _row(row) if row is not None else None

    async def withdraw(self, ticket_id: str, tx: Any) -> None:
        await tx.execute(
            "UPDATE quick_play SET status = 'withdrawn' WHERE ticket_id = $1::text::uuid AND status = 'waiting'",
            ticket_id,
        )

    async def withdraw_player(self, player_id: str, tx: Any = None) -> None:
        await on(self.pool, tx).execute(
            "UPDATE quick_play SET status = 'withdrawn' WHERE player_id = $1::text::uuid AND status = 'waiting'",
            player_id,
        )

    async def counts(self) -> dict[tuple[str, int], int]:
        rows = await self.pool.fetch(
            "SELECT game, players, count(*) AS n FROM quick_play WHERE status = 'waiting' GROUP BY game, players"
        )
        return {(r["game"], r["players"]): r["n"] for r in rows}
