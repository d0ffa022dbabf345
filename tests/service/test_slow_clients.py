"""Requests whose headers or body never finish are not held
forever; idle keep-alive connections close; SSE streams stay open; the
per-address connection cap counts a trusted proxy's forwarded address.
The server runs services/http/httpserver.py's protocol with a 1 s request
timeout and a 1 s keep-alive, so the test waits a few seconds at most."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import pytest

from tests.conftest import ServerProcess, free_test_port
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

TIMEOUT_S = 1.0
CAP = 3


@pytest.fixture(scope="module")
def guarded(server_env):
    env = dict(server_env, HANAMICHI_REQUEST_TIMEOUT_S=str(TIMEOUT_S), UVICORN_TIMEOUT_KEEP_ALIVE="1")
    server = ServerProcess(free_test_port(), env)
    server.start()
    yield server
    server.stop()


async def _closed_after(reader: asyncio.StreamReader, limit: float) -> tuple[float, bytes]:
    """Seconds until the server closes the connection, and what it sent."""
    started, got = time.monotonic(), b""
    while True:
        chunk = await asyncio.wait_for(reader.read(4096), limit)
        if not chunk:
            return time.monotonic() - started, got
        got += chunk


async def _connect(server):
    return await asyncio.open_connection("127.0.0.1", server.port)


async def test_incomplete_requests_time_out_with_408(guarded):
    # Nothing sent at all.
    reader, writer = await _connect(guarded)
    took, got = await _closed_after(reader, 10)
    assert TIMEOUT_S * 0.8 <= took < TIMEOUT_S + 3, took
    assert got.startswith(b"HTTP/1.1 408"), got
    assert json.loads(got.split(b"\r\n\r\n", 1)[1])["code"] == "request_timeout"
    writer.close()
    # Headers that never end, dripped a byte at a time (silence never lasts a second).
    reader, writer = await _connect(guarded)
    closing = asyncio.create_task(_closed_after(reader, 10))
    for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
        if closing.done():
            break
        try:
            writer.write(bytes([byte]))
            await writer.drain()
        except ConnectionError:
            break
        await asyncio.sleep(0.1)
    took, got = await closing
    assert took < TIMEOUT_S + 3, took
    assert got.startswith(b"HTTP/1.1 408"), got
    writer.close()
    # A body shorter than its Content-Length.
    reader, writer = await _connect(guarded)
    writer.write(
        b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"name": '
    )
    await writer.drain()
    took, got = await _closed_after(reader, 10)
    assert took < TIMEOUT_S + 3, took
    assert got.startswith(b"HTTP/1.1 408"), got
    writer.close()


async def test_idle_keep_alive_closes_and_a_stream_stays_open(guarded):
    # A finished request on a kept-alive connection: closed after the keep-alive.
    reader, writer = await _connect(guarded)
    writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    took, got = await _closed_after(reader, 10)
    assert got.startswith(b"HTTP/1.1 200"), got
    assert took < 4, took
    writer.close()
    # An SSE stream outlives the request timeout and still delivers.
    tag = uuid.uuid4().hex[:6]
    people = [await ApiClient.register(guarded.base_url, f"slow{tag}{i}") for i in range(4)]
    try:
        game_id = await people[0].create_game("kabuki-tricks", 4)
        for seat, p in enumerate(people):
            await p.sit(game_id, seat)
        async with people[0].http.stream("GET", f"/api/v1/games/{game_id}/stream", timeout=30) as r:
            assert r.status_code == 200
            lines = r.aiter_lines()
            await asyncio.sleep(TIMEOUT_S * 2.5)
            info = await people[1].game(game_id)
            mover = people[info["to_act"][0]]
            moved = await mover.act(game_id, (await mover.game(game_id))["legal_actions"][0])
            assert moved.status_code == 200, moved.text
            version = moved.json()["version"]

            async def until_version():
                async for line in lines:
                    if line == f"id: {version}":
                        return

            await asyncio.wait_for(until_version(), 10)
    finally:
        for p in people:
            await p.close()


@pytest.fixture(scope="module")
def capped(server_env):
    env = dict(server_env, HANAMICHI_MAX_CONNECTIONS_PER_ADDRESS=str(CAP), HANAMICHI_TRUSTED_PROXIES="127.0.0.1/32")
    server = ServerProcess(free_test_port(), env)
    server.start()
    yield server
    server.stop()


async def _request(server, forwarded: str, path: str = "/health", close: bool = False):
    """A request as a proxy on 127.0.0.1 sends it for `forwarded`."""
    reader, writer = await _connect(server)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {forwarded}\r\n"
        f"{'Connection: close' + chr(13) + chr(10) if close else ''}\r\n".encode()
    )
    await writer.drain()
    return reader, writer


async def test_per_address_cap_counts_the_forwarded_client(capped):
    host = await ApiClient.register(capped.base_url, f"cap{uuid.uuid4().hex[:6]}")
    game_id = await host.create_game("kabuki-masks", 3)  # an open table: its stream stays open, quiet
    await host.close()
    held = []
    try:
        # One client behind the trusted proxy holds CAP streams open...
        for _ in range(CAP):
            held.append(await _request(capped, "203.0.113.5, 127.0.0.1", f"/api/v1/games/{game_id}/stream"))
        for r, _ in held:
            head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 200"), head
        # ...and its next connection is refused,
        reader, writer = await _request(capped, "203.0.113.5")
        _, got = await _closed_after(reader, 5)
        assert got.startswith(b"HTTP/1.1 429"), got
        assert json.loads(got.split(b"\r\n\r\n", 1)[1])["code"] == "too_many_connections"
        writer.close()
        # while other clients behind the same proxy are not affected (a forged
        # left-most hop counts for nothing: the proxy's own hop is used).
        for forwarded in ("203.0.113.6", "203.0.113.5, 203.0.113.7"):
            reader, writer = await _request(capped, forwarded, close=True)
            _, got = await _closed_after(reader, 5)
            assert got.startswith(b"HTTP/1.1 200"), (forwarded, got)
            writer.close()
    finally:
        for _, w in held:
            w.close()
    # Closed streams free their places.
    deadline = time.monotonic() + 5
    while True:
        reader, writer = await _request(capped, "203.0.113.5", close=True)
        _, got = await _closed_after(reader, 5)
        writer.close()
        if got.startswith(b"HTTP/1.1 200"):
            break
        assert time.monotonic() < deadline, got
        await asyncio.sleep(0.1)
