"""Leases in Redis: one holder at a time for work any process could do (a
table's house-bot driver), each with an owner and an expiry. Taken with SET
NX PX, renewed by its owner while it works, released at the end; a holder
that dies stops renewing, so its lease lapses and another process takes the
work over. Only the owner renews or releases (a check-and-act in Lua): a
holder that lost its lease (it lapsed while the process stalled) never
deletes the next owner's."""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from typing import Any

_RENEW = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
)
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"


class Lease:
    """One lease on `key` for one owner. `lost` turns True once a renewal
    finds it gone or cannot reach Redis: the holder must stop its work."""

    def __init__(self, redis: Any, key: str, owner: str, ttl_ms: int) -> None:
        self.redis = redis
        self.key = key
        self.owner = owner
        self.ttl_ms = ttl_ms
        self.lost = False
        self._keeper: asyncio.Task | None = None

    async def take(self) -> bool:
        """Take the lease if nobody holds it; then renew it in the background."""
        taken = bool(await self.redis.set(self.key, self.owner, nx=True, px=self.ttl_ms))
        if taken:
            self.lost = False
            self._keeper = asyncio.create_task(self._keep())
        return taken

    async def _keep(self) -> None:
        # Renewed three times a lease: one late renewal does not lose it.
        while True:
            await asyncio.sleep(self.ttl_ms / 3000)
            try:
                renewed = bool(await self.redis.eval(_RENEW, 1, self.key, self.owner, self.ttl_ms))
            except Exception:  # Redis unreachable: the lease may lapse at any moment
                renewed = False
            if not renewed:
                self.lost = True
                return

    async def release(self) -> None:
        """Stop renewing and give the lease up (if it is still ours)."""
        if self._keeper is not None:
            self._keeper.cancel()
            self._keeper = None
        if not self.lost:
            await self.redis.eval(_RELEASE, 1, self.key, self.owner)


class Leases:
    """Makes leases owned by this process (host and pid, plus a token per lease)."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.process = f"{socket.gethostname()}:{os.getpid()}"

    def lease(self, key: str, ttl_ms: int) -> Lease:
        return Lease(self.redis, key, f"{self.process}:{uuid.uuid4().hex[:12]}", ttl_ms)
