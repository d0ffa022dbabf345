"""Routes for bot agents: registration and management by their owner,
sparring, tournament entry, and a pull agent's own event stream."""

from __future__ import annotations

from contextlib import aclosing
from typing import Annotated, Any

import msgspec
from litestar import delete, get, post
from litestar.datastructures import State
from litestar.response import ServerSentEvent, ServerSentEventMessage

from engines.timecontrol import TimeControl
from services.app import commands
from services.app.agents.registry import AgentService
from services.app.agents.sparring import MAX_GAMES, MAX_SEED, Sparring
from services.app.agents.stream import AgentEvents
from services.app.players import Player
from services.app.upcast import with_current_names
from services.http.routes.reports import ROUTES as REPORT_ROUTES
from services.http.schemas import SeatCount
from services.http.sse import KEEPALIVE
from services.infra import metrics


class NewAgent(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    games: list[str]
    endpoint: str | None = None
    mode: str | None = None  # 'push' (with endpoint) or 'pull'


class NewSparring(msgspec.Struct, forbid_unknown_fields=True):
    game: str
    # 1..MAX_GAMES, checked by Sparring.start so that a count out of range is
    # 400 `bad_games` (the code docs/agents.md gives), not a generic bad_request.
    games: Annotated[int, msgspec.Meta(description=f"games in the series, 1 to {MAX_GAMES}")] = 10
    players: SeatCount | None = None  # table size; default the game's smallest
    bot: str = "heuristic"  # the house bot in the other seats
    options: dict[str, Any] = {}
    # Only programs sit at a sparring table, so 100 ms per move is allowed.
    time_control: TimeControl | None = None  # default the server's agent defaults
    # A series seed makes the series repeatable: the same seed, the same
    # deals. Sparring only, as unranked practice; never in ranked or casual
    # games or tournaments (README, "Provably fair deals").
    seed: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED)] | None = None
    duplicate: bool = False  # each deal again with the house bot in the agent's seat


class AgentToken(msgspec.Struct):
    agent_id: str
    token: str  # shown once


class AgentSecret(msgspec.Struct):
    agent_id: str
    secret: str  # shown once
    # Until then calls carry the old secret's signature too (X-Hanamichi-Signature-Previous).
    previous_valid_until_ms: int


def _agents(state: State) -> AgentService:
    return state.runtime.agents


@post("/api/v1/agents", status_code=201)
async def register_agent(state: State, data: NewAgent, caller: Player) -> dict:
    agent, token = await _agents(state).register(caller, data.name, data.games, data.endpoint, data.mode)
    created = {**agent.public(), "token": token}
    if agent.secret:
        created["secret"] = agent.secret  # shown once, like the token
    return created


@get("/api/v1/agents")
async def list_agents(state: State, caller: Player) -> list[dict]:
    return [a.public() for a in await _agents(state).of_owner(caller)]


@get("/api/v1/agents/me")
async def agent_me(state: State, caller: Player) -> dict:
    return (await _agents(state).require_active(caller)).public()


@get("/api/v1/agents/{agent_id:str}")
async def read_agent(state: State, agent_id: str, caller: Player) -> dict:
    return (await _agents(state).owned(caller, agent_id)).public()


@post("/api/v1/agents/{agent_id:str}/pause", status_code=200)
async def pause_agent(state: State, agent_id: str, caller: Player) -> dict:
    return (await _agents(state).set_status(caller, agent_id, "paused")).public()


@post("/api/v1/agents/{agent_id:str}/resume", status_code=200)
async def resume_agent(state: State, agent_id: str, caller: Player) -> dict:
    return (await _agents(state).set_status(caller, agent_id, "active")).public()


@delete("/api/v1/agents/{agent_id:str}", status_code=200)
async def delete_agent(state: State, agent_id: str, caller: Player) -> dict:
    await _agents(state).delete(caller, agent_id)
    return {"agent_id": agent_id, "status": "deleted"}


@post("/api/v1/agents/{agent_id:str}/token", status_code=200)
async def reissue_agent_token(state: State, agent_id: str, caller: Player) -> AgentToken:
    """A new bot token, shown once; the old one stops working."""
    return AgentToken(agent_id, await _agents(state).reissue_token(caller, agent_id))


@post("/api/v1/agents/{agent_id:str}/secret", status_code=200)
async def rotate_agent_secret(state: State, agent_id: str, caller: Player) -> AgentSecret:
    """A new signing secret, shown once; the old one still signs until `previous_valid_until_ms`."""
    secret, until = await _agents(state).rotate_secret(caller, agent_id)
    return AgentSecret(agent_id, secret, int(until.timestamp() * 1000))


def _sparring(state: State) -> Sparring:
    return Sparring(state.games, _agents(state))


@post("/api/v1/agents/{agent_id:str}/sparring", status_code=201)
async def start_sparring(state: State, agent_id: str, data: NewSparring, caller: Player) -> dict:
    agent = await _agents(state).owned(caller, agent_id)
    return await _sparring(state).start(
        agent,
        data.game,
        data.games,
        data.players,
        data.bot,
        data.options,
        msgspec.to_builtins(data.time_control) if data.time_control else None,
        seed=data.seed,
        duplicate=data.duplicate,
    )


@get("/api/v1/agents/{agent_id:str}/sparring/{sparring_id:str}")
async def sparring_report(state: State, agent_id: str, sparring_id: str, caller: Player) -> dict:
    agent = await _agents(state).owned(caller, agent_id)
    return await _sparring(state).report(agent, sparring_id)


@post("/api/v1/agents/{agent_id:str}/tournaments/{tournament_id:str}", status_code=200)
async def enter_tournament(state: State, agent_id: str, tournament_id: str, caller: Player) -> dict:
    """The owner enters the agent (the tournament's bot policy decides whether agents may play)."""
    loaded = await state.bus.handle(commands.EnterAgent(caller, agent_id, tournament_id))
    return await with_current_names(state.players.store, state.tournaments.summary(loaded))


@delete("/api/v1/agents/{agent_id:str}/tournaments/{tournament_id:str}", status_code=200)
async def leave_tournament(state: State, agent_id: str, tournament_id: str, caller: Player) -> dict:
    loaded = await state.bus.handle(commands.WithdrawAgent(caller, agent_id, tournament_id))
    return await with_current_names(state.players.store, state.tournaments.summary(loaded))


# --- a pull agent's own stream -------------------------------------------------------


@get("/api/v1/agents/me/stream")
async def agent_stream(state: State, caller: Player) -> ServerSentEvent:
    agent = await _agents(state).require_active(caller)
    events = AgentEvents(state.games, state.hub, _agents(state), agent).run()
    return ServerSentEvent(
        metrics.sse_stream("agent", _messages(events)), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )


async def _messages(events):
    """AgentEvents' (event, data) pairs as SSE messages; None is a keep-alive."""
    async with aclosing(events):
        async for item in events:
            yield (
                KEEPALIVE
                if item is None
                else ServerSentEventMessage(data=msgspec.json.encode(item[1]).decode(), event=item[0])
            )


ROUTES = [
    register_agent,
    list_agents,
    agent_me,
    read_agent,
    pause_agent,
    resume_agent,
    delete_agent,
    reissue_agent_token,
    rotate_agent_secret,
    start_sparring,
    sparring_report,
    enter_tournament,
    leave_tournament,
    agent_stream,
    *REPORT_ROUTES,
]
