"""`GET /api/v1/games/{id}/analysis`: a finished game's post-game analysis
(services/app/analyses.py; docs/api.md "Post-game analysis").

200 with the Analysis once done; 202 with its Progress while it is queued
or running (the first read of a game never analysed requests it, signed in
or not); with `?request=false` only a look: 204 when nobody has asked for
it, and nothing is queued (a page can show an analysis that exists without
costing a worker one); 404 for an unknown game, 409 `game_in_progress` while it runs,
409 `results_embargoed` while its duplicate deal is played at other tables,
409 `analysis_failed` once it failed twice, 429 `analysis_rate_limited` (with
Retry-After) for a requester's new requests past the limit."""

from __future__ import annotations

from typing import Annotated, Any, cast

import msgspec
from litestar import Request, Response, get
from litestar.datastructures import State
from litestar.openapi import ResponseSpec
from litestar.params import Parameter

from services.app import commands
from services.app.analysis.report import Analysis, Progress
from services.app.errors import Conflict
from services.app.players import Player
from services.app.ports.analyses import AnalysisRecord
from services.http.api_docs import ErrorBody
from services.http.httpserver import client_address


def requester(viewer: Player | None, request: Request) -> str:
    """Whose rate limit a new request counts against: the player, or the client's address."""
    return f"player:{viewer.player_id}" if viewer is not None else f"ip:{client_address(request.scope)}"


def answer(record: AnalysisRecord) -> Response[Analysis]:
    if record.status == "done" and record.result is not None:
        analysis = msgspec.json.decode(record.result, type=Analysis)
        return Response(analysis, headers={"Cache-Control": "public, max-age=3600"})
    if record.status == "failed":
        raise Conflict("analysis_failed", "this game's analysis failed twice and is not tried again")
    progress = Progress(status=record.status, done=record.done, total=record.total)
    # The 202's body is a Progress (declared in the route's responses).
    return Response(cast(Any, progress), status_code=202, headers={"Cache-Control": "no-store"})


@get(
    "/api/v1/games/{game_id:str}/analysis",
    responses={
        202: ResponseSpec(
            Progress, description="Queued or running: ask again (the first read requests it)", generate_examples=False
        ),
        204: ResponseSpec(None, description="With request=false: nobody has asked for it (nothing is queued)"),
        404: ResponseSpec(ErrorBody, description="No such game (game_not_found)", generate_examples=False),
        409: ResponseSpec(
            ErrorBody,
            description="The game is in progress (game_in_progress), its duplicate deal is still played"
            " (results_embargoed), or its analysis failed twice (analysis_failed)",
            generate_examples=False,
        ),
        429: ResponseSpec(
            ErrorBody,
            description="Too many new analyses asked for by this player or address (analysis_rate_limited;"
            " Retry-After says when)",
            generate_examples=False,
        ),
    },
)
async def game_analysis(
    request: Request,
    state: State,
    game_id: str,
    viewer: Player | None,
    request_it: Annotated[
        bool, Parameter(query="request", description="false: only look; an analysis nobody asked for is not queued")
    ] = True,
) -> Response[Analysis]:
    """A finished game's post-game analysis: every decision judged open-hand
    and from what the player knew, per-seat figures and the graph."""
    record = await state.bus.handle(commands.ReadAnalysis(game_id, requester(viewer, request), request_it))
    if record is None:
        return Response(cast(Any, None), status_code=204, headers={"Cache-Control": "no-store"})
    return answer(record)


ROUTES = [game_analysis]
