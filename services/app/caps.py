"""What one account may hold at once: tables it created that are not
finished, house bots seated at them (fewer of the costly `expert` bot), the
agents it owns, and its agents' sparring series running.

Each cap is counted from the current state at the moment of the decision
(the `CapCounts` port, services/app/ports/caps.py), never from a counter
that could drift: finishing a table, deleting an agent or a series' last
game ending frees the slot by itself. The count runs in the caller's
transaction (`tx`, the handle `Transactions` yields) under the player's cap
lock, and the caller inserts in that same transaction: two requests for the
last slot, on two API processes, are decided one after the other, and the
second counts the first's row.

A refusal is 429 with a stable code (too_many_open_tables, too_many_bot_seats,
too_many_agents, too_many_sparring) and a message saying what frees a slot."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from services.app.errors import ServiceError
from services.app.ports import CapCounts

EXPERT_BOT = "expert"
# A series whose games are not all written yet is being created; past this
# it is one whose creation failed half-way, and it holds no slot.
SPARRING_CREATION_S = 600


class TooMany(ServiceError):
    status = 429


@dataclass(frozen=True)
class CapPolicy:
    """The caps (HANAMICHI_MAX_*_PER_PLAYER, services/config.py)."""

    # Tables a player created that are open or in play.
    open_tables: int = 10
    # House bots at those tables: every seat of every table the cap allows
    # (the largest game seats 6), so a person can always fill their tables.
    bot_seats: int = 60
    # Of those, `expert` bots (their search is what costs): one full table.
    expert_seats: int = 6
    agents: int = 20
    # Sparring series of all of a player's agents running at once (each is
    # up to 50 games, 100 when duplicated, started together).
    sparring: int = 3
    # Where the counts come from; the composition root gives the policy read
    # from the settings its store (`counting`).
    counts: CapCounts | None = field(default=None, compare=False, repr=False)

    def counting(self, counts: CapCounts) -> CapPolicy:
        """This policy, counting in `counts`."""
        return replace(self, counts=counts)

    def _counts(self) -> CapCounts:
        if self.counts is None:
            raise RuntimeError("CapPolicy has no counts: build it with .counting(store)")
        return self.counts

    async def check_open_table(self, tx: Any, player_id: str) -> None:
        """Before creating a table for `player_id` (in its transaction)."""
        held = await self._counts().open_tables(player_id, tx)
        if held >= self.open_tables:
            raise TooMany(
                "too_many_open_tables",
                f"You already have {_count(held, 'open table')}; finish one before creating another"
                " (house bots can take its empty seats).",
            )

    async def check_bot_seat(self, tx: Any, host_id: str, bot: str) -> None:
        """Before seating house bot `bot` at a table of `host_id` (in the
        transaction of the seat's insert)."""
        bots, experts = await self._counts().bot_seats(host_id, EXPERT_BOT, tx)
        if bots >= self.bot_seats:
            raise TooMany(
                "too_many_bot_seats",
                f"Your unfinished tables already seat {_count(bots, 'house bot')}; finish a table first.",
            )
        if bot == EXPERT_BOT and experts >= self.expert_seats:
            raise TooMany(
                "too_many_bot_seats",
                f"Your unfinished tables already seat {_count(experts, 'expert bot')}, the most one"
                " person may have (they are costly to run); seat another bot, or finish a table first.",
            )

    async def check_agent(self, tx: Any, owner_id: str) -> None:
        """Before registering an agent of `owner_id` (in its transaction)."""
        held = await self._counts().agents(owner_id, tx)
        if held >= self.agents:
            raise TooMany(
                "too_many_agents",
                f"You already have {_count(held, 'agent')}; delete one before registering another.",
            )

    async def check_sparring(self, tx: Any, owner_id: str) -> None:
        """Before starting a sparring series of an agent of `owner_id` (in
        the transaction of the series' row). A series runs until every one
        of its games is finished."""
        held = await self._counts().sparring(owner_id, float(SPARRING_CREATION_S), tx)
        if held >= self.sparring:
            raise TooMany(
                "too_many_sparring",
                f"Your agents already have {_count(held, 'sparring series', 'sparring series')} running;"
                " wait for one to finish.",
            )


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"
