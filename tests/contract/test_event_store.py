"""One contract for every event store: `EventStoreContract` is written once
and run against the memory store and the PostgreSQL store, so a use case
tested on the memory store behaves the same in production, and a change
to either store that the other does not follow fails here.

The PostgreSQL variant shares the session database with other tests: each
test writes streams of its own (uuid ids) and reads the global log only
past the position it found on arrival."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, cast

import asyncpg
import pytest
import pytest_asyncio

from services.app.ports import EventLog
from services.infra.eventstore import EventStore, StoredEvent, VersionConflict
from services.infra.memory_eventstore import MemoryEventStore

Store = EventStore | MemoryEventStore


def _sid(prefix: str = "s") -> str:
    return f"contract-{prefix}-{uuid.uuid4().hex[:12]}"


def _rows(events: list[StoredEvent]) -> list[tuple[int, str, bytes]]:
    return [(e.version, e.type, e.data) for e in events]


class EventStoreContract:
    """The suite; a subclass provides the `store` fixture, `last_position`
    (the global log's last position, so a test reads only what it wrote
    after) and `duplicate_stream` (what creating a stream twice raises)."""

    duplicate_stream: type[Exception]

    async def last_position(self, store: Any) -> int:
        raise NotImplementedError

    async def _mine(self, store: Store, start: int, streams: set[str]) -> list[tuple[int, str, int, str, bytes]]:
        return [row for row in await store.read_all(start, limit=100_000) if row[1] in streams]

    # --- appending ----------------------------------------------------------

    async def test_an_append_at_the_right_version_returns_the_new_version(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        assert await store.version(sid) == 0
        assert await store.append(sid, 0, [("t.a", b'{"n":1}'), ("t.b", b'{"n":2}')]) == 2
        assert await store.append(sid, 2, [("t.c", b'{"n":3}')]) == 3
        # Nothing to write: the version stays, and the append still checks it.
        assert await store.append(sid, 3, []) == 3
        with pytest.raises(VersionConflict):
            await store.append(sid, 2, [])
        assert _rows(await store.read(sid)) == [(1, "t.a", b'{"n":1}'), (2, "t.b", b'{"n":2}'), (3, "t.c", b'{"n":3}')]
        assert await store.version(sid) == 3

    async def test_a_stale_expected_version_raises_and_writes_nothing(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("a", b"1")], ("cmd-1", b"one"), 0) == 1
        assert await store.append(sid, 1, [("b", b"2"), ("c", b"3")], ("cmd-2", b"two"), 1) == 3
        start = await self.last_position(store)

        async def snapshot() -> tuple:
            return (
                _rows(await store.read(sid)),
                await store.commands_of(sid),
                await store.version(sid),
                await self._mine(store, start, {sid}),
            )

        before = await snapshot()
        for stale in (0, 1, 2, 4, 100, -1):
            with pytest.raises(VersionConflict) as info:
                await store.append(sid, stale, [("evil", b"x"), ("evil", b"y")], (f"stale-{stale}", b"{}"), 0)
            assert (info.value.stream_id, info.value.expected) == (sid, stale)
        assert await snapshot() == before
        assert before[2] == 3 and before[3] == []
        assert await store.find_command(sid, "stale-1", 0) is None
        assert await store.append(sid, 3, [("d", b"4")]) == 4  # the stream still takes the right version

    async def test_an_append_to_a_stream_never_created_raises(self, store: Store) -> None:
        ghost = _sid("ghost")
        start = await self.last_position(store)
        with pytest.raises(VersionConflict) as info:
            await store.append(ghost, 0, [("a", b"1")], ("cmd", b"{}"), 0)
        assert (info.value.stream_id, info.value.expected) == (ghost, 0)
        assert await store.read(ghost) == []
        assert await store.version(ghost) is None
        assert await store.find_command(ghost, "cmd", 0) is None
        assert await store.commands_of(ghost) == {}
        assert await self._mine(store, start, {ghost}) == []
        # The failed attempt left no trace: once created, the stream starts at 0.
        await store.create_stream(ghost, "game")
        assert await store.append(ghost, 0, [("a", b"1")], ("cmd", b"second"), 0) == 1
        assert await store.find_command(ghost, "cmd", 0) == b"second"

    async def test_creating_a_stream_twice_fails_and_keeps_the_stream(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("a", b"1")]) == 1
        with pytest.raises(self.duplicate_stream):
            await store.create_stream(sid, "tournament")
        assert await store.version(sid) == 1
        assert _rows(await store.read(sid)) == [(1, "a", b"1")]

    async def test_appends_to_one_stream_issued_together_apply_in_order(self, store: Store) -> None:
        # A caller may pipeline: each append must see the one issued before it.
        sid = _sid()
        await store.create_stream(sid, "game")
        results = await asyncio.gather(*(store.append(sid, v, [("e", str(v).encode())]) for v in range(5)))
        assert results == [1, 2, 3, 4, 5]
        assert [e.data for e in await store.read(sid)] == [b"0", b"1", b"2", b"3", b"4"]

    # --- commands -------------------------------------------------------------

    async def test_command_ids_are_per_stream_and_seat(self, store: Store) -> None:
        sid, other = _sid(), _sid("other")
        await store.create_stream(sid, "game")
        await store.create_stream(other, "game")
        assert await store.append(sid, 0, [("e", b"1")], ("c", b"seat 0"), 0) == 1
        assert await store.append(sid, 1, [("e", b"2")], ("c", b"seat 1"), 1) == 2
        assert await store.append(sid, 2, [("e", b"3")], ("c", b"server"), None) == 3
        assert await store.append(other, 0, [("e", b"1")], ("c", b"other stream"), 0) == 1
        assert await store.commands_of(sid) == {(0, "c"): b"seat 0", (1, "c"): b"seat 1", (None, "c"): b"server"}
        assert await store.commands_of(other) == {(0, "c"): b"other stream"}
        assert await store.find_command(sid, "c", 0) == b"seat 0"
        assert await store.find_command(sid, "c", 1) == b"seat 1"
        assert await store.find_command(sid, "c") == b"server"
        assert await store.find_command(sid, "c", 2) is None
        assert await store.find_command(sid, "d", 0) is None
        assert await store.find_command(other, "c", 0) == b"other stream"

    async def test_a_command_id_recorded_again_keeps_its_first_outcome(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("e", b"1")], ("c", b"first"), 0) == 1
        # The append itself is not refused: its events are written, only the
        # outcome (and the version it is filed under) stay the first ones.
        assert await store.append(sid, 1, [("e", b"2")], ("c", b"second"), 0) == 2
        assert _rows(await store.read(sid)) == [(1, "e", b"1"), (2, "e", b"2")]
        assert await store.find_command(sid, "c", 0) == b"first"
        assert await store.commands_of(sid) == {(0, "c"): b"first"}
        assert await store.commands_of(sid, after=1) == {}
        assert (await store.read_with_commands(sid, 1))[1] == {}

    # --- reading --------------------------------------------------------------

    async def test_read_returns_the_range_after_upto(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("e", str(v).encode()) for v in range(1, 6)]) == 5

        async def versions(after: int = 0, upto: int | None = None) -> list[int]:
            return [e.version for e in await store.read(sid, after, upto)]

        assert await versions() == [1, 2, 3, 4, 5]
        assert await versions(2) == [3, 4, 5]
        assert await versions(1, 3) == [2, 3]
        assert await versions(upto=1) == [1]
        assert await versions(2, 2) == []
        assert await versions(5) == []
        assert await versions(upto=0) == []
        assert await versions(3, 100) == [4, 5]
        assert [e.data for e in await store.read(sid, 3)] == [b"4", b"5"]
        assert await store.read(_sid("none")) == []

    async def test_read_with_commands_returns_only_what_is_past_after(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("e", b"1")], ("a", b"A"), 0) == 1
        assert await store.append(sid, 1, [("e", b"2"), ("e", b"3")], ("b", b"B"), 1) == 3
        assert await store.append(sid, 3, [("e", b"4")], ("c", b"C"), None) == 4
        assert await store.append(sid, 4, [("e", b"5")]) == 5
        cases = {
            0: ([1, 2, 3, 4, 5], {(0, "a"): b"A", (1, "b"): b"B", (None, "c"): b"C"}),
            1: ([2, 3, 4, 5], {(1, "b"): b"B", (None, "c"): b"C"}),
            2: ([3, 4, 5], {(None, "c"): b"C"}),  # b's first version, 2, is not past 2
            3: ([4, 5], {(None, "c"): b"C"}),
            4: ([5], {}),
            5: ([], {}),
        }
        for after, (versions, commands) in cases.items():
            events, found = await store.read_with_commands(sid, after)
            assert ([e.version for e in events], found) == (versions, commands), after
            assert _rows(events) == _rows(await store.read(sid, after)), after
            assert await store.commands_of(sid, after) == commands, after
        assert await store.read_with_commands(_sid("none"), 0) == ([], {})

    async def test_version_and_versions_know_only_created_streams(self, store: Store) -> None:
        a, b, ghost = _sid("a"), _sid("b"), _sid("ghost")
        await store.create_stream(a, "game")
        await store.create_stream(b, "tournament")
        assert await store.append(a, 0, [("e", b"1"), ("e", b"2")]) == 2
        assert (await store.version(a), await store.version(b), await store.version(ghost)) == (2, 0, None)
        assert await store.versions([a, b, ghost]) == {a: 2, b: 0}
        assert await store.versions([ghost]) == {}
        assert await store.versions([]) == {}

    async def test_each_version_knows_when_it_was_committed(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        before = time.time_ns() // 1_000_000
        await store.append(sid, 0, [("e", b"1")])
        await store.append(sid, 1, [("e", b"2")])
        after = time.time_ns() // 1_000_000
        first, second = await store.recorded_ms(sid, 1), await store.recorded_ms(sid, 2)
        # PostgreSQL's clock is this machine's; its now() is the transaction's start.
        assert first is not None and second is not None
        assert before - 1_000 <= first <= second <= after + 1_000
        assert await store.recorded_ms(sid, 3) is None
        assert await store.recorded_ms(_sid("none"), 1) is None

    # --- the global order -----------------------------------------------------

    async def test_read_all_gives_gapless_positions_in_commit_order(self, store: Store) -> None:
        a, b, c = _sid("a"), _sid("b"), _sid("c")
        for sid in (a, b, c):
            await store.create_stream(sid, "game")
        start = await self.last_position(store)
        assert await store.append(a, 0, [("x", b"a1")]) == 1
        assert await store.append(b, 0, [("y", b"b1"), ("y", b"b2")]) == 2
        assert await store.append(a, 1, [("x", b"a2")]) == 2
        assert await store.append(c, 0, [("z", b"c1")]) == 1
        everything = await store.read_all(start, limit=100_000)
        # Gapless over the whole log past `start` (another writer's events included).
        assert [row[0] for row in everything] == list(range(start + 1, start + 1 + len(everything)))
        mine = [row[1:] for row in everything if row[1] in {a, b, c}]
        assert mine == [
            (a, 1, "x", b"a1"),
            (b, 1, "y", b"b1"),
            (b, 2, "y", b"b2"),
            (a, 2, "x", b"a2"),
            (c, 1, "z", b"c1"),
        ]
        assert len(everything) >= 5
        # `limit` and `after_position` page through the same log.
        assert await store.read_all(start, limit=2) == everything[:2]
        assert await store.read_all(everything[1][0], limit=2) == everything[2:4]
        assert await store.read_all(start, limit=0) == []
        assert await self._mine(store, everything[-1][0], {a, b, c}) == []

    async def test_concurrent_appends_at_one_version_let_exactly_one_win(self, store: Store) -> None:
        sid = _sid()
        await store.create_stream(sid, "game")
        assert await store.append(sid, 0, [("e", b"first")]) == 1
        results = await asyncio.gather(
            *(store.append(sid, 1, [("race", str(i).encode())], (f"cmd-{i}", str(i).encode()), 0) for i in range(10)),
            return_exceptions=True,
        )
        winners = [i for i, r in enumerate(results) if r == 2]
        assert len(winners) == 1
        assert sum(isinstance(r, VersionConflict) for r in results) == 9
        won = str(winners[0]).encode()
        assert _rows(await store.read(sid)) == [(1, "e", b"first"), (2, "race", won)]
        assert await store.version(sid) == 2
        assert await store.commands_of(sid) == {(0, f"cmd-{winners[0]}"): won}

    async def test_concurrent_appends_to_different_streams_all_commit_with_distinct_positions(
        self, store: Store
    ) -> None:
        streams = [_sid(f"w{i}") for i in range(20)]
        for sid in streams:
            await store.create_stream(sid, "game")
        start = await self.last_position(store)
        results = await asyncio.gather(*(store.append(sid, 0, [("e", b"1"), ("e", b"2")]) for sid in streams))
        assert results == [2] * len(streams)
        mine = await self._mine(store, start, set(streams))
        positions = [row[0] for row in mine]
        assert len(mine) == 2 * len(streams)
        assert positions == sorted(set(positions))
        assert {(row[1], row[2]) for row in mine} == {(sid, v) for sid in streams for v in (1, 2)}
        for sid in streams:  # within a stream, the global order is the version order
            assert [row[2] for row in mine if row[1] == sid] == [1, 2]
        assert await store.versions(streams) == {sid: 2 for sid in streams}


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryEventStore(EventStoreContract):
    duplicate_stream = ValueError

    @pytest.fixture
    def store(self) -> MemoryEventStore:
        return MemoryEventStore()

    async def last_position(self, store: Any) -> int:
        rows = await store.read_all(0, limit=10**9)
        return rows[-1][0] if rows else 0

    async def test_positions_start_at_one(self, store: MemoryEventStore) -> None:
        await store.create_stream("a", "game")
        await store.append("a", 0, [("e", b"1"), ("e", b"2")])
        assert [row[0] for row in await store.read_all()] == [1, 2]

    async def test_what_a_reader_gets_cannot_change_the_log(self, store: MemoryEventStore) -> None:
        await store.create_stream("a", "game")
        events = [("e", b"1")]
        await store.append("a", 0, events)
        events.append(("e", b"late"))  # the caller reuses its list
        read = await store.read("a")
        read[0].data = b"forged"
        assert _rows(await store.read("a")) == [(1, "e", b"1")]


@pytest.mark.asyncio(loop_scope="session")
class TestPostgresEventStore(EventStoreContract):
    duplicate_stream = asyncpg.UniqueViolationError

    @pytest_asyncio.fixture(loop_scope="session")
    async def store(self, pool: asyncpg.Pool) -> AsyncIterator[EventStore]:
        store = EventStore(pool)
        yield store
        if store._flusher is not None:
            store._flusher.cancel()
            with contextlib.suppress(BaseException):
                await store._flusher

    async def last_position(self, store: Any) -> int:
        return await store.pool.fetchval("SELECT coalesce(max(position), 0) FROM events")

    async def test_a_stream_created_on_a_callers_connection_rolls_back_with_it(self, store: EventStore) -> None:
        # The memory store cannot do this: it ignores `conn`.
        sid = _sid()
        with pytest.raises(RuntimeError):
            async with store.pool.acquire() as conn, conn.transaction():
                await store.create_stream(sid, "game", conn)
                assert await conn.fetchval("SELECT version FROM streams WHERE stream_id = $1", sid) == 0
                raise RuntimeError("the caller's transaction fails")
        assert await store.version(sid) is None


def _signature(method: Any) -> list[tuple[str, Any]]:
    return [(p.name, p.default) for p in inspect.signature(method).parameters.values()]


def test_both_stores_offer_the_port_and_the_memory_store_every_method_of_postgresql() -> None:
    port = [name for name, member in vars(EventLog).items() if inspect.iscoroutinefunction(member)]
    assert sorted(port) == [
        "append",
        "append_chained",
        "chain_key",
        "commands_of",
        "create_stream",
        "read",
        "read_with_commands",
        "recorded_ms",
    ]
    public = [n for n, m in vars(EventStore).items() if not n.startswith("_") and inspect.iscoroutinefunction(m)]
    assert set(port) < set(public)
    for name in public:
        assert inspect.iscoroutinefunction(getattr(MemoryEventStore, name)), name
        assert _signature(getattr(MemoryEventStore, name)) == _signature(getattr(EventStore, name)), name
    for name in port:
        assert _signature(getattr(MemoryEventStore, name)) == _signature(getattr(EventLog, name)), name
    # And for mypy: both fit the port structurally (nothing is connected here).
    adapters: list[EventLog] = [MemoryEventStore(), EventStore(cast(asyncpg.Pool, None))]
    assert len(adapters) == 2
