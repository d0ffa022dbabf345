"""The routes for watching: spectator counts over several API
processes (GET /api/v1/games/{id}, GET /api/v1/live) and a player's games
(GET /api/v1/players/{id}/games), against real servers, PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import random
import time
import uuid

import pytest

from tests.service.client import ApiClient, SseReader, play_randomly

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _until(check, timeout: float = 15.0):
    """Wait for `check()` (async) to return a truthy value; fail with the last one."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value or time.monotonic() > deadline:
            return value
        await asyncio.sleep(0.05)


async def _table_of_two(base_url: str) -> tuple[str, list[ApiClient]]:
    clients = [await ApiClient.register(base_url, f"w{i}") for i in range(2)]
    game_id = await clients[0].create_game("kabuki-tricks", 2)
    for seat, client in enumerate(clients):
        await client.sit(game_id, seat)
    return game_id, clients


@pytest.fixture
def second_server(session_two_api_processes):
    """API processes other than `server`'s on the same database and Redis:
    the session's `serve --processes 2` (tests/conftest.py)."""
    return session_two_api_processes


async def test_spectators_are_counted_over_two_api_processes_and_order_the_live_list(server, second_server):
    watched, players = await _table_of_two(server.base_url)
    quiet, others = await _table_of_two(server.base_url)
    at_a = [SseReader(server.base_url, watched).start() for _ in range(2)]
    at_b = [SseReader(second_server.base_url, watched).start(), SseReader(second_server.base_url, quiet).start()]
    # A seat's own stream is a player's, not a spectator's.
    seat_stream = SseReader(server.base_url, watched, token=players[0].token).start()
    readers = [*at_a, *at_b, seat_stream]
    try:

        async def counts_everywhere(game_id, n):
            got = [(await ApiClient(s.base_url).game(game_id))["spectators"] for s in (server, second_server)]
            return got == [n, n] or None

        assert await _until(lambda: counts_everywhere(watched, 3)), "3 spectators (2 at A, 1 at B) seen from both"
        assert await _until(lambda: counts_everywhere(quiet, 1))

        async def live_order(base_url):
            r = await ApiClient(base_url).get("/api/v1/live", limit=50)
            assert r.status_code == 200, r.text
            ids = [t["game_id"] for t in r.json()["tables"]]
            return ids if watched in ids and quiet in ids and ids.index(watched) < ids.index(quiet) else None

        for base in (server.base_url, second_server.base_url):
            assert await _until(lambda base=base: live_order(base)), "the most watched first"
        live = (await ApiClient(server.base_url).get("/api/v1/live", limit=50)).json()
        row = next(t for t in live["tables"] if t["game_id"] == watched)
        assert row["spectators"] == 3 and row["game"] == "kabuki-tricks" and row["view"] is not None
        assert all(s["taken"] for s in row["seats"])

        # A spectator who leaves is no longer counted, at either process.
        await at_b[0].stop()
        assert await _until(lambda: counts_everywhere(watched, 2))
    finally:
        for reader in readers:
            await reader.stop()


async def test_live_list_refuses_an_unknown_game_and_a_bad_limit(server):
    client = ApiClient(server.base_url)
    r = await client.get("/api/v1/live", game="chess")
    assert r.status_code == 400 and r.json()["code"] == "unknown_game"
    r = await client.get("/api/v1/live", limit=0)
    assert r.status_code == 400 and r.json()["code"] == "bad_request"


async def test_a_players_games_show_status_place_and_score_once_finished(server):
    game_id, players = await _table_of_two(server.base_url)
    client = ApiClient(server.base_url)

    r = await client.get(f"/api/v1/players/{players[1].player_id}/games")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["name"] == players[1].name and body["kind"] == "human"
    row = next(g for g in body["games"] if g["game_id"] == game_id)
    assert (row["status"], row["seat"], row["place"], row["score"]) == ("playing", 1, None, None)

    await asyncio.gather(*(play_randomly(c, game_id, random.Random(i)) for i, c in enumerate(players)))
    result = (await client.game(game_id))["result"]
    for seat, p in enumerate(players):
        row = next(
            g
            for g in (await client.get(f"/api/v1/players/{p.player_id}/games")).json()["games"]
            if g["game_id"] == game_id
        )
        assert row["status"] == "finished" and row["finished_at_ms"] is not None
        assert (row["place"], row["score"]) == (result["table_places"][seat], result["scores"][seat])


async def test_a_players_games_page_newest_first_with_a_cursor(server):
    me = await ApiClient.register(server.base_url, "pager")
    made = []
    for _ in range(3):
        made.append(await me.create_game("kabuki-tricks", 2))
        await me.sit(made[-1], 0)
    first = (await me.get(f"/api/v1/players/{me.player_id}/games", limit=2)).json()
    assert [g["game_id"] for g in first["games"]] == made[::-1][:2] and first["next"]
    rest = (await me.get(f"/api/v1/players/{me.player_id}/games", limit=2, before=first["next"])).json()
    assert [g["game_id"] for g in rest["games"]] == made[:1] and rest["next"] is None


async def test_a_players_games_404_for_unknown_or_malformed_ids_and_400_for_a_bad_cursor(server):
    client = ApiClient(server.base_url)
    for player_id in (str(uuid.uuid4()), "not-a-uuid"):
        r = await client.get(f"/api/v1/players/{player_id}/games")
        assert r.status_code == 404 and r.json()["code"] == "player_not_found", r.text
    me = await ApiClient.register(server.base_url, "cursor")
    r = await client.get(f"/api/v1/players/{me.player_id}/games", before="yesterday")
    assert r.status_code == 400 and r.json()["code"] == "bad_cursor"
