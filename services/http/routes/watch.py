"""Routes for watching and following: the live tables and a
player's games and tournaments (services/app/games/watching.py reads them)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.datastructures import State
from litestar.params import Parameter

from services.app.games import watching
from services.app.games.watching import MAX_LIVE, LiveTables, PlayerGames


@get("/api/v1/live")
async def live_tables(
    state: State,
    game: Annotated[str | None, Parameter(max_length=40)] = None,
    limit: Annotated[int, Parameter(ge=1, le=MAX_LIVE)] = 20,
) -> LiveTables:
    """Tables in play, the most watched first (then the newest), each with
    its public view for a miniature."""
    return await watching.live_tables(
        state.games.lobby, state.games, state.runtime.watchers, state.settings.clock, game, limit
    )


@get("/api/v1/players/{player_id:str}/games")
async def player_games(
    state: State,
    player_id: str,
    limit: Annotated[int, Parameter(ge=1, le=100)] = 20,
    before: Annotated[str | None, Parameter(max_length=20)] = None,
) -> PlayerGames:
    """A player's (or an agent's) games, newest first, with place and score
    once disclosed, and the tournaments they played in."""
    return await watching.player_games(state.games.lobby, player_id, limit, before)


ROUTES = [live_tables, player_games]
