"""The lobby in PostgreSQL: the `games` and `seats` rows of every table (the
`Lobby` port, services/app/ports/lobby.py). A game's moves are in its event
stream; these rows say who sits where, how it is played and how far it got
(docs/architecture.md, "Seats")."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from services.infra.lobby_records import (
    NewTable,
    PlayerGameRow,
    PlayerTournamentRow,
    SeatRow,
    SeatTaken,
    TableRow,
    Undealt,
)
from services.infra.pg import on

_SEAT_SQL = "INSERT INTO seats (game_id, seat, player_id, bot) VALUES ($1::text::uuid, $2, $3::text::uuid, $4)"
_SEATS_SQL = (
    "SELECT s.seat, s.player_id, s.bot, p.name, p.kind FROM seats s"
    " LEFT JOIN players p ON p.player_id = s.player_id WHERE s.game_id = $1::text::uuid"
)


def _json(value: Any) -> Any:
    return msgspec.json.decode(value) if isinstance(value, str | bytes) else value


def _seat(row: Any) -> SeatRow:
    player_id = str(row["player_id"]) if row["player_id"] is not None else None
    return SeatRow(row["seat"], player_id, row["bot"], row["name"], row["kind"])


def _table(row: Any, seats: list[SeatRow]) -> TableRow:
    return TableRow(
        NewTable(
            game_id=str(row["game_id"]),
            game=row["game"],
            players=row["players"],
            options=_json(row["options"]),
            ranked=row["ranked"],
            seed=row["seed"],
            created_by=str(row["created_by"]) if row["created_by"] else None,
            tournament_id=row["tournament_id"],
            time_control=_json(row["time_control"]) if row["time_control"] else None,
            bot_delay_ms=row["bot_delay_ms"],
            embargoed=row["embargoed"],
            rematch_of=str(row["rematch_of"]) if row["rematch_of"] else None,
            salt=row["salt"],
        ),
        row["status"],
        seats,
        row["created_at"],
        row["finished_at"],
    )


class PgLobby:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    # --- writing -------------------------------------------------------------

    async def insert_table(self, new: NewTable, tx: Any = None) -> bool:
        """False when a table with that id exists already, or when the table
        it plays again has its rematch already (nothing changes)."""
        created = await on(self.pool, tx).fetchval(
            "INSERT INTO games (game_id, game, players, options, ranked, seed, created_by, tournament_id,"
            " time_control, bot_delay_ms, embargoed, rematch_of, salt)"
            " VALUES ($1::text::uuid, $2, $3, $4::jsonb, $5, $6, $7::text::uuid, $8, $9::jsonb, $10, $11,"
            " $12::text::uuid, $13) ON CONFLICT DO NOTHING RETURNING true",
            new.game_id,
            new.game,
            new.players,
            msgspec.json.encode(new.options).decode(),
            new.ranked,
            new.seed,
            new.created_by,
            new.tournament_id,
            msgspec.json.encode(new.time_control).decode() if new.time_control else None,
            new.bot_delay_ms,
            new.embargoed,
            new.rematch_of,
            new.salt,
        )
        return bool(created)

    async def insert_seats(self, game_id: str, seats: list[SeatRow], tx: Any = None) -> None:
        """Raises SeatTaken when one of them is held already."""
        try:
            await on(self.pool, tx).executemany(_SEAT_SQL, [(game_id, s.seat, s.player_id, s.bot) for s in seats])
        except asyncpg.UniqueViolationError:
            raise SeatTaken(game_id) from None

    async def lock_status(self, game_id: str, tx: Any) -> str | None:
        """The table's status, its row locked until `tx` ends: the seat that
        fills a table, a cancel and a leave are decided one after the other."""
        return await tx.fetchval("SELECT status FROM games WHERE game_id = $1::text::uuid FOR UPDATE", game_id)

    async def lock_undealt(self, game_id: str, tx: Any) -> Undealt:
        row = await tx.fetchrow(
            "SELECT g.status, st.version, (SELECT count(*) FROM seats s WHERE s.game_id = g.game_id) AS taken"
            " FROM games g JOIN streams st ON st.stream_id = g.game_id::text WHERE g.game_id = $1::text::uuid"
            " FOR UPDATE OF g",
            game_id,
        )
        return Undealt(row["status"], row["version"], row["taken"])

    async def set_status(self, game_id: str, status: str, tx: Any = None) -> None:
        """'playing' or 'cancelled'; a finished table is `mark_finished`."""
        await on(self.pool, tx).execute("UPDATE games SET status = $2 WHERE game_id = $1::text::uuid", game_id, status)

    async def mark_finished(self, game_id: str) -> None:
        await self.pool.execute(
            "UPDATE games SET status = 'finished', finished_at = now() WHERE game_id = $1::text::uuid", game_id
        )

    async def lift_embargo(self, tournament_id: str) -> None:
        """A duplicate round's tables are disclosed once the round has ended."""
        await self.pool.execute(
            "UPDATE games SET embargoed = false WHERE tournament_id = $1 AND embargoed", tournament_id
        )

    async def free_seat(self, game_id: str, seat: int, player_id: str, tx: Any = None) -> None:
        # The seat's client seed goes with it: whoever sits there next sends their own.
        await on(self.pool, tx).execute(
            "WITH freed AS (DELETE FROM seats WHERE game_id = $1::text::uuid AND seat = $2"
            " AND player_id = $3::text::uuid RETURNING game_id, seat)"
            " DELETE FROM client_seeds c USING freed f WHERE c.game_id = f.game_id AND c.seat = f.seat",
            game_id,
            seat,
            player_id,
        )

    async def put_client_seed(self, game_id: str, seat: int, client_seed: str, tx: Any = None) -> str:
        """The seat's client seed as stored: the first one sent stays."""
        conn = on(self.pool, tx)
        await conn.execute(
            "INSERT INTO client_seeds (game_id, seat, client_seed) VALUES ($1::text::uuid, $2, $3)"
            " ON CONFLICT DO NOTHING",
            game_id,
            seat,
            client_seed,
        )
        return await conn.fetchval(
            "SELECT client_seed FROM client_seeds WHERE game_id = $1::text::uuid AND seat = $2", game_id, seat
        )

    async def client_seeds(self, game_id: str, tx: Any = None) -> dict[int, str]:
        rows = await on(self.pool, tx).fetch(
            "SELECT seat, client_seed FROM client_seeds WHERE game_id = $1::text::uuid", game_id
        )
        return {r["seat"]: r["client_seed"] for r in rows}

    async def give_seat_to_bot(self, game_id: str, seat: int, bot: str) -> None:
        await self.pool.execute(
            "UPDATE seats SET player_id = NULL, bot = $3 WHERE game_id = $1::text::uuid AND seat = $2",
            game_id,
            seat,
            bot,
        )

    # --- one table -----------------------------------------------------------

    async def table(self, game_id: str) -> TableRow | None:
        """None when there is no such table (an id that is not a uuid included)."""
        try:
            row = await self.pool.fetchrow("SELECT * FROM games WHERE game_id = $1::text::uuid", game_id)
        except asyncpg.DataError:  # not a uuid (an outage propagates)
            return None
        if row is None:
            return None
        return _table(row, [_seat(r) for r in await self.pool.fetch(_SEATS_SQL, game_id)])

    async def rematch_for(self, game_id: str) -> str | None:
        """The id of the table that plays `game_id` again, if there is one."""
        try:
            found = await self.pool.fetchval("SELECT game_id FROM games WHERE rematch_of = $1::text::uuid", game_id)
        except asyncpg.DataError:  # not a uuid
            return None
        return str(found) if found else None

    async def seats(self, game_id: str) -> tuple[str | None, list[SeatRow]]:
        """The table's status and its taken seats, in one read."""
        rows = await self.pool.fetch(
            "SELECT g.status, s.seat, s.player_id, s.bot, p.name, p.kind FROM games g"
            " LEFT JOIN seats s ON s.game_id = g.game_id LEFT JOIN players p ON p.player_id = s.player_id"
            " WHERE g.game_id = $1::text::uuid",
            game_id,
        )
        status = rows[0]["status"] if rows else None
        return status, [_seat(r) for r in rows if r["seat"] is not None]

    async def seat_of(self, game_id: str, player_id: str) -> int | None:
        return await self.pool.fetchval(
            "SELECT seat FROM seats WHERE game_id = $1::text::uuid AND player_id = $2::text::uuid", game_id, player_id
        )

    async def embargoed(self, game_id: str) -> bool:
        return bool(await self.pool.fetchval("SELECT embargoed FROM games WHERE game_id = $1::text::uuid", game_id))

    # --- sweeps --------------------------------------------------------------

    async def seats_in_play(self, player_ids: list[str]) -> list[tuple[str, int]]:
        """(game id, seat) of every seat the players hold in a game not finished."""
        rows = await self.pool.fetch(
            "SELECT s.game_id::text AS game_id, s.seat FROM seats s JOIN games g ON g.game_id = s.game_id"
            " WHERE s.player_id = ANY($1::text[]::uuid[]) AND g.status IN ('open', 'playing')",
            player_ids,
        )
        return [(r["game_id"], r["seat"]) for r in rows]

    async def playing(self) -> list[tuple[str, float | None]]:
        """Every table in play with how long ago its log was last written (None: never)."""
        rows = await self.pool.fetch(
            "SELECT g.game_id::text AS id, extract(epoch FROM now() - (SELECT e.recorded_at FROM events e"
            " WHERE e.stream_id = g.game_id::text ORDER BY e.version DESC LIMIT 1)) AS idle_s"
            " FROM games g WHERE g.status = 'playing'"
        )
        return [(r["id"], float(r["idle_s"]) if r["idle_s"] is not None else None) for r in rows]

    async def playing_with_deadlines(self) -> list[str]:
        """Tables in play whose moves have deadlines: timed, or with an agent seated."""
        rows = await self.pool.fetch(
            "SELECT g.game_id::text AS id FROM games g WHERE g.status = 'playing' AND (g.time_control IS NOT NULL"
            " OR EXISTS (SELECT 1 FROM seats s JOIN players p ON p.player_id = s.player_id"
            " WHERE s.game_id = g.game_id AND p.kind = 'agent'))"
        )
        return [r["id"] for r in rows]

    async def stale_untimed(self, stale_s: float) -> list[str]:
        """Untimed tables in play, a person or agent seated, whose log has not
        been written for `stale_s`."""
        rows = await self.pool.fetch(
            "SELECT g.game_id::text AS id FROM games g WHERE g.status = 'playing' AND g.time_control IS NULL"
            " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.player_id IS NOT NULL)"
            " AND (SELECT e.recorded_at FROM events e WHERE e.stream_id = g.game_id::text"
            "      ORDER BY e.version DESC LIMIT 1) < now() - make_interval(secs => $1)",
            stale_s,
        )
        return [r["id"] for r in rows]

    # --- read models ---------------------------------------------------------

    async def page(
        self, status: str | None, game: str | None, before: tuple[datetime, str] | None, limit: int
    ) -> list[TableRow]:
        """Tables newest first (finished ones by when they finished), older
        than the `before` (sort key, game id) cursor, at most `limit`."""
        key = "coalesce(g.finished_at, g.created_at)" if status == "finished" else "g.created_at"
        where: list[str] = ["true"]
        args: list[Any] = []
        if status is not None:
            args.append(status)
            where.append(f"g.status = ${len(args)}")
        if game is not None:
            args.append(game)
            where.append(f"g.game = ${len(args)}")
        if before is not None:
            args += list(before)
            where.append(f"({key}, g.game_id::text) < (${len(args) - 1}, ${len(args)})")
        args.append(limit)
        rows = await self.pool.fetch(
            "SELECT g.*, coalesce((SELECT json_agg(json_build_object('seat', s.seat, 'player_id', s.player_id,"
            " 'bot', s.bot, 'name', p.name, 'kind', p.kind))"
            "   FROM seats s LEFT JOIN players p ON p.player_id = s.player_id WHERE s.game_id = g.game_id), '[]') AS sl"
            f" FROM games g WHERE {' AND '.join(where)} ORDER BY {key} DESC, g.game_id::text DESC LIMIT ${len(args)}",
            *args,
        )
        return [_table(r, [msgspec.convert(s, SeatRow) for s in _json(r["sl"])]) for r in rows]

    async def playing_ids(self, game: str | None, limit: int) -> list[str]:
        """Tables in play, newest first."""
        rows = await self.pool.fetch(
            "SELECT game_id::text AS game_id FROM games WHERE status = 'playing' AND ($1::text IS NULL OR game = $1)"
            " ORDER BY created_at DESC LIMIT $2",
            game,
            limit,
        )
        return [r["game_id"] for r in rows]

    async def player_identity(self, player_id: str) -> tuple[str, str] | None:
        """(name, kind) of a player; None when there is none (or the id is no uuid)."""
        try:
            row = await self.pool.fetchrow("SELECT name, kind FROM players WHERE player_id = $1::text::uuid", player_id)
        except asyncpg.DataError:
            return None
        return (row["name"], row["kind"]) if row else None

    async def player_games(self, player_id: str, before: datetime | None, limit: int) -> list[PlayerGameRow]:
        rows = await self.pool.fetch(
            "SELECT g.game_id::text AS game_id, g.game, g.status, g.players, g.ranked, g.tournament_id, g.embargoed,"
            " g.created_at, g.finished_at, s.seat,"
            " (SELECT e.data FROM events e WHERE e.stream_id = g.game_id::text AND e.type = 'hm.game_finished' LIMIT 1)"
            " AS record"
            " FROM seats s JOIN games g ON g.game_id = s.game_id"
            " WHERE s.player_id = $1::text::uuid AND ($2::timestamptz IS NULL OR g.created_at < $2)"
            " ORDER BY g.created_at DESC LIMIT $3",
            player_id,
            before,
            limit,
        )
        return [PlayerGameRow(**dict(r)) for r in rows]

    async def ranked_finishes(self, player_id: str, limit: int) -> list[tuple[datetime, bool]]:
        # The game's end event is read by the stream's index, at most `limit` times.
        try:
            rows = await self.pool.fetch(
                "SELECT g.finished_at,"
                " coalesce((convert_from(e.data, 'UTF8')::jsonb -> 'forfeited') @> to_jsonb(s.seat), false) AS left"
                " FROM seats s JOIN games g ON g.game_id = s.game_id"
                " CROSS JOIN LATERAL (SELECT data FROM events WHERE stream_id = g.game_id::text"
                "   AND type = 'hm.game_finished' LIMIT 1) e"
                " WHERE s.player_id = $1::text::uuid AND g.ranked AND g.status = 'finished'"
                " AND g.finished_at IS NOT NULL ORDER BY g.finished_at DESC LIMIT $2",
                player_id,
                limit,
            )
        except asyncpg.DataError:  # not a uuid
            return []
        return [(r["finished_at"], r["left"]) for r in rows]

    async def player_tournaments(self, player_id: str, limit: int = 50) -> list[PlayerTournamentRow]:
        rows = await self.pool.fetch(
            "SELECT t.tournament_id::text AS tournament_id, t.game, t.status, t.start_at FROM tournaments t"
            " WHERE t.tournament_id::text IN (SELECT g.tournament_id FROM seats s JOIN games g ON g.game_id = s.game_id"
            "   WHERE s.player_id = $1::text::uuid AND g.tournament_id IS NOT NULL)"
            " ORDER BY t.start_at DESC LIMIT $2",
            player_id,
            limit,
        )
        return [PlayerTournamentRow(**dict(r)) for r in rows]
