"""The names players have now: what services/app/upcast.py joins to the ids
a read names (old events carried the name at the time; a deleted player's
is its pseudonym). Kept by the accounts' adapters, which hold the players'
rows (services/infra/pg_accounts.py, services/infra/memory_accounts.py);
tests/contract/test_accounts.py holds both to it."""

from __future__ import annotations

from typing import Protocol

__all__ = ["PlayerNames"]


class PlayerNames(Protocol):
    async def current_names(self, player_ids: list[str]) -> dict[str, str]:
        """player id -> its name now, for those of `player_ids` that are players."""
