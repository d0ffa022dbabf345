"""A person's own data as one file (GET /api/v1/players/me/data): the
account, their agents, ratings and every game they sat at. A game is given
as the API gives it to that seat (services/app/games/queries.py): in full
once it is over, and while it is in progress only what the seat may see, so
the file never holds another player's hidden cards."""

from __future__ import annotations

from typing import Any

import msgspec

from services.app.agents.registry import AgentService
from services.app.errors import ServiceError
from services.app.games import queries
from services.app.games.service import GameService
from services.app.players import Player
from services.app.ports import AccountStore, RatingStore
from services.app.ratings import queries as ratings
from services.app.upcast import with_current_names

FORMAT = "hanamichi-personal-data/1"


async def personal_data(
    rating_store: RatingStore, store: AccountStore, games: GameService, agents: AgentService, player: Player
) -> dict[str, Any]:
    account = await store.account(player.player_id)
    sessions = await store.sessions_of(player.player_id)
    try:
        rated = await ratings.history(rating_store, player.player_id, None)
    except ServiceError:  # no rated game yet
        rated = {"ratings": [], "history": []}
    data = {
        "format": FORMAT,
        "account": {
            "player_id": player.player_id,
            "name": player.name,
            "kind": player.kind,
            "created_ms": int(account.created_at.timestamp() * 1000) if account else None,
            "has_password": bool(account and account.has_password),
            "sessions": [
                {
                    "created_ms": int(s.created_at.timestamp() * 1000),
                    "expires_ms": int(s.expires_at.timestamp() * 1000),
                }
                for s in sessions
            ],
        },
        "agents": [a.public() for a in await agents.of_owner(player)] if player.kind == "human" else [],
        "ratings": rated,
        "games": await _games(store, games, player),
    }
    return await with_current_names(store, msgspec.to_builtins(data))


async def _games(store: AccountStore, games: GameService, player: Player) -> list[dict]:
    out = []
    for game_id, seat in await store.seats_of(player.player_id):
        table = await games.load(game_id)
        out.append(
            {
                "game_id": game_id,
                "game": table.game.name,
                "seat": seat,
                "over": table.over,
                "ranked": table.record.ranked,
                "tournament_id": table.tournament_id,
                "seats": [
                    {"seat": h.seat, "name": h.name, "kind": h.kind, "player_id": h.player_id}
                    for h in table.seats
                    if h is not None
                ],
                # The seat's own view, as GET /api/v1/games/{id}/events gives it.
                "events": queries.events_after(table, seat, 0),
            }
        )
    return out
