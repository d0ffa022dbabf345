"""The fan-out's per-subscriber queue (services/infra/fanout.py NoticeQueue):
a get with a deadline and no task per wait."""

from __future__ import annotations

import asyncio
import contextlib
import time

from services.infra.fanout import Notice, NoticeQueue


def test_get_gives_queued_notices_in_order_then_none_at_the_deadline():
    async def main():
        queue = NoticeQueue()
        first, second = Notice("g", 1, 1), Notice("g", 2, 3)
        queue.put_nowait(first)
        queue.put_nowait(second)
        got = [await queue.get(1.0), await queue.get(1.0)]
        began = time.monotonic()
        empty = await queue.get(0.05)
        return got, empty, time.monotonic() - began, queue.empty()

    got, empty, waited, drained = asyncio.run(main())
    assert got == [Notice("g", 1, 1), Notice("g", 2, 3)]
    assert empty is None and waited >= 0.04 and drained


def test_a_put_wakes_the_waiting_consumer_before_its_deadline():
    async def main():
        queue = NoticeQueue()
        loop = asyncio.get_running_loop()
        loop.call_later(0.02, queue.put_nowait, Notice("g", 4, 4))
        began = time.monotonic()
        notice = await queue.get(5.0)
        return notice, time.monotonic() - began

    notice, waited = asyncio.run(main())
    assert notice == Notice("g", 4, 4) and waited < 2.0


def test_a_cancelled_get_leaves_the_queue_usable():
    async def main():
        queue = NoticeQueue()
        task = asyncio.create_task(queue.get(5.0))
        await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        queue.put_nowait(Notice("g", 5, 5))  # must not touch the dead waiter
        return await queue.get(0.5)

    assert asyncio.run(main()) == Notice("g", 5, 5)
