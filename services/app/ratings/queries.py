"""Reads of the ratings the projection keeps (tables `ratings` and
`rating_changes`): a game's leaderboard and one player's history, through the `RatingStore`
port. A person's or agent's name is the players table's now (a deleted
one's is its pseudonym, services/app/upcast.py), not what the projection
once copied."""

from __future__ import annotations

from engines.core import OptionsError
from engines.registry import get_game
from services.app.errors import NotFound
from services.app.ports import RatingRow, RatingStore
from services.app.ratings.scale import POINTS_PER_MU, PROVISIONAL_SIGMA, display_rating, is_provisional


def _rating_row(r: RatingRow) -> dict:
    return {
        "game": r.game,
        "rated_id": r.rated_id,
        "name": r.name,
        "kind": r.kind,
        # The number shown (1500 at the start, services/app/ratings/scale.py),
        # with "?" appended while provisional.
        "rating": display_rating(r.mu),
        "provisional": is_provisional(r.sigma),
        "mu": r.mu,
        "sigma": r.sigma,
        # The cautious estimate mu - 3 sigma: leaderboards rank by it.
        "ordinal": r.mu - 3 * r.sigma,
        "games": r.games,
        # Games a house bot finished for it after its strikes, rated as last.
        "forfeits": r.forfeits,
    }


async def leaderboard(store: RatingStore, game: str, limit: int) -> dict:
    try:
        get_game(game)
    except OptionsError as err:
        raise NotFound(err.code, err.message) from None
    rows = await store.leaderboard(game, limit)
    people = [_rating_row(r) for r in rows if r.kind == "human"][:limit]
    agents = [_rating_row(r) for r in rows if r.kind == "agent"][:limit]
    bots = [_rating_row(r) for r in rows if r.kind == "bot"][:limit]
    return {
        "game": game,
        "players": people,
        "agents": agents,
        "bots": bots,
        "provisional_sigma": PROVISIONAL_SIGMA,
        "ranked_by": "ordinal",  # mu - 3 sigma, highest first; `rating` is the number shown
    }


async def history(store: RatingStore, player_id: str, game: str | None) -> dict:
    current = await store.ratings_of_player(player_id, game)
    changes = await store.changes_of(player_id, game)
    if not current and not changes:
        raise NotFound("no_ratings", "no rated games for this player")
    return {
        "ratings": [_rating_row(r) for r in current],
        # A chart of the changes on the shown scale: rating_* = 1500 + this x (mu_* - 25).
        "points_per_mu": POINTS_PER_MU,
        # Why a rating moved: each change links to its game.
        "history": [
            {
                "game": c.game,
                "game_id": c.game_id,
                "link": f"/api/v1/games/{c.game_id}",
                "place": c.place,
                "forfeited": c.forfeited,
                "rating_before": display_rating(c.mu_before),
                "rating_after": display_rating(c.mu_after),
                "mu_before": c.mu_before,
                "sigma_before": c.sigma_before,
                "mu_after": c.mu_after,
                "sigma_after": c.sigma_after,
            }
            for c in changes
        ],
    }
