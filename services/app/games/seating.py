"""Setting a table up: creating it (from the lobby, or seated whole for a
tournament), taking seats, seating house bots, and the deal once every seat
is taken. Part of GameService (services/app/games/service.py)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import msgspec

from engines.core import OptionsError
from engines.registry import get_game
from services.app.errors import BadRequest, Conflict, Forbidden, ServiceError, Unprocessable
from services.app.games.tables import Outcome, SeatHolder, Table
from services.app.kernel import Decision
from services.app.players import Player
from services.infra import keys as K
from services.infra.eventstore import VersionConflict

if TYPE_CHECKING:
    from asyncpg import Pool

    from services.app.caps import CapPolicy
    from services.app.games.cache import TableCache
    from services.app.kernel import Kernel
    from services.infra.eventstore import EventStore

_SEAT_SQL = "INSERT INTO seats (game_id, seat, player_id, bot) VALUES ($1::text::uuid, $2, $3::text::uuid, $4)"


class Seating:
    """GameService's lobby commands (a mixin: the state is GameService's)."""

    # What the mixin uses of its host, GameService.
    pool: Pool
    store: EventStore
    tables: TableCache
    kernel: Kernel
    caps: CapPolicy

    if TYPE_CHECKING:

        async def refresh(self, table: Table, fresh: bool = False) -> None: ...

    async def create_game(
        self,
        player: Player,
        name: str,
        players: int,
        options: dict,
        ranked: bool,
        time_control: dict | None = None,
        bot_delay_ms: int | None = None,
    ) -> Table:
        try:
            game = get_game(name)
            game.check_players(players)
            game.make_options(options)
        except OptionsError as err:
            raise Unprocessable(err.code, err.message) from None
        game_id = str(uuid.uuid4())
        seed = secrets.randbits(62)
        async with self.pool.acquire() as conn, conn.transaction():
            await self.caps.check_open_table(conn, player.player_id)
            await conn.execute(
                "INSERT INTO games (game_id, game, players, options, ranked, seed, created_by, time_control,"
                " bot_delay_ms)"
                " VALUES ($1::text::uuid, $2, $3, $4::jsonb, $5, $6, $7::text::uuid, $8::jsonb, $9)",
                game_id,
                game.name,
                players,
                msgspec.json.encode(options).decode(),
                ranked,
                seed,
                player.player_id,
                msgspec.json.encode(time_control).decode() if time_control else None,
                bot_delay_ms,
            )
            await self.store.create_stream(game_id, "game", conn)
        return await self.tables.get(game_id)

    async def create_seated(
        self,
        game_id: str,
        name: str,
        options: dict,
        ranked: bool,
        seed: int,
        seats: list[SeatHolder],
        tournament_id: str | None = None,
        time_control: dict | None = None,
        embargoed: bool = False,
    ) -> Table:
        """A table whose seats are all assigned (tournaments), started at once.
        Idempotent: creating it again finds the existing table."""
        game = get_game(name)
        async with self.pool.acquire() as conn, conn.transaction():
            created = await conn.fetchval(
                "INSERT INTO games (game_id, game, players, options, ranked, seed, tournament_id, time_control,"
                " embargoed)"
                " VALUES ($1::text::uuid, $2, $3, $4::jsonb, $5, $6, $7, $8::jsonb, $9)"
                " ON CONFLICT (game_id) DO NOTHING RETURNING true",
                game_id,
                game.name,
                len(seats),
                msgspec.json.encode(options).decode(),
                ranked,
                seed,
                tournament_id,
                msgspec.json.encode(time_control).decode() if time_control else None,
                embargoed,
            )
            if created:
                await self.store.create_stream(game_id, "game", conn)
                await conn.executemany(_SEAT_SQL, [(game_id, h.seat, h.player_id, h.bot) for h in seats])
        table = await self.tables.get(game_id)
        if table.state is None:
            async with table.lock:
                await self.refresh(table)
                if table.state is None:
                    await self._start(table)
        return table

    async def take_seat(self, player: Player, game_id: str, seat: int | None) -> Table:
        table = await self.tables.get(game_id)
        if table.seat_of(player.player_id) is not None:
            raise Conflict("already_seated", "you already hold a seat at this table")
        return await self._seat(table, seat, SeatHolder(-1, player.player_id, None, player.name, player.kind))

    async def seat_bot(self, player: Player, game_id: str, seat: int | None, bot: str) -> Table:
        table = await self.tables.get(game_id)
        if table.record.created_by != player.player_id:
            raise Forbidden("not_table_host", "only the player who created the table seats house bots")
        if bot not in table.game.bots:
            raise Unprocessable(
                "unknown_bot", f"no house bot {bot!r} for {table.game.title}; known: {', '.join(table.game.bots)}"
            )
        host = player.player_id
        holder = SeatHolder(-1, None, bot, f"{bot} bot", "bot")
        return await self._seat(table, seat, holder, cap=lambda conn: self.caps.check_bot_seat(conn, host, bot))

    async def _seat(
        self,
        table: Table,
        seat: int | None,
        holder: SeatHolder,
        cap: Callable[[object], Awaitable[None]] | None = None,
    ) -> Table:
        """`cap`: a check of services/app/caps.py, run in the transaction of
        the seat's insert (so its count and the insert are one decision)."""
        async with table.lock:
            # Seats live in PostgreSQL's `seats` rows, which every process
            # reads where it decides (docs/architecture.md, "Seats"): this
            # copy learns the seats and the deal of the other processes first.
            await self.refresh(table, fresh=True)
            if table.record.status == "cancelled":
                raise Conflict("table_cancelled", "this table was cancelled by the player who created it")
            if table.state is not None or table.full:
                raise Conflict("table_full", "every seat at this table is taken")
            if holder.player_id is not None and table.seat_of(holder.player_id) is not None:
                raise Conflict("already_seated", "you already hold a seat at this table")
            if seat is None:
                seat = next((i for i, s in enumerate(table.seats) if s is None), None)
            elif not 0 <= seat < table.players:
                raise BadRequest("bad_seat", f"seats are numbered 0 to {table.players - 1}")
            if seat is None or table.seats[seat] is not None:
                raise Conflict("seat_taken", "that seat is taken")
            try:
                async with self.pool.acquire() as conn, conn.transaction():
                    # The table's row, locked: a cancel (services/app/games/leaving.py)
                    # and the seat that fills the table are taken one after the other.
                    status = await conn.fetchval(
                        "SELECT status FROM games WHERE game_id = $1::text::uuid FOR UPDATE", table.game_id
                    )
                    if status == "cancelled":
                        table.record.status = "cancelled"
                        raise Conflict("table_cancelled", "this table was cancelled by the player who created it")
                    if cap is not None:
                        await cap(conn)
                    await conn.execute(_SEAT_SQL, table.game_id, seat, holder.player_id, holder.bot)
            except ServiceError:
                raise
            except Exception as exc:  # another process took it first
                if "unique" in str(exc).lower() or "duplicate" in str(exc).lower():
                    await self.refresh(table, fresh=True)
                    raise Conflict("seat_taken", "that seat is taken") from None
                raise
            holder.seat = seat
            table.seats[seat] = holder
            # Read again after the insert has committed: of two processes
            # taking the last two seats at once, the one whose insert commits
            # last reads both, so the table is dealt before that call returns
            # (both may deal: the version check keeps one deal).
            await self.refresh(table, fresh=True)
            if table.full and table.state is None:
                await self._start(table)
        return table

    async def _start(self, table: Table) -> None:
        """Deal: the engine's start events become versions 1..k (lock held)."""
        events = table.game.new_game(table.players, table.record.options, table.chance())
        try:
            await self.kernel.append(table, Decision(events, K.START_PREFIX, Outcome(len(events), 1, None)))
        except VersionConflict:
            await self.refresh(table, fresh=True)  # another process started it
        await self.pool.execute("UPDATE games SET status = 'playing' WHERE game_id = $1::text::uuid", table.game_id)
        table.record.status = "playing"
