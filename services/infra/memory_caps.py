"""What one account holds now, counted in memory (the `CapCounts` port):
the rows PostgreSQL's counts read (tables, their house bots, agents,
sparring series), as a test arranges them with `add_table`, `add_bot`,
`add_agent` and `add_sparring`. The lock is the memory transaction's
(services/infra/memory_tx.py): one decision at a time."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any


@dataclass
class _Sparring:
    agent_id: str
    game_ids: list[str]
    created: float  # time.monotonic()


class MemoryCapCounts:
    def __init__(self) -> None:
        self.tables: dict[str, tuple[str | None, str]] = {}  # game id -> (created by, status)
        self.bots: dict[tuple[str, int], str] = {}  # (game id, seat) -> house bot
        self.agent_rows: dict[str, tuple[str, str]] = {}  # agent id -> (owner id, status)
        self.series: list[_Sparring] = []

    def add_table(self, game_id: str, created_by: str | None, status: str = "open") -> None:
        self.tables[game_id] = (created_by, status)

    def add_bot(self, game_id: str, seat: int, bot: str) -> None:
        self.bots[(game_id, seat)] = bot

    def add_agent(self, agent_id: str, owner_id: str, status: str = "active") -> None:
        self.agent_rows[agent_id] = (owner_id, status)

    def add_sparring(self, agent_id: str, game_ids: list[str], age_s: float = 0.0) -> None:
        self.series.append(_Sparring(agent_id, list(game_ids), time.monotonic() - age_s))

    def _unfinished(self, player_id: str) -> set[str]:
        return {g for g, (by, status) in self.tables.items() if by == player_id and status in ("open", "playing")}

    async def open_tables(self, player_id: str, tx: Any) -> int:
        return len(self._unfinished(player_id))

    async def bot_seats(self, host_id: str, bot: str, tx: Any) -> tuple[int, int]:
        mine = self._unfinished(host_id)
        held = [b for (game_id, _), b in self.bots.items() if game_id in mine]
        return len(held), sum(b == bot for b in held)

    async def agents(self, owner_id: str, tx: Any) -> int:
        return sum(owner == owner_id and status != "deleted" for owner, status in self.agent_rows.values())

    async def sparring(self, owner_id: str, creation_s: float, tx: Any) -> int:
        def running(series: _Sparring) -> bool:
            for game_id in series.game_ids:
                table = self.tables.get(game_id)
                if table is None and time.monotonic() - series.created < creation_s:
                    return True  # being created: its games are not all written yet
                if table is not None and table[1] in ("open", "playing"):
                    return True
            return False

        return sum(self.agent_rows.get(s.agent_id, ("", ""))[0] == owner_id and running(s) for s in self.series)
