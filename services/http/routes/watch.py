"""Routes for watching and following: the live tables and a
player's games and tournaments (services/app/games/watching.py reads them)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.datastructures import State
from litestar.params import Parameter

from services.app.fairplay import PlayerProfile
from services.app.games import watching
from services.app.games.watching import MAX_LIVE, LiveTables, PlayerGames
from services.app.players import Player


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


@get("/api/v1/players/{player_id:str}")
async def read_player(state: State, player_id: str, viewer: Player | None) -> PlayerProfile:
    """A player's name and kind, and how they finish ranked games: the share
    of their last 100 ranked games finished without a hand-over to a house
    bot (`completion_rate`, null before the first); to the player themself
    also the end of a cooldown from ranked play (`ranked_cooldown_until_ms`)."""
    return await state.runtime.fair_play.profile(player_id, viewer.player_id if viewer else None)


ROUTES = [live_tables, player_games, read_player]
