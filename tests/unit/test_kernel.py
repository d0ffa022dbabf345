"""The command kernel (services/app/kernel.py) that games and tournaments
share: decide on the copy, append with the expected version, catch up and
decide again after a conflict, one look before a refusal stands, a failed
write is storage_unavailable. The memory event store stands for PostgreSQL
(tests/contract holds the two to one contract)."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from engines.core import RuleError
from services.app.errors import Conflict, Unavailable, Unprocessable
from services.app.kernel import Decision, Kernel
from services.infra.memory_eventstore import MemoryEventStore


class Ev(msgspec.Struct, tag="test.ev"):
    n: int


class FailingStore(MemoryEventStore):
    """A store whose writes fail (PostgreSQL down) once `fail` is set."""

    fail: Exception | None = None

    async def append_chained(self, stream_id, expected, events, command=None, seat=None):
        if self.fail is not None:
            raise self.fail
        return await super().append_chained(stream_id, expected, events, command, seat)


async def _another_process_writes(store: MemoryEventStore, data: bytes) -> None:
    await store.append("s", await store.version("s") or 0, [("test.ev", data)])


class Publisher:
    def __init__(self) -> None:
        self.notices: list = []

    def publish(self, notice) -> None:
        self.notices.append(notice)


class Copy:
    """A folded copy: its state is the sum of the events' n."""

    stream_id = "s"

    def __init__(self, store: MemoryEventStore) -> None:
        self.store, self.version, self.state, self.lock = store, 0, 0, asyncio.Lock()
        self.catch_ups = 0

    def fold_in(self, first: int, decision: Decision) -> None:
        assert first == self.version + 1
        self.version += len(decision.events)
        self.state += sum(e.n for e in decision.events)

    async def catch_up(self) -> None:
        self.catch_ups += 1
        for event in await self.store.read(self.stream_id, after=self.version):
            self.version = event.version
            self.state += msgspec.json.decode(event.data, type=Ev).n


def _moved_on() -> Conflict:
    return Conflict("version_conflict", "moved on")


async def _setup():
    store, publisher = FailingStore(), Publisher()
    await store.create_stream("s", "game")
    committed: list = []
    kernel = Kernel(store, publisher, committed=lambda stream, decision: committed.append(decision))
    return store, publisher, kernel, Copy(store), committed


async def test_a_conflict_catches_up_and_decides_again_on_the_new_state():
    store, publisher, kernel, copy, committed = await _setup()
    await _another_process_writes(store, msgspec.json.encode(Ev(5)))  # version 1
    seen: list[int] = []

    async def decide() -> Decision:
        seen.append(copy.state)
        return Decision([Ev(1)], command_id="c", outcome={"v": copy.version + 1}, seat=0)

    decision = await kernel.run(copy, decide, copy.catch_up, _moved_on)
    assert seen == [0, 5] and copy.catch_ups == 1
    assert (copy.version, copy.state) == (2, 6)
    assert await store.commands_of("s") == {(0, "c"): b'{"v":2}'}
    assert [(n.first, n.last) for n in publisher.notices] == [(2, 2)]
    assert committed == [decision] and kernel.commits == 1


async def test_give_way_ends_a_command_at_its_first_conflict():
    store, publisher, kernel, copy, committed = await _setup()
    await _another_process_writes(store, b'{"n":1}')

    async def decide() -> Decision:
        return Decision([Ev(1)])

    assert await kernel.run(copy, decide, copy.catch_up, _moved_on, give_way=True) is None
    assert publisher.notices == [] and committed == [] and await store.version("s") == 1


async def test_endless_conflicts_raise_the_commands_own_error():
    store, _publisher, kernel, copy, _committed = await _setup()

    async def decide() -> Decision:
        await _another_process_writes(store, b'{"n":0}')  # someone always writes first
        return Decision([Ev(1)])

    with pytest.raises(Conflict):
        await kernel.run(copy, decide, lambda: asyncio.sleep(0), _moved_on, attempts=3)


async def test_a_refusal_stands_only_after_one_look_at_the_store():
    store, _publisher, kernel, copy, _committed = await _setup()

    async def decide() -> Decision:
        if copy.state < 3:
            raise RuleError("must_follow_suit", "not yet")
        return Decision([Ev(1)])

    # Nothing new in the store: refused (422), with what the command adds.
    with pytest.raises(Unprocessable) as info:
        await kernel.run(copy, decide, copy.catch_up, _moved_on, refusal=lambda: {"version": copy.version})
    assert copy.catch_ups == 1 and info.value.extra == {"version": 0}
    # The copy was behind: the look finds the news and the command goes through.
    await _another_process_writes(store, b'{"n":3}')
    await kernel.run(copy, decide, copy.catch_up, _moved_on)
    assert (copy.version, copy.state) == (2, 4)


async def test_a_failed_write_is_storage_unavailable_and_changes_nothing():
    store, publisher, kernel, copy, committed = await _setup()
    store.fail = OSError("connection refused")

    async def decide() -> Decision:
        return Decision([Ev(1)])

    with pytest.raises(Unavailable) as info:
        await kernel.run(copy, decide, copy.catch_up, _moved_on)
    assert info.value.code == "storage_unavailable"
    assert (copy.version, publisher.notices, committed) == (0, [], [])


async def test_nothing_to_write_returns_the_decision_untouched():
    _store, publisher, kernel, copy, _committed = await _setup()

    async def decide() -> Decision:
        return Decision([], result="stored outcome")

    assert (await kernel.run(copy, decide, copy.catch_up, _moved_on)).result == "stored outcome"
    assert publisher.notices == []
