"""Routes for tournaments, leaderboards and ratings (one service call each)."""

from __future__ import annotations

from contextlib import aclosing
from typing import Annotated

import msgspec
from litestar import Request, delete, get, post
from litestar.datastructures import State
from litestar.params import Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from services.http.schemas import MAX_ROUNDS, MAX_VERSION, NewTournament
from services.app.games.service import now_ms
from services.app.games import embargo
from services.app.ratings import queries as ratings
from services.http.routes.games import resume_point
from services.app.tournaments.service import TournamentService
from services.http.sse import KEEPALIVE
from services.infra import metrics

Auth = Annotated[str | None, Parameter(header="Authorization", required=False, include_in_schema=False)]  # documented as the bearer scheme (api_docs)


def _tn(state: State) -> TournamentService:
    return state.tournaments


@post("/api/v1/tournaments", status_code=201)
async def create_tournament(state: State, data: NewTournament, authorization: Auth) -> dict:
    """Settings: game, start_ms, table_size, format (swiss | round-robin |
    knockout), rounds, options, every_minutes, opens_ms, closes_ms,
    min_entrants, max_entrants, time_control {move_ms, bank_ms}, ranked,
    bots (fill | none | bots_only), fill_to, points, duplicate, advance."""
    player = await state.players.authenticate(authorization)
    return _tn(state).summary(await _tn(state).create(player, data.settings(now_ms())))


@get("/api/v1/tournaments")
async def list_tournaments(state: State, status: str | None = None) -> list[dict]:
    return await _tn(state).listing(status)


@get("/api/v1/tournaments/{tournament_id:str}")
async def read_tournament(state: State, tournament_id: str) -> dict:
    return _tn(state).summary(await _tn(state).load(tournament_id))


@post("/api/v1/tournaments/{tournament_id:str}/registrations", status_code=200)
async def register(state: State, tournament_id: str, authorization: Auth) -> dict:
    player = await state.players.authenticate(authorization)
    if player.kind == "agent":  # with its own token, the same rule as its owner's route (issue 11, item 6)
        game = (await _tn(state).load(tournament_id)).state.settings.game
        await state.runtime.agents.check_new_seat(player, game)
    return _tn(state).summary(await _tn(state).register(player, tournament_id))


@delete("/api/v1/tournaments/{tournament_id:str}/registrations", status_code=200)
async def withdraw(state: State, tournament_id: str, authorization: Auth) -> dict:
    player = await state.players.authenticate(authorization)
    return _tn(state).summary(await _tn(state).withdraw(player, tournament_id))


@get("/api/v1/tournaments/{tournament_id:str}/standings")
async def standings(state: State, tournament_id: str) -> dict:
    import engines.tournament as tn

    loaded = await _tn(state).load(tournament_id)
    # A duplicate round in play counts no table's result yet (services.app.games.embargo).
    shown = embargo.tournament_view(loaded.state, loaded.events)
    names = {e.id: {"name": e.name, "kind": e.kind} for e in shown.entrants or shown.registered}
    rows = shown.ranking or (tn.standings(shown) if shown.entrants else ())
    running = shown.status == "running" and not shown.round_over
    return {
        "status": shown.status,
        "round": shown.round,
        "final": shown.status == "finished",
        "standings": [{**msgspec.to_builtins(p), **names.get(p.entrant, {})} for p in rows],
        # The current round's tables without a result shown yet.
        "in_play": [t.table for t in shown.tables if t.table not in shown.results] if running else [],
    }


@get("/api/v1/tournaments/{tournament_id:str}/rounds/{round_no:int}")
async def round_tables(state: State, tournament_id: str, round_no: Annotated[int, Parameter(ge=0, le=MAX_ROUNDS)]) -> dict:
    return _tn(state).round_tables(await _tn(state).load(tournament_id), round_no)


@get("/api/v1/tournaments/{tournament_id:str}/events")
async def tournament_events(state: State, tournament_id: str, after: Annotated[int, Parameter(ge=0, le=MAX_VERSION)] = 0) -> dict:
    loaded = await _tn(state).load(tournament_id)
    version = embargo.tournament_upto(loaded.state, loaded.events)  # a duplicate round's results wait for its end
    return {"version": version, "events": _tn(state).public_events(loaded, after)}


@get("/api/v1/tournaments/{tournament_id:str}/stream")
async def tournament_stream(request: Request, state: State, tournament_id: str) -> ServerSentEvent:
    service = _tn(state)
    await service.load(tournament_id)  # 404 for an unknown tournament
    last = resume_point(request)

    async def messages():
        sent = last
        async with aclosing(state.hub.watch(tournament_id, state.settings.sse_keepalive_s)) as notices:
            async for notice in notices:
                if notice is None:
                    yield KEEPALIVE
                    continue
                current = await service.load(tournament_id)
                for item in service.public_events(current, sent):
                    sent = item["version"]
                    yield ServerSentEventMessage(data=msgspec.json.encode(item).decode(), id=sent, event="tournament")
                if current.state.status in ("finished", "cancelled"):
                    yield ServerSentEventMessage(data='{"status": "%s"}' % current.state.status, event="end", id=sent)
                    return

    return ServerSentEvent(metrics.sse_stream("tournament", messages()), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@get("/api/v1/leaderboards/{game:str}")
async def leaderboard(state: State, game: str, limit: Annotated[int, Parameter(ge=1, le=500)] = 100) -> dict:
    return await ratings.leaderboard(state.pool, game, limit)


@get("/api/v1/players/{player_id:str}/ratings")
async def rating_history(state: State, player_id: str, game: str | None = None) -> dict:
    return await ratings.history(state.pool, player_id, game)


ROUTES = [
    create_tournament, list_tournaments, read_tournament, register, withdraw, standings, round_tables,
    tournament_events, tournament_stream, leaderboard, rating_history,
]
