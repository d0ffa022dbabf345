"""PostgreSQL killed under load, behind `serve --processes 2`.

The test's own PostgreSQL (under /tmp, never the machine's shared one) is
stopped the ways a server dies under an operator or a crash (an immediate
shutdown, a fast one) and started again, while clients keep reading
games, opening streams (their catch-up reads the log) and registering, each
request on a fresh connection (either API process may take it). Whatever
error the pooled connections happen to raise, each answer is 200/201 or a
503 with Retry-After and `storage_unavailable`, never a 500; and each
process logs the outage once per kind of work when it starts and once when
it ends, not once per failed request."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
import uuid
from collections import Counter

import httpx
import pytest
import pytest_asyncio

from tests.service.test_faults import PrivateServers, _wait_dead
from tests.service.two_processes import PROCESS_HEADER, TwoApiProcesses

pytestmark = pytest.mark.asyncio(loop_scope="session")

# SIGQUIT: an immediate shutdown (each backend tells its client so and dies:
# a pooled connection may hear it between two queries, and asyncpg's next
# query on it is an InternalClientError); SIGINT: a fast shutdown.
KILLS = (signal.SIGQUIT, signal.SIGINT, signal.SIGQUIT, signal.SIGQUIT, signal.SIGQUIT)
CUTS = len(KILLS)
CLIENTS = 32


class Load:
    """Clients reading games, opening streams and registering until stopped."""

    def __init__(self, serve: TwoApiProcesses, game_ids: list[str]) -> None:
        self.serve = serve
        self.game_ids = game_ids
        self.statuses: Counter[int] = Counter()
        self.bad: list[str] = []  # anything but 200/201 or a proper 503
        self.unavailable = 0
        self.ok_after_cut = 0
        self.stopping = False
        self.tag = uuid.uuid4().hex[:6]

    def _check(self, what: str, r: httpx.Response) -> None:
        self.statuses[r.status_code] += 1
        if r.status_code in (200, 201):
            self.ok_after_cut += 1
            return
        if r.status_code == 503:
            self.unavailable += 1
            body = r.json()
            if body.get("code") == "storage_unavailable" and int(r.headers.get("Retry-After", "0")) >= 1:
                return
        self.bad.append(f"{what}: {r.status_code} {r.headers.get(PROCESS_HEADER)} {r.text[:200]}")

    async def client(self, n: int) -> None:
        rng = random.Random(n)
        async with self.serve.fresh_async_client(timeout=10) as http:
            i = 0
            while not self.stopping:
                i += 1
                game_id = rng.choice(self.game_ids)
                pick = i % 4
                try:
                    if pick == 0:
                        what = f"GET /api/v1/games/{game_id}"
                        self._check(what, await http.get(f"/api/v1/games/{game_id}"))
                    elif pick == 1:
                        what = f"stream catch-up of {game_id}"
                        async with http.stream(
                            "GET", f"/api/v1/games/{game_id}/stream", headers={"Last-Event-ID": "0"}
                        ) as r:
                            if r.status_code != 200:
                                await r.aread()
                            self._check(what, r)
                    elif pick == 2:
                        what = "GET /api/v1/games"
                        self._check(what, await http.get("/api/v1/games"))
                    else:
                        what = "POST /api/v1/players"
                        r = await http.post("/api/v1/players", json={"name": f"ld{self.tag}-{n}-{i}"})
                        self._check(what, r)
                except httpx.HTTPError as exc:  # a refused or cut connection is no answer at all
                    self.bad.append(f"{what}: {type(exc).__name__} {exc}")


async def _until(condition, what, timeout: float = 20.0) -> None:
    """Until `condition()`; `what` (or what it returns) says what did not happen."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what() if callable(what) else what
        await asyncio.sleep(0.02)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def outages(server_env):
    """One run of the outages for both tests: the clients' answers, and
    the warnings serve wrote meanwhile (the ends of the last outage awaited)."""
    servers = await asyncio.to_thread(PrivateServers)
    env = dict(server_env, DATABASE_URL=servers.database_url, REDIS_URL=servers.redis_url)
    serve = TwoApiProcesses(env)
    try:
        await asyncio.to_thread(serve.wait_serving)
        before = len(serve.lines)
        load = await _run_outages(serve, servers)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and len(_back_lines(serve.lines[before:])) < 2:
            await asyncio.sleep(0.05)  # each process's line that PostgreSQL is back, if it writes one
        yield load, _warnings(serve.lines[before:])
    finally:
        await asyncio.to_thread(serve.stop)
        await asyncio.to_thread(servers.stop)


