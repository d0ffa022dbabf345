"""Routes for tournaments, leaderboards and ratings (one service call each)."""

from __future__ import annotations

from contextlib import aclosing
from typing import Annotated

import msgspec
from litestar import Request, delete, get, post
from litestar.datastructures import State
from litestar.params import Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from services.app import commands
from services.app.games.service import now_ms
from services.app.players import Player
from services.app.ratings import queries as ratings
from services.app.tournaments import following
from services.app.tournaments.service import TournamentService, Travellers
from services.app.upcast import with_current_names
from services.http.routes.games import resume_point
from services.http.schemas import MAX_ROUNDS, MAX_VERSION, ClientSeed, NewTournament
from services.http.sse import KEEPALIVE
from services.infra import metrics


def _tn(state: State) -> TournamentService:
    return state.tournaments


@post("/api/v1/tournaments", status_code=201)
async def create_tournament(state: State, data: NewTournament, caller: Player) -> dict:
    """Settings: game, start_ms, table_size, format (swiss | round-robin |
    knockout), rounds, options, every_minutes, opens_ms, closes_ms,
    min_entrants, max_entrants, time_control {move_ms, bank_ms}, ranked,
    bots (fill | none | bots_only), fill_to, points, duplicate, advance."""
    return await with_current_names(
        state.players.store,
        _tn(state).summary(await state.bus.handle(commands.CreateTournament(caller, data.settings(now_ms())))),
    )


@get("/api/v1/tournaments")
async def list_tournaments(state: State, status: str | None = None) -> list[dict]:
    return await _tn(state).listing(status)


@get("/api/v1/tournaments/{tournament_id:str}")
async def read_tournament(state: State, tournament_id: str) -> dict:
    return await with_current_names(state.players.store, _tn(state).summary(await _tn(state).load(tournament_id)))


class Registration(msgspec.Struct, forbid_unknown_fields=True):
    client_seed: ClientSeed | None = None


@post("/api/v1/tournaments/{tournament_id:str}/registrations", status_code=200)
async def register(state: State, tournament_id: str, caller: Player, data: Registration | None = None) -> dict:
    """`client_seed`: the entrant's entropy for its tables' deals, mixed into
    each table's deal seed with those of the other seats (docs/fairness.md)."""
    loaded = await state.bus.handle(
        commands.RegisterEntrant(caller, tournament_id, data.client_seed if data and data.client_seed else "")
    )
    return await with_current_names(state.players.store, _tn(state).summary(loaded))


@delete("/api/v1/tournaments/{tournament_id:str}/registrations", status_code=200)
async def withdraw(state: State, tournament_id: str, caller: Player) -> dict:
    return await with_current_names(
        state.players.store,
        _tn(state).summary(await state.bus.handle(commands.WithdrawEntrant(caller, tournament_id))),
    )


@get("/api/v1/tournaments/{tournament_id:str}/standings")
async def standings(state: State, tournament_id: str) -> dict:
    return await with_current_names(state.players.store, following.standings(await _tn(state).load(tournament_id)))


@get("/api/v1/tournaments/{tournament_id:str}/rounds/{round_no:int}")
async def round_tables(
    state: State, tournament_id: str, round_no: Annotated[int, Parameter(ge=0, le=MAX_ROUNDS)]
) -> dict:
    return _tn(state).round_tables(await _tn(state).load(tournament_id), round_no)


@get("/api/v1/tournaments/{tournament_id:str}/travellers")
async def travellers(
    state: State,
    tournament_id: str,
    round_no: Annotated[int | None, Parameter(query="round", ge=1, le=MAX_ROUNDS)] = None,
) -> Travellers:
    """A duplicate tournament's travellers: for each deal group of each ended
    round (or of `round` only), every seat of the deal with each table's
    score and place with those cards, and the first of the seat's moves
    where the tables chose differently, with both replays' links
    (docs/tournaments.md). 409 `results_embargoed` for the round in play."""
    return await _tn(state).travellers(tournament_id, round_no)


@get("/api/v1/tournaments/{tournament_id:str}/events")
async def tournament_events(
    state: State, tournament_id: str, after: Annotated[int, Parameter(ge=0, le=MAX_VERSION)] = 0
) -> dict:
    loaded = await _tn(state).load(tournament_id)
    return await with_current_names(state.players.store, following.events_after(_tn(state), loaded, after))


@get("/api/v1/tournaments/{tournament_id:str}/stream")
async def tournament_stream(request: Request, state: State, tournament_id: str) -> ServerSentEvent:
    feed = await following.follow(
        _tn(state), state.hub, tournament_id, resume_point(request), state.settings.sse_keepalive_s
    )
    return ServerSentEvent(
        metrics.sse_stream("tournament", _messages(feed)),
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _messages(feed):
    """`following.follow`'s items as SSE messages (closing the feed when the client goes)."""
    async with aclosing(feed):
        async for item in feed:
            if item is None:
                yield KEEPALIVE
            elif isinstance(item, following.Ended):
                yield ServerSentEventMessage(data=f'{{"status": "{item.status}"}}', event="end", id=item.version)
            else:
                yield ServerSentEventMessage(
                    data=msgspec.json.encode(item).decode(), id=item["version"], event="tournament"
                )


@get("/api/v1/leaderboards/{game:str}")
async def leaderboard(state: State, game: str, limit: Annotated[int, Parameter(ge=1, le=500)] = 100) -> dict:
    return await ratings.leaderboard(state.ratings, game, limit)


@get("/api/v1/players/{player_id:str}/ratings")
async def rating_history(state: State, player_id: str, game: str | None = None) -> dict:
    return await ratings.history(state.ratings, player_id, game)


ROUTES = [
    create_tournament,
    list_tournaments,
    read_tournament,
    register,
    withdraw,
    standings,
    round_tables,
    travellers,
    tournament_events,
    tournament_stream,
    leaderboard,
    rating_history,
]
