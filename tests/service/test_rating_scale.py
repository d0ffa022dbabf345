"""The rating people see is one number everywhere: a player's ratings and the
leaderboard carry the same `rating` (1500 at the start, "?" while
`provisional`, services/app/ratings/scale.py) beside the raw `mu` and
`sigma`, and the leaderboard still ranks by mu - 3 sigma (`ordinal`)."""

from __future__ import annotations

import asyncio
import random

import pytest

from services.app.ratings.scale import display_rating, is_provisional
from tests.conftest import WorkerProcess
from tests.service.client import ApiClient, play_randomly

GAME = "kabuki-tricks"


@pytest.mark.asyncio(loop_scope="session")
async def test_the_leaderboard_and_a_players_ratings_show_the_same_rating(server, server_env, tmp_path):
    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    try:
        me = await ApiClient.register(server.base_url, "rated-once")
        r = await me.post("/api/v1/games", {"game": GAME, "players": 3, "ranked": True, "bot_delay_ms": 0})
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        await me.sit(game_id, 0)
        for seat in (1, 2):
            assert (await me.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})).status_code == 200
        await asyncio.wait_for(play_randomly(me, game_id, random.Random(3)), 60)
        for _ in range(200):
            r = await me.get(f"/api/v1/players/{me.player_id}/ratings", game=GAME)
            # 200 with no rating in it until the worker has rated the game.
            if r.status_code == 200 and r.json()["ratings"]:
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the game was not rated:\n" + worker.tail())
        mine = r.json()
        board = (await me.get(f"/api/v1/leaderboards/{GAME}", limit=500)).json()
    finally:
        worker.stop()

    [rating] = mine["ratings"]
    listed = next(p for p in board["players"] if p["rated_id"] == me.player_id)
    for row in (rating, listed):
        assert {"rating", "provisional", "mu", "sigma", "ordinal"} <= row.keys()
        assert isinstance(row["rating"], int) and isinstance(row["provisional"], bool)
        assert row["rating"] == display_rating(row["mu"])
        assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"])
    assert rating["game"] == GAME
    assert (rating["rating"], rating["provisional"], rating["mu"], rating["sigma"]) == (
        listed["rating"],
        listed["provisional"],
        listed["mu"],
        listed["sigma"],
    )
    assert rating["provisional"] and is_provisional(rating["sigma"]), "one game: sigma is still high"
    assert abs(rating["rating"] - 1500) < 400, "one game moves it, not far"
    # The change on the same scale: from 1500 to the rating now.
    [change] = mine["history"]
    assert (change["rating_before"], change["rating_after"]) == (1500, rating["rating"])
    assert mine["points_per_mu"] == 42
    # Still ranked by the cautious estimate, and saying so.
    assert board["ranked_by"] == "ordinal"
    for kind in ("players", "agents", "bots"):
        ordinals = [p["ordinal"] for p in board[kind]]
        assert ordinals == sorted(ordinals, reverse=True)
