"""What an agent's owner reads to diagnose it: the turn log (every
call, from agent_turns) and the list of its sparring series. The sparring
report itself is services/app/agents/sparring_report.py."""

from __future__ import annotations

import uuid

from services.app.agents.registry import Agent, AgentService
from services.app.errors import BadRequest
from services.app.seatclock import bank_left, timed_seat_rules

TURNS_LIMIT = 50  # default page
MAX_TURNS_LIMIT = 500


def delivery_id(game_id: str, version: int, seat: int) -> str:
    """The X-Hanamichi-Delivery header a push agent received for this turn."""
    return f"{game_id}:{version}:{seat}"


class AgentReports:
    def __init__(self, agents: AgentService) -> None:
        self.agents = agents

    async def turns(self, agent: Agent, game_id: str | None, limit: int, before: float | None) -> dict:
        """The agent's calls, newest first. `before` pages on: it is the
        `sent_ms` of the last turn of the previous page (`next_before`)."""
        if game_id is not None:
            try:
                uuid.UUID(game_id)
            except ValueError:
                raise BadRequest("bad_game_id", f"game_id must be a game's id (a UUID), not {game_id[:40]!r}") from None
        # A row's bank figure counts all the seat's turns in the game before
        # the page is cut, so a page's bank figures do not depend on the page.
        rows = await self.agents.store.turn_log(agent.agent_id, game_id, before, limit)
        turns = []
        for r in rows:
            bank_ms = timed_seat_rules(r.time_control, self.agents.clock).bank_ms
            turns.append(
                {
                    "delivery_id": delivery_id(r.game_id, r.version, r.seat),
                    "game_id": r.game_id,
                    "game": r.game,
                    "version": r.version,
                    "seat": r.seat,
                    "sent_ms": r.sent_ms,
                    "answered_ms": r.answered_ms,
                    "done_ms": r.done_ms,
                    "used_ms": r.used_ms,
                    "bank_used_ms": r.overdraft_ms,
                    "bank_left_ms": bank_left(bank_ms, r.bank_used_after),
                    "outcome": r.outcome,
                    "detail": r.detail,
                    "answer": r.answer,
                }
            )
        full = len(turns) == limit
        return {"agent_id": agent.agent_id, "turns": turns, "next_before": turns[-1]["sent_ms"] if full else None}

    async def sparring_series(self, agent: Agent) -> list[dict]:
        """The agent's sparring series, newest first, with how far each got."""
        return [
            {
                "sparring_id": r.sparring_id,
                "game": r.game,
                "created_ms": r.created_ms,
                "settings": r.settings,
                "status": "done" if r.finished == r.tables else "running",
                "report": f"/api/v1/agents/{agent.agent_id}/sparring/{r.sparring_id}",
            }
            for r in await self.agents.store.sparring_of(agent.agent_id)
        ]
