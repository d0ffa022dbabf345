"""Several API processes: each keeps its table copies current from
the commit notices every process reads, instead of a query per request. A copy
is caught up only when a notice says it is behind, everyone who wants it
caught up at once shares one query, and a move sent to a process whose copy is
stale is accepted (at most one extra round trip), never refused on old state.

Two Runtimes stand for two API processes: each has its own Hub, table cache
and pool, on the real PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from services.bootstrap import Runtime
from services.config import Settings

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _until(check, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


def _count_reads(runtime: Runtime) -> list[int]:
    """How many times this 'process' reads a stream's events from PostgreSQL."""
    calls = [0]
    read = runtime.store.read_with_commands

    async def counted(*args, **kwargs):
        calls[0] += 1
        return await read(*args, **kwargs)

    runtime.store.read_with_commands = counted  # type: ignore[method-assign]  # a spy on this one store's reads
    return calls


async def _two_processes(database_url: str, redis_url: str) -> tuple[Runtime, Runtime]:
    settings = Settings(database_url=database_url, redis_url=redis_url, resync_interval_s=30.0)
    return await Runtime.open(settings), await Runtime.open(settings)


async def _table_of_two(a: Runtime) -> tuple[str, list]:
    tag = uuid.uuid4().hex[:8]
    people = [(await a.players.register(f"copies-{tag}-{n}"))[0] for n in range(2)]
    table = await a.games.create_game(people[0], "kabuki-tricks", 2, {}, False)
    for seat, person in enumerate(people):
        await a.games.take_seat(person, table.game_id, seat)
    return table.game_id, people


async def test_moves_alternating_between_processes_are_all_accepted_without_expected_version(database_url, redis_url):
    a, b = await _two_processes(database_url, redis_url)
    try:
        game_id, people = await _table_of_two(a)
        await b.games.load(game_id)  # B holds a copy, which A's moves leave behind
        truth = a
        for move in range(24):
            mover = (a, b)[move % 2]
            current = await truth.tables.get(game_id)
            if current.over:
                break
            seat = min(current.game.waiting_for(current.state))
            action = current.game.legal_actions(current.state, seat)[0]
            before = current.version
            # No expected_version: the mover once decided on its own
            # stale copy and refused a legal move (not_your_turn).
            table, outcome, _ = await mover.games.act(game_id, people[seat], action, f"m{move}")
            assert outcome.first == before + 1 and outcome.version == table.version
            truth = mover
        assert move >= 10
    finally:
        await a.close()
        await b.close()


async def test_a_copy_is_caught_up_once_per_notice_not_once_per_request(database_url, redis_url):
    a, b = await _two_processes(database_url, redis_url)
    try:
        game_id, people = await _table_of_two(a)
        copy = await b.games.load(game_id)
        reads = _count_reads(b)
        # Current and told of nothing new: reading costs no query.
        for _ in range(10):
            await b.games.load(game_id)
        assert reads[0] == 0
        # A moves; once B has read the notice, twenty readers at once (SSE
        # streams, GETs) share one catch-up query.
        table = await a.tables.get(game_id)
        seat = min(table.game.waiting_for(table.state))
        await a.games.act(game_id, people[seat], table.game.legal_actions(table.state, seat)[0], "one")
        await _until(lambda: b.hub.latest_version(game_id) == table.version)
        await asyncio.gather(*(b.games.load(game_id) for _ in range(20)))
        assert copy.version == table.version
        assert reads[0] == 1, f"{reads[0]} catch-up queries for one notice"
        # Its commands came along: a retry at B of A's command gets the stored outcome.
        assert (seat, "one") in copy.stream.commands
    finally:
        await a.close()
        await b.close()
