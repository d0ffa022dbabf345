"""GET /api/v1/lobby/stream with two API processes: the first event is the
lobby's whole state (the list routes' pages, exactly), and a table created
and seated through one process reaches a stream opened on the other."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess, free_test_port
from tests.service.test_faults import PrivateServers

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture
def second_server(session_two_api_processes):
    """API processes other than `server`'s on the same database and Redis:
    the session's `serve --processes 2` (tests/conftest.py)."""
    return session_two_api_processes


class LobbyReader:
    """Reads `lobby` events in the background."""

    def __init__(self, base_url: str, headers: dict[str, str] | None = None) -> None:
        self.base_url = base_url
        self.headers = headers or {}
        self.events: list[dict] = []
        self.comments = 0
        self.status: int | None = None
        self.content_type = ""
        self.arrived = asyncio.Event()

    def start(self) -> LobbyReader:
        self.task = asyncio.create_task(self._run())
        return self

    async def _run(self) -> None:
        async with (
            httpx.AsyncClient(base_url=self.base_url, timeout=httpx.Timeout(60, read=60)) as http,
            http.stream("GET", "/api/v1/lobby/stream", headers=self.headers) as r,
        ):
            self.status = r.status_code
            self.content_type = r.headers.get("content-type", "")
            event: dict = {}
            async for line in r.aiter_lines():
                if line == "":
                    if "data" in event:
                        event["data"] = json.loads(event["data"])
                        self.events.append(event)
                        self.arrived.set()
                    event = {}
                elif line.startswith(":"):
                    self.comments += 1
                else:
                    name, _, value = line.partition(":")
                    event[name] = value.removeprefix(" ")

    async def until(self, check, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if check(event["data"]):
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no lobby event matched within {timeout} s: {self.events[-1:]}")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), remaining)

    async def stop(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


def _ids(page: dict) -> list[str]:
    return [g["game_id"] for g in page["games"]]


async def test_the_first_event_is_the_lobby_and_a_table_made_elsewhere_arrives(server, second_server):
    reader = LobbyReader(second_server.base_url).start()
    try:
        first = await reader.until(lambda data: True)
        assert reader.status == 200 and reader.content_type.startswith("text/event-stream")
        assert first["event"] == "lobby" and first["id"] == "1"
        assert set(first["data"]) == {"open", "playing", "finished", "quick_play"}
        # The snapshot is the list routes' JSON, exactly (nothing changed in between:
        # read the routes, then compare with a stream opened after them).
        async with httpx.AsyncClient(base_url=second_server.base_url) as http:
            assert set(first["data"]["quick_play"]) == {"pools"}
            for which, limit in (("open", 20), ("playing", 20), ("finished", 10)):
                page = (await http.get("/api/v1/games", params={"status": which, "limit": limit})).json()
                assert set(page) == set(first["data"][which]) == {"games", "next"}

        # A table created and seated through the other process.
        async with httpx.AsyncClient(base_url=server.base_url) as http:
            host = (await http.post("/api/v1/players", json={"name": f"lobbyhost{time.time_ns() % 10**9}"})).json()
            auth = {"Authorization": f"Bearer {host['token']}"}
            r = await http.post("/api/v1/games", json={"game": "cahoots", "players": 3}, headers=auth)
            assert r.status_code == 201, r.text
            gid = r.json()["game_id"]
            created = await reader.until(lambda data: gid in _ids(data["open"]))
            assert int(created["id"]) > 1
            assert (await http.post(f"/api/v1/games/{gid}/seats", json={"seat": 0}, headers=auth)).status_code == 200

            def seated(data: dict) -> bool:
                table = next((g for g in data["open"]["games"] if g["game_id"] == gid), None)
                return table is not None and any(s["taken"] and s["name"] == host["name"] for s in table["seats"])

            seen = await reader.until(seated)
            # Exactly as GET /api/v1/games answers it.
            listed = (await http.get("/api/v1/games", params={"status": "open", "limit": 20})).json()
            row = next(g for g in listed["games"] if g["game_id"] == gid)
            assert next(g for g in seen["data"]["open"]["games"] if g["game_id"] == gid) == row

            # Cancelled: it leaves the open list.
            assert (await http.delete(f"/api/v1/games/{gid}", headers=auth)).status_code == 200
            await reader.until(lambda data: gid not in _ids(data["open"]) and int(reader.events[-1]["id"]) > 2)
    finally:
        await reader.stop()


async def test_a_resume_gets_the_whole_state_first(second_server):
    reader = LobbyReader(second_server.base_url, {"Last-Event-ID": "7"}).start()
    try:
        first = await reader.until(lambda data: True)
        assert first["event"] == "lobby" and set(first["data"]) == {"open", "playing", "finished", "quick_play"}
    finally:
        await reader.stop()


async def test_the_stream_is_documented_in_openapi(server):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        spec = (await http.get("/schema/openapi.json")).json()
    op = spec["paths"]["/api/v1/lobby/stream"]["get"]
    assert "503" in op["responses"] and "lobby" in op["description"]


async def test_redis_down_is_503_with_retry_after_then_the_stream_is_back(tmp_path):
    """Without Redis the stream would never hear of a change: 503, never 500."""
    private = PrivateServers()
    env = dict(os.environ, DATABASE_URL=private.database_url, REDIS_URL=private.redis_url, PYTHONPATH=str(ROOT))
    proc = ServerProcess(free_test_port(), env)
    try:
        proc.start()
        private.kill_redis()
        async with httpx.AsyncClient(base_url=proc.base_url, timeout=10) as http:
            r = await http.get("/api/v1/lobby/stream")
            assert r.status_code == 503 and r.headers["retry-after"].isdigit(), r.text
            assert r.json()["code"] == "storage_unavailable"
        private.start_redis()
        deadline = time.monotonic() + 20
        while True:  # the client reconnects, as the page does; Redis's client reconnects by itself
            reader = LobbyReader(proc.base_url).start()
            await asyncio.wait([reader.task], timeout=2)
            if reader.events:
                break
            await reader.stop()
            assert time.monotonic() < deadline, reader.status
        assert reader.status == 200 and reader.events[0]["event"] == "lobby"
        await reader.stop()
    finally:
        proc.stop()
        private.stop()
