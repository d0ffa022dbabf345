"""Sign-in attempt windows in Redis (the `SignInCounters` port,
services/app/ports/signin.py): one counter per window, whose TTL is the
window, shared by every API process."""

from __future__ import annotations

from typing import Any


class RedisSignInCounters:
    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def count_attempt(self, name_key: str, address_key: str, window_s: int) -> tuple[int, int, int, int]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for counter in (name_key, address_key):
                # The window opens with its first attempt: INCR keeps the TTL SET gave.
                pipe.set(counter, 0, ex=window_s, nx=True)
                pipe.incr(counter)
                pipe.ttl(counter)
            _, by_name, name_ttl, _, by_address, address_ttl = await pipe.execute()
        return by_name, name_ttl, by_address, address_ttl

    async def give_back(self, name_key: str, address_key: str) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in (name_key, address_key):
                pipe.decr(key)
                pipe.ttl(key)
            _, name_ttl, _, address_ttl = await pipe.execute()
        # A window that lapsed meanwhile: DECR made a new key without a
        # TTL, and there was nothing left to give back.
        lapsed = [key for key, ttl in ((name_key, name_ttl), (address_key, address_ttl)) if ttl == -1]
        if lapsed:
            await self.redis.delete(*lapsed)
