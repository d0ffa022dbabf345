"""The lobby's SSE stream (`GET /api/v1/lobby/stream`, services/http/routes/lobby.py):
the lobby's state as one `lobby` event on connect, then again whenever it changed.

The state is what the lobby page showed from three list reads and a count:
`open` (20), `playing` (20) and `finished` (10) are `GET /api/v1/games?status=…&limit=…`
pages, `quick_play` is `GET /api/v1/quick-play`, each exactly as those routes answer.

What wakes it, in every API process alike (all through the one fan-out stream,
services/infra/fanout.py, that every process reads):
- any committed game event (a deal, a move, the end): the Hub tells its listeners;
- a lobby notice (stream id `keys.LOBBY_STREAM`), published after the routes
  that change the lobby without an event: a table created, a seat taken or
  left, a table cancelled, a Play now ticket taken or withdrawn (`lobby_changed`,
  their `after_response` hook).

One LobbyFeed per process reads the lobby again when woken, at most once per
`MIN_GAP_S` (coalesced: a burst of moves is one read), and also every
`RECHECK_S` with or without a notice (a change whose notice was lost, Redis
briefly down). Its streams send the state only when it differs from what they
sent last. Public data only: the lists are public routes already.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing

import msgspec
from litestar import Request
from litestar.datastructures import State
from litestar.response import ServerSentEventMessage

from services.app.errors import Unavailable, unavailable_body
from services.app.games.lobby import LobbyPage, list_tables
from services.app.games.quickplay import QuickPlayPools
from services.http.sse import KEEPALIVE
from services.infra import keys as K
from services.infra.fanout import Hub, Notice
from services.infra.outages import OUTAGES, REDIS, outage_of

log = logging.getLogger("hanamichi.lobby_stream")

MIN_GAP_S = 1.0  # at most one read (and one send per stream) per second
RECHECK_S = 10.0  # a read without a notice, in case one was lost
LISTS = (("open", 20), ("playing", 20), ("finished", 10))


class LobbyState(msgspec.Struct):
    """The `lobby` event's data."""

    open: LobbyPage
    playing: LobbyPage
    finished: LobbyPage
    quick_play: QuickPlayPools


async def read_lobby(state: State) -> bytes:
    """The lobby's state, encoded: the same pages the list routes answer."""
    pages = [await list_tables(state.games.lobby, status, None, limit, None) for status, limit in LISTS]
    pools = await state.runtime.quick_play.pools()
    return msgspec.json.encode(LobbyState(pages[0], pages[1], pages[2], pools))


class LobbyFeed:
    """This process's one reader of the lobby, running while a stream is open.

    Every read (the feed's, or a stream's own on connect) takes a number as it
    starts: a stream sends the feed's state only if it was read after its own,
    so a stream never goes back to a state older than one it sent."""

    def __init__(self, hub: Hub, read: Callable[[], Awaitable[bytes]]) -> None:
        self.hub = hub
        self._read = read
        self.reads = 0  # reads started
        self.current: tuple[int, bytes] | None = None  # the feed's newest read: (its number, the state)
        self.streams = 0
        self._dirty = asyncio.Event()
        self._task: asyncio.Task | None = None
        hub.listeners.append(self._dirty.set)

    def opened(self) -> None:
        self.streams += 1
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())

    def closed(self) -> None:
        self.streams -= 1

    def changed(self) -> None:
        self._dirty.set()

    async def read(self) -> tuple[int, bytes]:
        self.reads += 1
        number = self.reads
        return number, await self._read()

    async def _run(self) -> None:
        while self.streams > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._dirty.wait(), RECHECK_S)
            self._dirty.clear()
            if self.streams <= 0:
                break
            try:
                number, data = await self.read()
            except Exception as exc:  # PostgreSQL away: try again after the gap
                log.warning("lobby read failed (%s); retrying", exc)
                self._dirty.set()
            else:
                if self.current is None or data != self.current[1]:
                    self.current = (number, data)
                    # Wakes this process's lobby streams (Hub subscribers of LOBBY_STREAM).
                    self.hub.deliver(Notice(K.LOBBY_STREAM, 1, 1))
            await asyncio.sleep(MIN_GAP_S)
        self._task = None


def lobby_feed(state: State) -> LobbyFeed:
    feed = state.get("lobby_feed")
    if feed is None:
        feed = LobbyFeed(state.hub, lambda: read_lobby(state))
        state.lobby_feed = feed
    return feed


async def lobby_changed(request: Request) -> None:
    """The `after_response` hook of the routes that change the lobby without
    an event (called only once they succeeded): tell every process's lobby
    streams. Never raises (the publisher queues the notice)."""
    request.app.state.runtime.publisher.publish(Notice(K.LOBBY_STREAM, 0, 0))


async def redis_reachable(state: State) -> None:
    """Unavailable (503 with Retry-After) unless Redis answers: without it a
    lobby stream would never hear of a change."""
    try:
        await asyncio.wait_for(state.redis.ping(), 2)
    except Exception as exc:
        if outage_of(exc) is None and not isinstance(exc, TimeoutError):
            raise
        OUTAGES.failed(exc, "lobby stream", REDIS)
        raise Unavailable(**unavailable_body(REDIS)) from None


def lobby_message(data: bytes, seq: int) -> ServerSentEventMessage:
    return ServerSentEventMessage(data=data.decode(), event="lobby", id=seq)


async def lobby_sse(state: State) -> AsyncIterator[ServerSentEventMessage]:
    """`lobby` events: the state at once, then each change (at most one a
    second); a keep-alive comment every `sse_keepalive_s`. Event ids count
    this stream's events; a resume (Last-Event-ID) gets a fresh state first."""
    feed = lobby_feed(state)
    feed.opened()
    sent: bytes | None = None
    sent_read = 0  # the number of the read `sent` came from
    seq = 0
    try:
        async with aclosing(state.hub.watch(K.LOBBY_STREAM, state.settings.sse_keepalive_s)) as notices:
            async for notice in notices:
                if notice is None:
                    yield KEEPALIVE
                    continue
                if sent is None:  # on connect: read now, not at the feed's next turn
                    sent_read, data = await feed.read()
                elif notice.last == 0:  # a lobby notice (not the feed's own): the feed reads again
                    feed.changed()
                    continue
                elif feed.current is not None and feed.current[0] > sent_read:
                    sent_read, data = feed.current
                else:
                    continue
                if data != sent:
                    sent = data
                    seq += 1
                    yield lobby_message(data, seq)
    finally:
        feed.closed()
