"""No table traps anyone: its creator cancels a table not dealt yet
(DELETE /api/v1/games/{id}); anyone seated leaves (POST .../leave): before
the deal the seat opens again, in a game in progress a house bot takes the
seat and it is ranked last; an untimed table where nobody has moved for
HANAMICHI_STALE_TABLE_S ends the same way, from the worker's sweep."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

from tests.conftest import WorkerProcess
from tests.service.client import ApiClient
from tests.service.two_processes import PROCESS_HEADER, shared_two_api_processes

two_api_processes = shared_two_api_processes  # the session's serve: the test kills no process

GAME = "kabuki-tricks"


async def _people(base_url: str, count: int) -> list[ApiClient]:
    tag = uuid.uuid4().hex[:6]
    return [await ApiClient.register(base_url, f"leave-{tag}-{n}") for n in range(count)]


async def _close(*clients: ApiClient) -> None:
    for client in clients:
        await client.close()


async def _until(check, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def _end_event(client: ApiClient, game_id: str, ready: asyncio.Event) -> dict:
    """The data of the first `end` message of the seat's stream."""
    async with client.http.stream("GET", f"/api/v1/games/{game_id}/stream", headers=client.headers) as r:
        assert r.status_code == 200
        ready.set()
        event = None
        async for line in r.aiter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "end":
                return json.loads(line.split(":", 1)[1])
    raise AssertionError("the stream ended without an end message")


async def test_the_creator_cancels_a_table_not_dealt_and_only_the_creator(server):
    host, guest = await _people(server.base_url, 2)
    try:
        game_id = await host.create_game(GAME, 3)
        await host.sit(game_id, 0)
        await guest.sit(game_id, 1)
        ready = asyncio.Event()
        told = asyncio.create_task(_end_event(guest, game_id, ready))
        await asyncio.wait_for(ready.wait(), 10)

        r = await guest.http.delete(f"/api/v1/games/{game_id}", headers=guest.headers)
        assert r.status_code == 403, r.text
        assert r.json()["code"] == "not_table_host"

        r = await host.http.delete(f"/api/v1/games/{game_id}", headers=host.headers)
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "cancelled"
        # The seated guest's stream says so at once.
        end = await asyncio.wait_for(told, 10)
        assert end["status"] == "cancelled"
        assert (await guest.game(game_id))["status"] == "cancelled"
        # Nobody sits at a cancelled table; cancelling again changes nothing.
        late = (await _people(server.base_url, 1))[0]
        r = await late.post(f"/api/v1/games/{game_id}/seats", {})
        assert r.status_code == 409 and r.json()["code"] == "table_cancelled", r.text
        await late.close()
        r = await host.http.delete(f"/api/v1/games/{game_id}", headers=host.headers)
        assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
        lobby = (await host.get("/api/v1/games", limit=100)).json()["games"]
        assert [g["status"] for g in lobby if g["game_id"] == game_id] == ["cancelled"]

        dealt = await host.create_game(GAME, 3)
        await host.sit(dealt, 0)
        for seat in (1, 2):
            r = await host.post(f"/api/v1/games/{dealt}/bots", {"seat": seat, "bot": "random"})
            assert r.status_code == 200, r.text
        r = await host.http.delete(f"/api/v1/games/{dealt}", headers=host.headers)
        assert r.status_code == 409 and r.json()["code"] == "already_started", r.text
    finally:
        await _close(host, guest)


async def test_leaving_before_the_deal_opens_the_seat_again(server):
    host, guest, other = await _people(server.base_url, 3)
    try:
        game_id = await host.create_game(GAME, 3)
        await host.sit(game_id, 0)
        await guest.sit(game_id, 1)
        r = await guest.post(f"/api/v1/games/{game_id}/leave")
        assert r.status_code == 200, r.text
        assert r.json()["your_seat"] is None and r.json()["seats"][1]["taken"] is False
        info = await host.game(game_id)
        assert info["status"] == "open" and info["seats"][1]["taken"] is False
        r = await guest.post(f"/api/v1/games/{game_id}/leave")
        assert r.status_code == 409 and r.json()["code"] == "not_seated", r.text
        # The freed seat is anyone's, and the table deals once full.
        assert (await other.sit(game_id, 1))["your_seat"] == 1
        r = await host.post(f"/api/v1/games/{game_id}/bots", {"seat": 2, "bot": "random"})
        assert r.status_code == 200 and r.json()["status"] == "playing", r.text
    finally:
        await _close(host, guest, other)


