"""Abandonment's price over HTTP (services/app/fairplay.py): a person who
left two ranked games sees a completion rate of 0 and a cooldown's end on
GET /api/v1/players/{id} (others see the rate only); Play now, ranked
tables and ranked tournaments refuse with 403 `ranked_cooldown` and
`until_ms`; a tournament's `min_completion_rate` refuses with
`completion_rate_too_low`; unranked tables stay open."""

from __future__ import annotations

import asyncio
import time
import uuid

from tests.service.client import ApiClient

GAME = "kabuki-tricks"


async def _leave_a_ranked_game(person: ApiClient) -> None:
    r = await person.post("/api/v1/games", {"game": GAME, "players": 2, "ranked": True, "bot_delay_ms": 0})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    await person.sit(game_id, 0)
    assert (await person.post(f"/api/v1/games/{game_id}/bots", {"seat": 1, "bot": "random"})).status_code == 200
    assert (await person.post(f"/api/v1/games/{game_id}/leave")).status_code == 200
    deadline = time.monotonic() + 60
    while (await person.game(game_id))["status"] != "finished":
        assert time.monotonic() < deadline, "the house bots did not finish the game"
        await asyncio.sleep(0.1)


async def test_leaving_ranked_games_lowers_the_completion_rate_and_closes_ranked_play(server):
    tag = uuid.uuid4().hex[:6]
    person = await ApiClient.register(server.base_url, f"fair-{tag}")
    other = await ApiClient.register(server.base_url, f"fair-{tag}-other")
    try:
        r = await other.get(f"/api/v1/players/{person.player_id}")
        assert r.status_code == 200 and r.json()["completion_rate"] is None and r.json()["ranked_games"] == 0
        await _leave_a_ranked_game(person)
        await _leave_a_ranked_game(person)
        # The lobby row is marked finished just after the end's commit.
        deadline = time.monotonic() + 10
        while (mine := (await person.get(f"/api/v1/players/{person.player_id}")).json())["abandoned"] < 2:
            assert time.monotonic() < deadline, mine
            await asyncio.sleep(0.1)
        assert mine["name"] == person.name and mine["completion_rate"] == 0.0 and mine["ranked_games"] == 2
        until = mine["ranked_cooldown_until_ms"]
        assert until is not None and 0 < until - time.time() * 1000 <= 10 * 60 * 1000 + 5000
        seen = (await other.get(f"/api/v1/players/{person.player_id}")).json()
        assert seen["completion_rate"] == 0.0 and seen["ranked_cooldown_until_ms"] is None

        r = await person.post("/api/v1/quick-play", {"game": GAME, "players": 3})
        assert r.status_code == 403 and r.json()["code"] == "ranked_cooldown", r.text
        assert r.json()["until_ms"] == until and "ranked play opens again at" in r.json()["message"]
        r = await person.post("/api/v1/games", {"game": GAME, "players": 3, "ranked": True})
        assert r.status_code == 403 and r.json()["code"] == "ranked_cooldown", r.text
        r = await person.post("/api/v1/games", {"game": GAME, "players": 3, "ranked": False})
        assert r.status_code == 201, "unranked tables stay open"

        start_ms = int(time.time() * 1000) + 3_600_000
        base = {"game": GAME, "start_ms": start_ms, "format": "swiss", "rounds": 1, "table_size": 3}
        r = await other.post("/api/v1/tournaments", base | {"ranked": True})
        assert r.status_code == 201, r.text
        r = await person.post(f"/api/v1/tournaments/{r.json()['tournament_id']}/registrations")
        assert r.status_code == 403 and r.json()["code"] == "ranked_cooldown", r.text
        r = await other.post("/api/v1/tournaments", base | {"ranked": False, "min_completion_rate": 0.8})
        assert r.status_code == 201, r.text
        strict = r.json()["tournament_id"]
        r = await person.post(f"/api/v1/tournaments/{strict}/registrations")
        assert r.status_code == 403 and r.json()["code"] == "completion_rate_too_low", r.text
        assert (await other.post(f"/api/v1/tournaments/{strict}/registrations")).status_code == 200, (
            "no ranked games yet"
        )
        r = await other.post("/api/v1/tournaments", base | {"min_completion_rate": 1.5})
        assert r.status_code == 400 or r.status_code == 422, r.text

        r = await other.get(f"/api/v1/players/{uuid.uuid4()}")
        assert r.status_code == 404 and r.json()["code"] == "player_not_found"
    finally:
        await person.close()
        await other.close()
