"""Whole games over real HTTP against two API processes on one port (as
`serve` runs them), PostgreSQL and Redis: play, spectate, retry, race,
replay, export. Each request and each stream is a new connection, so the
players, their retries and races, and the spectators are spread over both
processes (each test checks that both answered)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator

import msgspec
import pytest

from engines.registry import get_game
from tests.service.client import ApiClient, SseReader, play_randomly
from tests.service.two_processes import FreshClients, TwoApiProcesses

pytestmark = pytest.mark.asyncio(loop_scope="session")

KT = get_game("kabuki-tricks")


@pytest.fixture
def api(session_two_api_processes) -> TwoApiProcesses:
    """`serve --processes 2 --no-worker`: the session's (tests/conftest.py),
    the tests kill no process."""
    return session_two_api_processes


@pytest.fixture
async def people(api) -> AsyncIterator[FreshClients]:
    """The test's clients, each request on a fresh connection; at the end,
    both API processes answered them."""
    crowd = FreshClients(api)
    yield crowd
    await crowd.close_and_check_both_answered()


async def _table_of_four(people: FreshClients) -> tuple[str, list[ApiClient]]:
    clients = [await people.register(f"p{i}") for i in range(4)]
    game_id = await clients[0].create_game("kabuki-tricks", 4)
    for seat, client in enumerate(clients):
        await client.sit(game_id, seat)
    return game_id, clients


async def test_four_players_and_three_sse_streams_see_every_event_once_in_order(api, people):
    game_id, clients = await _table_of_four(people)
    spectators = [SseReader(api.base_url, game_id, answered=people.answered).start() for _ in range(2)]
    seat_stream = SseReader(api.base_url, game_id, token=clients[1].token, answered=people.answered).start()
    await asyncio.gather(*(play_randomly(c, game_id, random.Random(i)) for i, c in enumerate(clients)))
    info = await clients[0].game(game_id)
    assert info["status"] == "finished"
    for reader in [*spectators, seat_stream]:
        await asyncio.wait_for(reader.ended.wait(), 30)
        await reader.stop()

    # Versions arrive strictly increasing, each once.
    for reader in [*spectators, seat_stream]:
        versions = [m["version"] for m in reader.game_events]
        assert versions == sorted(set(versions))
        assert versions[-1] == info["version"]

    # What each stream received is exactly what GET /events gives that viewer.
    public = (await people.anonymous().get(f"/api/v1/games/{game_id}/events", after=0)).json()
    assert [m["version"] for m in spectators[0].game_events] == [e["version"] for e in public["events"]]
    assert spectators[0].game_events == spectators[1].game_events

    # During play no spectator message carried a hand: each hand dealt to a
    # seat is only in that seat's own stream (checked against the full log).
    export = (await clients[0].get(f"/api/v1/games/{game_id}/export")).text.splitlines()
    full = [json.loads(line) for line in export]
    assert len(full) == info["version"]
    assert [e["version"] for e in full] == list(range(1, info["version"] + 1))


async def test_spectator_stream_during_play_shows_no_hand(api, people):
    game_id, clients = await _table_of_four(people)
    spectator = SseReader(api.base_url, game_id, answered=people.answered).start()
    seat0 = SseReader(api.base_url, game_id, token=clients[0].token, answered=people.answered).start()
    # Play part of the game, then read the streams while it is still running.
    await asyncio.gather(
        *(play_randomly(c, game_id, random.Random(10 + i), until_version=40) for i, c in enumerate(clients))
    )
    await asyncio.sleep(0.5)
    hands = [set((await c.game(game_id))["view"]["hand"]) for c in clients]
    assert all(hands), "every seat holds cards mid-round"
    assert spectator.game_events and seat0.game_events

    # Deal events: the seat's stream names its own hand, the spectator's none.
    def dealing(e: dict) -> bool:  # the engine's deals, not the table's hm.deal_seeded
        return "deal" in e["event"]["type"] and not e["event"]["type"].startswith("hm.")

    dealt_public = [e for e in spectator.game_events if dealing(e)]
    dealt_seat0 = [e for e in seat0.game_events if dealing(e)]
    assert dealt_public and dealt_seat0
    assert all(not any(e["event"]["hands"]) for e in dealt_public)
    assert any(hands[0] & set(_cards_in(e["event"])) for e in dealt_seat0)
    for e in dealt_public:
        assert not (set(_cards_in(e["event"])) & set().union(*hands))
    await spectator.stop()
    await seat0.stop()


def _cards_in(event: dict) -> list[int]:
    out = []
    for key in ("hand", "hands", "cards"):
        value = event.get(key)
        if isinstance(value, list):
            for item in value:
                out.extend(item if isinstance(item, list) else [item])
    return [c for c in out if isinstance(c, int)]


async def test_twenty_concurrent_submissions_for_one_turn_accept_exactly_one(people):
    game_id, clients = await _table_of_four(people)
    info = await clients[0].game(game_id)
    seat = info["to_act"][0]
    mover = clients[seat]
    mine = await mover.game(game_id)
    action = mine["legal_actions"][0]
    version = mine["version"]
    replies = await asyncio.gather(*(mover.act(game_id, action, expected_version=version) for _ in range(20)))
    codes = sorted(r.status_code for r in replies)
    assert codes.count(200) == 1 and codes.count(409) == 19, codes
    assert all(r.json()["code"] in ("version_conflict", "not_your_turn") for r in replies if r.status_code == 409)
    events = (await mover.get(f"/api/v1/games/{game_id}/events", after=0)).json()
    versions = [e["version"] for e in events["events"]]
    assert versions == list(range(1, events["version"] + 1)) or versions == sorted(set(versions))
    assert events["version"] == version + len(replies[[r.status_code for r in replies].index(200)].json()["events"])


async def test_a_retried_command_id_returns_the_first_outcome_and_appends_nothing(people):
    game_id, clients = await _table_of_four(people)
    info = await clients[0].game(game_id)
    mover = clients[info["to_act"][0]]
    mine = await mover.game(game_id)
    first = await mover.act(game_id, mine["legal_actions"][0], command_id="retry-me")
    assert first.status_code == 200
    again = await mover.act(game_id, mine["legal_actions"][0], command_id="retry-me")
    assert again.status_code == 200
    assert again.json() == first.json()
    assert (await mover.game(game_id))["version"] == first.json()["version"]


async def test_replay_and_export_rules(people):
    game_id, clients = await _table_of_four(people)
    anon = people.anonymous()
    # Export of a game in progress is refused.
    r = await anon.get(f"/api/v1/games/{game_id}/export")
    assert r.status_code == 409 and r.json()["code"] == "game_in_progress"
    # A seat's view of a game in progress is for that seat's player only.
    r = await clients[1].get(f"/api/v1/games/{game_id}/replay", at=1, seat=0)
    assert r.status_code == 403 and r.json()["code"] == "not_your_seat"
    r = await clients[0].get(f"/api/v1/games/{game_id}/replay", at=1, seat=0)
    assert r.status_code == 200 and r.json()["view"]["hand"]
    public = await anon.get(f"/api/v1/games/{game_id}/replay", at=1)
    assert public.status_code == 200 and not public.json()["view"]["hand"]
    await asyncio.gather(*(play_randomly(c, game_id, random.Random(i)) for i, c in enumerate(clients)))
    r = await anon.get(f"/api/v1/games/{game_id}/export")
    assert r.status_code == 200
    lines = [json.loads(line) for line in r.text.splitlines()]
    state = KT.fold([_decode(line["event"]) for line in lines if not line["type"].startswith("hm.")])
    assert KT.is_over(state)
    # The table's own record closes the log, in the same commit as the last move.
    assert lines[-1]["type"] == "hm.game_finished"
    assert lines[-1]["event"]["result"] == msgspec.to_builtins(KT.result(state))
    # After the game, any seat's view at any version is open to anyone.
    r = await anon.get(f"/api/v1/games/{game_id}/replay", at=10, seat=2)
    assert r.status_code == 200 and r.json()["view"]["hand"]


def _decode(event: dict):
    return msgspec.convert(event, KT.event_type)


async def test_openapi_lists_the_public_routes(api):
    client = ApiClient(api.base_url)  # one request: either process will do
    r = await client.get("/schema/openapi.json")
    await client.close()
    assert r.status_code == 200
    paths = r.json()["paths"]
    for route in (
        "/api/v1/players",
        "/api/v1/games",
        "/api/v1/games/{game_id}/actions",
        "/api/v1/games/{game_id}/stream",
        "/api/v1/games/{game_id}/replay",
        "/api/v1/games/{game_id}/export",
        "/api/v1/tournaments",
        "/api/v1/leaderboards/{game}",
        "/api/v1/agents",
        "/health",
        "/ready",
    ):
        assert route in paths, route
    assert "post" in paths["/api/v1/games/{game_id}/actions"]


async def test_server_command_ids_are_reserved(people):
    """A client may not take a house bot's or an agent's future command id
    (it would stall that seat): the server's prefixes are refused."""
    game_id, clients = await _table_of_four(people)
    info = await clients[0].game(game_id)
    mover = clients[info["to_act"][0]]
    action = (await mover.game(game_id))["legal_actions"][0]
    for command_id in ("bot:1:9", "agent:2:9", "auto:0:3", "timer:4", "start:"):
        r = await mover.act(game_id, action, command_id=command_id)
        assert r.status_code == 400 and r.json()["code"] == "bad_command_id", command_id
    assert (await mover.game(game_id))["version"] == info["version"]
