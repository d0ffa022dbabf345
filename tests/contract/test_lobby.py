"""One contract for the lobby (the `Lobby` port): the memory lobby and
PostgreSQL's keep tables, seats and their read models alike.

The PostgreSQL variant runs on a database of its own: its tables are rows
no game could be dealt from (they are in play without a deal, finished
without a game), and the other tests' servers and workers sweep the session
database's tables in play."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import asyncpg
import msgspec
import pytest
import pytest_asyncio

from services.app.ports import Lobby, NewPlayer, NewTable, PlayerTournamentRow, SeatRow, SeatTaken
from services.infra.db import create_pool
from services.infra.eventstore import EventStore
from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_eventstore import MemoryEventStore
from services.infra.memory_lobby import MemoryLobby
from services.infra.memory_tx import MemoryTransactions
from services.infra.pg import PgTransactions
from services.infra.pg_accounts import PgAccounts
from services.infra.pg_lobby import PgLobby
from tests.conftest import fresh_database

TIMED = {"move_ms": 20_000, "bank_ms": 60_000}


def _new(game: str = "cahoots", **fields: Any) -> NewTable:
    defaults: dict[str, Any] = {"players": 4, "options": {"target": 2}, "ranked": True, "seed": 7}
    return NewTable(game_id=str(uuid.uuid4()), game=game, **(defaults | fields))


class LobbyContract:
    """A subclass provides `lobby`, `events`, `accounts` and `transactions`,
    and `add_tournament` for what the tournaments' own store keeps."""

    async def add_tournament(self, lobby: Any, row: PlayerTournamentRow) -> None:
        raise NotImplementedError

    async def _player(self, accounts: Any, kind: str = "human") -> tuple[str, str]:
        player_id, name = str(uuid.uuid4()), f"lob{uuid.uuid4().hex[:10]}"
        await accounts.insert_player(NewPlayer(player_id, name, kind, os.urandom(32), None, name, name))
        return player_id, name

    async def _table(self, lobby: Any, events: Any, new: NewTable | None = None) -> NewTable:
        new = new or _new()
        assert await lobby.insert_table(new)
        await events.create_stream(new.game_id, "game")
        return new

    async def test_a_table_is_created_once_and_read_with_its_seats_named(
        self, lobby: Any, events: Any, accounts: Any
    ) -> None:
        new = await self._table(lobby, events, _new(time_control=TIMED, bot_delay_ms=500, created_by=None))
        assert not await lobby.insert_table(new)  # the second create changes nothing
        player_id, name = await self._player(accounts)
        await lobby.insert_seats(new.game_id, [SeatRow(2, player_id, None), SeatRow(0, None, "heuristic")])
        row = await lobby.table(new.game_id)
        assert row is not None and row.table == new and row.status == "open" and row.finished_at is None
        assert sorted(row.seats, key=lambda s: s.seat) == [
            SeatRow(0, None, "heuristic", None, None),
            SeatRow(2, player_id, None, name, "human"),
        ]
        assert await lobby.table(str(uuid.uuid4())) is None
        assert await lobby.table("not-a-uuid") is None
        assert await lobby.seat_of(new.game_id, player_id) == 2
        assert await lobby.seat_of(new.game_id, str(uuid.uuid4())) is None

    async def test_a_finished_table_has_one_rematch_and_it_names_that_table(self, lobby: Any, events: Any) -> None:
        finished = await self._table(lobby, events)
        assert await lobby.rematch_for(finished.game_id) is None
        again = await self._table(lobby, events, _new(rematch_of=finished.game_id))
        # A second rematch of the same table is refused: the asker finds the first.
        assert not await lobby.insert_table(_new(rematch_of=finished.game_id))
        assert await lobby.rematch_for(finished.game_id) == again.game_id
        row = await lobby.table(again.game_id)
        assert row is not None and row.table.rematch_of == finished.game_id
        assert await lobby.rematch_for(again.game_id) is None
        assert await lobby.rematch_for("not-a-uuid") is None

    async def test_ranked_finishes_say_when_and_whether_the_seat_was_handed_over(
        self, lobby: Any, events: Any, accounts: Any
    ) -> None:
        player, _ = await self._player(accounts)
        left = await self._table(lobby, events)  # ranked (the default of _new)
        kept = await self._table(lobby, events)
        unranked = await self._table(lobby, events, _new(ranked=False))
        playing = await self._table(lobby, events)
        for new, seat in ((left, 2), (kept, 0), (unranked, 1), (playing, 1)):
            await lobby.insert_seats(new.game_id, [SeatRow(seat, player, None)])
        end = b'{"type":"hm.game_finished","forfeited":[2]}'
        for new in (left, kept, unranked):
            await events.append(new.game_id, 0, [("e", b"{}"), ("hm.game_finished", end)])
            await lobby.mark_finished(new.game_id)
        finishes = await lobby.ranked_finishes(player, 10)
        # Newest first: `kept` finished last; the player's seat 2 at `left` was handed over.
        assert [handed for _, handed in finishes] == [False, True]
        assert finishes[0][0] >= finishes[1][0]
        assert len(await lobby.ranked_finishes(player, 1)) == 1
        assert await lobby.ranked_finishes(str(uuid.uuid4()), 10) == []
        assert await lobby.ranked_finishes("not-a-uuid", 10) == []

    async def test_a_seat_held_already_is_refused_and_the_holder_keeps_it(
        self, lobby: Any, events: Any, accounts: Any
    ) -> None:
        new = await self._table(lobby, events)
        first, _ = await self._player(accounts)
        second, _ = await self._player(accounts)
        await lobby.insert_seats(new.game_id, [SeatRow(1, first, None)])
        with pytest.raises(SeatTaken):
            await lobby.insert_seats(new.game_id, [SeatRow(1, second, None)])
        status, seats = await lobby.seats(new.game_id)
        assert status == "open" and [(s.seat, s.player_id) for s in seats] == [(1, first)]
        assert await lobby.seats(str(uuid.uuid4())) == (None, [])

    async def test_a_seat_is_freed_only_by_its_holder_and_handed_to_a_bot(
        self, lobby: Any, events: Any, accounts: Any
    ) -> None:
        new = await self._table(lobby, events)
        one, _ = await self._player(accounts)
        two, _ = await self._player(accounts)
        await lobby.insert_seats(new.game_id, [SeatRow(0, one, None), SeatRow(1, two, None)])
        await lobby.free_seat(new.game_id, 0, two)  # not theirs: nothing happens
        await lobby.free_seat(new.game_id, 1, two)
        await lobby.give_seat_to_bot(new.game_id, 0, "random")
        _, seats = await lobby.seats(new.game_id)
        assert [(s.seat, s.player_id, s.bot) for s in seats] == [(0, None, "random")]

    async def test_status_moves_under_the_tables_lock_and_a_finish_is_dated(
        self, lobby: Any, events: Any, accounts: Any, transactions: Any
    ) -> None:
        new = await self._table(lobby, events)
        player, _ = await self._player(accounts)
        await lobby.insert_seats(new.game_id, [SeatRow(0, player, None)])
        await events.append(new.game_id, 0, [("e", b"1"), ("e", b"2")])
        async with transactions.transaction() as tx:
            assert await lobby.lock_status(new.game_id, tx) == "open"
            undealt = await lobby.lock_undealt(new.game_id, tx)
            assert (undealt.status, undealt.version, undealt.taken) == ("open", 2, 1)
            await lobby.set_status(new.game_id, "playing", tx)
        async with transactions.transaction() as tx:
            assert await lobby.lock_status(str(uuid.uuid4()), tx) is None
            assert await lobby.lock_status(new.game_id, tx) == "playing"
        await lobby.mark_finished(new.game_id)
        row = await lobby.table(new.game_id)
        assert row is not None and row.status == "finished" and row.finished_at is not None
        assert await lobby.seats_in_play([player]) == []

    async def test_seats_in_play_are_those_of_open_and_playing_tables(
        self, lobby: Any, events: Any, accounts: Any
    ) -> None:
        player, _ = await self._player(accounts)
        tables = [await self._table(lobby, events) for _ in range(3)]
        for new in tables:
            await lobby.insert_seats(new.game_id, [SeatRow(3, player, None)])
        await lobby.set_status(tables[1].game_id, "playing")
        await lobby.set_status(tables[2].game_id, "cancelled")
        assert sorted(await lobby.seats_in_play([player, str(uuid.uuid4())])) == sorted(
            [(tables[0].game_id, 3), (tables[1].game_id, 3)]
        )

    async def test_the_sweeps_find_tables_in_play_by_deadline_and_by_idleness(
        self, lobby: Any, events: Any, accounts: Any
    ) -> None:
        person, _ = await self._player(accounts)
        agent, _ = await self._player(accounts, kind="agent")
        timed = await self._table(lobby, events, _new(time_control=TIMED))
        with_agent, with_person, bots_only, waiting = [await self._table(lobby, events) for _ in range(4)]
        await lobby.insert_seats(timed.game_id, [SeatRow(0, person, None)])
        await lobby.insert_seats(with_agent.game_id, [SeatRow(0, agent, None)])
        await lobby.insert_seats(with_person.game_id, [SeatRow(0, person, None)])
        await lobby.insert_seats(bots_only.game_id, [SeatRow(0, None, "random")])
        for new in (timed, with_agent, with_person, bots_only):
            await lobby.set_status(new.game_id, "playing")
            await events.append(new.game_id, 0, [("e", b"1")])
        await lobby.set_status(waiting.game_id, "playing")  # in play, its log not written yet
        mine = {t.game_id for t in (timed, with_agent, with_person, bots_only, waiting)}
        idle = {game_id: idle_s for game_id, idle_s in await lobby.playing() if game_id in mine}
        assert set(idle) == mine and idle[waiting.game_id] is None
        assert all(0 <= s < 60 for g, s in idle.items() if g != waiting.game_id and s is not None)
        deadlines = set(await lobby.playing_with_deadlines()) & mine
        assert deadlines == {timed.game_id, with_agent.game_id}
        # Untimed, someone seated, written longer ago than the limit.
        assert set(await lobby.stale_untimed(-1)) & mine == {with_agent.game_id, with_person.game_id}
        assert set(await lobby.stale_untimed(3_600)) & mine == set()

    async def test_a_page_is_newest_first_and_resumes_after_its_cursor(self, lobby: Any, events: Any) -> None:
        game = "kabuki-masks"
        tables = [await self._table(lobby, events, _new(game)) for _ in range(4)]
        mine = {t.game_id for t in tables}
        rows = [r for r in await lobby.page(None, game, None, 10_000) if r.table.game_id in mine]
        assert [r.table.game_id for r in rows] == [t.game_id for t in reversed(tables)]
        cursor = (rows[1].created_at, rows[1].table.game_id)
        older = [r.table.game_id for r in await lobby.page(None, game, cursor, 10_000) if r.table.game_id in mine]
        assert older == [tables[1].game_id, tables[0].game_id]
        # Finished tables by when they finished: the oldest table finishes last.
        await lobby.mark_finished(tables[2].game_id)
        await lobby.mark_finished(tables[0].game_id)
        finished = [
            r.table.game_id for r in await lobby.page("finished", game, None, 10_000) if r.table.game_id in mine
        ]
        assert finished == [tables[0].game_id, tables[2].game_id]
        assert [
            r.table.game_id for r in await lobby.page("open", "cahoots", None, 10_000) if r.table.game_id in mine
        ] == []
        await lobby.set_status(tables[3].game_id, "playing")
        await lobby.set_status(tables[1].game_id, "playing")
        playing = [g for g in await lobby.playing_ids(game, 10_000) if g in mine]
        assert playing == [tables[3].game_id, tables[1].game_id]

    async def test_a_players_games_carry_their_record_and_their_tournaments_are_listed(
        self, lobby: Any, events: Any, accounts: Any
    ) -> None:
        player, name = await self._player(accounts)
        assert await lobby.player_identity(player) == (name, "human")
        assert await lobby.player_identity(str(uuid.uuid4())) is None
        assert await lobby.player_identity("not-a-uuid") is None
        tournament = str(uuid.uuid4())
        start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)
        await self.add_tournament(lobby, PlayerTournamentRow(tournament, "tezuma", "running", start))
        await self.add_tournament(lobby, PlayerTournamentRow(str(uuid.uuid4()), "tezuma", "running", start))
        played = await self._table(lobby, events, _new(tournament_id=tournament, embargoed=True))
        newer = await self._table(lobby, events)
        for new in (played, newer):
            await lobby.insert_seats(new.game_id, [SeatRow(1, player, None)])
        await events.append(played.game_id, 0, [("e", b"{}"), ("hm.game_finished", b'{"places":[1]}')])
        await lobby.mark_finished(played.game_id)
        rows = await lobby.player_games(player, None, 10)
        assert [(r.game_id, r.seat, r.status, r.embargoed) for r in rows] == [
            (newer.game_id, 1, "open", False),
            (played.game_id, 1, "finished", True),
        ]
        assert rows[0].record is None and msgspec.json.decode(rows[1].record or b"") == {"places": [1]}
        assert [r.game_id for r in await lobby.player_games(player, rows[0].created_at, 10)] == [played.game_id]
        await lobby.lift_embargo(tournament)
        assert [r.embargoed for r in await lobby.player_games(player, None, 10)] == [False, False]
        assert await lobby.embargoed(played.game_id) is False
        listed = await lobby.player_tournaments(player)
        assert [(t.tournament_id, t.game, t.status, t.start_at) for t in listed] == [
            (tournament, "tezuma", "running", start)
        ]


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryLobby(LobbyContract):
    @pytest.fixture
    def accounts(self) -> MemoryAccounts:
        return MemoryAccounts()

    @pytest.fixture
    def events(self) -> MemoryEventStore:
        return MemoryEventStore()

    @pytest.fixture
    def lobby(self, events: MemoryEventStore, accounts: MemoryAccounts) -> MemoryLobby:
        return MemoryLobby(events, accounts)

    @pytest.fixture
    def transactions(self) -> MemoryTransactions:
        return MemoryTransactions()

    async def add_tournament(self, lobby: Any, row: PlayerTournamentRow) -> None:
        lobby.add_tournament(row)


