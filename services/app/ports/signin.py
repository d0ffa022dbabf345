"""The sign-in limits' port: windows of failed attempts, shared by every
API process (services/app/signin.py decides what they allow). Adapters:
services/infra/redis_signin.py (Redis) and services/infra/memory_signin.py;
tests/contract holds both to one suite."""

from __future__ import annotations

from typing import Protocol

__all__ = ["AttemptCounts", "SignInCounters"]

# (attempts in the name's window, its seconds left, attempts in the
# address's window, its seconds left)
AttemptCounts = tuple[int, int, int, int]


class SignInCounters(Protocol):
    async def count_attempt(self, name_key: str, address_key: str, window_s: int) -> AttemptCounts:
        """Count one attempt in both windows; a window opens with its first
        attempt and lasts `window_s` (a later attempt does not extend it)."""

    async def give_back(self, name_key: str, address_key: str) -> None:
        """Uncount one attempt in both windows (a window that lapsed
        meanwhile has nothing to give back)."""
