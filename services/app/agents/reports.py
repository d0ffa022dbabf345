"""What an agent's owner reads to diagnose it: the turn log (every
call, from agent_turns) and the list of its sparring series. The sparring
report itself is services/app/agents/sparring_report.py."""

from __future__ import annotations

import uuid

import msgspec

from services.app.agents.registry import Agent, AgentService
from services.app.errors import BadRequest
from services.app.seatclock import bank_left, timed_seat_rules

TURNS_LIMIT = 50  # default page
MAX_TURNS_LIMIT = 500


def delivery_id(game_id: str, version: int, seat: int) -> str:
    """The X-Hanamichi-Delivery header a push agent received for this turn."""
    return f"{game_id}:{version}:{seat}"


class AgentReports:
    def __init__(self, pool, agents: AgentService) -> None:
        self.pool = pool
        self.agents = agents

    async def turns(self, agent: Agent, game_id: str | None, limit: int, before: float | None) -> dict:
        """The agent's calls, newest first. `before` pages on: it is the
        `sent_ms` of the last turn of the previous page (`next_before`)."""
        if game_id is not None:
            try:
                uuid.UUID(game_id)
            except ValueError:
                raise BadRequest("bad_game_id", f"game_id must be a game's id (a UUID), not {game_id[:40]!r}") from None
        rows = await self._rows(agent, game_id, limit, before)
        turns = []
        for r in rows:
            time_control = msgspec.json.decode(r["time_control"]) if r["time_control"] else None
            bank_ms = timed_seat_rules(time_control, self.agents.clock).bank_ms
            turns.append(
                {
                    "delivery_id": delivery_id(r["game_id"], r["version"], r["seat"]),
                    "game_id": r["game_id"],
                    "game": r["game"],
                    "version": r["version"],
                    "seat": r["seat"],
                    "sent_ms": r["sent_ms"],
                    "answered_ms": r["answered_ms"],
                    "done_ms": r["done_ms"],
                    "used_ms": r["used_ms"],
                    "bank_used_ms": r["overdraft_ms"],
                    "bank_left_ms": bank_left(bank_ms, int(r["bank_used_after"])),
                    "outcome": r["outcome"],
                    "detail": r["detail"],
                    "answer": r["answer"],
                }
            )
        full = len(turns) == limit
        return {"agent_id": agent.agent_id, "turns": turns, "next_before": turns[-1]["sent_ms"] if full else None}

    async def _rows(self, agent: Agent, game_id: str | None, limit: int, before: float | None):
        # The window runs over all the seat's turns in the game before the
        # page is cut, so a page's bank figures do not depend on the page.
        return await self.pool.fetch(
            "WITH t AS (SELECT *, sum(overdraft_ms) OVER (PARTITION BY game_id, seat ORDER BY version) AS"
            " bank_used_after"
            "  FROM agent_turns WHERE agent_id = $1::text::uuid AND ($2::text IS NULL OR game_id = $2::text::uuid))"
            " SELECT t.game_id::text AS game_id, t.version, t.seat, t.sent_ms, t.answered_ms, t.done_ms, t.used_ms,"
            " t.overdraft_ms, t.outcome, t.detail, t.answer, t.bank_used_after, g.game, g.time_control::text AS"
            " time_control"
            " FROM t JOIN games g ON g.game_id = t.game_id"
            " WHERE ($3::float8 IS NULL OR t.sent_ms < $3::float8)"
            " ORDER BY t.sent_ms DESC, t.game_id, t.version DESC LIMIT $4",
            agent.agent_id,
            game_id,
            before,
            limit,
        )

    async def sparring_series(self, agent: Agent) -> list[dict]:
        """The agent's sparring series, newest first, with how far each got."""
        rows = await self.pool.fetch(
            "SELECT s.sparring_id::text AS sparring_id, s.game, s.settings::text AS settings,"
            " extract(epoch FROM s.created_at) * 1000 AS created_ms,"
            " cardinality(s.game_ids) + coalesce(cardinality(s.bot_game_ids), 0) AS tables,"
            " (SELECT count(*) FROM games g WHERE g.status = 'finished'"
            "   AND (g.game_id = ANY(s.game_ids) OR g.game_id = ANY(coalesce(s.bot_game_ids, '{}')))) AS finished"
            " FROM sparring s WHERE s.agent_id = $1::text::uuid ORDER BY s.created_at DESC",
            agent.agent_id,
        )
        return [
            {
                "sparring_id": r["sparring_id"],
                "game": r["game"],
                "created_ms": int(r["created_ms"]),
                "settings": msgspec.json.decode(r["settings"]),
                "status": "done" if r["finished"] == r["tables"] else "running",
                "report": f"/api/v1/agents/{agent.agent_id}/sparring/{r['sparring_id']}",
            }
            for r in rows
        ]
