"""Revocation generations in Redis: how every API process learns, before the
revoking call returns, that a player's cached credentials may be stale.

Each player has a generation (services.infra.keys.revocation_key). A
process that caches a credential (services/app/players.py) keeps the
generation it read *before* it read the credential from PostgreSQL, and
trusts the cached copy only while Redis still holds that same generation:
one GET per cached hit. Signing out, a password change, a token rotation and
an agent's deletion commit to PostgreSQL first, then `bump` the generation,
then return; a copy cached before the commit carries an older generation, so
the next request anywhere reads PostgreSQL again.

A generation starts as a random number, never as a missing key: a key that
lapsed or a Redis that restarted empty reads as None, which matches no
cached copy, so a lost key costs a re-read from PostgreSQL, never a stale
credential. Every failure to read a generation (Redis down or slow) is
treated the same way: the caller goes to PostgreSQL."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from services.infra import keys as K

# A cached hit waits this long for Redis before it reads PostgreSQL instead:
# a slow Redis must not hold every authenticated request.
CHECK_TIMEOUT_S = 0.25

# A new generation: the next one, or a random one when the key is gone (an
# INCR would restart it at 1, a value a copy cached after an earlier lapse
# may hold).
_BUMP = (
    "if redis.call('exists', KEYS[1]) == 1 then redis.call('incr', KEYS[1])"
    " else redis.call('set', KEYS[1], ARGV[1]) end"
    " return redis.call('expire', KEYS[1], ARGV[2])"
)


class Revocations:
    def __init__(self, redis: Any, check_timeout_s: float = CHECK_TIMEOUT_S) -> None:
        self.redis = redis
        self.check_timeout_s = check_timeout_s

    async def current(self, player_id: str) -> bytes | None:
        """The player's generation now; None if there is none or Redis does
        not answer in time (then nothing cached may be trusted)."""
        try:
            value = await asyncio.wait_for(self.redis.get(K.revocation_key(player_id)), self.check_timeout_s)
        except asyncio.CancelledError:
            raise
        except Exception:  # down or slow: the caller reads PostgreSQL
            return None
        return value if isinstance(value, bytes) else None

    async def established(self, player_id: str) -> bytes | None:
        """The player's generation, drawn at random if it has none yet; None
        if Redis does not answer in time (then the caller caches nothing)."""
        key = K.revocation_key(player_id)
        try:
            async with asyncio.timeout(self.check_timeout_s):
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.set(key, secrets.randbits(62), nx=True, ex=K.REVOCATION_TTL_S)
                    pipe.get(key)
                    _, value = await pipe.execute()
        except asyncio.CancelledError:
            raise
        except Exception:
            return None
        return value if isinstance(value, bytes) else None

    async def bump(self, player_id: str) -> None:
        """Every process's cached credentials of the player stop being
        trusted. Raises when Redis cannot be reached (the route answers 503:
        the revocation is in PostgreSQL, but other processes were not told)."""
        await self.redis.eval(_BUMP, 1, K.revocation_key(player_id), secrets.randbits(62), K.REVOCATION_TTL_S)
