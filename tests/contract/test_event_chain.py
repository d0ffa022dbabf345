"""The hash chain of every stream (engines/chain.py), one contract for the
memory store and the PostgreSQL store: each event's `prev_hash` is the hash
before it and its `hash` recomputes with the stream's key, a refused append
links nothing, heads carry over from batch to batch, and a stream stored
before the chain stays unchained."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import pytest_asyncio

from engines import chain
from services.infra.eventstore import EventStore, StoredEvent, VersionConflict
from services.infra.memory_eventstore import MemoryEventStore

Store = EventStore | MemoryEventStore


def _sid(prefix: str = "c") -> str:
    return f"chain-{prefix}-{uuid.uuid4().hex[:12]}"


def _recomputes(key: str, events: list[StoredEvent]) -> bool:
    prev = chain.GENESIS
    for e in events:
        if e.prev_hash != prev or e.hash != chain.link(
            key, prev, e.version, e.type, chain.canonical_stored(e.type, e.data)
        ):
            return False
        prev = e.hash
    return True


class ChainContract:
    """A subclass provides `store` and `create_unchained` (a stream as
    stored before migration 018: no chain key)."""

    async def create_unchained(self, store: Any, stream_id: str) -> None:
        raise NotImplementedError

    async def test_each_event_names_the_hash_before_it_and_its_own_recomputes(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        key = await store.chain_key(sid)
        assert key is not None and len(key) == 64 and int(key, 16) >= 0
        first = await store.append_chained(sid, 0, [("t.a", b'{"n": 1, "b": [2, 3]}'), ("t.b", b'{"n":2}')])
        second = await store.append_chained(sid, 2, [("t.c", b'{"n":3}')], ("cmd", b"{}"), 0)
        assert (first.version, second.version) == (2, 3)
        events = await store.read(sid)
        assert [e.hash for e in events] == [*first.hashes, *second.hashes]
        assert events[0].prev_hash == chain.GENESIS
        assert _recomputes(key, events)
        # The canonical form: keys sorted, no whitespace, whatever the writer's bytes.
        expected = chain.link(key, chain.GENESIS, 1, "t.a", b'{"b":[2,3],"n":1}')
        assert events[0].hash == expected
        caught_up, _commands = await store.read_with_commands(sid, 2)
        assert [(e.prev_hash, e.hash) for e in caught_up] == [(events[1].hash, events[2].hash)]

    async def test_streams_have_keys_of_their_own(self, store: Store) -> None:
        a, b = _sid("a"), _sid("b")
        for sid in (a, b):
            await store.create_stream(sid, "game")
            await store.append(sid, 0, [("t.a", b"{}")])
        assert await store.chain_key(a) != await store.chain_key(b)
        assert (await store.read(a))[0].hash != (await store.read(b))[0].hash
        assert await store.chain_key(_sid("never")) is None

    async def test_a_refused_append_links_nothing(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        await store.append(sid, 0, [("t.a", b"{}")])
        with pytest.raises(VersionConflict):
            await store.append_chained(sid, 0, [("t.forged", b"{}")])
        after = await store.append_chained(sid, 1, [("t.b", b"{}")])
        events = await store.read(sid)
        assert [e.type for e in events] == ["t.a", "t.b"]
        assert events[1].prev_hash == events[0].hash and after.hashes == [events[1].hash]
        key = await store.chain_key(sid)
        assert key is not None and _recomputes(key, events)

    async def test_an_append_of_nothing_keeps_the_head(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        await store.append(sid, 0, [("t.a", b"{}")])
        empty = await store.append_chained(sid, 1, [])
        assert (empty.version, empty.hashes) == (1, [])
        await store.append(sid, 1, [("t.b", b"{}")])
        key = await store.chain_key(sid)
        assert key is not None and _recomputes(key, await store.read(sid))

    async def test_heads_carry_over_through_many_concurrent_batches(self, store: Store) -> None:
        streams = [_sid(f"m{i}") for i in range(12)]
        for sid in streams:
            await store.create_stream(sid, "game")

        async def play(sid: str) -> None:
            for version in range(0, 30, 2):
                await store.append(sid, version, [("t.x", b'{"v":%d}' % version), ("t.y", b"{}")])

        await asyncio.gather(*(play(sid) for sid in streams))
        for sid in streams:
            events = await store.read(sid)
            key = await store.chain_key(sid)
            assert len(events) == 30 and key is not None and _recomputes(key, events), sid

    async def test_a_stream_stored_before_the_chain_stays_unchained(self, store: Store) -> None:
        sid = _sid("old")
        await self.create_unchained(store, sid)
        assert await store.chain_key(sid) is None
        appended = await store.append_chained(sid, 0, [("t.a", b"{}"), ("t.b", b"{}")])
        assert (appended.version, appended.hashes) == (2, [])
        assert [(e.prev_hash, e.hash) for e in await store.read(sid)] == [(None, None), (None, None)]


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryChain(ChainContract):
    @pytest.fixture
    def store(self) -> MemoryEventStore:
        return MemoryEventStore()

    async def create_unchained(self, store: Any, stream_id: str) -> None:
        await store.create_stream(stream_id, "game")
        store.unchain(stream_id)


@pytest.mark.asyncio(loop_scope="session")
class TestPostgresChain(ChainContract):
    @pytest_asyncio.fixture(loop_scope="session")
    async def store(self, pool: asyncpg.Pool) -> AsyncIterator[EventStore]:
        store = EventStore(pool)
        yield store
        if store._flusher is not None:
            store._flusher.cancel()
            with contextlib.suppress(BaseException):
                await store._flusher

    async def create_unchained(self, store: Any, stream_id: str) -> None:
        # As the release before migration 018 created streams: no key.
        await store.pool.execute("INSERT INTO streams (stream_id, kind) VALUES ($1, 'game')", stream_id)

    async def test_the_stream_row_keeps_the_head(self, store: EventStore) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        appended = await store.append_chained(sid, 0, [("t.a", b"{}"), ("t.b", b"{}")])
        head = await store.pool.fetchval("SELECT head_hash FROM streams WHERE stream_id = $1", sid)
        assert head == appended.hashes[-1]

    async def test_two_processes_appending_in_turn_keep_one_chain(self, store: EventStore) -> None:
        # Each store remembers the heads it wrote; the other's appends move
        # the stream past them, and the remembered head must not be used then.
        other = EventStore(store.pool)
        sid = _sid("two")
        await store.create_stream(sid, "game")
        try:
            version = 0
            for turn in range(6):
                writer = store if turn % 3 else other
                version = await writer.append(sid, version, [("t.n", b'{"n":%d}' % turn)])
            with pytest.raises(VersionConflict):
                await store.append(sid, version - 1, [("t.late", b"{}")])
            await other.append(sid, version, [("t.last", b"{}")])
            await store.append(sid, version + 1, [("t.after", b"{}")])
        finally:
            if other._flusher is not None:
                other._flusher.cancel()
                with contextlib.suppress(BaseException):
                    await other._flusher
        key = await store.chain_key(sid)
        events = await store.read(sid)
        assert len(events) == 8 and key is not None and _recomputes(key, events)

    async def test_a_failing_append_in_a_batch_leaves_its_neighbours_linked(self, store: EventStore) -> None:
        good, bad = _sid("good"), _sid("bad")
        for sid in (good, bad):
            await store.create_stream(sid, "game")
        await store.append(good, 0, [("t.a", b"{}")])
        results = await asyncio.gather(
            store.append_chained(good, 1, [("t.b", b"{}")]),
            store.append_chained(bad, 0, [("t.a", None)]),  # type: ignore[list-item]  # NOT NULL: the write refuses it
            return_exceptions=True,
        )
        assert isinstance(results[1], asyncpg.IntegrityConstraintViolationError)
        assert not isinstance(results[0], BaseException) and results[0].version == 2
        key = await store.chain_key(good)
        assert key is not None and _recomputes(key, await store.read(good))
        assert await store.read(bad) == [] and await store.version(bad) == 0
