"""HTTP handlers: each translates a request into one service call.

The routes are the public contract (clients, bots, black-box checks);
errors are always `{code, message}` (services.app.errors, mapped in app.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, delete, get, post
from litestar.datastructures import State
from litestar.openapi import ResponseSpec
from litestar.params import Parameter
from litestar.response import ServerSentEvent

from engines.core import commitment
from engines.timecontrol import TimeControl
from services.app import commands
from services.app.errors import ServiceError, Unprocessable
from services.app.games import queries
from services.app.games.catalog import catalog as game_catalog
from services.app.games.clocks import seat_clocks
from services.app.games.exports import exported
from services.app.games.info import GameInfo, game_info
from services.app.games.service import ActionAccepted, GameService
from services.app.players import Player
from services.http.game_stream import game_sse
from services.http.input import parse_version
from services.http.lobby_stream import lobby_changed
from services.http.schemas import (
    MAX_SEATS,
    MAX_VERSION,
    ClientSeed,
    SeatCount,
    SeatNumber,
    Version,
    for_people,
)
from services.infra import metrics

# --- request and response bodies ----------------------------------------------


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    # With a password the person can sign in from a browser later.
    password: str | None = None


class PlayerCreated(msgspec.Struct):
    player_id: str
    name: str
    token: str


class NewGame(msgspec.Struct, forbid_unknown_fields=True):
    game: str
    players: SeatCount
    options: dict[str, Any] = {}
    ranked: bool = False
    time_control: TimeControl | None = None
    # How long house bots wait before each move, so people can follow them;
    # omitted: HANAMICHI_TABLE_BOT_DELAY_MS (700).
    bot_delay_ms: Annotated[int, msgspec.Meta(ge=0, le=10_000)] | None = None


class TakeSeat(msgspec.Struct, forbid_unknown_fields=True):
    seat: SeatNumber | None = None
    # The seat's entropy for the deal, sent with the seat so that the seat
    # that fills the table is in the deal too (POST .../client-seed).
    client_seed: ClientSeed | None = None


class SendClientSeed(msgspec.Struct, forbid_unknown_fields=True):
    client_seed: ClientSeed


class ClientSeedTaken(msgspec.Struct):
    game_id: str
    seat: int
    client_seed: str
    commitment: str  # the server's, sha256("<seed>:<salt>"), fixed before any client seed


class SeatBot(msgspec.Struct, forbid_unknown_fields=True):
    bot: str
    seat: SeatNumber | None = None


class Submit(msgspec.Struct, forbid_unknown_fields=True):
    action: dict[str, Any]
    command_id: str
    expected_version: Version | None = None


class EventsPage(msgspec.Struct):
    version: int
    events: list[dict]


class Replay(msgspec.Struct):
    at: int
    version: int
    seat: int | None
    view: Any


# --- helpers -----------------------------------------------------------------


def _games(state: State) -> GameService:
    return state.games


# --- routes ------------------------------------------------------------------


@get("/health", sync_to_thread=False)
def health() -> dict[str, str]:
    return {"status": "ok"}


@get(
    "/ready",
    responses={
        503: ResponseSpec(
            dict[str, str], description="a dependency is down (named in the body)", generate_examples=False
        )
    },
)
async def ready(state: State) -> Response[dict[str, str]]:
    checks = {}
    try:
        await asyncio.wait_for(state.pool.fetchval("SELECT 1"), 2)
        checks["postgres"] = "ok"
    except Exception as exc:
        checks["postgres"] = f"unreachable: {type(exc).__name__}"
    try:
        await asyncio.wait_for(state.redis.ping(), 2)
        checks["redis"] = "ok"
    except Exception as exc:
        checks["redis"] = f"unreachable: {type(exc).__name__}"
    ok = all(v == "ok" for v in checks.values())
    return Response({"status": "ready" if ok else "not_ready", **checks}, status_code=200 if ok else 503)


@get("/api/v1/games/catalog", sync_to_thread=False)
def catalog() -> list[dict[str, Any]]:
    return game_catalog()


@post("/api/v1/players", status_code=201)
async def create_player(state: State, data: NewPlayer) -> PlayerCreated:
    player, token = await state.accounts.sign_up(data.name, data.password)
    return PlayerCreated(player.player_id, player.name, token)


@post("/api/v1/games", status_code=201, after_response=lobby_changed)
async def create_game(state: State, data: NewGame, caller: Player) -> GameInfo:
    if data.time_control is not None:
        for_people(data.time_control)  # its seats are for people
    table = await state.bus.handle(
        commands.CreateTable(
            caller,
            data.game,
            data.players,
            data.options,
            data.ranked,
            msgspec.to_builtins(data.time_control) if data.time_control else None,
            state.settings.table_bot_delay_ms if data.bot_delay_ms is None else data.bot_delay_ms,
        )
    )
    return game_info(table, caller, state.settings.clock)


@get("/api/v1/games/{game_id:str}")
async def read_game(state: State, game_id: str, viewer: Player | None) -> GameInfo:
    table = await _games(state).load(game_id)
    info = game_info(table, viewer, state.settings.clock)
    if info.time_control is not None and info.status == "playing":
        info.clock = await seat_clocks(state.games.store, state.runtime.agents, table, state.settings.clock)
    info.spectators = await state.runtime.watchers.one(table.game_id)
    if info.status == "finished":
        info.rematch = await state.games.lobby.rematch_for(table.game_id)
    return info


@post("/api/v1/games/{game_id:str}/seats", status_code=200, after_response=lobby_changed)
async def take_seat(state: State, game_id: str, caller: Player, data: TakeSeat | None = None) -> GameInfo:
    if caller.kind == "agent":  # a paused agent takes no seat; only declared games
        await state.runtime.agents.check_new_seat(caller, (await _games(state).tables.get(game_id)).game.name)
    table = await state.bus.handle(
        commands.TakeSeat(caller, game_id, data.seat if data else None, data.client_seed if data else None)
    )
    return game_info(table, caller, state.settings.clock)


@post("/api/v1/games/{game_id:str}/client-seed", status_code=200)
async def send_client_seed(state: State, game_id: str, data: SendClientSeed, caller: Player) -> ClientSeedTaken:
    """A seated player's entropy for the deal, taken until the cards are dealt
    (409 `already_dealt` after); the deal's seed is derived from the server's
    committed seed and every seat's client seed (docs/fairness.md)."""
    table, stored = await state.bus.handle(commands.SendClientSeed(caller, game_id, data.client_seed))
    seat = table.seat_of(caller.player_id)
    assert seat is not None and table.record.salt is not None
    return ClientSeedTaken(game_id, seat, stored, commitment(table.record.seed, table.record.salt))


