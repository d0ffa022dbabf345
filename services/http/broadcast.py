"""Spectators' live fan-out: one redaction and one encoding per
event for the public audience, the same bytes written to every spectator
connection of the process.

A spectator stream first catches up on its own (its backlog as history,
GEN-1), then joins its table's Feed once it has exactly what the feed has
sent and that is past its backlog: from then on every version it gets is
live for it, so the one public encoding is right for it. The feed writes the
chunk straight to each connection's transport (uvicorn's, handed over by
services.http.httpserver in the scope), not through the ASGI stack: no
per-connection work but a bounded `transport.write`.

A connection whose unsent bytes pass `HANAMICHI_SSE_SPECTATOR_BUFFER_BYTES`
is cut: it gets a `reconnect` event (with the version it had and a `retry:`
hint) and is closed; it resumes with Last-Event-ID and catches up from the
log. The table never waits for a reader. Seats are never cut (GEN-1: what a
seat missed at its moment would be blanked in the history): their streams
stay on the per-connection path in routes_games."""

from __future__ import annotations

import asyncio
import logging
import socket
from contextlib import aclosing

import msgspec
from litestar.response import ServerSentEventMessage

from services.app.games import embargo, queries
from services.http.sse import KEEPALIVE
from services.infra import metrics
from services.infra.outages import OUTAGES
from services.infra.watchers import Watching

log = logging.getLogger("hanamichi.broadcast")

RETRY_MS = 1000  # the reconnect hint: a cut client comes back after about this long
ABORT_AFTER_S = 5.0  # a cut connection that does not read even its hint is dropped
_KEEPALIVE_BYTES = KEEPALIVE.encode()
_encode = msgspec.json.encode


def game_message(item: dict) -> ServerSentEventMessage:
    return ServerSentEventMessage(data=_encode(item).decode(), id=item["version"], event="game")


def end_message(version: int) -> ServerSentEventMessage:
    return ServerSentEventMessage(
        data=_encode({"version": version, "status": "finished"}).decode(), event="end", id=version
    )


def catch_up(games, table, viewer: int | None, last: int, upto: int, backlog: int) -> list[dict]:
    """The events after `last` up to `upto` as `viewer` may see them: up to
    `backlog` (what was written before the stream opened) as history, with
    what was public only at its moment blanked (GEN-1), the rest in full, each
    with its chain links, exactly as GET /events reads them."""
    past = min(upto, backlog)
    batch = table.history(past)[last:] + table.events[past:upto] if last < past else table.events[last:upto]
    return queries.linked(table, queries.redacted(table, viewer, last + 1, batch))


def _frame(payload: bytes) -> bytes:
    return b"%x\r\n%b\r\n" % (len(payload), payload)  # HTTP/1.1 chunked transfer encoding


class Member:
    """One spectator connection joined to a feed."""

    __slots__ = ("cycle", "transport", "chunked", "done", "last")

    def __init__(self, cycle, last: int) -> None:
        self.cycle = cycle
        self.transport = cycle.transport
        self.chunked = bool(cycle.chunked_encoding)
        self.done: asyncio.Future = asyncio.get_running_loop().create_future()
        self.last = last

    def finish(self, why: str) -> None:
        if not self.done.done():
            self.done.set_result(why)


