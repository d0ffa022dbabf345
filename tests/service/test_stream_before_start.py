"""A seat's own stream opened before the game starts stays
open and delivers the start and the first `turn`; a stream opened before
taking a seat delivers that seat's events once seated."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from tests.service.client import ApiClient, SseReader

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _until(predicate, timeout: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


async def test_streams_opened_before_the_start_deliver_the_seat_events(server):
    tag = uuid.uuid4().hex[:6]
    people = [await ApiClient.register(server.base_url, f"early{tag}{i}") for i in range(4)]
    readers: list[SseReader] = []
    try:
        game_id = await people[0].create_game("kabuki-tricks", 4)
        for seat in range(3):
            await people[seat].sit(game_id, seat)
        # Seats 0-2 seated, seat 3 not yet: all four streams open before the start.
        readers = [SseReader(server.base_url, game_id, p.token).start() for p in people]
        await asyncio.sleep(0.3)  # let the streams subscribe (a late one would still catch up)
        await people[3].sit(game_id, 3)
        info = await people[0].game(game_id)
        first = info["to_act"][0]
        await _until(lambda: any(m.get("event") == "turn" for m in readers[first].messages))
        turn = next(m for m in readers[first].messages if m.get("event") == "turn")
        legal = (await people[first].game(game_id))["legal_actions"]
        # The turn is a receipt too: the log's chain hash at that version.
        seen = (await people[first].get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
        head = next(e["hash"] for e in seen if e["version"] == info["version"])
        assert turn["data"] == {"version": info["version"], "legal_actions": legal, "chain_head": head}
        # The dealer deals: every seat's stream carries what that seat may see,
        # exactly as its own GET /events says (its own hand, nobody else's).
        r = await people[first].act(game_id, legal[0])
        assert r.status_code == 200, r.text
        version = r.json()["version"]
        for seat, (person, reader) in enumerate(zip(people, readers, strict=True)):
            await _until(lambda reader=reader: any(e["version"] == version for e in reader.game_events))
            mine = (await person.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
            assert reader.game_events[: len(mine)] == mine, f"seat {seat}'s stream differs from its events"
            assert reader.reconnects == 0, f"seat {seat}'s stream was cut"
        spectator = (await ApiClient(server.base_url).get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
        assert readers[3].game_events[: len(spectator)] != spectator  # seat 3 sees its own hand
    finally:
        for reader in readers:
            await reader.stop()
        for p in people:
            await p.close()