@post("/api/v1/games/{game_id:str}/bots", status_code=200, after_response=lobby_changed)
async def seat_bot(state: State, game_id: str, data: SeatBot, caller: Player) -> GameInfo:
    table = await state.bus.handle(commands.SeatBot(caller, game_id, data.seat, data.bot))
    return game_info(table, caller, state.settings.clock)


@delete("/api/v1/games/{game_id:str}", status_code=200, after_response=lobby_changed)
async def cancel_game(state: State, game_id: str, caller: Player) -> GameInfo:
    """The creator cancels a table not dealt yet (status `cancelled`)."""
    table = await state.bus.handle(commands.CancelTable(caller, game_id))
    return game_info(table, caller, state.settings.clock)


@post("/api/v1/games/{game_id:str}/leave", status_code=200, after_response=lobby_changed)
async def leave_game(state: State, game_id: str, caller: Player) -> GameInfo:
    """Before the deal the seat opens again; in a game in progress a house bot takes it (ranked last)."""
    table = await state.bus.handle(commands.LeaveTable(caller, game_id))
    return game_info(table, caller, state.settings.clock)


@post("/api/v1/games/{game_id:str}/rematch", status_code=200, after_response=lobby_changed)
async def play_again(state: State, game_id: str, caller: Player) -> GameInfo:
    """ "Play again": the table that plays this finished game again with the
    same seats (opened by the first of its people to ask, house bots seated
    as before), with the caller in their own seat; asking again answers the
    same table. A person's seat there is kept for that person."""
    table = await state.bus.handle(commands.PlayAgain(caller, game_id))
    return game_info(table, caller, state.settings.clock)


