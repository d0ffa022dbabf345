"""The caps' port: how much of each kind an account holds now, counted in
the caller's transaction (services/app/caps.py decides what is too many).
Adapters: services/infra/pg_caps.py (PostgreSQL) and
services/infra/memory_caps.py; tests/contract holds both to one suite."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["CapCounts"]


class CapCounts(Protocol):
    """Each count first takes the player's cap lock until `tx` ends, so two
    requests for a player's last slot are decided one after the other and
    the second counts the row the first inserted."""

    async def open_tables(self, player_id: str, tx: Any) -> int:
        """Tables the player created that are open or in play."""

    async def bot_seats(self, host_id: str, bot: str, tx: Any) -> tuple[int, int]:
        """House bots seated at those tables, and how many of them are `bot`."""

    async def agents(self, owner_id: str, tx: Any) -> int:
        """The owner's agents not deleted."""

    async def sparring(self, owner_id: str, creation_s: float, tx: Any) -> int:
        """Sparring series of the owner's agents with a game open or in play,
        or whose games were not all written yet within `creation_s` of its start."""
