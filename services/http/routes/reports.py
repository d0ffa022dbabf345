"""An agent owner's reports: the turn log and the list of the
agent's sparring series. Only the owner reads them (404 for anyone else)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.datastructures import State
from litestar.params import Parameter

from services.app.agents.reports import MAX_TURNS_LIMIT, TURNS_LIMIT, AgentReports
from services.app.players import Player
from services.http.schemas import MAX_EPOCH_MS


@get("/api/v1/agents/{agent_id:str}/turns")
async def agent_turns(
    state: State,
    agent_id: str,
    caller: Player,
    game_id: Annotated[str | None, Parameter(max_length=100)] = None,
    limit: Annotated[int, Parameter(ge=1, le=MAX_TURNS_LIMIT)] = TURNS_LIMIT,
    before: Annotated[float | None, Parameter(ge=0, le=MAX_EPOCH_MS)] = None,
) -> dict:
    """Every call of the agent, newest first: delivery id, game and version,
    times sent and answered, bank left, outcome, detail and the answer's
    first 200 bytes. Page on with `before=<next_before>`."""
    agent = await state.runtime.agents.owned(caller, agent_id)
    return await AgentReports(state.runtime.agents).turns(agent, game_id, limit, before)


@get("/api/v1/agents/{agent_id:str}/sparring")
async def list_sparring(state: State, agent_id: str, caller: Player) -> list[dict]:
    agent = await state.runtime.agents.owned(caller, agent_id)
    return await AgentReports(state.runtime.agents).sparring_series(agent)


ROUTES = [agent_turns, list_sparring]
