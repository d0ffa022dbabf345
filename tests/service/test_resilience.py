"""The service survives its own crash, a flushed Redis and a Redis that is
not there: PostgreSQL is the truth, acknowledged actions stay written, and
SSE clients still get every event once, in order."""

from __future__ import annotations

import asyncio
import random
import uuid
from itertools import pairwise

import httpx
import pytest
import redis.asyncio as aioredis

from tests.conftest import ServerProcess, _redis_db, free_test_port
from tests.service.client import ApiClient, SseReader, play_randomly

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _table_of_four(base_url: str, prefix: str) -> tuple[str, list[ApiClient]]:
    clients = [await ApiClient.register(base_url, f"{prefix}{i}") for i in range(4)]
    game_id = await clients[0].create_game("kabuki-tricks", 4)
    for seat, client in enumerate(clients):
        await client.sit(game_id, seat)
    return game_id, clients


def _rebind(clients: list[ApiClient], base_url: str) -> list[ApiClient]:
    """Fresh HTTP clients (no pooled connection to a dead process), same tokens."""
    return [ApiClient(base_url, token=c.token, name=c.name) for c in clients]


async def _all_events(base_url: str, game_id: str, token: str | None = None) -> dict:
    client = ApiClient(base_url, token=token)
    try:
        r = await client.get(f"/api/v1/games/{game_id}/events", after=0)
        assert r.status_code == 200, r.text
        return r.json()
    finally:
        await client.close()


def _as_in_history(stored: dict | None, answered: dict) -> bool:
    """The event as the events route shows it is the one the action answered
    (live), or that with its cards blanked once their moment passed (GEN-1)."""
    if stored is None or stored["version"] != answered["version"]:
        return False
    was, now = answered["event"], stored["event"]
    return was.keys() == now.keys() and all(
        was[k] == now[k] or (k in ("card", "cards") and now[k] in (None, [])) for k in was
    )


def _check_stream(reader: SseReader, final_version: int, expected_versions: list[int]) -> None:
    assert reader.messages and reader.messages[-1].get("event") == "end", reader.messages[-3:]
    assert reader.messages[-1]["data"]["version"] == final_version
    versions = [m["version"] for m in reader.game_events]
    assert all(a < b for a, b in pairwise(versions)), "versions strictly increasing, no duplicates"
    assert versions == expected_versions, (
        f"missing {sorted(set(expected_versions) - set(versions))[:10]}, "
        f"extra {sorted(set(versions) - set(expected_versions))[:10]}"
    )
    # SSE ids are the versions (what a browser resumes from).
    ids = [int(m["id"]) for m in reader.messages if m.get("event") == "game"]
    assert ids == versions


# --- (a) SIGKILL mid-game --------------------------------------------------------