@pytest.fixture(scope="module")
def lobby_database(servers: tuple[str, str]) -> Iterator[str]:
    with fresh_database(servers[0]) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def pool(lobby_database: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(lobby_database, 3)  # migrates it
    yield pool
    await pool.close()


@pytest.mark.asyncio(loop_scope="session")
class TestPostgresLobby(LobbyContract):
    @pytest.fixture
    def accounts(self, pool: asyncpg.Pool) -> PgAccounts:
        return PgAccounts(pool)

    @pytest_asyncio.fixture(loop_scope="session")
    async def events(self, pool: asyncpg.Pool) -> AsyncIterator[EventStore]:
        store = EventStore(pool)
        yield store
        if store._flusher is not None:
            store._flusher.cancel()
            with contextlib.suppress(BaseException):
                await store._flusher

    @pytest.fixture
    def lobby(self, pool: asyncpg.Pool) -> PgLobby:
        return PgLobby(pool)

    @pytest.fixture
    def transactions(self, pool: asyncpg.Pool) -> PgTransactions:
        return PgTransactions(pool)

    async def add_tournament(self, lobby: Any, row: PlayerTournamentRow) -> None:
        await lobby.pool.execute(
            "INSERT INTO tournaments (tournament_id, game, start_at, status) VALUES ($1::text::uuid, $2, $3, $4)",
            row.tournament_id,
            row.game,
            row.start_at,
            row.status,
        )


def test_both_lobbies_fit_the_port() -> None:
    events = MemoryEventStore()
    adapters: list[Lobby] = [MemoryLobby(events), PgLobby(cast(asyncpg.Pool, None))]
    assert len(adapters) == 2
