"""The arq jobs of the calls to agents (services/app/agents/calls.py holds
what a call does): one `AgentCaller` per worker process, on its runtime."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from services.app.errors import ServiceError

if TYPE_CHECKING:
    from services.app.agents.calls import AgentCaller

log = logging.getLogger("hanamichi.agent_calls")


def _caller(ctx: dict) -> AgentCaller:
    # arq hands every job a fresh ctx dict: the caller (one HTTP connection
    # pool per worker process) lives on the runtime.
    return ctx["runtime"].caller()


async def call_agent(
    ctx: dict, game_id: str, version: int, seat: int, committed_ms: float, optional: bool = False
) -> str:
    try:
        if optional:
            return await _caller(ctx).offer(game_id, version, seat)
        return await _caller(ctx).call(game_id, version, seat, committed_ms)
    except ServiceError as err:
        log.warning("agent call %s@%s seat %s: %s", game_id, version, seat, err.message)
        return "error"


async def agent_deadline(ctx: dict, game_id: str, version: int, seat: int) -> bool:
    """A pull agent's move time (and bank) ran out, or a push call never
    finished: AgentCaller.deadline plays the default move and says why."""
    return await _caller(ctx).deadline(game_id, version, seat)
