"""A casual table with a time control: a person who never moves is played
for by the worker (reason `timeout`), and after three in a row a house bot
takes the seat, so the game still ends."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import WorkerProcess
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_an_absent_player_is_timed_out_then_replaced_by_a_bot(server, server_env, tmp_path):
    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    try:
        host = await ApiClient.register(server.base_url, "absent")
        r = await host.post("/api/v1/games", {"game": "kabuki-tricks", "players": 4, "time_control": {"move_ms": 1000}})
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        assert r.json()["time_control"] == {"move_ms": 1000, "bank_ms": 0}
        await host.sit(game_id, 0)
        for seat in (1, 2, 3):
            assert (
                await host.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
            ).status_code == 200
        for _ in range(300):
            if (await host.game(game_id))["status"] == "finished":
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the game did not finish:\n" + worker.tail())
        events = (await host.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
        played = [e["event"] for e in events if e["event"]["type"] == "hm.move_played_for_seat"]
        handed = [e["event"] for e in events if e["event"]["type"] == "hm.seat_handed_to_bot"]
        assert [(p["seat"], p["reason"], p["strikes"]) for p in played] == [(0, "timeout", n) for n in (1, 2, 3)]
        assert [(h["seat"], h["bot"]) for h in handed] == [(0, "heuristic")]
        # The seat is the bot's now: the person's own moves are refused.
        r = await host.act(game_id, {"type": "deal"})
        assert r.status_code in (403, 409)
    finally:
        worker.stop()


async def test_a_bad_time_control_is_a_clear_error(server):
    host = await ApiClient.register(server.base_url, "fussy")
    r = await host.post("/api/v1/games", {"game": "kabuki-tricks", "players": 4, "time_control": {"move_ms": 5}})
    assert r.status_code == 400 and r.json()["code"] == "bad_request"
    assert "move_ms" in r.json()["message"]
