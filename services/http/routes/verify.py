"""`GET /api/v1/games/{id}/verify`: provably fair deals for
clients that cannot run Python's shuffle. The checks are `engines.verify`,
the same code as `hanamichi verify GAME_EXPORT.ndjson`, run on the same
bytes the export route serves."""

from __future__ import annotations

import msgspec
from litestar import get
from litestar.datastructures import State

from engines.verify import verify_export
from services.app.errors import Conflict
from services.app.games.exports import exported
from services.app.games.service import GameService


class Verification(msgspec.Struct):
    game_id: str
    commitment_ok: bool  # the revealed seed and salt hash to the first event's commitment
    deals_ok: bool  # every deal is the one the revealed seed gives
    replay_ok: bool  # every move is legal and gives the logged events
    problems: list[str]  # why a check failed, for people ([] when all pass)
    # The log's hash chain recomputes with the revealed key: "ok", "failed",
    # or "absent" (the game was stored before the log was chained).
    chain: str = "absent"


@get("/api/v1/games/{game_id:str}/verify")
async def verify_game(state: State, game_id: str) -> Verification:
    games: GameService = state.games
    table = await games.load(game_id)
    if not table.over:
        # The seed and the salt are revealed by the final event only.
        raise Conflict(
            "game_in_progress",
            "a game can be verified once it has ended (its final event reveals the seed and the salt)",
        )
    # The export refuses an embargoed table: 409 results_embargoed.
    verdict = verify_export(await exported(games.store, table))
    return Verification(
        game_id, verdict.commitment_ok, verdict.deals_ok, verdict.replay_ok, verdict.problems, verdict.chain
    )


ROUTES = [verify_game]
