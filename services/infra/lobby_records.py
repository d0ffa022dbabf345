"""What the lobby's adapters (PostgreSQL and memory) speak in: a table's row
in `games` with its `seats`, as the use cases read and write them. Defined in
infra (an adapter may not import the application layer) and named by the
port, services/app/ports/lobby.py."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec


class SeatTaken(Exception):
    """Another process holds that seat (the `seats` primary key)."""


class SeatRow(msgspec.Struct, frozen=True):
    seat: int
    player_id: str | None
    bot: str | None
    name: str | None = None  # the player's, joined at read (None for a bot)
    kind: str | None = None


class NewTable(msgspec.Struct, frozen=True):
    game_id: str
    game: str
    players: int
    options: dict[str, Any]
    ranked: bool
    seed: int
    created_by: str | None = None
    tournament_id: str | None = None
    time_control: dict | None = None
    bot_delay_ms: int | None = None
    embargoed: bool = False
    rematch_of: str | None = None  # the finished table this one plays again
    # The salt of the deal's commitment, drawn at creation so the commitment
    # is public before any seat adds its client seed (engines.core.deal_seed).
    # None: dealt from `seed` alone (tournament tables, tables from before).
    salt: str | None = None


class TableRow(msgspec.Struct, frozen=True):
    table: NewTable
    status: str  # 'open', 'playing', 'finished', 'cancelled'
    seats: list[SeatRow]
    created_at: datetime
    finished_at: datetime | None = None


class Undealt(msgspec.Struct, frozen=True):
    """A table's row as locked by a leave or a cancel: its status, its log's
    version and how many seats are taken."""

    status: str
    version: int
    taken: int


class PlayerGameRow(msgspec.Struct, frozen=True):
    game_id: str
    game: str
    status: str
    players: int
    ranked: bool
    tournament_id: str | None
    embargoed: bool
    created_at: datetime
    finished_at: datetime | None
    seat: int
    record: str | bytes | None  # the game's hm.game_finished event (JSON), once written


class PlayerTournamentRow(msgspec.Struct, frozen=True):
    tournament_id: str
    game: str
    status: str
    start_at: datetime
