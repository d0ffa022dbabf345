"""The `expert` house bot at the service's tables: seated like any
house bot, it plays whole games of every game through the real server (its
search without a clock: bounded in playout steps, deterministic)."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.mark.parametrize(
    "game,players,options",
    [
        ("kabuki-tricks", 3, {}),
        ("cahoots", 3, {}),
        ("tezuma-trick", 3, {}),
        ("kabuki-masks", 3, {"stop_window_ms": 0}),
    ],
)
async def test_expert_bots_play_a_whole_game_at_a_table(server, game, players, options):
    host = await ApiClient.register(server.base_url, f"expert-{uuid.uuid4().hex[:6]}")
    r = await host.post("/api/v1/games", {"game": game, "players": players, "options": options, "bot_delay_ms": 0})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    for seat in range(players):
        bot = "expert" if seat != 1 else "heuristic"
        r = await host.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": bot})
        assert r.status_code == 200, r.text
    deadline = time.monotonic() + 150
    while (info := await host.game(game_id))["status"] != "finished":
        assert time.monotonic() < deadline, f"{game} did not finish: version {info['version']}"
        await asyncio.sleep(0.2)
    assert [s["bot"] for s in info["seats"]] == ["expert", "heuristic", "expert"]
    events = (await host.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
    assert events[-1]["event"]["type"] == "hm.game_finished"
