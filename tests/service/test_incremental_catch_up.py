"""A copy of a table catching up reads and decodes only the
commands past its version (migration 009's `first_version`), and what it
derives from them (strikes, the end of the game) comes out as when the whole
command table was read."""

from __future__ import annotations

import uuid

import msgspec
import pytest

from services.app.games.tables import Outcome
from services.bootstrap import Runtime
from services.config import Settings
from services.infra.db import create_pool
from services.infra.eventstore import EventStore

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _outcome(first: int, last: int, seat: int | None) -> bytes:
    return msgspec.json.encode(Outcome(last, first, seat))


async def test_a_catch_up_reads_only_the_commands_past_its_version(database_url):
    store = EventStore(await create_pool(database_url, 4))
    try:
        sid = f"inc-{uuid.uuid4().hex[:12]}"
        await store.create_stream(sid, "game")
        await store.append(sid, 0, [("a", b"1"), ("b", b"2")], ("c1", _outcome(1, 2, None)))
        await store.append(sid, 2, [("c", b"3")], ("c2", _outcome(3, 3, 0)), seat=0)
        await store.append(sid, 3, [("d", b"4")], ("c3", _outcome(4, 4, 1)), seat=1)
        firsts = dict(
            await store.pool.fetch("SELECT command_id, first_version FROM commands WHERE stream_id = $1", sid)
        )
        assert firsts == {"c1": 1, "c2": 3, "c3": 4}
        # A row the previous release wrote (no first_version) is still found by its outcome.
        await store.pool.execute(
            "UPDATE commands SET first_version = NULL WHERE stream_id = $1 AND command_id = 'c3'", sid
        )
        for after, expected in ((0, {"c1", "c2", "c3"}), (2, {"c2", "c3"}), (3, {"c3"}), (4, set())):
            events, commands = await store.read_with_commands(sid, after)
            assert [e.version for e in events] == list(range(after + 1, 5))
            assert {command_id for _seat, command_id in commands} == expected
            if after:
                assert set(await store.commands_of(sid, after)) == set(commands)
    finally:
        await store.pool.close()


async def test_strikes_and_the_end_from_commands_read_piece_by_piece(database_url, redis_url):
    settings = Settings(database_url=database_url, redis_url=redis_url, resync_interval_s=30.0)
    a, b = await Runtime.open(settings), await Runtime.open(settings)
    try:
        tag = uuid.uuid4().hex[:8]
        people = [(await a.players.register(f"inc-{tag}-{n}"))[0] for n in range(2)]
        table = await a.games.create_game(people[0], "kabuki-tricks", 2, {}, False)
        for seat, person in enumerate(people):
            await a.games.take_seat(person, table.game_id, seat)
        copy = await b.games.load(table.game_id)
        taken: list[int] = []  # how many commands each catch-up of B's read
        read = b.store.read_with_commands

        async def counted(stream_id: str, after: int):
            events, commands = await read(stream_id, after)
            taken.append(len(commands))
            return events, commands

        b.store.read_with_commands = counted
        move = 0
        while not table.over:
            seat = min(table.game.waiting_for(table.state))
            if move % 3 == 2:
                await a.games.act(
                    table.game_id, people[seat], table.game.legal_actions(table.state, seat)[0], f"m{move}"
                )
            else:  # two moves in three played for the seat: strikes come and go
                assert await a.games.play_for_seat(table.game_id, seat, "timeout", strike_limit=100)
            move += 1
            await b.games.refresh(copy, fresh=True)
            # Only the commit just made is read and decoded, never the whole table again.
            assert taken[-1] == 1
            assert copy.runtime.strikes == table.runtime.strikes
            assert copy.stream.commands == table.stream.commands
        assert copy.version == table.version and copy.stream.ended_at == table.stream.ended_at is not None
        assert move > 10 and len(taken) == move
    finally:
        await a.close()
        await b.close()
