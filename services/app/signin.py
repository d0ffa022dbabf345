"""How often a name's password may be tried, without locking its owner out.

Two counters in Redis (the `SignInCounters` port), shared by every API
process, each a window of failed attempts that opens with the first one and
lasts `window_s` (so a burst of attempts is one window, wherever the
clock's minute falls); an attempt counts when it starts and is given back
when the password was right, so signing in never uses anyone's budget:

- **Per client address** (the address the connection cap counts,
  X-Forwarded-For only from HANAMICHI_TRUSTED_PROXIES): past its limit an
  attempt is refused with 429 before any password is checked. This caps
  guessing from one address, over one name or many.
- **Per name** (its name_key, services/app/names.py, so every spelling of a
  name is one counter): past its limit an attempt is still checked, but only
  after a fixed delay, and a wrong password then gets 429 rather than 401.
  Wrong guesses at one name are slowed, whoever makes them; the owner, with
  the right password, still signs in (after the delay). Ten wrong attempts
  from elsewhere never keep the owner out.

Redis down: refused with 503 `storage_unavailable` and Retry-After (fail
closed). An in-process fallback would give each process (and each restart)
a budget of its own, so the limit would no longer be one limit; sign-in is
paused for the outage instead, and sessions already open keep working (they
are in PostgreSQL)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from services.app.errors import ServiceError, Unavailable
from services.app.ports import SignInCounters
from services.infra import keys as K

log = logging.getLogger("hanamichi.signin")

T = TypeVar("T")


class TooManyAttempts(ServiceError):
    status = 429


@dataclass(frozen=True)
class SignInPolicy:
    name_limit: int = 10
    address_limit: int = 30
    window_s: int = 60
    slow_ms: int = 400


class SignInLimits:
    def __init__(self, counters: SignInCounters, policy: SignInPolicy) -> None:
        self.counters = counters
        self.policy = policy

    def _keys(self, key: str, address: str) -> tuple[str, str]:
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return K.signin_name_key(digest), K.signin_address_key(address[:64])

    async def attempt(self, key: str, address: str, check: Callable[[], Awaitable[T]], wrong: type[ServiceError]) -> T:
        """Run `check` (the password check, which raises `wrong` when the
        password is not right) within both limits."""
        name_key, address_key = self._keys(key, address)
        try:
            by_name, name_ttl, by_address, address_ttl = await self.counters.count_attempt(
                name_key, address_key, self.policy.window_s
            )
        except Exception as exc:
            log.warning("sign-in counter unavailable (%s); refusing sign-in", exc)
            raise Unavailable(
                "storage_unavailable", "sign-in is paused for a moment (its attempt counter is unavailable); retry"
            ) from None
        if by_address > self.policy.address_limit:
            retry_after = max(1, address_ttl)
            raise TooManyAttempts(
                "rate_limited",
                f"too many failed sign-in attempts from your address; wait {retry_after} s",
                retry_after_s=retry_after,
            )
        slowed = by_name > self.policy.name_limit
        retry_after = max(1, name_ttl)
        if slowed:
            await asyncio.sleep(self.policy.slow_ms / 1000)
        try:
            result = await check()
        except wrong as err:
            if slowed:
                raise TooManyAttempts(
                    "rate_limited",
                    f"too many failed sign-in attempts for this name: each one is now checked slowly,"
                    f" and a wrong password is refused like this for {retry_after} s"
                    " (the right one still signs in)",
                    retry_after_s=retry_after,
                ) from err
            raise
        await self._give_back(name_key, address_key)
        return result

    async def _give_back(self, name_key: str, address_key: str) -> None:
        try:
            await self.counters.give_back(name_key, address_key)
        except Exception as exc:  # the attempt stays counted: stricter, never looser
            log.warning("sign-in counter unavailable (%s); an attempt stays counted", exc)
