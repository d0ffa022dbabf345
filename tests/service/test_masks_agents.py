"""Agents at Kabuki masks tables get their turn when they can act
(KM-2, KM-3). Over real HTTP, with a server and a worker
process: a placer's turn (a push call, a pull agent's `your_turn`) comes once
the stop window has passed, with `place` among its legal actions, and its
clock starts then; before the fix it came right after the previous card, when
every place was refused `too_early`. A seat that may call Stop without being
awaited is offered the chance (an optional push call, a `your_chance` event),
with no deadline and no strike for letting it pass."""

from __future__ import annotations

import asyncio
import json
import time

import asyncpg
import httpx
import pytest

from tests.service.agent_harness import Stack, export_events, push_agent, register_agent, wait_for
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAME = "kabuki-masks"
WINDOW_MS = 150  # short, so a whole game fits in a test


@pytest.fixture(scope="module")
def stack(server_env, session_agent_api, tmp_path_factory):
    """A worker of the module's own beside the session's agent API (tests/conftest.py)."""
    stack = Stack(server_env, tmp_path_factory.mktemp("masks-agents"), server=session_agent_api).start()
    yield stack
    stack.stop()


async def _table(owner: ApiClient, agent: ApiClient, players: int, move_ms: int) -> str:
    r = await owner.post(
        "/api/v1/games",
        {
            "game": GAME,
            "players": players,
            "options": {"stop_window_ms": WINDOW_MS},
            "time_control": {"move_ms": move_ms, "bank_ms": 1000},
        },
    )
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    await agent.sit(game_id, 0)
    for seat in range(1, players):
        r = await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
        assert r.status_code == 200, r.text
    return game_id


def _played_for(events: list[dict], seat: int) -> list[dict]:
    return [e["event"] for e in events if e["type"] == "hm.move_played_for_seat" and e["event"]["seat"] == seat]


def _of(events: list[dict], kind: str, seat: int) -> list[dict]:
    return [e["event"] for e in events if e["type"] == kind and e["event"].get("seat") == seat]


async def _agent_turns(database_url: str, game_id: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(database_url)
    try:
        return await conn.fetch(
            "SELECT version, committed_ms, sent_ms, outcome, detail FROM agent_turns"
            " WHERE game_id = $1::text::uuid AND seat = 0 ORDER BY version",
            game_id,
        )
    finally:
        await conn.close()


async def test_a_push_agent_is_called_when_it_may_place_and_never_refused_too_early(stack, database_url):
    """A random push agent (it answers any of legal_actions) with two random
    house bots: before the fix it was called right after the previous card
    with `place` listed, and its places were refused `too_early` (strikes).
    Now every answer is used, its turns were sent once the window had
    passed, and the optional Stop offers were taken."""
    owner = await ApiClient.register(stack.base_url, "masks push author")
    created, process = await push_agent(owner, "good", GAME)
    try:
        agent = ApiClient(stack.base_url, token=created["token"])
        game_id = await _table(owner, agent, 3, 2000)

        async def finished():
            return (await owner.game(game_id))["status"] == "finished"

        await wait_for(finished, 120, 0.5)
        events = await export_events(stack.base_url, game_id)
        assert events[-1]["type"] == "hm.game_finished"
        assert _played_for(events, 0) == []  # nothing refused, nothing timed out
        placed = _of(events, "km.placed", 0)
        assert placed, "the agent placed no card"
        turns = await _agent_turns(database_url, game_id)
        # `stale`: the table moved on while it thought (a Stop by anyone,
        # its own optional one included), so its answer could not apply; never a strike.
        assert turns and {t["outcome"] for t in turns} <= {"ok", "stale"}, [dict(t) for t in turns]
        assert [t for t in turns if t["outcome"] == "ok"]
        assert not [t for t in turns if "too_early" in t["detail"]]
        # Each turn was sent once the window of the round's latest card was
        # over (KM-3), not at the commit that made it the placer.
        by_version = {e["version"]: e for e in events}
        for t in turns:
            latest = None
            for v in range(1, t["version"] + 1):
                if by_version[v]["type"] == "km.round_started":
                    latest = None
                elif by_version[v]["type"] == "km.placed":
                    latest = by_version[v]["event"]
            if latest is not None:
                assert t["sent_ms"] >= latest["placed_at_ms"] + WINDOW_MS, (dict(t), latest)
        # The optional offers: the random agent takes every chance it is
        # offered, so its Stops are in the log.
        assert [e for e in events if e["type"] == "km.stopped" and e["event"]["caller"] == 0]
    finally:
        process.stop()


async def test_a_pull_agent_gets_your_turn_when_it_may_place_and_your_chance_to_stop(stack, database_url):
    """The agent's own stream, read here: `your_chance` offers Stop while the
    window is open (taken every time), `your_turn` comes when place is legal
    at the server's clock, and every place sent on it is accepted. Before the
    fix `your_turn` came inside the window, when GET listed no place."""
    owner = await ApiClient.register(stack.base_url, "masks pull author")
    created = await register_agent(owner, "masks-puller", [GAME], mode="pull")
    agent = ApiClient(stack.base_url, token=created["token"])
    game_id = await _table(owner, agent, 2, 2000)
    seen = {"your_turn": 0, "your_chance": 0, "placed": 0, "stopped": 0}
    refusals: list[str] = []

    async def answer(event: str, data: dict) -> bool:
        if data.get("game_id") != game_id:
            return False
        if event == "game_ended":
            return True
        if event not in ("your_turn", "your_chance"):
            return False
        seen[event] += 1
        info = await agent.game(game_id)
        if event == "your_chance":
            assert data["legal_actions"] and all(a["type"] == "stop" for a in data["legal_actions"]), data
            assert "deadline_ms" not in data
            action = data["legal_actions"][0]
        else:
            places = [a for a in info["legal_actions"] if a["type"] == "place"]
            if info["version"] == data["version"] and info["view"]["placer"] == 0:
                # Told once it may place: GET lists place, by the server's clock.
                assert places, (data, info)
                assert time.time() * 1000 >= (info["view"]["may_place_at_ms"] or 0), info
            if not places:
                return False
            action = places[0]
        r = await agent.act(
            game_id, action, command_id=f"{game_id}:{info['version']}:{event}", expected_version=info["version"]
        )
        if r.status_code == 200:
            seen["placed" if action["type"] == "place" else "stopped"] += 1
        elif r.json()["code"] not in ("version_conflict", "already_called", "no_placement", "too_late"):
            refusals.append(r.text)  # a place refused too_early, say
        return False

    async with (
        httpx.AsyncClient(base_url=stack.base_url, timeout=httpx.Timeout(60, read=30)) as http,
        http.stream("GET", "/api/v1/agents/me/stream", headers=agent.headers) as r,
    ):
        assert r.status_code == 200
        event = None
        async with asyncio.timeout(120):
            async for line in r.aiter_lines():
                if line.startswith("event:"):
                    event = line.partition(":")[2].strip()
                elif line.startswith("data:") and event and await answer(event, json.loads(line.partition(":")[2])):
                    break
    assert refusals == []
    assert seen["your_turn"] and seen["placed"] and seen["your_chance"] and seen["stopped"], seen
    events = await export_events(stack.base_url, game_id)
    assert events[-1]["type"] == "hm.game_finished"
    assert _played_for(events, 0) == []
    turns = await _agent_turns(database_url, game_id)
    assert turns and {t["outcome"] for t in turns} == {"ok"}, [dict(t) for t in turns]
    assert not [t for t in turns if t["detail"]]  # no refusal noted on any turn
