"""Live updates through one Redis Stream, fanned out in memory per process.

After a commit the writer publishes the new events (Publisher: pipelined
XADDs). Every process runs one Hub: a single XREAD loop that hands each entry
to the in-memory queues of that process's subscribers (SSE clients), so there
is never a blocking Redis connection per client.

Redis is only the fast path and a wake-up call. PostgreSQL is the truth: a subscriber tracks the
last version it delivered and fills any gap from the log. The Hub also asks
PostgreSQL, every `resync_interval_s`, for the current version of each stream
it has subscribers for, and nudges the ones that fell behind; that covers a
publish that never happened (crash between commit and publish, Redis down),
Redis flushed or restarted, and entries trimmed away.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass

import redis.asyncio as aioredis

from services.infra import keys as K
from services.infra import metrics
from services.infra.eventstore import EventStore
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.fanout")


@dataclass(frozen=True)
class Notice:
    """A stream has new events, versions first..last. Notices carry no event
    data: each process redacts per viewer from its table (or PostgreSQL), so
    Redis never holds a hidden card."""

    stream_id: str
    first: int
    last: int


class Publisher:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        # This process's own subscribers hear of a commit at once; Redis
        # carries it to the other processes (and duplicates are dropped by
        # version at each subscriber).
        self.local: Callable[[Notice], None] | None = None
        self._pending: list[Notice] = []
        self._queued_at: list[float] = []  # perf_counter() of each pending notice (commit-to-publish lag)
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.failures = 0

    def publish(self, notice: Notice) -> None:
        """Queue a notice; never blocks the committer, never raises."""
        if self.local is not None:
            self.local(notice)
        self._pending.append(notice)
        self._queued_at.append(time.perf_counter())
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                queued, self._queued_at = self._queued_at, []
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for n in batch:
                            pipe.xadd(
                                K.FANOUT_STREAM,
                                {K.F_STREAM: n.stream_id, K.F_FIRST: n.first, K.F_LAST: n.last},
                                maxlen=K.FANOUT_MAXLEN,
                                approximate=True,
                            )
                        await pipe.execute()
                    metrics.lag(metrics.COMMIT_TO_PUBLISH, queued, time.perf_counter())
                    OUTAGES.ok("fan-out publish")
                except Exception as exc:  # Redis down: subscribers catch up from PostgreSQL
                    self.failures += 1
                    if not OUTAGES.failed(exc, "fan-out publish; readers resync from PostgreSQL"):
                        log.warning("fan-out publish failed (%s); readers will resync from PostgreSQL", exc)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()


# Put in every subscriber's queue at shutdown: the stream ends there.
END = Notice("", -1, -1)


class NoticeQueue:
    """One consumer's notices: `put_nowait` and a `get` that gives up at a
    deadline. `asyncio.wait_for(queue.get(), t)` made a task, a future and a
    timer per wait, and with a thousand SSE streams under load that was about
    a seventh of an API process's samples (py-spy, `bench service --games
    200 --client stream`); here a wait is one future and one timer."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Notice] = deque()
        self._waiter: asyncio.Future | None = None

    def put_nowait(self, notice: Notice) -> None:
        self._items.append(notice)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self, timeout: float) -> Notice | None:
        """The next notice, or None once `timeout` seconds pass without one."""
        if not self._items:
            loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            timer = loop.call_later(timeout, _wake, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiter = None
            if not self._items:
                return None
        return self._items.popleft()


def _wake(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Subscription:
    __slots__ = ("stream_id", "queue")

    def __init__(self, stream_id: str) -> None:
        self.stream_id = stream_id
        self.queue = NoticeQueue()


class Hub:
    def __init__(
        self, redis: aioredis.Redis, store: EventStore, resync_interval_s: float = 1.0, latest_capacity: int = 20_000
    ) -> None:
        self.redis = redis
        self.store = store
        self.resync_interval_s = resync_interval_s
        self._subs: dict[str, set[Subscription]] = defaultdict(set)
        self._tasks: list[asyncio.Task] = []
        # The newest version each stream is known to have reached, from every
        # notice this process read: readers refresh a cached table from
        # PostgreSQL only when another process has moved it on. The streams
        # noticed least recently go past `latest_capacity` (every game ever
        # played passes through here): a copy left behind by a forgotten
        # notice is still caught up by the readers' periodic re-check.
        self.latest: dict[str, int] = {}
        self.latest_capacity = latest_capacity
        self.ending = False
        # Each table's spectator feed in this process (services.http.broadcast).
        self.feeds: dict = {}
        # Told of every batch of entries read from the fan-out, whatever its
        # stream (the lobby's stream, services/http/lobby_stream.py).
        self.listeners: list[Callable[[], None]] = []

    def end_streams(self) -> None:
        """Shutdown (SIGTERM): every SSE stream of this process ends now, and
        a new one ends at once, so the server can exit; clients resume with
        Last-Event-ID, at another process or after the restart."""
        self.ending = True
        for subs in self._subs.values():
            for sub in subs:
                sub.queue.put_nowait(END)

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._read_forever()), asyncio.create_task(self._resync_forever())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def subscribe(self, stream_id: str) -> Subscription:
        sub = Subscription(stream_id)
        self._subs[stream_id].add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.stream_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.stream_id]

    async def watch(self, stream_id: str, keepalive_s: float):
        """What an SSE response follows: a Notice at once (read the backlog:
        the subscription is already in place, so nothing falls in between),
        then one per notice, and None every `keepalive_s` by the clock.
        Use with contextlib.aclosing, so the subscription ends with the client.

        By the clock, not after `keepalive_s` without a notice: the resync
        delivers a bare notice every second, so a stream with nothing to send
        (a duplicate round's withheld results, an embargoed table) would
        otherwise never send a byte, and its client or proxy would time it out."""
        sub = self.subscribe(stream_id)
        try:
            if self.ending:
                return
            yield Notice(stream_id, 0, self.latest_version(stream_id))
            due = time.monotonic() + keepalive_s
            while True:
                notice = await sub.queue.get(max(0.0, due - time.monotonic()))
                if notice is None:
                    due = time.monotonic() + keepalive_s
                    yield None
                    continue
                if notice is END:
                    return
                yield notice
        finally:
            self.unsubscribe(sub)

    def deliver(self, notice: Notice) -> None:
        for sub in self._subs.get(notice.stream_id, ()):
            sub.queue.put_nowait(notice)

    def latest_version(self, stream_id: str) -> int:
        return self.latest.get(stream_id, 0)

    def _noticed(self, stream_id: str, version: int) -> None:
        self.latest.pop(stream_id, None)  # to the end: the dict's order is how recently each was noticed
        self.latest[stream_id] = version
        while len(self.latest) > self.latest_capacity:
            del self.latest[next(iter(self.latest))]

    @property
    def subscriber_count(self) -> int:
        return sum(len(s) for s in self._subs.values())

    async def _read_forever(self) -> None:
        last_id = "$"
        while True:
            try:
                if last_id == "$":
                    # Start from the newest entry: anything older is in PostgreSQL.
                    newest = await self.redis.xrevrange(K.FANOUT_STREAM, count=1)
                    last_id = newest[0][0] if newest else "0-0"
                reply = await self.redis.xread({K.FANOUT_STREAM: last_id}, block=1000, count=500)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not OUTAGES.failed(exc, "fan-out read; readers resync from PostgreSQL"):
                    log.warning("fan-out read failed (%s); retrying, readers resync from PostgreSQL", exc)
                last_id = "$"
                await asyncio.sleep(0.2)
                continue
            OUTAGES.ok("fan-out read; readers resync from PostgreSQL")
            if not reply:
                # Redis restarted or flushed: ids may restart below ours.
                if not await self.redis.exists(K.FANOUT_STREAM):
                    last_id = "0-0"
                continue
            for listener in self.listeners:
                listener()
            for _stream, entries in reply:
                for entry_id, fields in entries:
                    last_id = entry_id
                    metrics.delivered(entry_id)  # the entry id is Redis's clock at the XADD
                    stream_id = fields[K.F_STREAM.encode()].decode()
                    last = int(fields[K.F_LAST.encode()])
                    if last > self.latest.get(stream_id, 0):
                        self._noticed(stream_id, last)
                    if stream_id in self._subs:
                        self.deliver(Notice(stream_id, int(fields[K.F_FIRST.encode()]), last))

    async def _resync_forever(self) -> None:
        while True:
            await asyncio.sleep(self.resync_interval_s)
            if not self._subs:
                continue
            try:
                versions = await self.store.versions(list(self._subs))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not OUTAGES.failed(exc, "fan-out resync"):
                    log.warning("resync query failed: %s", exc)
                continue
            OUTAGES.ok("fan-out resync")
            for stream_id, version in versions.items():
                # What PostgreSQL says counts as a notice too: a copy behind it
                # catches up (services/app/games/service.py), even if Redis lost the entry.
                if version > self.latest.get(stream_id, 0):
                    self._noticed(stream_id, version)
                # A bare notice: subscribers behind `version` read the gap from PostgreSQL.
                self.deliver(Notice(stream_id, version, version))
