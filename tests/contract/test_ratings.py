"""One contract for the ratings' store (the `RatingStore` port): the memory
store and PostgreSQL's, driven through the projection and the reads that
own the rules (services/app/ratings: which games count, where the
projection waits, the leaderboard's kinds), keep and read the same.

The PostgreSQL variant runs on a database of its own: the projection's
checkpoint and `rebuild` span every rating, and the other tests' servers
and workers write finished games to the session database. Its tests share
that database in order, so each asserts on the ids it drew and leaves no
table embargoed."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import msgspec
import pytest
import pytest_asyncio

from engines.core import Result
from services.app.errors import NotFound
from services.app.games.events import GameFinished, SeatRecord
from services.app.ports import NewPlayer, NewTable, RatingRow
from services.app.ratings import queries
from services.app.ratings.projection import MODEL, RatingsProjector, rebuild
from services.infra.db import create_pool
from services.infra.eventstore import EventStore
from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_eventstore import MemoryEventStore
from services.infra.memory_lobby import MemoryLobby
from services.infra.memory_ratings import MemoryRatings
from services.infra.memory_tx import MemoryTransactions
from services.infra.pg import PgTransactions
from services.infra.pg_accounts import PgAccounts
from services.infra.pg_lobby import PgLobby
from services.infra.pg_ratings import PgRatings
from tests.conftest import fresh_database

GAME = "kabuki-tricks"


class RatingStoreContract:
    """A subclass provides `ratings`, `events`, `lobby`, `accounts` and
    `transactions` fixtures over one store."""

    @pytest.fixture
    def projector(self, ratings: Any, transactions: Any) -> RatingsProjector:
        return RatingsProjector(ratings, transactions, batch=2)  # several steps for a few games

    async def _person(self, accounts: Any, kind: str = "human") -> tuple[str, str]:
        player_id, name = str(uuid.uuid4()), f"rate{uuid.uuid4().hex[:12]}"
        await accounts.insert_player(NewPlayer(player_id, name, kind, os.urandom(32), None, name, name))
        return player_id, name

    async def _finish(
        self,
        lobby: Any,
        events: Any,
        seats: list[SeatRecord],
        places: list[int],
        ranked: bool = True,
        tournament_id: str | None = None,
    ) -> str:
        """A table whose log ends with its hm.game_finished."""
        game_id = str(uuid.uuid4())
        new = NewTable(game_id, GAME, len(seats), {}, ranked, 7, tournament_id=tournament_id)
        assert await lobby.insert_table(msgspec.structs.replace(new, embargoed=tournament_id is not None))
        await events.create_stream(game_id, "game")
        result = Result(scores=[float(-p) for p in places], places=places, winners=[places.index(1)])
        finished = GameFinished(GAME, ranked, seats, result, tournament_id=tournament_id)
        await events.append(game_id, 0, [("hm.game_finished", msgspec.json.encode(finished))])
        return game_id

    async def _catch_up(self, projector: RatingsProjector) -> int:
        applied = 0
        while steps := await projector.step():
            applied += steps
        return applied

    async def test_a_ranked_game_moves_its_seats_ratings_once_and_the_checkpoint_with_them(
        self, projector: RatingsProjector, ratings: Any, lobby: Any, events: Any, accounts: Any
    ) -> None:
        (alice, alice_name), (bob, bob_name) = await self._person(accounts), await self._person(accounts, "agent")
        bot = f"b{uuid.uuid4().hex[:8]}"
        seats = [
            SeatRecord(0, "human", alice, None, "an old name"),
            SeatRecord(1, "agent", bob, None, None),
            SeatRecord(2, "bot", None, bot, bot),
        ]
        game_id = await self._finish(lobby, events, seats, [1, 3, 2])
        assert await self._catch_up(projector) >= 1
        assert await self._catch_up(projector) == 0  # nothing past the checkpoint
        assert await ratings.finished_after(await ratings.checkpoint(), 10) == []

        board = await queries.leaderboard(ratings, GAME, 500)
        mine = {r["rated_id"]: r for kind in ("players", "agents", "bots") for r in board[kind]}
        # Named as the players table names them now; a house bot as itself.
        assert mine[alice]["name"] == alice_name and mine[alice]["kind"] == "human"
        assert mine[bob]["name"] == bob_name and mine[bob] in board["agents"]
        assert mine[f"bot:{bot}"]["name"] == f"{bot} (house bot)" and mine[f"bot:{bot}"] in board["bots"]
        start = MODEL.rating()
        assert mine[alice]["mu"] > start.mu > mine[bob]["mu"]
        assert mine[alice]["games"] == 1 and mine[alice]["provisional"]

        history = await queries.history(ratings, alice, GAME)
        assert [r["rated_id"] for r in history["ratings"]] == [alice]
        [change] = history["history"]
        assert (change["game_id"], change["place"], change["forfeited"]) == (game_id, 1, False)
        assert (change["mu_before"], change["mu_after"]) == (start.mu, mine[alice]["mu"])

        # A second game starts from what the first kept.
        await self._finish(lobby, events, seats[:2], [2, 1])
        await self._catch_up(projector)
        moved = await queries.history(ratings, alice, None)
        assert [c["place"] for c in moved["history"]] == [1, 2]
        assert moved["history"][1]["mu_before"] == change["mu_after"]
        assert moved["ratings"][0]["games"] == 2 and moved["ratings"][0]["mu"] == moved["history"][1]["mu_after"]
        assert (await rebuild(ratings))["equal"]

    async def test_an_unranked_game_rates_nobody(
        self, projector: RatingsProjector, ratings: Any, lobby: Any, events: Any
    ) -> None:
        players = [str(uuid.uuid4()) for _ in range(2)]
        seats = [SeatRecord(s, "human", p) for s, p in enumerate(players)]
        await self._finish(lobby, events, seats, [1, 2], ranked=False)
        assert await self._catch_up(projector) >= 1  # read past, all the same
        for player in players:
            with pytest.raises(NotFound):
                await queries.history(ratings, player, None)
        assert await ratings.ratings_of(GAME, players) == []

    async def test_the_projection_waits_at_an_embargoed_ranked_table_until_it_is_lifted(
        self, projector: RatingsProjector, ratings: Any, lobby: Any, events: Any
    ) -> None:
        held, later, casual = (str(uuid.uuid4()) for _ in range(3))
        tournament, casual_tournament = str(uuid.uuid4()), str(uuid.uuid4())
        # An unranked embargoed table earlier in the log holds nothing.
        await self._finish(
            lobby,
            events,
            [SeatRecord(0, "human", casual), SeatRecord(1, "human", held)],
            [1, 2],
            False,
            casual_tournament,
        )
        game_id = await self._finish(
            lobby,
            events,
            [SeatRecord(0, "human", held), SeatRecord(1, "bot", None, "random")],
            [1, 2],
            True,
            tournament,
        )
        await self._finish(lobby, events, [SeatRecord(0, "human", later), SeatRecord(1, "bot", None, "random")], [2, 1])
        try:
            assert await ratings.embargoed_ranked([game_id, str(uuid.uuid4())]) == {game_id}
            await self._catch_up(projector)
            # Not applied, nor anything after it: ratings move in position order.
            assert await ratings.changes_of(held, None) == [] and await ratings.changes_of(later, None) == []
            assert [r.stream_id for r in await ratings.finished_after(await ratings.checkpoint(), 1)] == [game_id]
        finally:
            await lobby.lift_embargo(tournament)
            await lobby.lift_embargo(casual_tournament)
        assert await ratings.embargoed_ranked([game_id]) == set()
        await self._catch_up(projector)
        assert [c.game_id for c in await ratings.changes_of(held, GAME)] == [game_id]
        assert len(await ratings.changes_of(later, GAME)) == 1
        assert await ratings.changes_of(casual, None) == []

    async def test_rebuild_finds_a_rating_that_is_not_the_logs_and_writes_the_logs_back(
        self, projector: RatingsProjector, ratings: Any, lobby: Any, events: Any
    ) -> None:
        player = str(uuid.uuid4())
        await self._finish(lobby, events, [SeatRecord(0, "human", player), SeatRecord(1, "bot", None, "x")], [1, 2])
        await self._catch_up(projector)
        assert (await rebuild(ratings))["equal"]
        [kept] = await ratings.ratings_of(GAME, [player])
        await ratings.store([msgspec.structs.replace(kept, mu=kept.mu + 1)], [])
        report = await rebuild(ratings)
        assert not report["equal"] and report["mismatched"] == [f"{GAME}/{player}"] and not report["written"]
        assert (await ratings.ratings_of(GAME, [player]))[0].mu == kept.mu + 1  # comparing writes nothing
        written = await rebuild(ratings, write=True)
        assert written["written"] and written["changes"] == written["stored_changes"]
        assert (await ratings.ratings_of(GAME, [player])) == [kept]
        after = await rebuild(ratings)
        assert after["equal"] and after["changes"] == after["stored_changes"] == written["changes"]
        assert await self._catch_up(projector) == 0  # the checkpoint is the log's last finished game

    async def test_a_stored_ratings_kind_and_name_stay_and_reads_filter_by_game(self, ratings: Any) -> None:
        rated = str(uuid.uuid4())
        first = RatingRow("tezuma", rated, "human", rated, 30.0, 6.0, 1, 0)
        await ratings.store([first, msgspec.structs.replace(first, game="cahoots", mu=20.0)], [])
        await ratings.store([msgspec.structs.replace(first, kind="agent", name="other", mu=31.0, games=2)], [])
        assert await ratings.ratings_of("tezuma", [rated, str(uuid.uuid4())]) == [
            RatingRow("tezuma", rated, "human", rated, 31.0, 6.0, 2, 0)
        ]
        assert [r.game for r in await ratings.ratings_of_player(rated, "cahoots")] == ["cahoots"]
        assert sorted(r.game for r in await ratings.ratings_of_player(rated, None)) == ["cahoots", "tezuma"]
        assert await ratings.leaderboard("no-such-game", 10) == []
        with pytest.raises(NotFound):
            await queries.leaderboard(ratings, "no-such-game", 10)  # refused before any read

    async def test_the_leaderboard_orders_by_ordinal_and_reads_three_times_the_limit(self, ratings: Any) -> None:
        game = f"g{uuid.uuid4().hex[:8]}"  # a game of its own: the board is only these rows
        rows = [RatingRow(game, f"bot:{i}", "bot", f"{i} (house bot)", 25.0 + i, 8.0 - i, 1, 0) for i in range(5)]
        rows.append(RatingRow(game, "bot:tie", "bot", "tie", rows[4].mu, rows[4].sigma, 1, 0))
        await ratings.store(rows, [])
        board = await ratings.leaderboard(game, 1)
        assert [r.rated_id for r in board] == ["bot:4", "bot:tie", "bot:3"]


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryRatings(RatingStoreContract):
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
    def ratings(self, events: MemoryEventStore, lobby: MemoryLobby, accounts: MemoryAccounts) -> MemoryRatings:
        return MemoryRatings(events, lobby, accounts)

    @pytest.fixture
    def transactions(self) -> MemoryTransactions:
        return MemoryTransactions()


@pytest.fixture(scope="module")
def ratings_database(servers: tuple[str, str]) -> Iterator[str]:
    with fresh_database(servers[0]) as url:
        yield url


@pytest.mark.asyncio(loop_scope="session")
class TestPostgresRatings(RatingStoreContract):
    @pytest_asyncio.fixture(scope="module", loop_scope="session")
    async def pool(self, ratings_database: str) -> AsyncIterator[asyncpg.Pool]:
        pool = await create_pool(ratings_database, 3)
        yield pool
        await pool.close()

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
    def ratings(self, pool: asyncpg.Pool) -> PgRatings:
        return PgRatings(pool)

    @pytest.fixture
    def transactions(self, pool: asyncpg.Pool) -> PgTransactions:
        return PgTransactions(pool)
