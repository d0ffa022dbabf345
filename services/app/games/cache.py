"""This process's live tables by game id (services/app/games/tables.py),
each loaded once from the lobby and the log: its lobby record, its log folded, its
command outcomes decoded.

Bounded twice: a finished table leaves memory `finished_linger_s` after it
is seen to end (a late read loads it again from the log, which it no longer
changes), and past `capacity` tables the least recently used one goes. A
long-running process plays an ever growing number of games; what it holds
must not grow with them."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable

from engines.registry import get_game
from services.app.errors import NotFound
from services.app.games.tables import LobbyRecord, Table, decode_outcomes
from services.app.ports import EventLog, Lobby, SeatRow
from services.app.seats import SeatHolder


class TableCache:
    """Live tables by game id: finished ones dropped soon after they end,
    the least recently used evicted past `capacity`."""

    def __init__(
        self,
        lobby: Lobby,
        store: EventLog,
        capacity: int = 5_000,
        finished_linger_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.capacity = capacity
        self.finished_linger_s = finished_linger_s
        self.clock = clock
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._loading: dict[str, asyncio.Future] = {}
        self._finished: OrderedDict[str, float] = OrderedDict()  # game id -> when it may leave memory

    def __len__(self) -> int:
        return len(self._tables)

    def cached(self) -> list[Table]:
        """The copies this process holds now."""
        return list(self._tables.values())

    def forget(self, game_id: str) -> None:
        self._tables.pop(game_id, None)
        self._finished.pop(game_id, None)

    def on_commit(self, table: Table, events) -> None:
        """A commit of this process: a table it ended leaves memory soon."""
        if table.over:
            self._ended(table.game_id)

    def _ended(self, game_id: str) -> None:
        if game_id not in self._finished:
            self._finished[game_id] = self.clock() + self.finished_linger_s

    def _drop_finished(self) -> None:
        now = self.clock()
        while self._finished:
            game_id, due = next(iter(self._finished.items()))
            if due > now:
                return
            del self._finished[game_id]
            table = self._tables.get(game_id)
            if table is not None and _busy(table):
                self._finished[game_id] = now + self.finished_linger_s  # a command or its driver still runs
            elif table is not None:
                del self._tables[game_id]

    async def get(self, game_id: str) -> Table:
        if self._finished:
            self._drop_finished()
        table = self._tables.get(game_id)
        if table is not None:
            self._tables.move_to_end(game_id)
            if table.over:  # ended in another process: its copy here caught up
                self._ended(game_id)
            return table
        pending = self._loading.get(game_id)
        if pending is None:
            pending = self._loading[game_id] = asyncio.ensure_future(self._load(game_id))
            try:
                table = await pending
            finally:
                del self._loading[game_id]
            self._tables[game_id] = table
            if table.over:
                self._ended(game_id)
            while len(self._tables) > self.capacity:
                old_id, old = next(iter(self._tables.items()))
                if _busy(old):
                    self._tables.move_to_end(old_id)
                    break
                self._tables.popitem(last=False)
                self._finished.pop(old_id, None)
            return table
        return await pending

    async def _load(self, game_id: str) -> Table:
        row = await self.lobby.table(game_id)  # an outage propagates: a 503, not a 404
        if row is None:
            raise NotFound("game_not_found", f"there is no game {game_id}")
        new = row.table
        game = get_game(new.game)
        seats: list[SeatHolder | None] = [None] * new.players
        for seat in row.seats:
            seats[seat.seat] = holder_from_row(seat)
        table = Table(
            LobbyRecord(
                game_id=game_id,
                game=game,
                players=new.players,
                options=game.make_options(new.options),
                ranked=new.ranked,
                seed=new.seed,
                status=row.status,
                time_control=new.time_control,
                tournament_id=new.tournament_id,
                bot_delay_ms=new.bot_delay_ms,
                embargo=new.embargoed,
                rematch_of=new.rematch_of,
                salt=new.salt,
                created_by=new.created_by,
                seats=seats,
            )
        )
        table.apply_stored(await self.store.read(game_id))
        table.take_commands(decode_outcomes(await self.store.commands_of(game_id)))
        return table


def _busy(table: Table) -> bool:
    runtime = table.runtime
    return runtime.lock.locked() or bool(runtime.driver and not runtime.driver.done())


def holder_from_row(row: SeatRow) -> SeatHolder:
    if row.bot is not None:
        return SeatHolder(row.seat, None, row.bot, f"{row.bot} bot", "bot")
    # A seat's player row always has a name and a kind (the join finds it).
    return SeatHolder(row.seat, row.player_id, None, row.name or "", row.kind or "human")
