"""The lobby's port: every table's row (who sits where, how it is played,
how far it got) beside its event stream. Adapters: services/infra/pg_lobby.py
(PostgreSQL) and services/infra/memory_lobby.py; tests/contract holds both to
one suite."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from services.infra.lobby_records import (
    NewTable,
    PlayerGameRow,
    PlayerTournamentRow,
    SeatRow,
    SeatTaken,
    TableRow,
    Undealt,
)

__all__ = [
    "Lobby",
    "NewTable",
    "PlayerGameRow",
    "PlayerTournamentRow",
    "SeatRow",
    "SeatTaken",
    "TableRow",
    "Undealt",
]


class Lobby(Protocol):
    async def insert_table(self, new: NewTable, tx: Any = None) -> bool:
        """False when that table exists already (and nothing changes)."""

    async def insert_seats(self, game_id: str, seats: list[SeatRow], tx: Any = None) -> None:
        """Raises SeatTaken when one of them is held already."""

    async def lock_status(self, game_id: str, tx: Any) -> str | None:
        """The table's status, locked until `tx` ends (None: no table)."""

    async def lock_undealt(self, game_id: str, tx: Any) -> Undealt: ...

    async def set_status(self, game_id: str, status: str, tx: Any = None) -> None: ...

    async def mark_finished(self, game_id: str) -> None: ...

    async def lift_embargo(self, tournament_id: str) -> None:
        """The tournament's tables are disclosed (a duplicate round has ended)."""

    async def free_seat(self, game_id: str, seat: int, player_id: str, tx: Any = None) -> None: ...

    async def give_seat_to_bot(self, game_id: str, seat: int, bot: str) -> None: ...

    async def put_client_seed(self, game_id: str, seat: int, client_seed: str, tx: Any = None) -> str:
        """Record a seat's client seed; returns the one stored (the first sent stays)."""

    async def client_seeds(self, game_id: str, tx: Any = None) -> dict[int, str]:
        """Seat -> client seed, for the deal (engines.core.deal_seed)."""

    async def table(self, game_id: str) -> TableRow | None: ...

    async def rematch_for(self, game_id: str) -> str | None:
        """The id of the table that plays `game_id` again ("Play again"), if any."""

    async def seats(self, game_id: str) -> tuple[str | None, list[SeatRow]]:
        """The table's status (None: no table) and its taken seats."""

    async def seat_of(self, game_id: str, player_id: str) -> int | None: ...

    async def embargoed(self, game_id: str) -> bool: ...

    async def seats_in_play(self, player_ids: list[str]) -> list[tuple[str, int]]: ...

    async def playing(self) -> list[tuple[str, float | None]]:
        """Tables in play, each with the seconds since its log was last written."""

    async def playing_with_deadlines(self) -> list[str]: ...

    async def stale_untimed(self, stale_s: float) -> list[str]: ...

    async def page(
        self, status: str | None, game: str | None, before: tuple[datetime, str] | None, limit: int
    ) -> list[TableRow]: ...

    async def playing_ids(self, game: str | None, limit: int) -> list[str]: ...

    async def player_identity(self, player_id: str) -> tuple[str, str] | None: ...

    async def player_games(self, player_id: str, before: datetime | None, limit: int) -> list[PlayerGameRow]: ...

    async def ranked_finishes(self, player_id: str, limit: int) -> list[tuple[datetime, bool]]:
        """The player's finished ranked games, newest first, at most `limit`:
        (when it finished, whether the player's seat was handed to a house bot)."""
        ...

    async def player_tournaments(self, player_id: str, limit: int = 50) -> list[PlayerTournamentRow]: ...