async def test_sigkill_mid_game_loses_no_acknowledged_action(server_env):
    proc = ServerProcess(free_test_port(), server_env)
    proc.start()
    clients: list[ApiClient] = []
    spectator = None
    try:
        game_id, clients = await _table_of_four(proc.base_url, "kill")
        spectator = SseReader(proc.base_url, game_id).start()
        acked: list[tuple[int, str, dict]] = []  # (seat, command id, 200 body)
        unacked: list[tuple[int, str, dict]] = []  # sent, no answer (the crash)
        stop = asyncio.Event()

        async def play(seat: int, client: ApiClient, rng: random.Random) -> None:
            while not stop.is_set():
                try:
                    info = await client.game(game_id)
                except (httpx.HTTPError, AssertionError):
                    return
                if info["status"] == "finished":
                    return
                if not info["legal_actions"]:
                    await asyncio.sleep(0.005)
                    continue
                action = rng.choice(info["legal_actions"])
                command_id = uuid.uuid4().hex
                try:
                    r = await client.act(game_id, action, command_id, expected_version=info["version"])
                except httpx.HTTPError:
                    unacked.append((seat, command_id, action))
                    return
                if r.status_code == 200:
                    acked.append((seat, command_id, r.json()))
                else:
                    assert r.status_code == 409, r.text

        tasks = [asyncio.create_task(play(i, c, random.Random(100 + i))) for i, c in enumerate(clients)]
        while len(acked) < 25:
            await asyncio.sleep(0.005)
        proc.kill()  # SIGKILL: no shutdown, no flush
        stop.set()
        await asyncio.gather(*tasks)
        for c in clients:
            await c.close()
        acked_at_kill = list(acked)

        proc.start()  # same port: the spectator's browser-like reader reconnects
        clients = _rebind(clients, proc.base_url)

        # Every acknowledged action's events are in the log, as answered.
        for seat, command_id, body in acked_at_kill:
            page = await _all_events(proc.base_url, game_id, clients[seat].token)
            by_version = {e["version"]: e for e in page["events"]}
            assert body["version"] <= page["version"]
            for event in body["events"]:
                assert _as_in_history(by_version.get(event["version"]), event), (command_id, event)
            # A retry of the acknowledged command returns the same outcome and writes nothing.
            before = page["version"]
            r = await clients[seat].act(game_id, {"type": "deal"}, command_id)
            assert r.status_code == 200 and r.json() == body, r.text
            assert (await clients[0].game(game_id))["version"] == before

        # A command that got no answer was either written once or not at all.
        for seat, command_id, action in unacked:
            before = (await clients[0].game(game_id))["version"]
            r = await clients[seat].act(game_id, action, command_id)
            assert r.status_code in (200, 409, 422), r.text
            page = await _all_events(proc.base_url, game_id)
            assert [e["version"] for e in page["events"]] == list(range(1, page["version"] + 1))
            if r.status_code != 200:
                assert page["version"] == before

        # Play goes on to the end.
        await asyncio.wait_for(
            asyncio.gather(*(play_randomly(c, game_id, random.Random(200 + i)) for i, c in enumerate(clients))), 60
        )
        info = await clients[0].game(game_id)
        assert info["status"] == "finished" and info["result"]
        page = await _all_events(proc.base_url, game_id)
        assert [e["version"] for e in page["events"]] == list(range(1, info["version"] + 1))
        export = await clients[0].get(f"/api/v1/games/{game_id}/export")
        assert export.status_code == 200 and len(export.text.splitlines()) == info["version"]

        await asyncio.wait_for(spectator.ended.wait(), 30)
        assert spectator.reconnects >= 1
        _check_stream(spectator, info["version"], list(range(1, info["version"] + 1)))
    finally:
        if spectator is not None:
            await spectator.stop()
        for c in clients:
            await c.close()
        proc.stop()


# --- (b) Redis flushed mid-game -----------------------------------------------------


async def test_redis_flushed_mid_game_sse_still_delivers_every_event(server, redis_url):
    game_id, clients = await _table_of_four(server.base_url, "flush")
    spectator = SseReader(server.base_url, game_id).start()
    seat2 = SseReader(server.base_url, game_id, token=clients[2].token).start()
    r = aioredis.from_url(redis_url)
    flushes = 0
    try:
        # Half the game, then flush Redis repeatedly while the rest is played.
        await asyncio.gather(
            *(play_randomly(c, game_id, random.Random(300 + i), until_version=30) for i, c in enumerate(clients))
        )
        done = asyncio.Event()

        async def flusher() -> None:
            nonlocal flushes
            while not done.is_set():
                await r.flushdb()
                flushes += 1
                await asyncio.sleep(0.05)

        flushing = asyncio.create_task(flusher())
        await asyncio.wait_for(
            asyncio.gather(*(play_randomly(c, game_id, random.Random(400 + i)) for i, c in enumerate(clients))), 60
        )
        done.set()
        await flushing
        assert flushes >= 3
        info = await clients[0].game(game_id)
        assert info["status"] == "finished"
        for reader in (spectator, seat2):
            await asyncio.wait_for(reader.ended.wait(), 30)

        # Compared with GET /events for the same viewer (every kabuki-tricks
        # event is visible to every viewer, redacted or not).
        expected = [e["version"] for e in (await _all_events(server.base_url, game_id))["events"]]
        assert expected == list(range(1, info["version"] + 1))
        _check_stream(spectator, info["version"], expected)
        mine = [e["version"] for e in (await _all_events(server.base_url, game_id, clients[2].token))["events"]]
        _check_stream(seat2, info["version"], mine)
        # Events are the same in both streams where no hidden card is involved.
        types_public = [m["event"]["type"] for m in spectator.game_events]
        types_seat = [m["event"]["type"] for m in seat2.game_events]
        assert types_public == types_seat
    finally:
        await spectator.stop()
        await seat2.stop()
        await r.aclose()
        for c in clients:
            await c.close()


