"""Every SSE stream's keep-alive comes by the clock (services/infra/fanout.py,
Hub.watch), even while notices keep arriving: the resync delivers a bare
notice to every stream each second, so a stream with nothing to send (a
duplicate round's withheld results, an embargoed table) used to send no byte
at all until its client timed out (the tournament stream of
test_duplicate_embargo read nothing for 60 s)."""

from __future__ import annotations

import asyncio
import time
from contextlib import aclosing

from services.infra.fanout import Hub, Notice


async def test_keepalives_come_by_the_clock_while_bare_notices_keep_arriving():
    # Only the hub's in-process subscriptions are used here: no Redis read, no store.
    hub = Hub(redis=None, store=None)
    keepalive_s = 0.3

    async def resync_like() -> None:
        while True:  # faster than the keep-alive period, as the 1 s resync is than 10 s
            hub.deliver(Notice("t1", 4, 4))
            await asyncio.sleep(0.05)

    feeder = asyncio.create_task(resync_like())
    keepalives, notices = [], 0
    started = time.monotonic()
    try:
        async with aclosing(hub.watch("t1", keepalive_s)) as items:
            async for item in items:
                if item is None:
                    keepalives.append(time.monotonic() - started)
                    if len(keepalives) == 3:
                        break
                else:
                    notices += 1
                assert time.monotonic() - started < 30, "no keep-alive while notices arrive"
    finally:
        feeder.cancel()
    assert notices > 3  # the notices did flow meanwhile
    # One per period, not before it is due (a generous upper bound for a loaded machine).
    gaps = [b - a for a, b in zip([0.0, *keepalives], keepalives, strict=False)]
    assert all(g >= keepalive_s * 0.9 for g in gaps), gaps
    assert hub.subscriber_count == 0
