"""Setting a table up: creating it (from the lobby, or seated whole for a
tournament), taking seats, seating house bots, and the deal once every seat
is taken. GameService (services/app/games/service.py) holds one."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from engines.core import OptionsError
from engines.registry import get_game
from services.app.caps import CapPolicy
from services.app.errors import BadRequest, Conflict, Forbidden, Unprocessable
from services.app.games.copies import TableCopies
from services.app.games.tables import Outcome, SeatHolder, Table
from services.app.kernel import Decision, Kernel
from services.app.players import Player
from services.app.ports import EventLog, Lobby, NewTable, SeatRow, SeatTaken, Transactions, VersionConflict
from services.infra import keys as K


class Seating:
    def __init__(
        self,
        copies: TableCopies,
        lobby: Lobby,
        store: EventLog,
        transactions: Transactions,
        kernel: Kernel,
        caps: CapPolicy,
    ) -> None:
        self.copies = copies
        self.tables = copies.tables
        self.refresh = copies.refresh
        self.lobby = lobby
        self.store = store
        self.transactions = transactions
        self.kernel = kernel
        self.caps = caps

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
        new = NewTable(
            game_id,
            game.name,
            players,
            options,
            ranked,
            seed,
            created_by=player.player_id,
            time_control=time_control,
            bot_delay_ms=bot_delay_ms,
        )
        async with self.transactions.transaction() as tx:
            await self.caps.check_open_table(tx, player.player_id)
            await self.lobby.insert_table(new, tx)
            await self.store.create_stream(game_id, "game", tx)
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
        new = NewTable(
            game_id,
            game.name,
            len(seats),
            options,
            ranked,
            seed,
            tournament_id=tournament_id,
            time_control=time_control,
            embargoed=embargoed,
        )
        async with self.transactions.transaction() as tx:
            if await self.lobby.insert_table(new, tx):
                await self.store.create_stream(game_id, "game", tx)
                await self.lobby.insert_seats(game_id, [SeatRow(h.seat, h.player_id, h.bot) for h in seats], tx)
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
        return await self._seat(table, seat, holder, cap=lambda tx: self.caps.check_bot_seat(tx, host, bot))

    async def _seat(
        self,
        table: Table,
        seat: int | None,
        holder: SeatHolder,
        cap: Callable[[Any], Awaitable[None]] | None = None,
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
                async with self.transactions.transaction() as tx:
                    # The table's row, locked: a cancel (services/app/games/leaving.py)
                    # and the seat that fills the table are taken one after the other.
                    if await self.lobby.lock_status(table.game_id, tx) == "cancelled":
                        table.record.status = "cancelled"
                        raise Conflict("table_cancelled", "this table was cancelled by the player who created it")
                    if cap is not None:
                        await cap(tx)
                    await self.lobby.insert_seats(table.game_id, [SeatRow(seat, holder.player_id, holder.bot)], tx)
            except SeatTaken:  # another process took it first
                await self.refresh(table, fresh=True)
                raise Conflict("seat_taken", "that seat is taken") from None
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
        await self.lobby.set_status(table.game_id, "playing")
        table.record.status = "playing"