def _stuck(serve: TwoApiProcesses, load: Load) -> str:
    tail = "\n".join(serve.lines[-15:])
    return f"the load is not answered again: {load.statuses}, {load.bad[-3:]}; serve's last lines:\n{tail}"


def _stop_postgres(servers: PrivateServers, how: signal.Signals) -> None:
    pid = int((servers.dir / "postgres" / "postmaster.pid").read_text().split()[0])
    os.kill(pid, how)
    _wait_dead(pid, timeout=30)


async def _run_outages(serve: TwoApiProcesses, servers: PrivateServers) -> Load:
    """Load on both processes; PostgreSQL killed CUTS times, each time until
    the clients see 503s, then started again until they see successes."""
    tag = uuid.uuid4().hex[:6]
    game_ids = []
    async with serve.fresh_async_client() as http:
        r = await http.post("/api/v1/players", json={"name": f"host{tag}"})
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        for _ in range(8):
            r = await http.post(
                "/api/v1/games",
                json={"game": "kabuki-tricks", "players": 4},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 201, r.text
            game_ids.append(r.json()["game_id"])
    load = Load(serve, game_ids)
    clients = [asyncio.create_task(load.client(n)) for n in range(CLIENTS)]
    try:
        for kill in KILLS:
            await _until(lambda: load.ok_after_cut > 50, lambda: _stuck(serve, load), timeout=60)
            seen = load.unavailable
            await asyncio.to_thread(_stop_postgres, servers, kill)
            await _until(lambda seen=seen: load.unavailable > seen + 50, "requests fail while PostgreSQL is away")
            await asyncio.to_thread(servers.start_postgres)
            load.ok_after_cut = 0
        await _until(lambda: load.ok_after_cut > 50, lambda: _stuck(serve, load), timeout=60)
    finally:
        load.stopping = True
        await asyncio.gather(*clients)
    return load


async def test_postgresql_dying_under_load_is_503_never_500(outages):
    load, _ = outages
    assert load.unavailable > 50 * CUTS, load.statuses
    assert not load.bad, f"{len(load.bad)} bad answers ({load.statuses}): {load.bad[:8]}"


def _warnings(lines: list[str]) -> list[str]:
    found = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("level") in ("warning", "error"):
            found.append(str(record.get("msg")))
    return found


def _back_lines(lines: list[str]) -> list[str]:
    return [m for m in _warnings(lines) if m.startswith("PostgreSQL back after")]


async def test_an_outage_is_logged_once_when_it_starts_and_once_when_it_ends(outages):
    load, warnings = outages
    started = [m for m in warnings if m.startswith("PostgreSQL unreachable")]
    ended = [m for m in warnings if m.startswith("PostgreSQL back after")]
    others = [m for m in warnings if m not in started and m not in ended]
    assert load.unavailable > 50 * CUTS
    # Nothing else per failure: a few lines at most for hundreds of failures.
    assert len(others) <= 2 * CUTS, f"{len(others)} other warnings for {load.unavailable} failures: {others[:6]}"
    # Each of the two processes, per outage and kind of work: one start (a
    # connection the pool still held failing just after the probe saw the
    # server back may open one more) and one end with its count.
    kinds = {m.rsplit("(", 1)[-1] for m in started}
    bound = 2 * 2 * CUTS * len(kinds)
    assert started and len(started) <= bound, (len(started), load.unavailable, started[:6])
    assert ended and len(ended) <= len(started), (ended[:6], started[:6])
    assert all(" failures (" in m for m in ended), ended[:4]