class Feed:
    """The live public events of one table, for this process's spectators."""

    def __init__(self, feeds: dict, hub, games, table, keepalive_s: float, limit: int, sndbuf: int = 0) -> None:
        self.feeds, self.hub, self.games, self.table = feeds, hub, games, table
        # `limit`: unsent bytes before a connection is cut; `sndbuf`: the
        # kernel's send buffer of each socket (0: its own, autotuned), a cap
        # keeps what a stalled spectator holds in the kernel small.
        self.keepalive_s, self.limit, self.sndbuf = keepalive_s, limit, sndbuf
        self.members: set[Member] = set()
        self.sent = embargo.visible_upto(table, None)
        self.advanced = asyncio.Event()  # set (and replaced) whenever `sent` moves or the feed ends
        self.closed = False
        self.task = asyncio.create_task(self._run())

    def join(self, member: Member) -> None:
        if self.sndbuf:
            sock = member.transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.sndbuf)
        self.members.add(member)

    def leave(self, member: Member) -> None:
        self.members.discard(member)
        if not self.members and not self.closed:
            self._close()

    def _close(self) -> None:
        self.closed = True
        if self.feeds.get(self.table.game_id) is self:
            del self.feeds[self.table.game_id]
        self._advance()
        self.task.cancel()

    def _advance(self) -> None:
        self.advanced.set()
        self.advanced = asyncio.Event()

    def write(self, payload: bytes, version: int | None = None) -> None:
        """The same bytes to every member (framed once); a member past its
        buffer bound is cut instead."""
        framed = _frame(payload)
        limit = self.limit
        for m in list(self.members):
            transport = m.transport
            if m.cycle.disconnected or transport.is_closing():
                self.members.discard(m)
                m.finish("gone")
            elif transport.get_write_buffer_size() > limit:
                self.cut(m)
            else:
                transport.write(framed if m.chunked else payload)
                if version is not None:
                    m.last = version

    def cut(self, m: Member) -> None:
        self.members.discard(m)
        metrics.SSE_CUT.labels("slow_reader").inc()
        hint = ServerSentEventMessage(
            data=_encode({"version": m.last, "reason": "slow_reader"}).decode(),
            event="reconnect",
            retry=RETRY_MS,
        ).encode()
        transport = m.transport
        # The response's closing chunk is uvicorn's to write, when the stream returns.
        transport.write(_frame(hint) if m.chunked else hint)
        transport.close()  # flushes what it can; a reader that never reads is dropped below
        asyncio.get_running_loop().call_later(ABORT_AFTER_S, transport.abort)
        m.finish("cut")

    async def _run(self) -> None:
        table, games, why = self.table, self.games, "closed"
        try:
            async with aclosing(self.hub.watch(table.game_id, self.keepalive_s)) as notices:
                async for notice in notices:
                    if notice is None:
                        self.write(_KEEPALIVE_BYTES)
                        continue
                    if notice.last > table.version:
                        await games.refresh(table)  # written by another process, or a resync nudge
                    await games.check_embargo(table)
                    upto = embargo.visible_upto(table, None)  # nothing of an embargoed table
                    if upto > self.sent:
                        # The one redaction and encoding of these versions for every spectator.
                        items = queries.linked(
                            table, queries.redacted(table, None, self.sent + 1, table.events[self.sent : upto])
                        )
                        self.sent = upto
                        if items:
                            self.write(b"".join(game_message(i).encode() for i in items), upto)
                        self._advance()
                    if table.disclosed and self.sent >= table.version:
                        self.write(end_message(self.sent).encode())
                        why = "end"
                        return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # PostgreSQL down: the streams end, clients resume with Last-Event-ID
            if not OUTAGES.failed(exc, "spectator feeds; clients resume with Last-Event-ID"):
                log.warning("spectator feed of %s ended: %s", table.game_id, exc)
        finally:
            if not self.closed:
                self._close()
            for m in list(self.members):
                m.finish(why)
            self.members.clear()


def feed_of(state, games, table) -> Feed:
    feeds = state.hub.feeds
    feed = feeds.get(table.game_id)
    if feed is None or feed.closed:
        settings = state.settings
        feed = feeds[table.game_id] = Feed(
            feeds,
            state.hub,
            games,
            table,
            settings.sse_keepalive_s,
            settings.spectator_buffer_bytes,
            settings.spectator_sndbuf_bytes,
        )
    return feed


async def spectator_sse(state, games, table, last: int, cycle):
    """A spectator's stream: catch up (history, then live), then join the feed."""
    backlog = table.version  # GEN-1: what was written before the stream opened is history
    member: Member | None = None
    feed: Feed | None = None
    async with Watching(state.runtime.watchers, table.game_id, True):
        try:
            while True:
                if state.hub.ending:
                    return
                if feed is None or feed.closed:
                    done = table if feed is None else feed.table
                    if done.disclosed:  # over and public: no feed needed, the rest is history
                        for item in catch_up(games, done, None, last, done.version, backlog):
                            yield game_message(item)
                        yield end_message(max(last, done.version))
                        return
                    feed = feed_of(state, games, table)
                    continue
                target = feed.sent
                if last == target and target >= backlog:
                    if feed.table.disclosed and last >= feed.table.version:
                        yield end_message(last)
                        return
                    member = Member(cycle, last)
                    feed.join(member)
                    break
                if last < target:
                    for item in catch_up(games, feed.table, None, last, target, backlog):
                        yield game_message(item)
                    last = target
                    continue
                try:
                    await asyncio.wait_for(feed.advanced.wait(), state.settings.sse_keepalive_s)
                except TimeoutError:
                    yield KEEPALIVE
            await member.done  # the feed writes from here; this ends when it cuts, ends or closes
        finally:
            if member is not None and feed is not None:
                feed.leave(member)
