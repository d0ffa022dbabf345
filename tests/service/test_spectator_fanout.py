"""Spectators share one public encoding per event, written to every
spectator connection; a stalled spectator is cut while the others and the
seats go on. Real server process, real sockets."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
import uuid

import httpx
import msgspec
import pytest

from engines.registry import get_game
from services.app.games.events import TableEvent
from services.app.games.tables import event_decoder
from tests.conftest import ServerProcess, free_test_port
from tests.service.client import ApiClient, SseReader, play_randomly

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture(scope="module")
def small_buffer_server(server_env):
    # A tiny per-connection bound, so a stalled reader passes it within one game.
    proc = ServerProcess(
        free_test_port(),
        dict(
            server_env,
            HANAMICHI_SSE_SPECTATOR_BUFFER_BYTES="1024",
            HANAMICHI_SSE_SPECTATOR_SNDBUF="4096",
        ),
    )
    proc.start()
    yield proc
    proc.stop()


def _stalled_spectator(port: int, game_id: str) -> socket.socket:
    """A spectator that opens the stream and then never reads."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # its kernel takes little for it
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET /api/v1/games/{game_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return s


def _read_to_close(s: socket.socket, timeout: float) -> bytes:
    s.settimeout(timeout)
    got = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                return got
            got += chunk
    except ConnectionResetError:
        return got
    raise AssertionError("the stalled spectator's connection was never closed")


async def _cut_count(base_url: str) -> float:
    text = httpx.get(base_url + "/metrics").text
    return sum(
        float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith('hanamichi_sse_cut_total{reason="slow_reader"}')
    )


async def test_spectators_get_the_public_view_and_a_stalled_one_is_cut(small_buffer_server):
    server = small_buffer_server
    person = await ApiClient.register(server.base_url, f"fan{uuid.uuid4().hex[:8]}")
    readers: list[SseReader] = []
    stalled = None
    try:
        game_id = await person.create_game("kabuki-tricks", 4)
        await person.sit(game_id, 0)
        seat = SseReader(server.base_url, game_id, person.token).start()
        spectators = [SseReader(server.base_url, game_id).start() for _ in range(3)]
        readers = [seat, *spectators]
        stalled = _stalled_spectator(server.port, game_id)
        for _ in range(100):  # every stream in before the first move: all of it is live for them
            if (await person.game(game_id)).get("spectators") == 4:
                break
            await asyncio.sleep(0.05)
        cut_before = await _cut_count(server.base_url)
        for s in (1, 2, 3):
            r = await person.post(f"/api/v1/games/{game_id}/bots", {"seat": s, "bot": "random"})
            assert r.status_code in (200, 201), r.text
        await asyncio.wait_for(play_randomly(person, game_id, random.Random(18)), 120)
        for reader in readers:
            await asyncio.wait_for(reader.ended.wait(), 30)

        # The others went on to the end, every version once, none of them cut.
        final = (await person.game(game_id))["version"]
        streams = [[e["version"] for e in r.game_events] for r in spectators]
        assert all(s == list(range(1, final + 1)) for s in streams)
        assert all(r.reconnects == 0 for r in readers)
        assert spectators[0].game_events == spectators[1].game_events == spectators[2].game_events

        # Nothing a seat may see and a spectator may not: every event is the
        # engine's public redaction, but for the final commit, shown in full
        # once the game is over (docs/rules/general.md).
        export = (await person.get(f"/api/v1/games/{game_id}/export")).text.splitlines()
        game, decode = get_game("kabuki-tricks"), event_decoder(get_game("kabuki-tricks"))
        full = {json.loads(line)["version"]: decode.decode(json.dumps(json.loads(line)["event"])) for line in export}
        as_json = lambda e: json.loads(msgspec.json.encode(e))  # noqa: E731
        public = {v: as_json(e if isinstance(e, TableEvent) else game.redact(e, None)) for v, e in full.items()}
        seen = {e["version"]: e["event"] for e in spectators[0].game_events}
        differ = sorted(v for v in seen if seen[v] != public[v])
        assert differ == list(range(final - len(differ) + 1, final + 1)), differ  # only a tail: the last commit
        assert len(differ) <= 3 and all(seen[v] == as_json(full[v]) for v in differ)
        # ... and the seat did see more than the public view (the check above had something to catch).
        assert any(e["event"] != public[e["version"]] for e in seat.game_events if e["version"] < final - 3)

        # The stalled spectator was cut (counted in /metrics) and its connection closed.
        assert await _cut_count(server.base_url) >= cut_before + 1
        got = await asyncio.get_running_loop().run_in_executor(None, _read_to_close, stalled, 20)
        assert got.startswith(b"HTTP/1.1 200")
    finally:
        for reader in readers:
            await reader.stop()
        if stalled is not None:
            stalled.close()
        await person.close()
