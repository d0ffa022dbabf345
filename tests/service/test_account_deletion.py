"""Leave and be forgotten (docs/privacy.md), against a real API server and
worker: a person deletes their account with their password; their
credentials and agents stop working, their finished games, exports,
standings and leaderboards show the pseudonym and never the name, their game
in progress goes on with a house bot; a log written in the old shape (names
inside hm.game_finished) is read with the current names; and a person
downloads their data without another seat's hidden cards."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid

import asyncpg
import httpx
import pytest

from services.app.upcast import pseudonym
from tests.conftest import ServerProcess, WorkerProcess, free_test_port
from tests.service.agent_harness import register_agent, wait_for
from tests.service.client import ApiClient, play_randomly

GAME = "kabuki-tricks"
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def stack(server_env, tmp_path_factory):
    server = ServerProcess(free_test_port(), server_env)
    worker = WorkerProcess(server_env, tmp_path_factory.mktemp("deletion") / "worker.log")
    server.start()
    worker.start()
    yield server
    worker.stop()
    server.stop()


async def _person(base_url: str, name: str) -> ApiClient:
    client = await ApiClient.register(base_url, name)
    r = await client.post("/api/v1/players/me/password", {"password": PASSWORD})
    assert r.status_code == 200, r.text
    return client


async def _finished_game(a: ApiClient, b: ApiClient, ranked: bool = False) -> str:
    game_id = await a.create_game(GAME, 2, ranked=ranked)
    await a.sit(game_id)
    await b.sit(game_id)
    rng = random.Random(7)
    await asyncio.gather(play_randomly(a, game_id, rng), play_randomly(b, game_id, random.Random(8)))
    return game_id


async def _delete(client: ApiClient, password: str) -> httpx.Response:
    return await client.http.request(
        "DELETE", "/api/v1/players/me", json={"password": password}, headers=client.headers
    )


async def _tournament_played_by(person: ApiClient, owner: ApiClient) -> str:
    """A one-round tournament of two: `person` against `owner`, played out."""
    r = await owner.post(
        "/api/v1/tournaments",
        {
            "game": GAME,
            "start_ms": int(time.time() * 1000) + 1500,
            "table_size": 2,
            "format": "swiss",
            "rounds": 1,
            "bots": "fill",
            "fill_to": 2,
            "max_entrants": 2,
            "min_entrants": 2,
            "time_control": {"move_ms": 2000, "bank_ms": 0},
        },
    )
    assert r.status_code == 201, r.text
    tid = r.json()["tournament_id"]
    for entrant in (person, owner):
        assert (await entrant.post(f"/api/v1/tournaments/{tid}/registrations")).status_code == 200

    async def table():
        r = await owner.get(f"/api/v1/tournaments/{tid}/rounds/1")
        game_id = r.status_code == 200 and r.json()["tables"] and r.json()["tables"][0].get("game_id")
        return game_id and (await owner.get(f"/api/v1/games/{game_id}")).status_code == 200 and game_id

    game_id = await wait_for(table, 60)
    await asyncio.gather(
        play_randomly(person, game_id, random.Random(3)), play_randomly(owner, game_id, random.Random(4))
    )

    async def finished():
        return (await owner.get(f"/api/v1/tournaments/{tid}")).json()["status"] == "finished"

    await wait_for(finished, 60)
    return tid


async def test_deleting_an_account(stack, database_url):
    base = stack.base_url
    alice, bob = await _person(base, "alice-deleting"), await _person(base, "bob-staying")
    agent = await register_agent(alice, "alice-agent", [GAME], mode="pull")
    finished = await _finished_game(alice, bob, ranked=True)
    tid = await _tournament_played_by(alice, bob)
    in_play = await alice.create_game(GAME, 2)
    await alice.sit(in_play)
    await bob.sit(in_play)
    signed_in = httpx.AsyncClient(base_url=base, timeout=30)
    r = await signed_in.post("/api/v1/session", json={"name": alice.name, "password": PASSWORD})
    assert r.status_code == 200, r.text

    async def rated():
        board = (await bob.get(f"/api/v1/leaderboards/{GAME}")).json()
        return any(p["rated_id"] == alice.player_id for p in board["players"])

    await wait_for(rated, 30)

    # Nothing the service wrote names anyone: a game's and a tournament's streams hold ids.
    conn = await asyncpg.connect(database_url)
    try:
        stored = await conn.fetch("SELECT data FROM events WHERE stream_id = ANY($1::text[])", [finished, tid])
    finally:
        await conn.close()
    assert stored and not any(alice.name.encode() in bytes(r["data"]) for r in stored)
    # Reads join the current names.
    assert {s["name"] for s in (await bob.game(finished))["seats"]} == {alice.name, bob.name}
    summary = (await bob.get(f"/api/v1/tournaments/{tid}")).json()
    assert {e["name"] for e in summary["entrants"]} == {alice.name, bob.name}

    # A wrong password changes nothing.
    r = await _delete(alice, "not my password")
    assert r.status_code == 403 and r.json()["code"] == "wrong_password", r.text
    assert (await alice.get("/api/v1/agents")).status_code == 200

    r = await _delete(alice, PASSWORD)
    assert r.status_code == 204, r.text
    gone = pseudonym(alice.player_id)

    # Credentials: token, session, the agent's token.
    assert (await alice.get("/api/v1/agents")).status_code == 401
    assert (await signed_in.get("/api/v1/session")).json().get("player_id") != alice.player_id
    assert (await ApiClient(base, agent["token"]).get("/api/v1/agents/me")).status_code == 401
    r = await signed_in.post("/api/v1/session", json={"name": alice.name, "password": PASSWORD})
    assert r.status_code == 401

    # The finished game: info, events, export all name the pseudonym only.
    info = await bob.game(finished)
    assert gone in [s["name"] for s in info["seats"]] and alice.name not in json.dumps(info)
    events = (await bob.get(f"/api/v1/games/{finished}/events")).json()
    last = events["events"][-1]["event"]
    assert last["type"] == "hm.game_finished"
    assert {s["name"] for s in last["seats"]} == {gone, bob.name}
    assert alice.name not in json.dumps(events)
    export = (await bob.get(f"/api/v1/games/{finished}/export")).text
    assert gone in export and alice.name not in export
    # Standings, leaderboards, ratings.
    standings = (await bob.get(f"/api/v1/tournaments/{tid}/standings")).json()
    assert gone in [row["name"] for row in standings["standings"]] and alice.name not in json.dumps(standings)
    summary = (await bob.get(f"/api/v1/tournaments/{tid}")).json()
    assert alice.name not in json.dumps(summary)
    tn_events = (await bob.get(f"/api/v1/tournaments/{tid}/events")).json()
    assert alice.name not in json.dumps(tn_events)
    board = (await bob.get(f"/api/v1/leaderboards/{GAME}")).json()
    assert {"rated_id": alice.player_id, "name": gone}.items() <= next(
        p for p in board["players"] if p["rated_id"] == alice.player_id
    ).items()
    assert alice.name not in json.dumps(board)
    history = (await bob.get(f"/api/v1/players/{alice.player_id}/ratings")).json()
    assert history["history"] and alice.name not in json.dumps(history)
    # The stored ratings hold what the projection writes (no name of a person),
    # so `hanamichi ratings rebuild` still finds them equal after a deletion.
    conn = await asyncpg.connect(database_url)
    try:
        stored_names = {
            r["name"] for r in await conn.fetch("SELECT name FROM ratings WHERE rated_id = $1", alice.player_id)
        }
    finally:
        await conn.close()
    assert stored_names == {alice.player_id}

    # The game in progress goes on: a house bot plays the deleted seat.
    await asyncio.wait_for(play_randomly(bob, in_play, random.Random(5)), 120)
    info = await bob.game(in_play)
    assert info["status"] == "finished"
    assert any(s["bot"] for s in info["seats"])

    # The name is free again (nothing shows it any more); a pseudonym is nobody's to take.
    r = await httpx.AsyncClient(base_url=base).post("/api/v1/players", json={"name": alice.name})
    assert r.status_code == 201, r.text
    r = await httpx.AsyncClient(base_url=base).post("/api/v1/players", json={"name": gone})
    assert r.status_code == 400 and r.json()["code"] == "bad_name"


async def test_a_log_of_the_old_shape_is_read_with_current_names(stack, database_url):
    """hm.game_finished used to carry each seat's name: a stream written
    so (rows inserted as the old code wrote them) reads with the pseudonym
    of a deleted player and the current name of the others."""
    base = stack.base_url
    carol, dave = await _person(base, "carol-old-log"), await _person(base, "dave-old-log")
    played = await _finished_game(carol, dave)
    old = str(uuid.uuid4())
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            await conn.execute(
                "INSERT INTO streams (stream_id, kind, version)"
                " SELECT $2, kind, version FROM streams WHERE stream_id = $1",
                played,
                old,
            )
            await conn.execute(
                "INSERT INTO games (game_id, game, players, options, ranked, seed, status, time_control, created_by,"
                " finished_at) SELECT $2::text::uuid, game, players, options, false, seed, status, time_control,"
                " created_by, finished_at FROM games WHERE game_id = $1::text::uuid",
                played,
                old,
            )
            await conn.execute(
                "INSERT INTO seats (game_id, seat, player_id, bot)"
                " SELECT $2::text::uuid, seat, player_id, bot FROM seats WHERE game_id = $1::text::uuid",
                played,
                old,
            )
            rows = await conn.fetch(
                "SELECT version, type, data FROM events WHERE stream_id = $1 ORDER BY version", played
            )
            for row in rows:
                data = bytes(row["data"])
                if row["type"] == "hm.game_finished":  # the old shape: the names of the time inside
                    record = json.loads(data)
                    names = {carol.player_id: "Carol Realname", dave.player_id: "Dave Realname"}
                    for seat in record["seats"]:
                        seat["name"] = names[seat["player_id"]]
                    data = json.dumps(record).encode()
                await conn.execute(
                    "INSERT INTO events (stream_id, version, type, data) VALUES ($1, $2, $3, $4)",
                    old,
                    row["version"],
                    row["type"],
                    data,
                )
    finally:
        await conn.close()

    events = (await dave.get(f"/api/v1/games/{old}/events")).json()
    assert "Realname" not in json.dumps(events)  # current names, not the stored ones
    assert {s["name"] for s in events["events"][-1]["event"]["seats"]} == {carol.name, dave.name}

    assert (await _delete(carol, PASSWORD)).status_code == 204
    gone = pseudonym(carol.player_id)
    fresh = ApiClient(base)  # a reader without a seat
    events = (await fresh.get(f"/api/v1/games/{old}/events")).json()
    assert {s["name"] for s in events["events"][-1]["event"]["seats"]} == {gone, dave.name}
    export = (await fresh.get(f"/api/v1/games/{old}/export")).text
    assert gone in export and "Carol" not in export and carol.name not in export
    replay = (await fresh.get(f"/api/v1/games/{old}/replay")).json()
    assert carol.name not in json.dumps(replay)


async def test_downloading_my_data(stack):
    base = stack.base_url
    erin, frank = await _person(base, "erin-downloads"), await _person(base, "frank-hides")
    finished = await _finished_game(erin, frank)
    in_play = await erin.create_game(GAME, 2)
    await erin.sit(in_play)
    await frank.sit(in_play)
    await register_agent(erin, "erin-agent", [GAME], mode="pull")

    assert (await ApiClient(base).get("/api/v1/players/me/data")).status_code == 401
    r = await erin.get("/api/v1/players/me/data")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["content-disposition"].startswith("attachment")
    data = r.json()
    assert data["account"]["player_id"] == erin.player_id and data["account"]["name"] == erin.name
    assert [a["name"] for a in data["agents"]] and "token" not in json.dumps(data["agents"])
    by_id = {g["game_id"]: g for g in data["games"]}
    assert set(by_id) >= {finished, in_play}
    # The game in progress: exactly the events erin's seat is given, never frank's hand.
    mine = (await erin.get(f"/api/v1/games/{in_play}/events")).json()["events"]
    assert by_id[in_play]["events"] == mine
    # The hand erin was dealt is in the file, frank's is not.
    view_of = {
        who: (await c.get(f"/api/v1/games/{in_play}")).json().get("view")
        for who, c in (("erin", erin), ("frank", frank))
    }
    assert view_of["erin"] != view_of["frank"]
    assert json.dumps(view_of["frank"]["hand"]) not in json.dumps(by_id[in_play]) or not view_of["frank"]["hand"]
    spectator = (await ApiClient(base).get(f"/api/v1/games/{finished}/events")).json()["events"]
    assert by_id[finished]["events"] == spectator  # over: public in full
