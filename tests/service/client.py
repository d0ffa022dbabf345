"""A small HTTP client of the public API, as clients and bots use it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

PROCESS_HEADER = "x-api-process"


class ApiClient:
    """`fresh_connections=True`: no keep-alive, every request on a new
    connection, so behind one socket shared by several API processes (or a
    balancer) consecutive requests land on either. `answered` collects the
    `X-API-Process` of every response (pass one set to several clients to
    learn which processes answered all of them)."""

    player_id: str  # set by register

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        name: str = "",
        fresh_connections: bool = False,
        answered: set[str] | None = None,
    ) -> None:
        self.base_url = base_url
        self.token = token
        self.name = name
        self.answered: set[str] = set() if answered is None else answered
        options: dict[str, Any] = {"limits": httpx.Limits(max_keepalive_connections=0)} if fresh_connections else {}
        self.http = httpx.AsyncClient(
            base_url=base_url, timeout=30, event_hooks={"response": [self._record_process]}, **options
        )

    async def _record_process(self, response: httpx.Response) -> None:
        process = response.headers.get(PROCESS_HEADER)
        if process is not None:
            self.answered.add(process)

    @classmethod
    async def register(
        cls, base_url: str, name: str, fresh_connections: bool = False, answered: set[str] | None = None
    ) -> ApiClient:
        client = cls(base_url, name=name, fresh_connections=fresh_connections, answered=answered)
        r = await client.http.post("/api/v1/players", json={"name": name})
        if r.status_code == 409 and r.json()["code"] == "name_taken":
            # Names are unique and tests of one run share a database.
            client.name = name = f"{name}-{uuid.uuid4().hex[:6]}"
            r = await client.http.post("/api/v1/players", json={"name": name})
        r.raise_for_status()
        client.token = r.json()["token"]
        client.player_id = r.json()["player_id"]
        return client

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def post(self, path: str, body=None) -> httpx.Response:
        return await self.http.post(path, json=body, headers=self.headers)

    async def get(self, path: str, **params) -> httpx.Response:
        return await self.http.get(path, params=params, headers=self.headers)

    async def create_game(self, game: str, players: int, options: dict | None = None, ranked: bool = False) -> str:
        r = await self.post(
            "/api/v1/games", {"game": game, "players": players, "options": options or {}, "ranked": ranked}
        )
        assert r.status_code == 201, r.text
        return r.json()["game_id"]

    async def sit(self, game_id: str, seat: int | None = None) -> dict:
        r = await self.post(f"/api/v1/games/{game_id}/seats", {"seat": seat} if seat is not None else {})
        assert r.status_code == 200, r.text
        return r.json()

    async def game(self, game_id: str) -> dict:
        r = await self.get(f"/api/v1/games/{game_id}")
        assert r.status_code == 200, r.text
        return r.json()

    async def act(
        self, game_id: str, action: dict, command_id: str | None = None, expected_version: int | None = None
    ) -> httpx.Response:
        body: dict[str, Any] = {"action": action, "command_id": command_id or uuid.uuid4().hex}
        if expected_version is not None:
            body["expected_version"] = expected_version
        return await self.post(f"/api/v1/games/{game_id}/actions", body)

    async def close(self) -> None:
        await self.http.aclose()


async def play_randomly(client: ApiClient, game_id: str, rng: random.Random, until_version: int | None = None) -> int:
    """Play this client's seat with random legal actions until the game ends
    (or the log reaches `until_version`). Returns the number of accepted actions."""
    accepted = 0
    while True:
        info = await client.game(game_id)
        if info["status"] == "finished" or (until_version is not None and info["version"] >= until_version):
            return accepted
        if not info["legal_actions"]:
            await asyncio.sleep(0.01)
            continue
        action = rng.choice(info["legal_actions"])
        r = await client.act(game_id, action, expected_version=info["version"])
        if r.status_code == 200:
            accepted += 1
        else:
            assert r.status_code == 409, r.text  # somebody else moved first


@dataclass
class SseReader:
    """Reads a game's SSE stream in the background; resumes like a browser."""

    base_url: str
    game_id: str
    token: str | None = None
    messages: list[dict] = field(default_factory=list)  # {"id", "event", "data"}
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    last_id: str | None = None
    reconnects: int = 0
    answered: set[str] | None = None  # the `X-API-Process` of each stream it opened

    def start(self) -> SseReader:
        self.task = asyncio.create_task(self._run())
        return self

    async def _run(self) -> None:
        # A new connection for each resume: behind a shared socket or a balancer
        # it may land on either API process.
        async with httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(60, read=60),
            limits=httpx.Limits(max_keepalive_connections=0),
        ) as http:
            while not self.ended.is_set():
                headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
                if self.last_id is not None:
                    headers["Last-Event-ID"] = self.last_id
                try:
                    async with http.stream("GET", f"/api/v1/games/{self.game_id}/stream", headers=headers) as r:
                        assert r.status_code == 200, await r.aread()
                        if self.answered is not None and PROCESS_HEADER in r.headers:
                            self.answered.add(r.headers[PROCESS_HEADER])
                        event: dict = {}
                        async for line in r.aiter_lines():
                            if line == "":
                                if "data" in event:
                                    self.messages.append(event)
                                    if event.get("event") == "end":
                                        self.ended.set()
                                        return
                                event = {}
                                continue
                            if line.startswith(":"):
                                continue
                            key, _, value = line.partition(":")
                            value = value[1:] if value.startswith(" ") else value
                            if key == "id":
                                event["id"] = value
                                self.last_id = value
                            elif key == "event":
                                event["event"] = value
                            elif key == "data":
                                event["data"] = json.loads(value)
                except (httpx.HTTPError, AssertionError):
                    self.reconnects += 1
                    await asyncio.sleep(0.1)

    @property
    def game_events(self) -> list[dict]:
        return [m["data"] for m in self.messages if m.get("event") == "game"]

    async def stop(self) -> None:
        self.ended.set()
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task
