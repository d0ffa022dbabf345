"""Play now's port: the pool of people waiting for a game, by game and
player count, shared by every API process. Adapters:
services/infra/pg_quickplay.py (PostgreSQL) and services/infra/memory_quickplay.py;
tests/contract holds both to one suite. Who is paired with whom, and when
bots fill a table, is decided in services/app/games/quickplay.py."""

from __future__ import annotations

from typing import Any, Protocol

from services.infra.quickplay_records import NewTicket, SeatedTicket, TicketRow

__all__ = ["NewTicket", "QuickPlayPool", "SeatedTicket", "TicketRow"]


class QuickPlayPool(Protocol):
    async def lock(self, game: str, players: int, tx: Any) -> None:
        """One decision at a time for this pool, until `tx` ends."""

    async def join(self, new: NewTicket, tx: Any) -> TicketRow:
        """The player's waiting ticket for this pool: `new` inserted, or the
        one they hold already (another tab's), unchanged."""

    async def waiting(self, game: str, players: int, tx: Any = None) -> list[TicketRow]:
        """The pool's waiting tickets, the longest waiting first."""

    async def seat(self, game_id: str, seated: list[SeatedTicket], tx: Any) -> None:
        """The tickets are seated at `game_id`, each at its seat."""

    async def seated_at(self, game_id: str) -> list[TicketRow]:
        """The tickets seated at that table."""

    async def ticket(self, ticket_id: str) -> TicketRow | None:
        """None when there is no such ticket (an id that is not a uuid included)."""

    async def withdraw(self, ticket_id: str, tx: Any) -> None:
        """A waiting ticket leaves the pool (a seated one stays seated)."""

    async def withdraw_player(self, player_id: str, tx: Any = None) -> None:
        """Every waiting ticket of the player leaves its pool (their account goes)."""

    async def counts(self) -> dict[tuple[str, int], int]:
        """How many wait in each pool that has anyone waiting."""
