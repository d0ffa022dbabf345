"""Routes for bot agents: registration and management by their owner,
sparring, tournament entry, and a pull agent's own event stream."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

import msgspec
from litestar import delete, get, post
from litestar.datastructures import State
from litestar.params import Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from engines.timecontrol import TimeControl
from services.app.agents.entries import enter_tournament as enter
from services.app.agents.registry import Agent, AgentService
from services.http.schemas import SeatCount
from services.infra.keys import player_stream
from services.infra.fanout import END, Notice
from services.app.games.service import result_shown
from services.app.players import Player
from services.app.agents.sparring import MAX_GAMES, MAX_SEED, Sparring
from services.http.routes.reports import ROUTES as REPORT_ROUTES
from services.http.sse import KEEPALIVE
from services.app.games.turns import agent_turn
from services.infra import metrics

Auth = Annotated[str | None, Parameter(header="Authorization", required=False, include_in_schema=False)]  # documented as the bearer scheme (api_docs)

# A comment line this often keeps proxies and clients from timing the stream out.
STREAM_KEEPALIVE_S = 5.0


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
    # games or tournaments (README, "Provably fair deals"; issue 12).
    seed: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED)] | None = None
    duplicate: bool = False  # each deal again with the house bot in the agent's seat


def _agents(state: State) -> AgentService:
    return state.runtime.agents


async def _owner(state: State, authorization: str | None) -> Player:
    return await state.players.authenticate(authorization)


@post("/api/v1/agents", status_code=201)
async def register_agent(state: State, data: NewAgent, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    agent, token = await _agents(state).register(owner, data.name, data.games, data.endpoint, data.mode)
    created = {**agent.public(), "token": token}
    if agent.secret:
        created["secret"] = agent.secret  # shown once, like the token
    return created


@get("/api/v1/agents")
async def list_agents(state: State, authorization: Auth) -> list[dict]:
    owner = await _owner(state, authorization)
    return [a.public() for a in await _agents(state).of_owner(owner)]


@get("/api/v1/agents/me")
async def agent_me(state: State, authorization: Auth) -> dict:
    player = await _owner(state, authorization)
    return (await _agents(state).require_active(player)).public()


@get("/api/v1/agents/{agent_id:str}")
async def read_agent(state: State, agent_id: str, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    return (await _agents(state).owned(owner, agent_id)).public()


@post("/api/v1/agents/{agent_id:str}/pause", status_code=200)
async def pause_agent(state: State, agent_id: str, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    return (await _agents(state).set_status(owner, agent_id, "paused")).public()


@post("/api/v1/agents/{agent_id:str}/resume", status_code=200)
async def resume_agent(state: State, agent_id: str, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    return (await _agents(state).set_status(owner, agent_id, "active")).public()


@delete("/api/v1/agents/{agent_id:str}", status_code=200)
async def delete_agent(state: State, agent_id: str, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    await _agents(state).delete(owner, agent_id)
    return {"agent_id": agent_id, "status": "deleted"}


def _sparring(state: State) -> Sparring:
    return Sparring(state.pool, state.games, _agents(state))


@post("/api/v1/agents/{agent_id:str}/sparring", status_code=201)
async def start_sparring(state: State, agent_id: str, data: NewSparring, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    agent = await _agents(state).owned(owner, agent_id)
    return await _sparring(state).start(agent, data.game, data.games, data.players, data.bot, data.options,
                                           msgspec.to_builtins(data.time_control) if data.time_control else None,
                                           seed=data.seed, duplicate=data.duplicate)


@get("/api/v1/agents/{agent_id:str}/sparring/{sparring_id:str}")
async def sparring_report(state: State, agent_id: str, sparring_id: str, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    agent = await _agents(state).owned(owner, agent_id)
    return await _sparring(state).report(agent, sparring_id)


@post("/api/v1/agents/{agent_id:str}/tournaments/{tournament_id:str}", status_code=200)
async def enter_tournament(state: State, agent_id: str, tournament_id: str, authorization: Auth) -> dict:
    """The owner enters the agent (the tournament's bot policy decides whether agents may play)."""
    owner = await _owner(state, authorization)
    loaded = await enter(_agents(state), state.tournaments, state.runtime.publisher, owner, agent_id, tournament_id)
    return state.tournaments.summary(loaded)


@delete("/api/v1/agents/{agent_id:str}/tournaments/{tournament_id:str}", status_code=200)
async def leave_tournament(state: State, agent_id: str, tournament_id: str, authorization: Auth) -> dict:
    owner = await _owner(state, authorization)
    agent = await _agents(state).owned(owner, agent_id)
    loaded = await state.tournaments.withdraw(Player(agent.agent_id, agent.name, "agent"), tournament_id)
    return state.tournaments.summary(loaded)


# --- a pull agent's own stream -------------------------------------------------------

@get("/api/v1/agents/me/stream")
async def agent_stream(state: State, authorization: Auth) -> ServerSentEvent:
    player = await _owner(state, authorization)
    agent = await _agents(state).require_active(player)
    return ServerSentEvent(metrics.sse_stream("agent", AgentEvents(state, agent).run()), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


class AgentEvents:
    """The agent's games and invitations as events: `game_started`,
    `your_turn`, `seat_handed_to_bot`, `game_ended`, `invitation`. The stream
    is level-triggered: a (re)connection first announces every game in
    progress (and the turn, when it is the agent's), then what changes."""

    def __init__(self, state: State, agent: Agent) -> None:
        self.state = state
        self.agent = agent
        self.games = state.games
        self.hub = state.hub
        self.queue: asyncio.Queue[Notice] = asyncio.Queue()
        self.subs: dict[str, Any] = {}
        self.known: dict[str, dict] = {}  # game id -> {seat, started, turn, handed, ended}
        self.invited: set[str] = set()
        self.ended: set[str] = set()

    def follow(self, stream_id: str) -> None:
        if stream_id not in self.subs:
            sub = self.hub.subscribe(stream_id)
            sub.queue = self.queue  # one queue for the agent's stream and all its games
            self.subs[stream_id] = sub

    def drop(self, stream_id: str) -> None:
        sub = self.subs.pop(stream_id, None)
        if sub is not None:
            self.hub.unsubscribe(sub)

    async def run(self):
        mine = player_stream(self.agent.agent_id)
        self.follow(mine)
        try:
            yield self._message("hello", {"agent_id": self.agent.agent_id, "name": self.agent.name, "keepalive_s": STREAM_KEEPALIVE_S})
            rescan = True
            # The keep-alive is due every STREAM_KEEPALIVE_S of the clock, not
            # after that much silence: notices that bring nothing to send (the
            # hub's periodic checks) must not hold it back (issue 12).
            due = time.monotonic() + STREAM_KEEPALIVE_S
            while not self.hub.ending:
                if rescan:
                    rescan = False
                    for message in await self._scan():
                        yield message
                try:
                    notice = await asyncio.wait_for(self.queue.get(), max(0.0, due - time.monotonic()))
                except asyncio.TimeoutError:
                    yield KEEPALIVE
                    due = time.monotonic() + STREAM_KEEPALIVE_S
                    rescan = True  # a missed notice costs at most one keep-alive period
                    continue
                if notice is END:  # shutdown: the agent reconnects
                    return
                if notice.stream_id == mine:
                    rescan = True
                elif notice.stream_id in self.known:
                    for message in await self._check(notice.stream_id, notice.last):
                        yield message
        finally:
            for stream_id in list(self.subs):
                self.drop(stream_id)

    @staticmethod
    def _message(event: str, data: dict) -> ServerSentEventMessage:
        return ServerSentEventMessage(data=msgspec.json.encode(data).decode(), event=event)

    async def _scan(self) -> list[ServerSentEventMessage]:
        pool = self.state.pool
        rows = await pool.fetch(
            "SELECT g.game_id::text AS game_id, s.seat FROM seats s JOIN games g ON g.game_id = s.game_id"
            " WHERE s.player_id = $1::text::uuid AND g.status <> 'finished'",
            self.agent.agent_id,
        )
        out = []
        for row in rows:
            if row["game_id"] not in self.known and row["game_id"] not in self.ended:
                self.known[row["game_id"]] = {"seat": row["seat"], "started": False, "turn": None, "handed": False, "ended": False}
                self.follow(row["game_id"])
        for game_id in list(self.known):
            out.extend(await self._check(game_id, 0))
        invites = await pool.fetch(
            "SELECT t.tournament_id::text AS id, t.game, t.status, extract(epoch FROM t.start_at) * 1000 AS start_ms"
            " FROM agent_entries e JOIN tournaments t ON t.tournament_id = e.tournament_id"
            " WHERE e.agent_id = $1::text::uuid AND t.status IN ('registering', 'running')",
            self.agent.agent_id,
        )
        for r in invites:
            if r["id"] not in self.invited:
                self.invited.add(r["id"])
                out.append(self._message("invitation", {
                    "tournament_id": r["id"], "game": r["game"], "status": r["status"], "start_ms": int(r["start_ms"]),
                }))
        return out

    async def _check(self, game_id: str, seen_version: int) -> list[ServerSentEventMessage]:
        info = self.known[game_id]
        try:
            table = await self.games.load(game_id)
            if seen_version > table.version:
                await self.games.refresh(table)
        except Exception:
            return []
        seat, out = info["seat"], []
        if table.state is None:
            return out
        game = table.game
        if not info["started"]:
            info["started"] = True
            out.append(self._message("game_started", {
                "game_id": game_id, "game": game.name, "seat": seat, "players": table.players,
                "version": table.version, "tournament_id": table.tournament_id,
            }))
        holder = table.seats[seat]
        if holder is not None and holder.bot is not None and not info["handed"]:
            info["handed"] = True
            out.append(self._message("seat_handed_to_bot", {"game_id": game_id, "seat": seat, "bot": holder.bot}))
        if table.over:
            if not info["ended"]:
                info["ended"] = True
                result = result_shown(table)
                out.append(self._message("game_ended", {
                    "game_id": game_id, "seat": seat, "version": table.version,
                    "place": result["table_places"][seat], "score": result["scores"][seat], "result": result,
                    "forfeited": seat in result["forfeited"],
                }))
                self.known.pop(game_id, None)
                self.ended.add(game_id)
                self.drop(game_id)
        elif holder is None or holder.bot is not None:
            pass
        elif (turn := agent_turn(self.hub, table, seat))[1] and info.get("chance") != table.version:
            # May act, at its choice, with no deadline (a Stop in the window, KM-2).
            info["chance"] = table.version
            out.append(self._message("your_chance", {
                "game_id": game_id, "seat": seat, "version": table.version, "legal_actions": turn[1],
            }))
        elif turn[0] and info["turn"] != table.version:
            # Only once the seat can act (item 19: a placer when the window ends).
            info["turn"] = table.version
            # The same clock a push agent is sent (issue 12): the move's own
            # time and what is left of the seat's bank, from this turn's start.
            agents = self.state.runtime.agents
            move_ms, bank_ms = agents.settings.time_control(table.time_control)
            out.append(self._message("your_turn", {
                "game_id": game_id, "seat": seat, "version": table.version,
                "deadline_ms": move_ms, "time_bank_ms": await agents.bank_left(game_id, seat, bank_ms),
            }))
        return out


ROUTES = [
    register_agent, list_agents, agent_me, read_agent, pause_agent, resume_agent, delete_agent,
    start_sparring, sparring_report, enter_tournament, leave_tournament, agent_stream, *REPORT_ROUTES,
]
