"""The tournaments in memory (the `TournamentStore` port): what PostgreSQL's
`tournaments` rows hold, for use cases tested without a database.
tests/contract holds it to PgTournaments' behaviour.

The rows it reads from tables other features own (players, games) come
from the memory lobby it is booted with (its tables and accounts), as
PostgreSQL's come from the shared database; a test of this adapter alone
arranges them with `add_player` and `add_table`."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from services.infra.tournament_records import EntrantName, NewTournament, TournamentRow

if TYPE_CHECKING:
    from services.infra.memory_lobby import MemoryLobby

_order = itertools.count()


@dataclass
class _Tournament:
    game: str
    start_ms: int
    created_by: str | None
    status: str = "registering"
    order: int = field(default_factory=lambda: next(_order))


@dataclass
class _Table:
    tournament_id: str | None
    status: str


class MemoryTournaments:
    def __init__(self, lobby: MemoryLobby | None = None) -> None:
        self.tournaments: dict[str, _Tournament] = {}
        self.lobby = lobby
        # Other features' rows, as a test arranges them.
        self.players: dict[str, tuple[str, bool]] = {}  # player id -> (name, deleted)
        self.tables: dict[str, _Table] = {}  # game id -> its row's columns

    def _players(self) -> dict[str, tuple[str, bool]]:
        if self.lobby is None:
            return self.players
        kept = self.lobby.accounts.players
        return {p_id: (p.name, p.deleted_at is not None) for p_id, p in kept.items()} | self.players

    def _tables(self) -> dict[str, _Table]:
        if self.lobby is None:
            return self.tables
        rows = self.lobby.tables
        return {g_id: _Table(t.new.tournament_id, t.status) for g_id, t in rows.items()} | self.tables

    def add_player(self, player_id: str, name: str, deleted: bool = False) -> None:
        self.players[player_id] = (name, deleted)

    def add_table(self, game_id: str, tournament_id: str | None, status: str = "playing") -> None:
        self.tables[game_id] = _Table(tournament_id, status)

    def finish_table(self, game_id: str) -> None:
        self.tables[game_id].status = "finished"

    async def insert_tournament(self, new: NewTournament, tx: Any = None) -> None:
        if new.tournament_id in self.tournaments:
            raise KeyError(f"tournament {new.tournament_id} exists")  # the primary key
        self.tournaments[new.tournament_id] = _Tournament(new.game, new.start_ms, new.created_by)

    async def listing(self, status: str | None) -> list[TournamentRow]:
        rows = sorted(
            ((t_id, t) for t_id, t in self.tournaments.items() if status is None or t.status == status),
            key=lambda item: (-item[1].start_ms, -item[1].order),
        )
        return [TournamentRow(t_id, t.game, t.status, t.start_ms) for t_id, t in rows[:200]]

    async def set_status(self, tournament_id: str, status: str) -> None:
        if (tournament := self.tournaments.get(tournament_id)) is not None:
            tournament.status = status

    async def due_to_start(self) -> list[str]:
        now = time.time() * 1000
        return [t_id for t_id, t in self.tournaments.items() if t.status == "registering" and t.start_ms <= now]

    async def running(self) -> list[str]:
        return [t_id for t_id, t in self.tournaments.items() if t.status == "running"]

    async def entrant_names(self, player_ids: list[str]) -> list[EntrantName]:
        wanted = set(player_ids)
        return [EntrantName(p_id, name, gone) for p_id, (name, gone) in self._players().items() if p_id in wanted]

    async def finished_tables(self, tournament_id: str) -> list[str]:
        return [
            g_id for g_id, t in self._tables().items() if t.tournament_id == tournament_id and t.status == "finished"
        ]