# --- (c) Redis unreachable ---------------------------------------------------------------


async def test_a_server_without_redis_accepts_actions_and_streams_from_postgres(server_env):
    env = dict(server_env, REDIS_URL="redis://127.0.0.1:1/0")
    proc = ServerProcess(free_test_port(), env)
    try:
        proc.start()
    except RuntimeError as exc:
        pytest.fail(
            f"the API does not start while Redis is unreachable ({exc}); Redis is meant to be only the fast path"
        )
    clients: list[ApiClient] = []
    readers: list[SseReader] = []
    try:
        anon = ApiClient(proc.base_url)
        ready = await anon.get("/ready")
        assert ready.status_code == 503 and ready.json()["postgres"] == "ok" and ready.json()["redis"] != "ok"
        await anon.close()

        game_id, clients = await _table_of_four(proc.base_url, "noredis")
        readers = [
            SseReader(proc.base_url, game_id).start(),
            SseReader(proc.base_url, game_id, token=clients[0].token).start(),
        ]
        accepted = await asyncio.wait_for(
            asyncio.gather(*(play_randomly(c, game_id, random.Random(500 + i)) for i, c in enumerate(clients))), 60
        )
        assert sum(accepted) > 0
        info = await clients[0].game(game_id)
        assert info["status"] == "finished"
        for reader in readers:
            await asyncio.wait_for(reader.ended.wait(), 30)
        expected = list(range(1, info["version"] + 1))
        for reader in readers:
            _check_stream(reader, info["version"], expected)
    finally:
        for reader in readers:
            await reader.stop()
        for c in clients:
            await c.close()
        proc.stop()


# --- lost notices, two processes -------------------------------------------------------


async def test_a_second_process_that_missed_the_notices_still_serves_fresh_reads(server, server_env, redis_url):
    """Two API processes on one PostgreSQL. Process B reads its fan-out from a
    Redis database A never publishes to: every notice is lost to it, as when
    Redis was flushed, restarted or unreachable right after A's commits.
    PostgreSQL is the truth: B's GET /events and GET /game must catch up
    (within a few resync intervals), not serve its cached copy forever."""
    index = int(redis_url.rsplit("=" if redis_url.startswith("unix:") else "/", 1)[1])
    other = _redis_db(redis_url, (index % 15) + 1)
    assert other != redis_url
    b = ServerProcess(free_test_port(), dict(server_env, REDIS_URL=other))
    b.start()
    clients: list[ApiClient] = []
    try:
        game_id, clients = await _table_of_four(server.base_url, "lost")
        on_b = ApiClient(b.base_url, token=clients[0].token)
        first = await on_b.game(game_id)  # B caches the table now
        await asyncio.gather(
            *(
                play_randomly(c, game_id, random.Random(600 + i), until_version=first["version"] + 12)
                for i, c in enumerate(clients)
            )
        )
        truth = (await clients[0].get(f"/api/v1/games/{game_id}/events", after=0)).json()
        assert truth["version"] >= first["version"] + 12
        deadline = asyncio.get_running_loop().time() + 5
        while True:
            page = (await on_b.get(f"/api/v1/games/{game_id}/events", after=0)).json()
            info = await on_b.game(game_id)
            if page["version"] == truth["version"] and info["version"] == truth["version"]:
                break
            if asyncio.get_running_loop().time() > deadline:
                pytest.fail(
                    f"process B still serves version {page['version']} (game {info['version']}) "
                    f"5 s after A committed version {truth['version']}"
                )
            await asyncio.sleep(0.2)
        assert page["events"] == truth["events"]
        await on_b.close()
    finally:
        for c in clients:
            await c.close()
        b.stop()
