"""Spectator counts per table, right with several API processes.

Each process counts the spectator streams it serves itself, in memory, and
writes them to a Redis hash of its own (services.infra.keys) that expires
unless refreshed every `refresh_s`: a process killed without a goodbye stops
counting within WATCHERS_TTL_S. A registry (sorted set, scored by when each
process's entry lapses) says whose hashes to sum. Readers sum the hashes of
the live processes, so any process answers the same total.

A spectator is a stream without a seat at the table; the players' own
streams are not counted. Counts are a display figure: if Redis is down the
count is unknown (None), never an error for the route that shows it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import Iterable

import redis.asyncio as aioredis

from services.infra import keys as K
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.watchers")


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Watchers:
    def __init__(self, redis: aioredis.Redis, refresh_s: float = 5.0, ttl_s: int = K.WATCHERS_TTL_S) -> None:
        self.redis = redis
        self.refresh_s = refresh_s
        self.ttl_s = ttl_s
        self.process_id = uuid.uuid4().hex
        self.key = K.watchers_of_process(self.process_id)
        self.counts: Counter[str] = Counter()
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None

    # --- this process's streams -------------------------------------------------

    def enter(self, game_id: str) -> None:
        self.counts[game_id] += 1
        self._poke()

    def leave(self, game_id: str) -> None:
        self.counts[game_id] -= 1
        if self.counts[game_id] <= 0:
            del self.counts[game_id]
        self._poke()

    def _poke(self) -> None:
        # The writer starts with the first spectator: a process that never
        # serves one (the worker) never writes.
        self._changed.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            self._changed.clear()
            try:
                await self.flush()
                OUTAGES.ok("spectator counts written")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis down: counts are stale until it is back
                if not OUTAGES.failed(exc, "spectator counts written"):
                    log.warning("spectator counts not written (%s: %s)", type(exc).__name__, exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), self.refresh_s)
            # Many streams opening at once (a popular table) make one write.
            await asyncio.sleep(0.05)

    async def flush(self) -> None:
        """Replace this process's hash with its counts, and renew its lease."""
        now = _now_ms()
        counts = dict(self.counts)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.key)
            if counts:
                pipe.hset(self.key, mapping=counts)
                pipe.expire(self.key, self.ttl_s)
            pipe.zadd(K.WATCHERS_PROCESSES, {self.process_id: now + self.ttl_s * 1000})
            pipe.zremrangebyscore(K.WATCHERS_PROCESSES, "-inf", now)  # processes that died
            await pipe.execute()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.delete(self.key)
                pipe.zrem(K.WATCHERS_PROCESSES, self.process_id)
                await pipe.execute()
        except Exception:  # the lease lapses by itself
            pass

    # --- every process's --------------------------------------------------------

    async def _live_keys(self) -> list[str]:
        ids = await self.redis.zrangebyscore(K.WATCHERS_PROCESSES, _now_ms(), "+inf")
        return [K.watchers_of_process(i.decode() if isinstance(i, bytes) else i) for i in ids]

    async def of(self, game_ids: Iterable[str]) -> dict[str, int] | None:
        """Spectators of each game over every live process; None if Redis is down."""
        game_ids = list(game_ids)
        try:
            keys = await self._live_keys()
            if not keys or not game_ids:
                return {g: 0 for g in game_ids}
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.hmget(key, game_ids)
                replies = await pipe.execute()
        except Exception as exc:
            if not OUTAGES.failed(exc, "spectator counts read"):
                log.warning("spectator counts not read (%s: %s)", type(exc).__name__, exc)
            return None
        OUTAGES.ok("spectator counts read")
        totals = {g: 0 for g in game_ids}
        for reply in replies:
            for g, n in zip(game_ids, reply, strict=True):
                if n is not None:
                    totals[g] += int(n)
        return totals

    async def one(self, game_id: str) -> int | None:
        counts = await self.of([game_id])
        return None if counts is None else counts[game_id]


class Watching:
    """Counts one spectator stream while it is open (`with`), until it ends or
    its viewer turns out to hold a seat (`seated()`)."""

    def __init__(self, watchers: Watchers, game_id: str, spectator: bool) -> None:
        self.watchers, self.game_id, self.counted = watchers, game_id, spectator

    def __enter__(self) -> Watching:
        if self.counted:
            self.watchers.enter(self.game_id)
        return self

    def seated(self) -> None:
        if self.counted:
            self.counted = False
            self.watchers.leave(self.game_id)

    def __exit__(self, *exc) -> None:
        self.seated()

    # As an async context manager too, to sit beside the stream's aclosing().
    async def __aenter__(self) -> Watching:
        return self.__enter__()

    async def __aexit__(self, *exc) -> None:
        self.seated()