async def test_leaving_a_game_in_progress_hands_the_seat_to_a_bot_ranked_last(server):
    (host,) = await _people(server.base_url, 1)
    try:
        game_id = await host.create_game(GAME, 3)
        await host.sit(game_id, 0)
        for seat in (1, 2):
            r = await host.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
            assert r.status_code == 200, r.text
        r = await host.post(f"/api/v1/games/{game_id}/leave")
        assert r.status_code == 200, r.text
        assert r.json()["seats"][0]["bot"] is not None
        # Again: nothing more happens (the seat is the bot's already).
        r = await host.post(f"/api/v1/games/{game_id}/leave")
        assert r.status_code == 200, r.text

        async def finished():
            info = await host.game(game_id)
            return info if info["status"] == "finished" else None

        info = await _until(finished, "the bots to finish the game")
        assert info["result"]["forfeited"] == [0]
        assert info["result"]["table_places"][0] == 3
        events = (await host.get(f"/api/v1/games/{game_id}/events")).json()["events"]
        handed = [e["event"] for e in events if e["event"]["type"] == "hm.seat_handed_to_bot"]
        assert [(e["seat"], e["reason"]) for e in handed] == [(0, "left the game")]
    finally:
        await host.close()


def test_a_seat_left_or_given_to_a_bot_at_one_process_is_seen_at_the_other_at_once(two_api_processes):  # noqa: F811
    with two_api_processes.fresh_client() as http:
        auths = []
        for n in range(2):
            r = http.post("/api/v1/players", json={"name": f"leave2p-{uuid.uuid4().hex[:6]}-{n}"})
            assert r.status_code == 201, r.text
            auths.append({"Authorization": f"Bearer {r.json()['token']}"})
        host, guest = auths
        answered = set()
        for _ in range(6):
            r = http.post("/api/v1/games", json={"game": GAME, "players": 4}, headers=host)
            game_id = r.json()["game_id"]
            assert http.post(f"/api/v1/games/{game_id}/seats", json={"seat": 0}, headers=host).status_code == 200
            assert http.post(f"/api/v1/games/{game_id}/seats", json={"seat": 1}, headers=guest).status_code == 200
            r = http.post(f"/api/v1/games/{game_id}/leave", headers=guest)
            assert r.status_code == 200, r.text
            answered.add(r.headers[PROCESS_HEADER])
            for _read in range(4):
                r = http.get(f"/api/v1/games/{game_id}", headers=guest)
                answered.add(r.headers[PROCESS_HEADER])
                assert r.json()["seats"][1]["taken"] is False and r.json()["your_seat"] is None
            r = http.post(f"/api/v1/games/{game_id}/bots", json={"seat": 1, "bot": "random"}, headers=host)
            assert r.status_code == 200, r.text
            for _read in range(4):
                r = http.get(f"/api/v1/games/{game_id}", headers=guest)
                answered.add(r.headers[PROCESS_HEADER])
                assert r.json()["seats"][1]["bot"] == "random", r.text
            # The seat the bot holds is taken at both: nobody else sits there.
            r = http.post(f"/api/v1/games/{game_id}/seats", json={"seat": 1}, headers=guest)
            assert r.status_code == 409, r.text
            assert http.delete(f"/api/v1/games/{game_id}", headers=host).status_code == 200
        assert len(answered) == 2, answered


async def test_an_untimed_table_nobody_moves_at_ends_with_its_people_ranked_last(server, server_env, tmp_path):
    people = await _people(server.base_url, 2)
    host, guest = people
    worker = WorkerProcess({**server_env, "HANAMICHI_STALE_TABLE_S": "2"}, tmp_path / "worker.log").start()
    try:
        game_id = await host.create_game(GAME, 3)
        await host.sit(game_id, 0)
        await guest.sit(game_id, 1)
        r = await host.post(f"/api/v1/games/{game_id}/bots", {"seat": 2, "bot": "random"})
        assert r.status_code == 200 and r.json()["status"] == "playing", r.text

        async def finished():
            info = await host.game(game_id)
            return info if info["status"] == "finished" else None

        info = await _until(finished, f"the sweep to end the table; worker log:\n{worker.tail()}", timeout=120)
        assert info["result"]["forfeited"] == [0, 1]
        assert info["result"]["table_places"][2] == 1
        assert info["result"]["table_places"][:2] == [2, 2]
        events = (await host.get(f"/api/v1/games/{game_id}/events")).json()["events"]
        handed = [e["event"] for e in events if e["event"]["type"] == "hm.seat_handed_to_bot"]
        reasons = {e["seat"]: e["reason"] for e in handed}
        assert reasons == {0: "no move for too long", 1: "no move for too long"}
    finally:
        worker.stop()
        await _close(*people)
