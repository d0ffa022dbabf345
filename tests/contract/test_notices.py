"""One contract for the commit notices (the `Notices` port): the Redis
publisher and the memory one tell this process's subscriber of each notice
at once and in order, and keep every notice for the other processes (Redis:
on the fan-out stream; memory: in `published`)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
import redis.asyncio as aioredis

from services.app.ports.notices import Notices
from services.infra import keys as K
from services.infra.fanout import Notice, Publisher
from services.infra.memory_fanout import MemoryPublisher


class NoticesContract:
    async def sent(self, publisher: Any, stream_id: str, count: int) -> list[Notice]:
        """The notices on `stream_id` the other processes can read, once `count` are there."""
        raise NotImplementedError

    async def test_each_notice_reaches_the_local_subscriber_at_once_and_in_order(self, publisher: Any) -> None:
        heard: list[Notice] = []
        publisher.local = heard.append
        stream = f"notices-{uuid.uuid4().hex[:8]}"
        notices = [Notice(stream, 1, 3), Notice(stream, 4, 4), Notice(stream, 5, 6)]
        for notice in notices:
            publisher.publish(notice)
            assert heard[-1] == notice  # before publish returns
        assert heard == notices
        assert await self.sent(publisher, stream, 3) == notices

    async def test_without_a_local_subscriber_notices_still_go_out(self, publisher: Any) -> None:
        stream = f"notices-{uuid.uuid4().hex[:8]}"
        publisher.publish(Notice(stream, 1, 1))
        assert await self.sent(publisher, stream, 1) == [Notice(stream, 1, 1)]


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryPublisher(NoticesContract):
    @pytest.fixture
    def publisher(self) -> MemoryPublisher:
        return MemoryPublisher()

    async def sent(self, publisher: Any, stream_id: str, count: int) -> list[Notice]:
        return [n for n in publisher.published if n.stream_id == stream_id]


@pytest.mark.asyncio(loop_scope="session")
class TestRedisPublisher(NoticesContract):
    @pytest_asyncio.fixture(loop_scope="session")
    async def publisher(self, redis_client: aioredis.Redis) -> AsyncIterator[Publisher]:
        publisher = Publisher(redis_client)
        yield publisher
        await publisher.close()

    async def sent(self, publisher: Any, stream_id: str, count: int) -> list[Notice]:
        # The publisher's pipeline runs in a task of its own: poll until all
        # have landed (Redis offers no wait on a stream's content here).
        for _ in range(500):
            entries = await publisher.redis.xrange(K.FANOUT_STREAM)
            found = [
                Notice(f[K.F_STREAM.encode()].decode(), int(f[K.F_FIRST.encode()]), int(f[K.F_LAST.encode()]))
                for _, f in entries
                if f[K.F_STREAM.encode()].decode() == stream_id
            ]
            if len(found) >= count:
                return found
            await asyncio.sleep(0.01)
        raise AssertionError(f"{count} notices on {stream_id} never reached Redis")


def test_both_publishers_fit_the_port() -> None:
    adapters: list[Notices] = [MemoryPublisher(), Publisher(aioredis.Redis())]
    assert len(adapters) == 2
