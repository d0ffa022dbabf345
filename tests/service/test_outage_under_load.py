"""PostgreSQL going away under load, in front of `serve --processes 2`.

A TcpGate between the service and the session's PostgreSQL cuts every
connection at once, as a dying server does, while clients keep reading
games, opening streams (their catch-up reads the log) and registering, each
request on a fresh connection (either API process may take it). Whatever
error the pooled connections happen to raise, each answer is 200/201 or a
503 with Retry-After and `storage_unavailable`, never a 500; and each
process logs the outage once per kind of work when it starts and once when
it ends, not once per failed request."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections import Counter

import httpx
import pytest

from tests.conftest import free_test_port
from tests.service.tcpgate import TcpGate
from tests.service.test_outage_responses import _gate_target, _pg_through
from tests.service.two_processes import PROCESS_HEADER, TwoApiProcesses

pytestmark = pytest.mark.asyncio(loop_scope="session")

CUTS = 3
CLIENTS = 24


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


async def _until(condition, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


@pytest.fixture
async def gated_serve(server_env, database_url):
    gate = TcpGate(_gate_target(database_url, 5432), free_test_port()).start()
    env = dict(server_env, DATABASE_URL=_pg_through(database_url, gate.port))
    serve = TwoApiProcesses(env)
    try:
        await asyncio.to_thread(serve.wait_serving)
        yield serve, gate
    finally:
        gate.open()
        await asyncio.to_thread(serve.stop)
        gate.stop()


async def _run_outages(serve: TwoApiProcesses, gate: TcpGate) -> Load:
    """Load on both processes; PostgreSQL cut CUTS times, each time until
    the clients see 503s, then back until they see successes again."""
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
        for _ in range(CUTS):
            await _until(lambda: load.ok_after_cut > 50, "the load is answered")
            seen = load.unavailable
            await asyncio.to_thread(gate.close)
            await _until(lambda seen=seen: load.unavailable > seen + 50, "requests fail while PostgreSQL is away")
            await asyncio.to_thread(gate.open)
            load.ok_after_cut = 0
        await _until(lambda: load.ok_after_cut > 50, "the load is answered again")
    finally:
        load.stopping = True
        await asyncio.gather(*clients)
    return load


async def test_postgresql_dying_under_load_is_503_never_500(gated_serve):
    serve, gate = gated_serve
    load = await _run_outages(serve, gate)
    assert load.unavailable > 50 * CUTS, load.statuses
    assert not load.bad, f"{len(load.bad)} bad answers ({load.statuses}): {load.bad[:8]}"


def _outage_lines(output: str) -> list[dict]:
    found = []
    for line in output.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("level") in ("warning", "error"):
            found.append(record)
    return found


async def test_an_outage_is_logged_once_when_it_starts_and_once_when_it_ends(gated_serve):
    serve, gate = gated_serve
    before = len(serve.lines)
    load = await _run_outages(serve, gate)
    # The lines of the last outage's end may still be on their way.
    await _until(
        lambda: sum("back after" in r.get("msg", "") for r in _outage_lines("\n".join(serve.lines[before:]))) >= 2,
        "each process logs that PostgreSQL is back",
    )
    lines = _outage_lines("\n".join(serve.lines[before:]))
    started = [r["msg"] for r in lines if "PostgreSQL unreachable" in r.get("msg", "")]
    ended = [r["msg"] for r in lines if "PostgreSQL back after" in r.get("msg", "")]
    others = [r["msg"] for r in lines if r["msg"] not in started and r["msg"] not in ended]
    failures = load.unavailable
    # Each of the two processes, per outage and kind of work: a start and an end.
    kinds = {m.rsplit("(", 1)[-1] for m in started}
    bound = 2 * CUTS * len(kinds)
    assert failures > 50 * CUTS
    assert started and len(started) <= bound, (len(started), failures, started[:6])
    assert len(ended) == len(started) or len(ended) <= bound, (ended[:6], started[:6])
    assert any("failures" in m for m in ended), ended[:4]
    assert len(others) <= 2 * CUTS, f"{len(others)} other warnings for {failures} failures: {others[:6]}"
