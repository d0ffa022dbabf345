"""`GET /api/v1/games`: the lobby's list of tables (services/app/games/lobby.py);
`GET /api/v1/lobby/stream`: the lobby's state as it changes (services/http/lobby_stream.py)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.datastructures import State
from litestar.openapi import ResponseSpec
from litestar.params import Parameter
from litestar.response import ServerSentEvent

from services.app.games.lobby import MAX_LIMIT, LobbyPage, Status, list_tables
from services.http.lobby_stream import LobbyState, lobby_sse, redis_reachable
from services.infra import metrics


@get("/api/v1/games")
async def list_games(
    state: State,
    status: Status | None = None,
    game: Annotated[str | None, Parameter(max_length=40)] = None,
    limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT)] = 20,
    before: Annotated[str | None, Parameter(max_length=80)] = None,
) -> LobbyPage:
    """Tables, newest first: `status` open, playing or finished; `game` one game's."""
    return await list_tables(state.games.lobby, status, game, limit, before)


LOBBY_STREAM_DOC = (
    "The lobby as it changes (Server-Sent Events). One `lobby` event at once, then one whenever the lobby"
    " changed (a table created, seated, started, finished, cancelled or left; a Play now count), at most"
    " one a second per stream, and a `: keepalive` comment every 10 s. Its `data` is JSON"
    " `{open, playing, finished, quick_play}`: `open` is `GET /api/v1/games?status=open&limit=20`,"
    " `playing` the same with `status=playing&limit=20`, `finished` with `status=finished&limit=10`,"
    " `quick_play` is `GET /api/v1/quick-play`, each exactly as those routes answer. `id` counts this"
    " stream's events; a reconnect (`Last-Event-ID`) starts again with the whole state. Public: no token."
    " Redis unreachable: 503 with Retry-After."
)


@get(
    "/api/v1/lobby/stream",
    description=LOBBY_STREAM_DOC,
    responses={
        200: ResponseSpec(
            data_container=LobbyState,
            media_type="text/event-stream",
            description="`lobby` events (data: this schema, JSON) and `: keepalive` comments",
            generate_examples=False,
        )
    },
)
async def lobby_stream(state: State) -> ServerSentEvent:
    """The lobby as it changes (Server-Sent Events, `text/event-stream`): one
    `lobby` event at once, then one whenever the lobby changed, at most one a
    second, with a `: keepalive` comment between. Its data is JSON
    `{"open": page, "playing": page, "finished": page, "quick_play": pools}`:
    the pages are `GET /api/v1/games?status=open&limit=20` (`playing`, 20;
    `finished`, 10), `pools` is `GET /api/v1/quick-play`, each exactly as
    those routes answer. `id` counts the stream's events; on a reconnect
    (`Last-Event-ID`) the first event is the whole state again. Redis
    unreachable: 503 with Retry-After."""
    await redis_reachable(state)
    return ServerSentEvent(
        metrics.sse_stream("lobby", lobby_sse(state)),
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


ROUTES = [list_games, lobby_stream]
