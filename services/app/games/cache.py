"""This process's live tables by game id (services/app/games/tables.py),
each loaded once from PostgreSQL: its lobby record, its log folded, its
command outcomes decoded."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

import asyncpg
import msgspec

from engines.registry import get_game
from services.app.errors import NotFound
from services.app.games.tables import LobbyRecord, SeatHolder, Table, decode_outcomes
from services.infra.eventstore import EventStore


class TableCache:
    """Live tables by game id, least recently used evicted past `capacity`."""

    def __init__(self, pool, store: EventStore, capacity: int = 20_000) -> None:
        self.pool = pool
        self.store = store
        self.capacity = capacity
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._loading: dict[str, asyncio.Future] = {}

    def forget(self, game_id: str) -> None:
        self._tables.pop(game_id, None)

    async def get(self, game_id: str) -> Table:
        table = self._tables.get(game_id)
        if table is not None:
            self._tables.move_to_end(game_id)
            return table
        pending = self._loading.get(game_id)
        if pending is None:
            pending = self._loading[game_id] = asyncio.ensure_future(self._load(game_id))
            try:
                table = await pending
            finally:
                del self._loading[game_id]
            self._tables[game_id] = table
            while len(self._tables) > self.capacity:
                old_id, old = next(iter(self._tables.items()))
                if old.runtime.lock.locked() or (old.runtime.driver and not old.runtime.driver.done()):
                    self._tables.move_to_end(old_id)
                    break
                self._tables.popitem(last=False)
            return table
        return await pending

    async def _load(self, game_id: str) -> Table:
        try:
            row = await self.pool.fetchrow("SELECT * FROM games WHERE game_id = $1::text::uuid", game_id)
        except asyncpg.DataError:  # not a uuid: no such game (an outage propagates: a 503, not a 404)
            row = None
        if row is None:
            raise NotFound("game_not_found", f"there is no game {game_id}")
        seat_rows = await self.pool.fetch(
            "SELECT s.seat, s.player_id, s.bot, p.name, p.kind FROM seats s"
            " LEFT JOIN players p ON p.player_id = s.player_id WHERE s.game_id = $1",
            row["game_id"],
        )
        game = get_game(row["game"])
        options_raw = msgspec.json.decode(row["options"]) if isinstance(row["options"], str) else row["options"]
        seats: list[SeatHolder | None] = [None] * row["players"]
        for r in seat_rows:
            seats[r["seat"]] = holder_from_row(r)
        table = Table(
            LobbyRecord(
                game_id=game_id,
                game=game,
                players=row["players"],
                options=game.make_options(options_raw),
                ranked=row["ranked"],
                seed=row["seed"],
                status=row["status"],
                time_control=msgspec.json.decode(row["time_control"]) if row["time_control"] else None,
                tournament_id=row["tournament_id"],
                bot_delay_ms=row["bot_delay_ms"],
                embargo=row["embargoed"],
                created_by=str(row["created_by"]) if row["created_by"] else None,
                seats=seats,
            )
        )
        table.apply_stored(await self.store.read(game_id))
        table.take_commands(decode_outcomes(await self.store.commands_of(game_id)))
        return table


def holder_from_row(r) -> SeatHolder:
    if r["bot"] is not None:
        return SeatHolder(r["seat"], None, r["bot"], f"{r['bot']} bot", "bot")
    return SeatHolder(r["seat"], str(r["player_id"]), None, r["name"], r["kind"])
