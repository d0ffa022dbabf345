"""Bot agents over real HTTP: a server and a worker process, agents as their
own processes (the example agent and misbehaving variants) on real ports.

One bots-only tournament seats five agents at one table for two rounds: a
good push agent, a slow one, one that crashes mid-game, one that answers
garbage and illegal moves, and a pull agent (the example agent in pull
mode). Every game finishes; every misbehaviour is in the log with its reason
and strike count; every answer of the good agent is used."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from tests.service.agent_harness import (
    PullAgentProcess,
    Stack,
    export_events,
    push_agent,
    register_agent,
    wait_for,
)
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAME = "kabuki-tricks"


@pytest.fixture(scope="module")
def stack(server_env, session_agent_api, tmp_path_factory):
    """A worker of the module's own beside the session's agent API (tests/conftest.py)."""
    stack = Stack(server_env, tmp_path_factory.mktemp("agents"), server=session_agent_api).start()
    yield stack
    stack.stop()


def _moves_for_seat(events: list[dict], seat: int) -> list[tuple[str, int]]:
    return [
        (e["event"]["reason"], e["event"]["strikes"])
        for e in events
        if e["type"] == "hm.move_played_for_seat" and e["event"]["seat"] == seat
    ]


def _handed(events: list[dict], seat: int) -> bool:
    return any(e["type"] == "hm.seat_handed_to_bot" and e["event"]["seat"] == seat for e in events)


async def test_tournament_of_five_agents_every_misbehaviour_recorded(stack, database_url):
    owner = await ApiClient.register(stack.base_url, "author")
    processes = []
    try:
        good, p = await push_agent(owner, "good")
        processes.append(p)
        slow, p = await push_agent(owner, "slow", GAME, "--delay-ms", "800")
        processes.append(p)
        crash, p = await push_agent(owner, "crash", GAME, "--after", "6")
        processes.append(p)
        garbage, p = await push_agent(owner, "garbage")
        processes.append(p)
        pull = await register_agent(owner, "pull-agent", [GAME], mode="pull")
        assert "secret" not in pull and pull["mode"] == "pull"
        processes.append(PullAgentProcess(stack.base_url, pull["token"]))

        start_ms = int(time.time() * 1000) + 2500
        r = await owner.post(
            "/api/v1/tournaments",
            {
                "game": GAME,
                "start_ms": start_ms,
                "table_size": 5,
                "format": "swiss",
                "rounds": 2,
                "bots": "bots_only",
                "min_entrants": 5,
                "max_entrants": 5,
                "ranked": True,
                "time_control": {"move_ms": 500, "bank_ms": 500},
            },
        )
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        agents = {"good": good, "slow": slow, "crash": crash, "garbage": garbage, "pull": pull}
        for agent in agents.values():
            r = await owner.post(f"/api/v1/agents/{agent['agent_id']}/tournaments/{tid}")
            assert r.status_code == 200, r.text
        # A person may not enter a bots-only tournament.
        r = await owner.post(f"/api/v1/tournaments/{tid}/registrations")
        assert r.status_code in (409, 422) and r.json()["code"] == "kind_not_allowed"

        async def finished():
            r = await owner.get(f"/api/v1/tournaments/{tid}")
            return r.json()["status"] == "finished"

        await wait_for(finished, 150, 0.5)

        seat_of: dict[str, list[tuple[str, int]]] = {}  # agent kind -> [(game id, seat)]
        ids = {a["agent_id"]: kind for kind, a in agents.items()}
        for round_no in (1, 2):
            tables = (await owner.get(f"/api/v1/tournaments/{tid}/rounds/{round_no}")).json()["tables"]
            assert len(tables) == 1
            for seat, entrant in enumerate(tables[0]["seats"]):
                seat_of.setdefault(ids[entrant], []).append((tables[0]["game_id"], seat))

        conn = await asyncpg.connect(database_url)
        try:
            turns = await conn.fetch(
                "SELECT agent_id::text AS agent_id, game_id::text AS game_id, seat, outcome, used_ms, overdraft_ms,"
                " version"
                " FROM agent_turns WHERE agent_id = ANY($1::text[]::uuid[]) ORDER BY game_id, version",
                [a["agent_id"] for a in agents.values()],
            )
        finally:
            await conn.close()

        def outcomes(kind: str, game_id: str) -> list[str]:
            return [
                t["outcome"] for t in turns if t["agent_id"] == agents[kind]["agent_id"] and t["game_id"] == game_id
            ]

        for round_no in range(2):
            game_id = seat_of["good"][round_no][0]
            events = await export_events(stack.base_url, game_id)
            assert events[-1]["type"] == "hm.game_finished"  # every game finishes

            # The good agent: every answer used, nothing played for it.
            seat = seat_of["good"][round_no][1]
            assert _moves_for_seat(events, seat) == []
            assert outcomes("good", game_id) and set(outcomes("good", game_id)) == {"ok"}

            # The slow agent (800 ms a move; 500 ms a move + 500 ms bank): its
            # first answer fits with the bank, then the bank is gone and it
            # times out three times in a row; a house bot finishes its game.
            seat = seat_of["slow"][round_no][1]
            assert _moves_for_seat(events, seat) == [("timeout", 1), ("timeout", 2), ("timeout", 3)]
            assert _handed(events, seat)
            assert outcomes("slow", game_id) == ["ok", "timeout", "timeout", "timeout"]
            first = next(t for t in turns if t["game_id"] == game_id and t["agent_id"] == slow["agent_id"])
            assert 250 <= first["overdraft_ms"] <= 500  # taken from the bank

            # The crashing agent: answered 6 calls in round 1, then died mid-call.
            seat = seat_of["crash"][round_no][1]
            assert _moves_for_seat(events, seat) == [("unreachable", 1), ("unreachable", 2), ("unreachable", 3)]
            assert _handed(events, seat)
            assert outcomes("crash", game_id)[-3:] == ["unreachable"] * 3
            if round_no == 0:
                assert outcomes("crash", game_id)[:-3] == ["ok"] * 6

            # Garbage, a good move, an illegal move, garbage, an illegal move:
            # the good move ends the first run of strikes.
            seat = seat_of["garbage"][round_no][1]
            assert _moves_for_seat(events, seat) == [
                ("invalid_response", 1),
                ("illegal_action", 1),
                ("invalid_response", 2),
                ("illegal_action", 3),
            ]
            assert _handed(events, seat)
            assert outcomes("garbage", game_id) == [
                "invalid_response",
                "ok",
                "illegal_action",
                "invalid_response",
                "illegal_action",
            ]

            # The pull agent played every move itself, through the same API as a person.
            seat = seat_of["pull"][round_no][1]
            assert _moves_for_seat(events, seat) == []
            assert not _handed(events, seat)

        # Ratings: agents are listed apart from people and house bots.
        async def rated():
            board = (await owner.get(f"/api/v1/leaderboards/{GAME}")).json()
            return board if {r["rated_id"] for r in board.get("agents", [])} >= set(ids) else None

        board = await wait_for(rated, 30, 0.5)
        assert all(r["kind"] == "agent" for r in board["agents"])
        assert not set(ids) & {r["rated_id"] for r in board["players"]}
    finally:
        for process in processes:
            process.stop()


async def test_sparring_report_and_owner_controls(stack):
    owner = await ApiClient.register(stack.base_url, "sparring author")
    good, process = await push_agent(owner, "good")
    try:
        agent_id = good["agent_id"]
        r = await owner.post(
            f"/api/v1/agents/{agent_id}/sparring", {"game": GAME, "games": 3, "players": 3, "bot": "heuristic"}
        )
        assert r.status_code == 201, r.text
        sid = r.json()["sparring_id"]
        assert len(r.json()["game_ids"]) == 3

        async def done():
            report = (await owner.get(f"/api/v1/agents/{agent_id}/sparring/{sid}")).json()
            return report if report["status"] == "done" else None

        report = await wait_for(done, 60, 0.5)
        assert report["finished"] == 3 and report["mean_score"] is not None
        assert report["strikes"] == {"total": 0, "by_reason": {}, "games_handed_to_bot": 0}
        assert report["answer_time_ms"]["count"] > 0
        assert 0 < report["answer_time_ms"]["p50"] <= report["answer_time_ms"]["p99"]
        assert [g["seat"] for g in report["results"]] == [0, 1, 2]

        # Another person cannot read or steer it.
        stranger = await ApiClient.register(stack.base_url, "stranger")
        assert (await stranger.get(f"/api/v1/agents/{agent_id}/sparring/{sid}")).status_code == 404
        assert (await stranger.post(f"/api/v1/agents/{agent_id}/pause")).status_code == 404

        listed = (await owner.get("/api/v1/agents")).json()
        assert [a["agent_id"] for a in listed] == [agent_id] and "secret" not in listed[0]
        r = await owner.post(f"/api/v1/agents/{agent_id}/pause")
        assert r.status_code == 200 and r.json()["status"] == "paused"
        r = await owner.post(f"/api/v1/agents/{agent_id}/sparring", {"game": GAME, "games": 1})
        assert r.status_code == 409 and r.json()["code"] == "agent_paused"
        r = await owner.post(f"/api/v1/agents/{agent_id}/resume")
        assert r.json()["status"] == "active"
        r = await owner.post(f"/api/v1/agents/{agent_id}/sparring", {"game": "cahoots", "games": 1})
        assert r.status_code == 422 and r.json()["code"] == "game_not_declared"

        # An agent cannot register agents; its token works until it is deleted.
        bot = ApiClient(stack.base_url, token=good["token"])
        r = await bot.post("/api/v1/agents", {"name": "child", "games": [GAME], "mode": "pull"})
        assert r.status_code == 403 and r.json()["code"] == "owner_must_be_human"
        assert (await bot.get("/api/v1/agents/me")).json()["agent_id"] == agent_id
        r = await owner.http.delete(f"/api/v1/agents/{agent_id}", headers=owner.headers)
        assert r.status_code == 200
        assert (await bot.get("/api/v1/agents/me")).status_code == 401
        assert (await owner.get("/api/v1/agents")).json() == []
    finally:
        process.stop()


async def test_rate_limit_spares_moves_in_own_games(stack):
    owner = await ApiClient.register(stack.base_url, "limited author")
    created = await register_agent(owner, "chatty", [GAME], mode="pull")
    bot = ApiClient(stack.base_url, token=created["token"])
    game_id = await owner.create_game(GAME, 2)
    await owner.sit(game_id, 0)
    await bot.sit(game_id, 1)
    codes = [(await bot.get("/api/v1/games/catalog")).status_code for _ in range(45)]
    assert codes[:30].count(200) == 30 and 429 in codes
    r = await bot.get("/api/v1/agents/me")
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert int(r.headers["Retry-After"]) == r.json()["retry_after_s"] >= 1
    # Its own game: reading and moving are never limited.
    for _ in range(5):
        info = await bot.game(game_id)
    if info["legal_actions"]:
        r = await bot.act(game_id, info["legal_actions"][0], expected_version=info["version"])
        assert r.status_code == 200, r.text
    # People are not limited by the agent limiter.
    assert (await owner.get("/api/v1/games/catalog")).status_code == 200


async def test_pull_stream_announces_games_turns_and_keepalive(stack):
    owner = await ApiClient.register(stack.base_url, "stream author")
    created = await register_agent(owner, "listener", [GAME], mode="pull")
    import json

    import httpx

    messages: list[tuple[str, dict]] = []
    comments = []

    async def read():
        async with (
            httpx.AsyncClient(base_url=stack.base_url, timeout=httpx.Timeout(30, read=30)) as http,
            http.stream(
                "GET", "/api/v1/agents/me/stream", headers={"Authorization": f"Bearer {created['token']}"}
            ) as r,
        ):
            assert r.status_code == 200
            event = None
            async for line in r.aiter_lines():
                if line.startswith(":"):
                    comments.append(line)
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    messages.append((event, json.loads(line[5:])))

    reader = asyncio.create_task(read())
    try:
        await asyncio.sleep(0.5)
        game_id = await owner.create_game(GAME, 2)
        bot = ApiClient(stack.base_url, token=created["token"])
        await bot.sit(game_id, 1)
        await owner.sit(game_id, 0)

        async def seen(kind):
            return any(e == kind and d.get("game_id") == game_id for e, d in messages)

        await wait_for(lambda: seen("game_started"), 10, 0.1)
        started = next(d for e, d in messages if e == "game_started")
        assert started["seat"] == 1 and started["game"] == GAME
        # Play the game out: the owner by hand, the agent on each your_turn.
        import random

        rng = random.Random(3)
        while True:
            info = await owner.game(game_id)
            if info["status"] == "finished":
                break
            mine = await bot.game(game_id)
            if mine["legal_actions"]:
                await wait_for(lambda: seen("your_turn"), 10, 0.05)
                await bot.act(game_id, rng.choice(mine["legal_actions"]), expected_version=mine["version"])
            elif info["legal_actions"]:
                await owner.act(game_id, rng.choice(info["legal_actions"]), expected_version=info["version"])
            await asyncio.sleep(0)
        await wait_for(lambda: seen("game_ended"), 10, 0.1)
        turns = [d["version"] for e, d in messages if e == "your_turn" and d["game_id"] == game_id]
        assert turns == sorted(set(turns)) and len(turns) > 3
        await wait_for(lambda: asyncio.sleep(0, bool(comments)), 12, 0.2)  # keep-alive every 5 s
    finally:
        reader.cancel()
