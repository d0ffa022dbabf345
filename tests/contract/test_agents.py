"""One contract for the agents' store (the `AgentStore` port): the memory
store and PostgreSQL's keep agents, their turns, sparring series and the
secrets' key material alike.

The PostgreSQL variant runs on a database of its own: it writes rows of
`games`, `seats` and `tournaments` no server could play, and `app_secrets`
is shared by every process of the session database."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import asyncpg
import msgspec
import pytest
import pytest_asyncio

from services.app.ports import AgentStore, NewPlayer
from services.app.ports.agents import NewAgent, NewSparring, OpenTurn, TurnRecord
from services.infra.db import create_pool
from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_agents import MemoryAgents
from services.infra.memory_tx import MemoryTransactions
from services.infra.pg import PgTransactions
from services.infra.pg_accounts import PgAccounts
from services.infra.pg_agents import PgAgents
from tests.conftest import fresh_database


def _turn(game_id: str, version: int, seat: int, agent_id: str, **fields: Any) -> TurnRecord:
    defaults: dict[str, Any] = {
        "committed_ms": 1000.0 * version,
        "sent_ms": 1000.0 * version + 5,
        "answered_ms": None,
        "done_ms": None,
        "used_ms": 0,
        "overdraft_ms": 0,
        "outcome": "pending",
    }
    return TurnRecord(game_id, version, seat, agent_id, **(defaults | fields))


class AgentsContract:
    """A subclass provides `store`, `accounts` and `transactions`, and the
    other features' rows the reads join: `add_game`, `add_seat`,
    `add_tournament`, `add_command`, `keep_plaintext`."""

    async def add_game(self, store: Any, game_id: str, status: str = "playing", tc: dict | None = None) -> None:
        raise NotImplementedError

    async def add_seat(self, store: Any, game_id: str, seat: int, player_id: str) -> None:
        raise NotImplementedError

    async def add_tournament(self, store: Any, tournament_id: str, status: str, start_at: datetime) -> None:
        raise NotImplementedError

    async def add_command(self, store: Any, stream_id: str, seat: int, command_id: str) -> None:
        raise NotImplementedError

    async def keep_plaintext(self, store: Any, agent_id: str, secret: str) -> None:
        raise NotImplementedError

    async def _player(self, accounts: Any, kind: str = "human") -> str:
        player_id, name = str(uuid.uuid4()), f"agt{uuid.uuid4().hex[:10]}"
        await accounts.insert_player(NewPlayer(player_id, name, kind, os.urandom(32), None, name, name))
        return player_id

    async def _agent(self, store: Any, accounts: Any, owner: str | None = None, mode: str = "push") -> NewAgent:
        owner = owner or await self._player(accounts)
        agent_id = await self._player(accounts, "agent")
        endpoint = "https://agent.example/turn" if mode == "push" else None
        new = NewAgent(agent_id, owner, f"bot{agent_id[:6]}", ["cahoots", "tezuma"], mode, endpoint, "sealed-1")
        await store.insert_agent(new)
        return new

    async def test_an_agent_is_kept_and_read_back(self, store: Any, accounts: Any, transactions: Any) -> None:
        owner = await self._player(accounts)
        agent_id = await self._player(accounts, "agent")
        new = NewAgent(agent_id, owner, "alpha", ["cahoots", "tezuma"], "push", "https://a.example/t", "sealed-a")
        async with transactions.transaction() as tx:
            row = await store.insert_agent(new, tx)
        assert (row.agent_id, row.owner_id, row.name, row.games, row.mode, row.endpoint) == (
            agent_id,
            owner,
            "alpha",
            ("cahoots", "tezuma"),
            "push",
            "https://a.example/t",
        )
        assert row.sealed_secret == "sealed-a" and row.status == "active"
        assert row.previous_sealed_secret is None and row.previous_secret_until is None
        assert abs((row.created_at - datetime.now(UTC)).total_seconds()) < 60
        assert await store.agent(agent_id) == row
        assert await store.agent(str(uuid.uuid4())) is None
        assert await store.mode(agent_id) == "push"
        assert await store.mode(str(uuid.uuid4())) is None
        pull = await self._agent(store, accounts, owner, mode="pull")
        assert await store.mode(pull.agent_id) == "pull"
        assert [a.agent_id for a in await store.agents_of(owner)] == [agent_id, pull.agent_id]  # oldest first

    async def test_status_changes_and_a_deleted_agent_leaves_its_owners_list(
        self, store: Any, accounts: Any, transactions: Any
    ) -> None:
        new = await self._agent(store, accounts)
        paused = await store.set_status(new.agent_id, "paused")
        assert paused is not None and paused.status == "paused"
        assert [a.status for a in await store.agents_of(new.owner_id)] == ["paused"]
        async with transactions.transaction() as tx:
            await store.set_status(new.agent_id, "deleted", tx)
        assert await store.agents_of(new.owner_id) == []
        kept = await store.agent(new.agent_id)
        assert kept is not None and kept.status == "deleted"  # still read (games name it)
        assert await store.set_status(str(uuid.uuid4()), "paused") is None

    async def test_a_rotation_keeps_the_previous_secret_until_its_time(self, store: Any, accounts: Any) -> None:
        new = await self._agent(store, accounts)
        until = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30)
        await store.set_secrets(new.agent_id, "sealed-2", "sealed-1", until)
        row = await store.agent(new.agent_id)
        assert row is not None
        assert (row.sealed_secret, row.previous_sealed_secret, row.previous_secret_until) == (
            "sealed-2",
            "sealed-1",
            until,
        )
        await store.set_secrets(new.agent_id, "sealed-3", None, None)
        row = await store.agent(new.agent_id)
        assert row is not None and (row.sealed_secret, row.previous_sealed_secret) == ("sealed-3", None)

    async def test_the_first_writer_of_a_shared_secret_wins(self, store: Any) -> None:
        name = f"contract-{uuid.uuid4().hex[:8]}"
        first, second = os.urandom(32), os.urandom(32)
        assert await store.shared_secret(name, first) == first
        assert await store.shared_secret(name, second) == first
        raced = f"contract-{uuid.uuid4().hex[:8]}"
        drawn = [os.urandom(32) for _ in range(4)]
        kept = await asyncio.gather(*(store.shared_secret(raced, d) for d in drawn))
        assert len(set(kept)) == 1 and kept[0] in drawn

    async def test_a_plaintext_secret_is_sealed_once_and_only_from_what_was_read(
        self, store: Any, accounts: Any
    ) -> None:
        new = await self._agent(store, accounts)
        await self.keep_plaintext(store, new.agent_id, "whsec_old")
        assert (new.agent_id, "whsec_old") in await store.plaintext_secrets()
        await store.seal_secret(new.agent_id, "whsec_other", "sealed-wrong")  # read another plaintext: no change
        row = await store.agent(new.agent_id)
        assert row is not None and row.sealed_secret == "sealed-1"
        # Two processes racing on the same row: both write the same plaintext's seal, the row ends sealed.
        await asyncio.gather(
            store.seal_secret(new.agent_id, "whsec_old", "sealed-old"),
            store.seal_secret(new.agent_id, "whsec_old", "sealed-old"),
        )
        row = await store.agent(new.agent_id)
        assert row is not None and row.sealed_secret == "sealed-old"
        assert new.agent_id not in [a for a, _ in await store.plaintext_secrets()]
        await store.seal_secret(new.agent_id, "whsec_old", "sealed-late")  # plaintext gone: nothing happens
        row = await store.agent(new.agent_id)
        assert row is not None and row.sealed_secret == "sealed-old"

    async def test_turns_open_close_and_fill_the_seats_bank(self, store: Any, accounts: Any) -> None:
        new = await self._agent(store, accounts)
        game = str(uuid.uuid4())
        assert await store.bank_used(game, 1) == 0
        await store.record_turn(_turn(game, 3, 1, new.agent_id, outcome="ok", used_ms=900, overdraft_ms=400))
        await store.record_turn(_turn(game, 5, 1, new.agent_id))
        await store.record_turn(_turn(game, 7, 1, new.agent_id))
        await store.record_turn(_turn(game, 4, 2, new.agent_id, outcome="ok", overdraft_ms=50))  # another seat
        assert await store.bank_used(game, 1) == 400
        found = await store.for_turn(new.agent_id, game, 1)
        assert found is not None and found[0].agent_id == new.agent_id and found[1] == 400
        assert await store.for_turn(str(uuid.uuid4()), game, 1) is None
        assert await store.open_turn(game, 1, 6) == OpenTurn(5, 5005.0)
        assert await store.open_turn(game, 1, 100) == OpenTurn(7, 7005.0)
        assert await store.open_turn(game, 1, 4) is None  # version 3 is settled
        await store.note_refusal(game, new.agent_id, "not your turn")
        assert await store.open_turn_detail(game, 5, 1) == "not your turn"
        assert await store.open_turn_detail(game, 3, 1) is None  # settled
        await store.close_turn(game, 5, 1, "illegal_action", 1200, 300, 6200.0, None)  # keeps the noted detail
        await store.close_turn(game, 5, 1, "ok", 1, 9999, None, "again")  # settled already: no change
        await store.close_turn(game, 7, 1, "ok", 100, 0, 7105.0, "fine")
        assert await store.bank_used(game, 1) == 700
        assert await store.open_turn(game, 1, 100) is None and await store.open_turn_detail(game, 7, 1) is None
        await self.add_game(store, game)
        log = {(r.version, r.seat): r for r in await store.turn_log(new.agent_id, game, None, 10)}
        assert (log[(5, 1)].outcome, log[(5, 1)].detail, log[(5, 1)].used_ms) == (
            "illegal_action",
            "not your turn",
            1200,
        )
        assert log[(5, 1)].answered_ms == 6200.0 and log[(5, 1)].done_ms is not None
        assert (log[(7, 1)].detail, log[(7, 1)].overdraft_ms) == ("fine", 0)

    async def test_a_turn_recorded_again_gets_its_settled_columns_only(self, store: Any, accounts: Any) -> None:
        new = await self._agent(store, accounts)
        game = str(uuid.uuid4())
        await self.add_game(store, game)
        await store.record_turn(_turn(game, 2, 0, new.agent_id, used_ms=10, overdraft_ms=5, outcome="pending"))
        again = _turn(game, 2, 0, new.agent_id, used_ms=999, overdraft_ms=999, outcome="timeout", done_ms=2500.0)
        await store.record_turn(msgspec.structs.replace(again, detail="late", answer="{}", sent_ms=1.0))
        [row] = await store.turn_log(new.agent_id, game, None, 10)
        assert (row.outcome, row.detail, row.answer, row.done_ms) == ("timeout", "late", "{}", 2500.0)
        assert (row.used_ms, row.overdraft_ms, row.sent_ms) == (10, 5, 2005.0)

    async def test_the_turn_log_is_newest_first_pages_on_and_counts_the_whole_bank(
        self, store: Any, accounts: Any
    ) -> None:
        new = await self._agent(store, accounts)
        one, two, unlisted = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
        await self.add_game(store, one, tc={"move_ms": 5000, "bank_ms": 60000})
        await self.add_game(store, two)
        for version, overdraft in ((1, 100), (2, 200), (3, 300)):
            await store.record_turn(
                _turn(one, version, 0, new.agent_id, outcome="ok", overdraft_ms=overdraft, sent_ms=10.0 * version)
            )
        await store.record_turn(_turn(two, 9, 1, new.agent_id, outcome="ok", overdraft_ms=7, sent_ms=25.0))
        await store.record_turn(_turn(unlisted, 1, 0, new.agent_id, sent_ms=99.0))  # no games row: not listed
        other = await self._agent(store, accounts)
        await store.record_turn(_turn(one, 1, 1, other.agent_id, sent_ms=50.0))
        rows = await store.turn_log(new.agent_id, None, None, 10)
        assert [(r.game_id, r.version, r.bank_used_after) for r in rows] == [
            (one, 3, 600),
            (two, 9, 7),
            (one, 2, 300),
            (one, 1, 100),
        ]
        assert rows[0].game == "cahoots" and rows[0].time_control == {"move_ms": 5000, "bank_ms": 60000}
        assert rows[1].time_control is None
        page = await store.turn_log(new.agent_id, None, 25.0, 1)  # sent before 25: the bank still counts turn 1
        assert [(r.version, r.bank_used_after) for r in page] == [(2, 300)]
        assert [r.version for r in await store.turn_log(new.agent_id, two, None, 10)] == [9]
        assert await store.answer_times([one, two], new.agent_id) == []

    async def test_sparring_series_are_kept_listed_and_read_only_by_their_agent(
        self, store: Any, accounts: Any, transactions: Any
    ) -> None:
        new = await self._agent(store, accounts)
        games = [str(uuid.uuid4()) for _ in range(2)]
        twins = [str(uuid.uuid4()) for _ in range(2)]
        for g in games + twins:
            await self.add_game(store, g, status="finished" if g in (games[0], twins[0]) else "playing")
        settings = {"game": "cahoots", "games": 2, "options": {"target": 2}, "seed": None}
        first = NewSparring(str(uuid.uuid4()), new.agent_id, "cahoots", games, [0, 1], settings, twins)
        async with transactions.transaction() as tx:
            await store.insert_sparring(first, tx)
        await asyncio.sleep(0.01)
        second = NewSparring(str(uuid.uuid4()), new.agent_id, "cahoots", [games[0]], [2], {"games": 1})
        await store.insert_sparring(second)
        row = await store.sparring(first.sparring_id, new.agent_id)
        assert row is not None
        assert (row.sparring_id, row.game, row.game_ids, row.seats, row.settings, row.bot_game_ids) == (
            first.sparring_id,
            "cahoots",
            games,
            [0, 1],
            settings,
            twins,
        )
        single = await store.sparring(second.sparring_id, new.agent_id)
        assert single is not None and single.bot_game_ids is None
        other = await self._agent(store, accounts)
        assert await store.sparring(first.sparring_id, other.agent_id) is None
        assert await store.sparring(str(uuid.uuid4()), new.agent_id) is None
        listed = await store.sparring_of(new.agent_id)
        assert [(s.sparring_id, s.tables, s.finished) for s in listed] == [
            (second.sparring_id, 1, 1),
            (first.sparring_id, 4, 2),
        ]
        assert listed[1].settings == settings and listed[0].created_ms >= listed[1].created_ms > 0
        assert await store.sparring_of(other.agent_id) == []

    async def test_a_sparring_report_reads_answer_times_and_command_ids(self, store: Any, accounts: Any) -> None:
        new = await self._agent(store, accounts)
        one, two = str(uuid.uuid4()), str(uuid.uuid4())
        await store.record_turn(_turn(one, 1, 0, new.agent_id, sent_ms=100.0, answered_ms=142.5, outcome="ok"))
        await store.record_turn(_turn(two, 1, 1, new.agent_id, sent_ms=100.0, answered_ms=110.0, outcome="ok"))
        await store.record_turn(_turn(two, 2, 1, new.agent_id, sent_ms=100.0))  # no answer
        assert sorted(await store.answer_times([one, two], new.agent_id)) == [10.0, 42.5]
        assert await store.answer_times([one], str(uuid.uuid4())) == []
        await self.add_command(store, one, 0, "agent:a")
        await self.add_command(store, one, 0, "auto:b")
        await self.add_command(store, one, 1, "bot:c")  # another seat
        await self.add_command(store, two, 1, "bot:d")
        assert sorted(await store.command_ids([one, two], [0, 1])) == ["agent:a", "auto:b", "bot:d"]

    async def test_the_stream_reads_live_seats_and_invitations(self, store: Any, accounts: Any) -> None:
        new = await self._agent(store, accounts)
        live, opened, done = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
        await self.add_game(store, live, "playing")
        await self.add_game(store, opened, "open")
        await self.add_game(store, done, "finished")
        for game_id, seat in ((live, 2), (opened, 0), (done, 1)):
            await self.add_seat(store, game_id, seat, new.agent_id)
        assert sorted(await store.live_seats(new.agent_id)) == sorted([(live, 2), (opened, 0)])
        start = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
        registering, running, finished = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
        await self.add_tournament(store, registering, "registering", start)
        await self.add_tournament(store, running, "running", start)
        await self.add_tournament(store, finished, "finished", start)
        for tournament_id in (registering, running, finished, registering):  # the second entry changes nothing
            await store.enter(new.agent_id, tournament_id)
        invited = sorted(await store.invitations(new.agent_id), key=lambda i: i.status)
        ms = int(start.timestamp() * 1000)
        assert [(i.tournament_id, i.game, i.status, i.start_ms) for i in invited] == [
            (registering, "cahoots", "registering", ms),
            (running, "cahoots", "running", ms),
        ]
        assert await store.invitations(str(uuid.uuid4())) == []


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryAgents(AgentsContract):
    @pytest.fixture
    def accounts(self) -> MemoryAccounts:
        return MemoryAccounts()

    @pytest.fixture
    def store(self, accounts: MemoryAccounts) -> MemoryAgents:
        return MemoryAgents(accounts)

    @pytest.fixture
    def transactions(self) -> MemoryTransactions:
        return MemoryTransactions()

    async def add_game(self, store: Any, game_id: str, status: str = "playing", tc: dict | None = None) -> None:
        store.add_game(game_id, "cahoots", status, tc)

    async def add_seat(self, store: Any, game_id: str, seat: int, player_id: str) -> None:
        store.add_seat(game_id, seat, player_id)

    async def add_tournament(self, store: Any, tournament_id: str, status: str, start_at: datetime) -> None:
        store.add_tournament(tournament_id, "cahoots", status, start_at)

    async def add_command(self, store: Any, stream_id: str, seat: int, command_id: str) -> None:
        store.add_command(stream_id, seat, command_id)

    async def keep_plaintext(self, store: Any, agent_id: str, secret: str) -> None:
        store.keep_plaintext(agent_id, secret)


@pytest.fixture(scope="module")
def agents_database(servers: tuple[str, str]) -> Iterator[str]:
    with fresh_database(servers[0]) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def pool(agents_database: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(agents_database, 4)  # migrates it
    yield pool
    await pool.close()


@pytest.mark.asyncio(loop_scope="session")
class TestPostgresAgents(AgentsContract):
    @pytest.fixture
    def accounts(self, pool: asyncpg.Pool) -> PgAccounts:
        return PgAccounts(pool)

    @pytest.fixture
    def store(self, pool: asyncpg.Pool) -> PgAgents:
        return PgAgents(pool)

    @pytest.fixture
    def transactions(self, pool: asyncpg.Pool) -> PgTransactions:
        return PgTransactions(pool)

    async def add_game(self, store: Any, game_id: str, status: str = "playing", tc: dict | None = None) -> None:
        await store.pool.execute(
            "INSERT INTO games (game_id, game, players, options, ranked, seed, status, time_control)"
            " VALUES ($1::text::uuid, 'cahoots', 4, '{}'::jsonb, false, 1, $2, $3::jsonb)",
            game_id,
            status,
            None if tc is None else msgspec.json.encode(tc).decode(),
        )

    async def add_seat(self, store: Any, game_id: str, seat: int, player_id: str) -> None:
        await store.pool.execute(
            "INSERT INTO seats (game_id, seat, player_id) VALUES ($1::text::uuid, $2, $3::text::uuid)",
            game_id,
            seat,
            player_id,
        )

    async def add_tournament(self, store: Any, tournament_id: str, status: str, start_at: datetime) -> None:
        await store.pool.execute(
            "INSERT INTO tournaments (tournament_id, game, start_at, status)"
            " VALUES ($1::text::uuid, 'cahoots', $2, $3)",
            tournament_id,
            start_at,
            status,
        )

    async def add_command(self, store: Any, stream_id: str, seat: int, command_id: str) -> None:
        await store.pool.execute(
            "INSERT INTO commands (stream_id, command_id, outcome, seat) VALUES ($1, $2, '\\x7b7d'::bytea, $3)",
            stream_id,
            command_id,
            seat,
        )

    async def keep_plaintext(self, store: Any, agent_id: str, secret: str) -> None:
        await store.pool.execute("UPDATE agents SET secret = $2 WHERE agent_id = $1::text::uuid", agent_id, secret)


def test_both_stores_fit_the_port() -> None:
    adapters: list[AgentStore] = [MemoryAgents(), PgAgents(cast(asyncpg.Pool, None))]
    assert len(adapters) == 2
