"""The lobby in memory (the `Lobby` port): what PostgreSQL's `games` and
`seats` rows hold, for use cases tested without a database. tests/contract
holds it to PgLobby's behaviour.

What PostgreSQL joins from other features' tables is read from the memory
stores that keep them: players' names and kinds from a MemoryAccounts, a
log's versions, times and finished record from a MemoryEventStore. The
tournaments a player's page lists are arranged by a test with
`add_tournament`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

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
from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_eventstore import MemoryEventStore


@dataclass
class _Table:
    new: NewTable
    status: str = "open"
    seats: dict[int, SeatRow] = field(default_factory=dict)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    finished_at: datetime | None = None
    embargoed: bool = False
    client_seeds: dict[int, str] = field(default_factory=dict)


class MemoryLobby:
    def __init__(self, events: MemoryEventStore, accounts: MemoryAccounts | None = None) -> None:
        self.events = events
        self.accounts = accounts or MemoryAccounts()
        self.tables: dict[str, _Table] = {}
        self.tournaments: dict[str, PlayerTournamentRow] = {}

    def add_tournament(self, row: PlayerTournamentRow) -> None:
        self.tournaments[row.tournament_id] = row

    # --- writing -------------------------------------------------------------

    async def insert_table(self, new: NewTable, tx: Any = None) -> bool:
        if new.game_id in self.tables:
            return False
        if new.rematch_of is not None and await self.rematch_for(new.rematch_of) is not None:
            return False
        self.tables[new.game_id] = _Table(new, embargoed=new.embargoed)
        return True

    async def insert_seats(self, game_id: str, seats: list[SeatRow], tx: Any = None) -> None:
        held = self.tables[game_id].seats
        if any(s.seat in held for s in seats) or len({s.seat for s in seats}) < len(seats):
            raise SeatTaken(game_id)
        for s in seats:
            held[s.seat] = SeatRow(s.seat, s.player_id, s.bot)

    async def lock_status(self, game_id: str, tx: Any) -> str | None:
        table = self.tables.get(game_id)
        return None if table is None else table.status

    async def lock_undealt(self, game_id: str, tx: Any) -> Undealt:
        table = self.tables[game_id]
        return Undealt(table.status, await self.events.version(game_id) or 0, len(table.seats))

    async def set_status(self, game_id: str, status: str, tx: Any = None) -> None:
        if (table := self.tables.get(game_id)) is not None:
            table.status = status

    async def mark_finished(self, game_id: str) -> None:
        if (table := self.tables.get(game_id)) is not None:
            table.status, table.finished_at = "finished", datetime.now(UTC)

    async def lift_embargo(self, tournament_id: str) -> None:
        for table in self.tables.values():
            if table.new.tournament_id == tournament_id:
                table.embargoed = False

    async def free_seat(self, game_id: str, seat: int, player_id: str, tx: Any = None) -> None:
        seats = self.tables[game_id].seats
        if (row := seats.get(seat)) is not None and row.player_id == player_id:
            del seats[seat]
            self.tables[game_id].client_seeds.pop(seat, None)

    async def put_client_seed(self, game_id: str, seat: int, client_seed: str, tx: Any = None) -> str:
        return self.tables[game_id].client_seeds.setdefault(seat, client_seed)

    async def client_seeds(self, game_id: str, tx: Any = None) -> dict[int, str]:
        return dict(self.tables[game_id].client_seeds)

    async def give_seat_to_bot(self, game_id: str, seat: int, bot: str) -> None:
        seats = self.tables[game_id].seats
        if seat in seats:
            seats[seat] = SeatRow(seat, None, bot)

    # --- one table -----------------------------------------------------------

    def _named(self, row: SeatRow) -> SeatRow:
        player = self.accounts.players.get(row.player_id) if row.player_id is not None else None
        return SeatRow(row.seat, row.player_id, row.bot, *((player.name, player.kind) if player else (None, None)))

    def _row(self, table: _Table) -> TableRow:
        seats = [self._named(table.seats[s]) for s in sorted(table.seats)]
        new = msgspec.structs.replace(table.new, embargoed=table.embargoed)
        return TableRow(new, table.status, seats, table.created_at, table.finished_at)

    async def table(self, game_id: str) -> TableRow | None:
        table = self.tables.get(game_id)
        return None if table is None else self._row(table)

    async def rematch_for(self, game_id: str) -> str | None:
        return next((t.new.game_id for t in self.tables.values() if t.new.rematch_of == game_id), None)

    async def seats(self, game_id: str) -> tuple[str | None, list[SeatRow]]:
        table = self.tables.get(game_id)
        return (None, []) if table is None else (table.status, self._row(table).seats)

    async def seat_of(self, game_id: str, player_id: str) -> int | None:
        table = self.tables.get(game_id)
        held = [s.seat for s in table.seats.values() if s.player_id == player_id] if table else []
        return held[0] if held else None

    async def embargoed(self, game_id: str) -> bool:
        table = self.tables.get(game_id)
        return table is not None and table.embargoed

    # --- sweeps --------------------------------------------------------------

    async def seats_in_play(self, player_ids: list[str]) -> list[tuple[str, int]]:
        return [
            (game_id, s.seat)
            for game_id, t in self.tables.items()
            if t.status in ("open", "playing")
            for s in t.seats.values()
            if s.player_id in player_ids
        ]

    async def _idle_s(self, game_id: str) -> float | None:
        written = await self.events.recorded_ms(game_id, await self.events.version(game_id) or 0)
        return None if written is None else time.time() - written / 1000

    async def playing(self) -> list[tuple[str, float | None]]:
        return [(game_id, await self._idle_s(game_id)) for game_id, t in self.tables.items() if t.status == "playing"]

    async def playing_with_deadlines(self) -> list[str]:
        def agent_seated(t: _Table) -> bool:
            return any(self._named(s).kind == "agent" for s in t.seats.values())

        return [
            game_id
            for game_id, t in self.tables.items()
            if t.status == "playing" and (t.new.time_control is not None or agent_seated(t))
        ]

    async def stale_untimed(self, stale_s: float) -> list[str]:
        stale = []
        for game_id, t in self.tables.items():
            if t.status != "playing" or t.new.time_control is not None:
                continue
            if not any(s.player_id is not None for s in t.seats.values()):
                continue
            idle = await self._idle_s(game_id)
            if idle is not None and idle > stale_s:
                stale.append(game_id)
        return stale

    # --- read models ---------------------------------------------------------

    async def page(
        self, status: str | None, game: str | None, before: tuple[datetime, str] | None, limit: int
    ) -> list[TableRow]:
        def key(t: _Table) -> tuple[datetime, str]:
            moment = (t.finished_at or t.created_at) if status == "finished" else t.created_at
            return moment, t.new.game_id

        chosen = [
            t
            for t in self.tables.values()
            if (status is None or t.status == status)
            and (game is None or t.new.game == game)
            and (before is None or key(t) < before)
        ]
        return [self._row(t) for t in sorted(chosen, key=key, reverse=True)[:limit]]

    async def playing_ids(self, game: str | None, limit: int) -> list[str]:
        chosen = [t for t in self.tables.values() if t.status == "playing" and (game is None or t.new.game == game)]
        return [t.new.game_id for t in sorted(chosen, key=lambda t: t.created_at, reverse=True)[:limit]]

    async def player_identity(self, player_id: str) -> tuple[str, str] | None:
        player = self.accounts.players.get(player_id)
        return None if player is None else (player.name, player.kind)

    async def _record(self, game_id: str) -> bytes | None:
        finished = [e.data for e in await self.events.read(game_id) if e.type == "hm.game_finished"]
        return finished[0] if finished else None

    async def ranked_finishes(self, player_id: str, limit: int) -> list[tuple[datetime, bool]]:
        held = [
            (t, s.seat)
            for t in self.tables.values()
            for s in t.seats.values()
            if s.player_id == player_id and t.new.ranked and t.status == "finished" and t.finished_at is not None
        ]
        held.sort(key=lambda pair: pair[0].finished_at or pair[0].created_at, reverse=True)
        out = []
        for t, seat in held[:limit]:
            record = await self._record(t.new.game_id)
            if record is not None and t.finished_at is not None:
                out.append((t.finished_at, seat in (msgspec.json.decode(record).get("forfeited") or [])))
        return out

    async def player_games(self, player_id: str, before: datetime | None, limit: int) -> list[PlayerGameRow]:
        held = [
            (t, s.seat)
            for t in self.tables.values()
            for s in t.seats.values()
            if s.player_id == player_id and (before is None or t.created_at < before)
        ]
        held.sort(key=lambda pair: pair[0].created_at, reverse=True)
        rows = []
        for t, seat in held[:limit]:
            new = t.new
            record = await self._record(new.game_id)
            rows.append(
                PlayerGameRow(
                    new.game_id,
                    new.game,
                    t.status,
                    new.players,
                    new.ranked,
                    new.tournament_id,
                    t.embargoed,
                    t.created_at,
                    t.finished_at,
                    seat,
                    record,
                )
            )
        return rows

    async def player_tournaments(self, player_id: str, limit: int = 50) -> list[PlayerTournamentRow]:
        entered = {
            t.new.tournament_id
            for t in self.tables.values()
            if t.new.tournament_id is not None and any(s.player_id == player_id for s in t.seats.values())
        }
        chosen = [row for tid, row in self.tournaments.items() if tid in entered]
        return sorted(chosen, key=lambda row: row.start_at, reverse=True)[:limit]
