"""What the benches that play games over HTTP share: the trivial-route HTTP
ceiling, a table played by four seats, a spectator (services/tools/bench.py
and bench_soak.py; its own module so that those do not import each other)."""

from __future__ import annotations

import asyncio
import random
import time
import uuid

import asyncpg


async def http_ceiling(host: str, port: int, seconds: float, connections: int = 64) -> float:
    """GET /health (no IO, a tiny JSON body) from `connections` keep-alive
    connections of this load generator: what the same server stack, with its
    middleware, answers when our own code does nothing. Accepted actions/s
    over this is the share of the HTTP budget the action route uses."""
    from services.tools.loadclient import HttpConnection

    done = 0
    stop = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal done
        conn = HttpConnection(host, port)
        try:
            while time.perf_counter() < stop:
                status, _, _ = await conn.request("GET", "/health")
                done += status == 200
        finally:
            conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(connections)))
    return done / (time.perf_counter() - started)


class GameRunner:
    """Plays every seat of one game over HTTP, as four separate players.

    `stream` (the default) is how a bot client should play: each seat keeps
    its own SSE stream open, which says `turn` with the legal actions when
    the seat may act, and the seat answers with one POST. `poll` instead GETs
    the game before each move (two requests per action)."""

    def __init__(
        self, host: str, port: int, tokens: list[str], game_id: str, rng: random.Random, mode: str, think_s: float = 0.0
    ) -> None:
        from services.tools.loadclient import HttpConnection

        self.host, self.port = host, port
        self.conns = [HttpConnection(host, port) for _ in tokens]
        self.tokens = tokens
        self.game_id = game_id
        self.rng = rng
        self.mode = mode
        self.think_s = think_s
        self.latencies: list[float] = []
        self.committed: dict[int, float] = {}
        self.accepted = 0
        self.refused = 0

    async def play(self) -> None:
        if self.mode == "stream":
            await asyncio.gather(*(self._play_seat_from_stream(seat) for seat in range(len(self.tokens))))
        else:
            await self._play_by_polling()

    async def _submit(self, seat: int, legal: list, version: int) -> None:
        if self.think_s:
            await asyncio.sleep(self.think_s)
        body = {"action": self.rng.choice(legal), "command_id": uuid.uuid4().hex, "expected_version": version}
        sent = time.perf_counter()
        status, reply, headers = await self.conns[seat].request(
            "POST", f"/api/v1/games/{self.game_id}/actions", body, self.tokens[seat]
        )
        self.latencies.append(time.perf_counter() - sent)
        if status == 200:
            self.accepted += 1
            committed = float(headers["x-committed-at"])
            for event in reply["events"]:
                self.committed[event["version"]] = committed
            self.committed[reply["version"]] = committed
        else:
            self.refused += 1

    async def _play_seat_from_stream(self, seat: int) -> None:
        from services.tools.loadclient import HttpConnection

        stream = HttpConnection(self.host, self.port)
        try:
            async for event, _id, data in stream.sse(f"/api/v1/games/{self.game_id}/stream", self.tokens[seat]):
                if event == "turn":
                    await self._submit(seat, data["legal_actions"], data["version"])
                elif event == "end":
                    return
        finally:
            stream.close()

    async def _play_by_polling(self) -> None:
        path = f"/api/v1/games/{self.game_id}"
        guess = 0
        while True:
            status, info, _ = await self.conns[guess].request("GET", path, token=self.tokens[guess])
            if info["status"] == "finished":
                return
            seat = guess if guess in info["to_act"] else (info["to_act"][0] if info["to_act"] else None)
            if seat is None:
                await asyncio.sleep(0.005)
                continue
            if seat != guess:
                status, info, _ = await self.conns[seat].request("GET", path, token=self.tokens[seat])
            if info["legal_actions"]:
                await self._submit(seat, info["legal_actions"], info["version"])
            guess = (seat + 1) % len(self.tokens)

    def close(self) -> None:
        for conn in self.conns:
            conn.close()


async def spectate(host: str, port: int, game_id: str, arrivals: dict[int, float]) -> None:
    from services.tools.loadclient import HttpConnection

    conn = HttpConnection(host, port)
    try:
        async for event, _id, data in conn.sse(f"/api/v1/games/{game_id}/stream"):
            if event == "game":
                arrivals[data["version"]] = time.time()
            elif event == "end":
                return
    finally:
        conn.close()


async def raw_append_ceiling(dsn: str, seconds: float, connections: int = 8) -> float:
    """Single-event transactions from 8 connections on different streams:
    the ceiling that one-event-per-transaction appends could reach."""
    table = f"bench_raw_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(dsn)
    await admin.execute(
        f"CREATE TABLE {table} (stream text, version bigint, data bytea, PRIMARY KEY (stream, version))"
    )
    done = 0
    stop = time.perf_counter() + seconds

    async def writer(n: int) -> None:
        nonlocal done
        conn = await asyncpg.connect(dsn)
        version = 0
        try:
            while time.perf_counter() < stop:
                version += 1
                await conn.execute(f"INSERT INTO {table} VALUES ($1, $2, $3)", f"s{n}", version, b'{"type":"x"}')
                done += 1
        finally:
            await conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(writer(n) for n in range(connections)))
    elapsed = time.perf_counter() - started
    await admin.execute(f"DROP TABLE {table}")
    await admin.close()
    return done / elapsed
