"""With PostgreSQL down, every route that needs it answers
503 `storage_unavailable` with Retry-After (never a 500, never a 404 for a
game that exists); `/health` stays 200 and `/ready` names what is down.
With Redis down the routes keep working (PostgreSQL is the truth) and
`/ready` says so. The servers are cut with TCP gates (tests/service/tcpgate.py):
the machine's shared PostgreSQL and Redis are never stopped."""

from __future__ import annotations

import asyncio
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.conftest import ServerProcess, free_test_port
from tests.service.client import ApiClient
from tests.service.tcpgate import TcpGate

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _gate_target(url: str, default_port: int) -> tuple:
    """Where a server URL points: ("tcp", host, port) or ("unix", socket path)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if parts.hostname:
        target: tuple = ("tcp", parts.hostname, parts.port or default_port)
    elif parts.scheme == "unix":  # redis on a Unix socket
        target = ("unix", parts.path)
    else:  # postgresql://user@/db?host=/socket/dir
        target = ("unix", f"{query['host'][0]}/.s.PGSQL.{query.get('port', ['5432'])[0]}")
    return target


def _pg_through(url: str, port: int) -> str:
    parts = urlsplit(url)
    user = parts.username or "postgres"
    auth = f"{user}:{parts.password}@" if parts.password else f"{user}@"
    return f"postgresql://{auth}127.0.0.1:{port}{parts.path}"


def _redis_through(url: str, port: int) -> str:
    parts = urlsplit(url)
    db = parts.path.strip("/") or parse_qs(parts.query).get("db", ["0"])[0]
    return f"redis://127.0.0.1:{port}/{db}"


def _unavailable(r: httpx.Response, what: str) -> None:
    assert r.status_code == 503, f"{what}: {r.status_code} {r.text[:300]}"
    body = r.json()
    assert set(body) == {"code", "message"} and body["code"] == "storage_unavailable", (what, body)
    assert int(r.headers["Retry-After"]) >= 1, (what, r.headers)
    assert "Traceback" not in body["message"] and "asyncpg" not in body["message"], body


async def _eventually_503(request, what: str, timeout: float = 6.0) -> None:
    """A copy cached in the process may answer for up to a second (its
    recheck interval); after that the route must answer 503, and never
    anything but 200 or 503 meanwhile."""
    deadline = time.monotonic() + timeout
    while True:
        r = await request()
        if r.status_code == 503 or time.monotonic() > deadline:
            return _unavailable(r, what)
        assert r.status_code == 200, f"{what}: {r.status_code} {r.text[:300]}"
        await asyncio.sleep(0.1)


async def _stream_opening(http: httpx.AsyncClient, path: str) -> httpx.Response:
    """The status of an SSE request (its body is not waited for)."""
    async with http.stream("GET", path, timeout=5) as r:
        if r.status_code != 200:
            await r.aread()
        return r


@pytest.fixture
async def gated(server_env, database_url, redis_url):
    pg_target = _gate_target(database_url, 5432)
    redis_target = _gate_target(redis_url, 6379)
    pg, redis = TcpGate(pg_target, free_test_port()).start(), TcpGate(redis_target, free_test_port()).start()
    env = dict(
        server_env, DATABASE_URL=_pg_through(database_url, pg.port), REDIS_URL=_redis_through(redis_url, redis.port)
    )
    server = ServerProcess(free_test_port(), env)
    await asyncio.to_thread(server.start)
    try:
        yield server, pg, redis
    finally:
        pg.open()
        redis.open()
        await asyncio.to_thread(server.stop)
        pg.stop()
        redis.stop()


async def test_postgresql_down_is_503_with_retry_after_and_health_stays_up(gated):
    server, pg, _redis = gated
    base = server.base_url
    tag = uuid.uuid4().hex[:6]
    people = [await ApiClient.register(base, f"out{tag}{i}") for i in range(4)]
    anon = ApiClient(base)
    try:
        game_id = await people[0].create_game("kabuki-tricks", 4)
        for seat, p in enumerate(people):
            await p.sit(game_id, seat)
        open_id = await people[0].create_game("kabuki-masks", 3)
        info = await people[0].game(game_id)
        mover = people[info["to_act"][0]]
        legal = (await mover.game(game_id))["legal_actions"]

        pg.close()
        assert (await anon.http.get("/health")).status_code == 200
        ready = await anon.http.get("/ready")
        assert ready.status_code == 503 and ready.json()["postgres"].startswith("unreachable"), ready.text
        assert ready.json()["redis"] == "ok", ready.text
        _unavailable(await anon.post("/api/v1/players", {"name": f"late{tag}"}), "register")
        _unavailable(await anon.get(f"/api/v1/games/{uuid.uuid4()}"), "unknown game (no 404: we cannot know)")
        _unavailable(await people[0].post("/api/v1/games", {"game": "kabuki-tricks", "players": 4}), "create game")
        _unavailable(await people[1].post(f"/api/v1/games/{open_id}/seats", {}), "take seat")
        _unavailable(await mover.act(game_id, legal[0]), "action")
        _unavailable(await anon.get("/api/v1/tournaments"), "tournaments")
        _unavailable(await anon.get("/api/v1/leaderboards/kabuki-tricks"), "leaderboard")
        _unavailable(await anon.get(f"/api/v1/players/{people[0].player_id}/ratings"), "ratings")
        _unavailable(await people[0].get("/api/v1/agents"), "agents")
        await _eventually_503(lambda: anon.get(f"/api/v1/games/{game_id}"), "read game")
        await _eventually_503(lambda: anon.get(f"/api/v1/games/{game_id}/events", after=0), "events")
        await _eventually_503(lambda: anon.get(f"/api/v1/games/{game_id}/replay", at=1), "replay")
        await _eventually_503(lambda: _stream_opening(anon.http, f"/api/v1/games/{game_id}/stream"), "stream")
        assert (await anon.http.get("/health")).status_code == 200

        pg.open()  # back: the pool reconnects, and nothing was half-done
        deadline = time.monotonic() + 15
        while (r := await anon.post("/api/v1/players", {"name": f"back{tag}"})).status_code != 201:
            assert r.status_code == 503 and time.monotonic() < deadline, r.text
            await asyncio.sleep(0.2)
        assert (await anon.http.get("/ready")).status_code == 200
        after = await people[0].game(game_id)
        assert after["version"] == info["version"]
        r = await mover.act(game_id, legal[0], expected_version=info["version"])
        assert r.status_code == 200, r.text
    finally:
        for c in (*people, anon):
            await c.close()


async def test_redis_down_leaves_the_routes_working_and_ready_says_so(gated):
    server, _pg, redis = gated
    base = server.base_url
    tag = uuid.uuid4().hex[:6]
    anon = ApiClient(base)
    people: list[ApiClient] = []
    try:
        redis.close()
        assert (await anon.http.get("/health")).status_code == 200
        ready = await anon.http.get("/ready")
        assert ready.status_code == 503 and ready.json()["redis"].startswith("unreachable"), ready.text
        assert ready.json()["postgres"] == "ok"
        # PostgreSQL is the truth: people register, sit and play while Redis is away.
        people = [await ApiClient.register(base, f"nored{tag}{i}") for i in range(4)]
        game_id = await people[0].create_game("kabuki-tricks", 4)
        for seat, p in enumerate(people):
            await p.sit(game_id, seat)
        info = await people[0].game(game_id)
        mover = people[info["to_act"][0]]
        r = await mover.act(game_id, (await mover.game(game_id))["legal_actions"][0])
        assert r.status_code == 200, r.text
        r = await people[0].post(
            "/api/v1/tournaments",
            {"game": "kabuki-tricks", "start_ms": int(time.time() * 1000) + 3_600_000, "rounds": 1, "table_size": 4},
        )
        assert r.status_code in (201, 503), r.text  # scheduling may need Redis: then a 503, never a 500
        if r.status_code == 503:
            _unavailable(r, "tournament")
        redis.open()
        deadline = time.monotonic() + 15
        while (await anon.http.get("/ready")).status_code != 200:
            assert time.monotonic() < deadline, "Redis came back but /ready did not"
            await asyncio.sleep(0.2)
    finally:
        for c in (*people, anon):
            await c.close()
