"""Setting a table up: creating it (from the lobby, or seated whole for a
tournament), taking seats, seating house bots, and the deal once every seat
is taken. GameService (services/app/games/service.py) holds one."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from engines.core import Chance, OptionsError, commitment, deal_seed, valid_client_seed
from engines.registry import get_game
from services.app.caps import CapPolicy
from services.app.errors import BadRequest, Conflict, Forbidden, Unprocessable
from services.app.games.copies import TableCopies
from services.app.games.events import DealSeeded
from services.app.games.tables import Outcome, Table
from services.app.kernel import Decision, Kernel
from services.app.players import Player
from services.app.ports import EventLog, Lobby, NewTable, SeatRow, SeatTaken, Transactions, VersionConflict
from services.app.seats import SeatHolder
from services.infra import keys as K


def kept_seats(finished: Table) -> dict[str, int]:
    """The seats a rematch keeps ("Play again", services/app/games/rematch.py):
    the people and agents still seated at the end, player id -> seat."""
    return {h.player_id: h.seat for h in finished.seats if h is not None and h.player_id and h.bot is None}


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
            salt=secrets.token_hex(32),
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
        client_seeds: dict[int, str] | None = None,
    ) -> Table:
        """A table whose seats are all assigned (tournaments, Play now,
        sparring), started at once. Idempotent: creating it again finds the
        existing table. `client_seeds` (Play now: what each person's ticket
        brought) go into the deal; without them the table is dealt from
        `seed` alone (a tournament's tables share deals in duplicate)."""
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
            salt=secrets.token_hex(32) if client_seeds is not None else None,
        )
        async with self.transactions.transaction() as tx:
            if await self.lobby.insert_table(new, tx):
                await self.store.create_stream(game_id, "game", tx)
                await self.lobby.insert_seats(game_id, [SeatRow(h.seat, h.player_id, h.bot) for h in seats], tx)
                for seat, client_seed in (client_seeds or {}).items():
                    await self.lobby.put_client_seed(game_id, seat, client_seed, tx)
        table = await self.tables.get(game_id)
        if table.state is None:
            async with table.lock:
                await self.refresh(table)
                if table.state is None:
                    await self._start(table)
        return table

    async def take_seat(self, player: Player, game_id: str, seat: int | None, client_seed: str | None = None) -> Table:
        table = await self.tables.get(game_id)
        if table.seat_of(player.player_id) is not None:
            raise Conflict("already_seated", "you already hold a seat at this table")
        if table.record.rematch_of is not None:
            seat = await self._kept_seat(table.record.rematch_of, player, seat)
        holder = SeatHolder(-1, player.player_id, None, player.name, player.kind)
        return await self._seat(table, seat, holder, client_seed=checked_client_seed(client_seed))

    async def send_client_seed(self, player: Player, game_id: str, client_seed: str) -> tuple[Table, str]:
        """A seated person or agent adds its entropy to the deal (before it):
        returns the table and the seed stored for the seat (the first one
        sent stays; sending it again changes nothing)."""
        value = checked_client_seed(client_seed)
        assert value is not None
        table = await self.tables.get(game_id)
        await self.refresh(table, fresh=True)
        seat = table.seat_of(player.player_id)
        if seat is None:
            raise Forbidden("not_seated", "only a player seated at this table sends a client seed for it")
        if table.record.salt is None:
            raise Conflict("no_client_seeds", "this table is dealt from the server's seed alone (a tournament table)")
        async with self.transactions.transaction() as tx:
            # The row locked as the deal locks it: a seed is taken before
            # the deal closes them, or refused (services/app/games/seating.py _deal_seeds).
            undealt = await self.lobby.lock_undealt(game_id, tx)
            if undealt.status != "open" or undealt.version > 0:
                raise Conflict("already_dealt", "the cards are dealt: client seeds are taken only before the deal")
            stored = await self.lobby.put_client_seed(game_id, seat, value, tx)
        if stored != value:
            raise Conflict("client_seed_sent", "this seat has sent its client seed already")
        return table, stored

    async def _kept_seat(self, finished_id: str, player: Player, asked: int | None) -> int:
        """A rematch's open seats are kept for the people of the game before."""
        kept = kept_seats(await self.tables.get(finished_id)).get(player.player_id)
        if kept is None:
            raise Forbidden("seat_kept", "this table plays a game again: its seats are kept for that game's players")
        if asked is not None and asked != kept:
            raise Forbidden("seat_kept", f"your seat at this table is seat {kept}, the one you played")
        return kept

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
        client_seed: str | None = None,
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
                    if client_seed is not None and table.record.salt is not None:
                        await self.lobby.put_client_seed(table.game_id, seat, client_seed, tx)
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
        """Deal: the engine's start events become versions 1..k (lock held),
        then the seeds they were dealt from (DealSeeded) when the seats add
        client seeds."""
        if table.record.salt is None:
            events = table.game.new_game(table.players, table.record.options, table.chance())
        else:
            client_seeds = await self._deal_seeds(table)
            seed, salt = table.record.seed, table.record.salt
            chance = Chance(deal_seed(seed, client_seeds), salt=salt)
            seeded = DealSeeded(commitment(seed, salt), client_seeds)
            events = [*table.game.new_game(table.players, table.record.options, chance), seeded]
        try:
            await self.kernel.append(table, Decision(events, K.START_PREFIX, Outcome(len(events), 1, None)))
        except VersionConflict:
            await self.refresh(table, fresh=True)  # another process started it
        await self.lobby.set_status(table.game_id, "playing")
        table.record.status = "playing"

    async def _deal_seeds(self, table: Table) -> list[str]:
        """Close the client seeds (the row's status leaves 'open' under its
        lock, so a seed sent from now on is refused, never silently left
        out) and read them, in seat order. The deal is a pure function of the
        stored seed, salt and client seeds, so two processes that both deal
        make the same events and the version check keeps one."""
        async with self.transactions.transaction() as tx:
            await self.lobby.lock_undealt(table.game_id, tx)
            await self.lobby.set_status(table.game_id, "playing", tx)
            sent = await self.lobby.client_seeds(table.game_id, tx)
        return [sent.get(seat, "") for seat in range(table.players)]


def checked_client_seed(client_seed: str | None) -> str | None:
    """The seed as sent, or 400 `bad_client_seed` (engines.core.valid_client_seed)."""
    if client_seed is not None and not valid_client_seed(client_seed):
        raise BadRequest("bad_client_seed", "a client seed is at most 64 characters of printable ASCII")
    return client_seed
