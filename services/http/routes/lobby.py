"""`GET /api/v1/games`: the lobby's list of tables (services/app/games/lobby.py)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.datastructures import State
from litestar.params import Parameter

from services.app.games.lobby import MAX_LIMIT, LobbyPage, Status, list_tables


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


ROUTES = [list_games]
