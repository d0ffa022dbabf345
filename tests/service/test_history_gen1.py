"""GEN-1 through the service: the history of a game
in progress (events route, replay, an SSE stream's backlog) blanks what was
public only at its moment, for seats too, while a live stream shows it; and
`replay?at=N` answers at every version of a Tezuma Trick game."""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.service.client import ApiClient, SseReader, play_randomly

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _table(server, game: str, players: int) -> tuple[ApiClient, str]:
    person = await ApiClient.register(server.base_url, "historian")
    game_id = await person.create_game(game, players)
    await person.sit(game_id, 0)
    for seat in range(1, players):
        r = await person.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
        assert r.status_code == 200, r.text
    return person, game_id


async def test_tezuma_replay_answers_at_every_version(server):
    """Versions between a trick's last tt.played and its tt.trick_won
    answered 500 (IndexError in to_act)."""
    person, game_id = await _table(server, "tezuma-trick", 3)
    await asyncio.wait_for(play_randomly(person, game_id, random.Random(10), until_version=150), 120)
    info = await person.game(game_id)
    assert info["status"] == "playing", "the check below is about a game in progress"
    events = (await person.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
    types = {e["version"]: e["event"]["type"] for e in events}
    between = [v for v in types if types[v] == "tt.played" and types.get(v + 1) == "tt.trick_won"]
    assert between, "the game reached a trick's last card"
    for at in range(info["version"] + 1):
        for seat in (None, 0):
            params = {"at": at} if seat is None else {"at": at, "seat": seat}
            r = await person.get(f"/api/v1/games/{game_id}/replay", **params)
            assert r.status_code == 200, (at, seat, r.text)
    # GEN-1: a won trick's cards are blanked in a replay, for the seat too.
    for seat in (None, 0):
        params = {"at": between[0]} if seat is None else {"at": between[0], "seat": seat}
        view = (await person.get(f"/api/v1/games/{game_id}/replay", **params)).json()["view"]
        assert view["trick"] and all(play["cards"] == [] for play in view["trick"]), view["trick"]
    await person.close()


async def test_kabuki_tricks_history_blanks_won_tricks_while_live_shows_them(server):
    person, game_id = await _table(server, "kabuki-tricks", 3)
    live = SseReader(server.base_url, game_id).start()  # opened before any card is played: all live

    async def live_opened() -> None:
        # start() only schedules the connection: wait for the stream's backlog
        # (the deal), or on a loaded machine the first tricks may be won before
        # it connects, and come to it as history, blanked.
        while not live.game_events:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(live_opened(), 30)
    await asyncio.wait_for(play_randomly(person, game_id, random.Random(4), until_version=40), 120)

    async def awaiting_the_person() -> dict:
        # The bots may still be moving: only once the table waits for seat 0
        # alone is the log still, so that the history read below ends at `now`
        # (a trick won after it would blank cards this test expects shown).
        while True:
            info = await person.game(game_id)
            if info["status"] != "playing" or info["to_act"] == [0]:
                return info
            await asyncio.sleep(0.02)

    info = await asyncio.wait_for(awaiting_the_person(), 60)
    assert info["status"] == "playing"
    now = info["version"]

    async def history(token_holder: ApiClient | None) -> list[dict]:
        client = token_holder or ApiClient(server.base_url)
        page = (await client.get(f"/api/v1/games/{game_id}/events", after=0)).json()
        if token_holder is None:
            await client.close()
        return [e for e in page["events"] if e["version"] <= now]

    for events in (await history(None), await history(person)):  # spectator, then seat 0
        won = [e for e in events if e["event"]["type"] == "kt.trick_won"]
        assert won and all(e["event"]["cards"] == [] for e in won)
        last_won = won[-1]["version"]
        played = [e for e in events if e["event"]["type"] == "kt.played"]
        assert all(e["event"]["card"] is None for e in played if e["version"] < last_won)
        # what is still on the table is shown (its moment lasts)
        on_table = [e for e in played if e["version"] > last_won]
        assert all(isinstance(e["event"]["card"], int) for e in on_table)

    # A stream resumed from an old Last-Event-ID gets the history, blanked ...
    resumed = SseReader(server.base_url, game_id)
    resumed.last_id = "0"
    resumed.start()
    try:

        async def caught_up() -> None:
            while not any(e["version"] >= now for e in resumed.game_events):
                await asyncio.sleep(0.02)

        await asyncio.wait_for(caught_up(), 30)
        old = [e for e in resumed.game_events if e["version"] <= now and e["event"]["type"] == "kt.played"]
        assert old and any(e["event"]["card"] is None for e in old)

        # ... while the stream that watched live saw every card at its moment.
        async def live_caught_up() -> None:
            while not any(e["version"] >= now for e in live.game_events):
                await asyncio.sleep(0.02)

        await asyncio.wait_for(live_caught_up(), 30)
        seen = [e for e in live.game_events if e["event"]["type"] in ("kt.played", "kt.trick_won")]
        assert all(e["event"].get("card", 0) is not None for e in seen)
        assert all(e["event"]["cards"] for e in seen if e["event"]["type"] == "kt.trick_won")
    finally:
        await resumed.stop()
        await live.stop()
    await person.close()
