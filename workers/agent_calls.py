"""The arq jobs of the calls to agents: each builds its command and hands it
to the runtime's bus (services/app/agents/handlers.py answers;
services/app/agents/calls.py holds what a call does)."""

from __future__ import annotations

import logging

from services.app.commands import CallAgent, ExpireAgentTurn
from services.app.errors import ServiceError

log = logging.getLogger("hanamichi.agent_calls")


async def call_agent(
    ctx: dict, game_id: str, version: int, seat: int, committed_ms: float, optional: bool = False
) -> str:
    try:
        return await ctx["runtime"].bus.handle(CallAgent(game_id, version, seat, committed_ms, optional))
    except ServiceError as err:
        log.warning("agent call %s@%s seat %s: %s", game_id, version, seat, err.message)
        return "error"


async def agent_deadline(ctx: dict, game_id: str, version: int, seat: int) -> bool:
    """A pull agent's move time (and bank) ran out, or a push call never
    finished: the default move is played and the turn log says why."""
    return await ctx["runtime"].bus.handle(ExpireAgentTurn(game_id, version, seat))
