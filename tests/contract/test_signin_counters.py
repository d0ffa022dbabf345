"""One contract for the sign-in attempt windows (the `SignInCounters`
port): Redis's and the memory ones count, give back and keep a window's
length the same way. Each test counts under keys of its own (uuid)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.infra.memory_signin import MemorySignInCounters
from services.infra.redis_signin import RedisSignInCounters


def _keys() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:12]
    return f"contract:signin:name:{tag}", f"contract:signin:address:{tag}"


class SignInCountersContract:
    async def test_a_window_opens_with_its_first_attempt_and_counts_the_next(self, counters: Any) -> None:
        name, address = _keys()
        by_name, name_left, by_address, address_left = await counters.count_attempt(name, address, 60)
        assert (by_name, by_address) == (1, 1)
        assert 0 < name_left <= 60 and 0 < address_left <= 60
        assert (await counters.count_attempt(name, address, 60))[0::2] == (2, 2)

    async def test_the_two_windows_are_counted_apart(self, counters: Any) -> None:
        name, address = _keys()
        other_name, _ = _keys()
        await counters.count_attempt(name, address, 60)
        by_name, _, by_address, _ = await counters.count_attempt(other_name, address, 60)
        assert (by_name, by_address) == (1, 2)

    async def test_a_later_attempt_does_not_lengthen_the_window(self, counters: Any) -> None:
        name, address = _keys()
        first = await counters.count_attempt(name, address, 60)
        second = await counters.count_attempt(name, address, 600)
        assert second[1] <= first[1] and second[3] <= first[3]

    async def test_a_given_back_attempt_is_uncounted(self, counters: Any) -> None:
        name, address = _keys()
        await counters.count_attempt(name, address, 60)
        await counters.count_attempt(name, address, 60)
        await counters.give_back(name, address)
        assert (await counters.count_attempt(name, address, 60))[0::2] == (2, 2)

    async def test_giving_back_to_a_window_that_never_opened_leaves_none_open(self, counters: Any) -> None:
        name, address = _keys()
        await counters.give_back(name, address)
        assert (await counters.count_attempt(name, address, 60))[0::2] == (1, 1)


class TestMemorySignInCounters(SignInCountersContract):
    @pytest.fixture
    def counters(self) -> MemorySignInCounters:
        return MemorySignInCounters()

    async def test_a_window_closes_after_its_length(self) -> None:
        clock = [1000.0]
        counters = MemorySignInCounters(now=lambda: clock[0])
        name, address = _keys()
        await counters.count_attempt(name, address, 60)
        clock[0] += 61
        assert (await counters.count_attempt(name, address, 60))[0::2] == (1, 1)


class TestRedisSignInCounters(SignInCountersContract):
    @pytest.fixture
    def counters(self, redis_client: aioredis.Redis) -> RedisSignInCounters:
        return RedisSignInCounters(redis_client)
