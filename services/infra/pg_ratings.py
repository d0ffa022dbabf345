"""The ratings in PostgreSQL: `projections`, `ratings` and `rating_changes`,
and what the projection reads of `events` and `games` (the `RatingStore`
port, services/app/ports/ratings.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from services.infra.pg import on
from services.infra.rating_records import FinishedRow, RatingChange, RatingRow

PROJECTION = "ratings"
# A person's or agent's name is the players table's now (a deleted one's is
# its pseudonym, services/app/upcast.py), not what the projection once copied.
_RATINGS = (
    "SELECT r.game, r.rated_id, r.kind, coalesce(p.name, r.name) AS name, r.mu, r.sigma, r.games, r.forfeits"
    " FROM ratings r LEFT JOIN players p ON r.kind <> 'bot' AND p.player_id::text = r.rated_id"
)


def _rating(r: Any) -> RatingRow:
    return RatingRow(r["game"], r["rated_id"], r["kind"], r["name"], r["mu"], r["sigma"], r["games"], r["forfeits"])


def _change(c: Any) -> RatingChange:
    return RatingChange(
        c["position"],
        c["game"],
        c["game_id"],
        c["rated_id"],
        c["place"],
        c["mu_before"],
        c["sigma_before"],
        c["mu_after"],
        c["sigma_after"],
        c["forfeited"],
    )


def _finished(row: Any) -> FinishedRow:
    return FinishedRow(row["position"], row["stream_id"], row["data"])


class PgRatings:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def claim_checkpoint(self, tx: Any) -> int:
        db = on(self.pool, tx)
        await db.execute("INSERT INTO projections (name) VALUES ($1) ON CONFLICT DO NOTHING", PROJECTION)
        # Row lock: one projector at a time, whatever the number of workers.
        return await db.fetchval("SELECT position FROM projections WHERE name = $1 FOR UPDATE", PROJECTION)

    async def finished_after(self, position: int, limit: int, tx: Any = None) -> list[FinishedRow]:
        rows = await on(self.pool, tx).fetch(
            "SELECT position, stream_id, data FROM events WHERE position > $1 AND type = 'hm.game_finished'"
            " ORDER BY position LIMIT $2",
            position,
            limit,
        )
        return [_finished(r) for r in rows]

    async def embargoed_ranked(self, game_ids: list[str], tx: Any = None) -> set[str]:
        rows = await on(self.pool, tx).fetch(
            "SELECT game_id::text AS game_id FROM games WHERE embargoed AND ranked AND game_id = ANY($1::uuid[])",
            game_ids,
        )
        return {r["game_id"] for r in rows}

    async def ratings_of(self, game: str, rated_ids: list[str], tx: Any = None) -> list[RatingRow]:
        rows = await on(self.pool, tx).fetch(
            "SELECT game, rated_id, kind, name, mu, sigma, games, forfeits FROM ratings WHERE game = $1 AND rated_id ="
            " ANY($2::text[])",
            game,
            rated_ids,
        )
        return [_rating(r) for r in rows]

    async def store(self, ratings: list[RatingRow], changes: list[RatingChange], tx: Any = None) -> None:
        db = on(self.pool, tx)
        await db.executemany(
            "INSERT INTO ratings (game, rated_id, kind, name, mu, sigma, games, forfeits) VALUES ($1, $2, $3, $4, $5,"
            " $6, $7, $8)"
            " ON CONFLICT (game, rated_id) DO UPDATE SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma,"
            " games = EXCLUDED.games, forfeits = EXCLUDED.forfeits",
            [(r.game, r.rated_id, r.kind, r.name, r.mu, r.sigma, r.games, r.forfeits) for r in ratings],
        )
        await db.executemany(
            "INSERT INTO rating_changes (position, game, game_id, rated_id, place, mu_before, sigma_before, mu_after,"
            " sigma_after,"
            " forfeited) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            [
                (
                    c.position,
                    c.game,
                    c.game_id,
                    c.rated_id,
                    c.place,
                    c.mu_before,
                    c.sigma_before,
                    c.mu_after,
                    c.sigma_after,
                    c.forfeited,
                )
                for c in changes
            ],
        )

    async def move_checkpoint(self, position: int, tx: Any = None) -> None:
        await on(self.pool, tx).execute("UPDATE projections SET position = $2 WHERE name = $1", PROJECTION, position)

    @asynccontextmanager
    async def snapshot(self, write: bool) -> AsyncIterator[Any]:
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=not write):
            yield conn

    async def checkpoint(self, tx: Any = None) -> int:
        return await on(self.pool, tx).fetchval("SELECT position FROM projections WHERE name = $1", PROJECTION) or 0

    async def every_finished(self, upto: int | None, tx: Any) -> AsyncIterator[FinishedRow]:
        # A cursor runs in a transaction: `tx`, the snapshot's connection.
        async for row in tx.cursor(
            "SELECT position, stream_id, data FROM events WHERE type = 'hm.game_finished'"
            + ("" if upto is None else " AND position <= $1")
            + " ORDER BY position",
            *(() if upto is None else (upto,)),
        ):
            yield _finished(row)

    async def stored_ratings(self, tx: Any = None) -> dict[tuple[str, str], tuple[float, float, int, int]]:
        return {
            (r["game"], r["rated_id"]): (r["mu"], r["sigma"], r["games"], r["forfeits"])
            for r in await on(self.pool, tx).fetch("SELECT game, rated_id, mu, sigma, games, forfeits FROM ratings")
        }

    async def count_changes(self, tx: Any = None) -> int:
        return await on(self.pool, tx).fetchval("SELECT count(*) FROM rating_changes")

    async def replace_all(
        self, ratings: list[RatingRow], changes: list[RatingChange], position: int, tx: Any = None
    ) -> None:
        db = on(self.pool, tx)
        await db.execute("DELETE FROM rating_changes")
        await db.execute("DELETE FROM ratings")
        await self.store(ratings, changes, db)
        await db.execute(
            "INSERT INTO projections (name, position) VALUES ($1, $2)"
            " ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position",
            PROJECTION,
            position,
        )

    async def leaderboard(self, game: str, limit: int) -> list[RatingRow]:
        rows = await self.pool.fetch(
            _RATINGS + " WHERE r.game = $1 ORDER BY r.mu - 3 * r.sigma DESC, r.rated_id LIMIT $2 * 3", game, limit
        )
        return [_rating(r) for r in rows]

    async def ratings_of_player(self, rated_id: str, game: str | None) -> list[RatingRow]:
        rows = await self.pool.fetch(
            _RATINGS + " WHERE r.rated_id = $1 AND ($2::text IS NULL OR r.game = $2)", rated_id, game
        )
        return [_rating(r) for r in rows]

    async def changes_of(self, rated_id: str, game: str | None) -> list[RatingChange]:
        rows = await self.pool.fetch(
            "SELECT * FROM rating_changes WHERE rated_id = $1 AND ($2::text IS NULL OR game = $2) ORDER BY position",
            rated_id,
            game,
        )
        return [_change(c) for c in rows]