@post("/api/v1/games/{game_id:str}/actions", status_code=200)
async def submit_action(state: State, game_id: str, data: Submit, caller: Player) -> Response[ActionAccepted]:
    try:
        accepted = await state.bus.handle(
            commands.SubmitAction(caller, game_id, data.action, data.command_id, data.expected_version)
        )
    except Unprocessable as err:
        metrics.refused(err.code)
        if caller.kind == "agent":
            # A pull agent refused until its deadline is struck `illegal_action`
            # with this refusal as detail, not `timeout`.
            await state.runtime.agents.note_refusal(game_id, caller.player_id, f"{err.code}: {err.message}")
        raise
    except ServiceError as err:
        metrics.refused(err.code)
        raise
    metrics.ACTIONS_ACCEPTED.inc()
    # Wall-clock time just after the commit: lets a load generator on the
    # same machine measure commit-to-SSE delay.
    return Response(accepted, headers={"X-Committed-At": f"{time.time():.6f}"})


@get("/api/v1/games/{game_id:str}/events")
async def read_events(
    state: State, game_id: str, viewer: Player | None, after: Annotated[int, Parameter(ge=0, le=MAX_VERSION)] = 0
) -> EventsPage:
    games = _games(state)
    table = await games.load(game_id)
    seat = table.seat_of(viewer.player_id) if viewer else None
    return EventsPage(table.version, queries.events_after(table, seat, after))


@get("/api/v1/games/{game_id:str}/replay")
async def replay(
    state: State,
    game_id: str,
    viewer: Player | None,
    at: Annotated[int | None, Parameter(ge=0, le=MAX_VERSION)] = None,
    seat: Annotated[int | None, Parameter(ge=0, le=MAX_SEATS - 1)] = None,
) -> Replay:
    table = await _games(state).load(game_id)
    at, view = queries.replay_view(table, viewer, at, seat)
    return Replay(at, table.version, seat, view)


@get("/api/v1/games/{game_id:str}/export")
async def export(state: State, game_id: str) -> Response[bytes]:
    games = _games(state)
    table = await games.load(game_id)
    return Response(await exported(games.store, table), media_type="application/x-ndjson")


@get("/api/v1/games/{game_id:str}/stream")
async def stream(request: Request, state: State, game_id: str, viewer: Player | None) -> ServerSentEvent:
    games = _games(state)
    table = await games.load(game_id)
    last = resume_point(request)
    cycle = (request.scope.get("extensions") or {}).get("hanamichi.cycle")
    return ServerSentEvent(
        metrics.sse_stream("game", game_sse(state, games, table, viewer, last, cycle)),
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def resume_point(request: Request) -> int:
    """The version an SSE client saw last: `Last-Event-ID` (a reconnect) or `?after=`."""
    header = request.headers.get("last-event-id")
    if header is not None and header.strip():
        return parse_version(header, "Last-Event-ID (the version of the last event you saw)", "bad_last_event_id")
    return parse_version(request.query_params.get("after"), "after", "bad_last_event_id")


ROUTES = [
    health,
    ready,
    catalog,
    create_player,
    create_game,
    read_game,
    take_seat,
    send_client_seed,
    seat_bot,
    cancel_game,
    leave_game,
    play_again,
    submit_action,
    read_events,
    replay,
    export,
    stream,
]
