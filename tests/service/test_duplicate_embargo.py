"""Duplicate tournaments play one deal at several tables: until the round
ends, a table's play is shown only to its own seats (by every
route, services/app/games/embargo.py), and the tournament shows none of the round's
results; the tournament lifts the embargo when its round ends."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid

import httpx
import pytest

import engines.tournament as tn
from services.app.errors import ServiceError
from services.app.players import Player
from services.app.seats import SeatHolder
from services.app.tournaments.service import table_game_id
from services.bootstrap import Runtime
from services.config import Settings
from tests.service.client import ApiClient, SseReader
from tests.service.tournament_play import one_duplicate_round_with_a_person

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _embargoed(r) -> None:
    assert r.status_code == 409 and r.json()["code"] == "results_embargoed", (r.status_code, r.text[:300])


async def test_a_finished_duplicate_table_is_withheld_until_the_embargo_lifts(server, database_url, redis_url):
    runtime = await Runtime.open(Settings(database_url=database_url, redis_url=redis_url))
    try:
        game_id = str(uuid.uuid4())
        seats = [SeatHolder(s, None, "random", "random bot", "bot") for s in range(4)]
        # House bots play it out in this process, as a worker would.
        table = await runtime.games.create_seated(
            game_id,
            "kabuki-tricks",
            {},
            False,
            12345,
            seats,
            tournament_id=str(uuid.uuid4()),
            embargoed=True,
        )
        for _ in range(600):
            if table.over:
                break
            await asyncio.sleep(0.05)
        assert table.over and table.stream.ended_at is not None
        ended_at, final = table.stream.ended_at, table.version

        anon = ApiClient(server.base_url)
        info = (await anon.get(f"/api/v1/games/{game_id}")).json()
        # Nobody holds a seat here: nothing of the play is shown.
        assert info["result"] is None and info["view"] is None
        _embargoed(await anon.get(f"/api/v1/games/{game_id}/export"))
        _embargoed(await anon.get(f"/api/v1/games/{game_id}/events", after=0))
        for at in (1, 2, ended_at - 1, final):
            for seat in (None, 0, 1, 2, 3):
                _embargoed(
                    await anon.get(f"/api/v1/games/{game_id}/replay", at=at, **({} if seat is None else {"seat": seat}))
                )
        _embargoed(await anon.get(f"/api/v1/games/{game_id}/verify"))
        spectator = SseReader(server.base_url, game_id).start()
        await asyncio.sleep(1.5)
        assert not spectator.ended.is_set()
        assert not spectator.game_events

        # The round has ended everywhere: the tournament lifts the embargo.
        await runtime.pool.execute("UPDATE games SET embargoed = false WHERE game_id = $1::text::uuid", game_id)
        await asyncio.wait_for(spectator.ended.wait(), 10)
        await spectator.stop()
        assert spectator.game_events[-1]["version"] == final
        export = await anon.get(f"/api/v1/games/{game_id}/export")
        assert export.status_code == 200 and len(export.text.splitlines()) == final
        assert (await anon.get(f"/api/v1/games/{game_id}")).json()["result"] is not None
    finally:
        await runtime.close()


async def _play_seat(runtime: Runtime, game_id: str, player: Player, rng: random.Random) -> None:
    """A person's seat played in this process (house bots answer here too)."""
    for _ in range(20_000):
        table = await runtime.games.load(game_id)
        if table.over:
            return
        seat = table.seat_of(player.player_id)
        if seat in table.game.to_act(table.state):
            legal = table.game.legal_actions(table.state, seat)
            if legal:
                with contextlib.suppress(ServiceError):  # the table moved on meanwhile: look again
                    await runtime.games.act(game_id, player, rng.choice(legal), uuid.uuid4().hex)
                continue
        await asyncio.sleep(0.01)
    raise AssertionError("the seat's game did not end")


async def _tournament_messages(base_url: str, tid: str, into: list) -> None:
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(60, read=60)) as http,
        http.stream("GET", f"/api/v1/tournaments/{tid}/stream") as r,
    ):
        event: dict = {}
        async for line in r.aiter_lines():
            if line == "":
                if "data" in event:
                    into.append(event)
                event = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                event[key] = value.strip()


async def test_a_duplicate_round_shows_nothing_of_its_finished_tables_until_it_ends(server, database_url, redis_url):
    """A person still playing one table of a duplicate group
    asked the group's finished table for seat 2's hand (`replay?at=2&seat=2`)
    and got it; the tournament's events, rounds and standings showed that
    table's places and scores."""
    # Bots at full speed, as the tests' servers have them (tests/conftest.py):
    # at a person's 700 ms pace the all-bot table could end before
    # the person's table had dealt, and `replay?at=2` of it was out of range.
    runtime = await Runtime.open(Settings(database_url=database_url, redis_url=redis_url, table_bot_delay_ms=0))
    stream_task = None
    try:
        person, player, tid = await one_duplicate_round_with_a_person(runtime, server.base_url, "duplicate player")
        state = (await runtime.tournaments.load(tid)).state
        assert state.status == "running" and len(state.tables) == 2
        assert state.tables[0].group == state.tables[1].group  # one deal at both tables
        games = {t.table: table_game_id(tid, 1, t.table) for t in state.tables}
        mine = next(t.table for t in state.tables if person.player_id in t.seats)
        theirs = next(n for n in games if n != mine)
        other_game, my_game = games[theirs], games[mine]
        messages: list = []
        stream_task = asyncio.create_task(_tournament_messages(server.base_url, tid, messages))

        # The all-bot table plays out in this process and is recorded.
        other = await runtime.games.load(other_game)
        for _ in range(1200):
            if other.over:
                break
            await asyncio.sleep(0.05)
        assert other.over
        assert await runtime.tournaments.record_table(other_game)
        loaded = await runtime.tournaments.load(tid)
        assert any(isinstance(e, tn.TableFinished) for e in loaded.events)

        anon = ApiClient(server.base_url)
        for client in (anon, person):  # a spectator, and the person at the other table of the group
            info = (await client.get(f"/api/v1/games/{other_game}")).json()
            assert info["view"] is None and info["result"] is None
            _embargoed(await client.get(f"/api/v1/games/{other_game}/replay", at=2, seat=2))
            _embargoed(await client.get(f"/api/v1/games/{other_game}/replay", at=2))
            _embargoed(await client.get(f"/api/v1/games/{other_game}/events", after=0))
            _embargoed(await client.get(f"/api/v1/games/{other_game}/export"))
            _embargoed(await client.get(f"/api/v1/games/{other_game}/verify"))
        # The person's own table, still in play: their seat as they see it, nobody else's.
        seat = (await person.get(f"/api/v1/games/{my_game}")).json()["your_seat"]
        # At version 1, the start with the deal: when the person's seat acts
        # first (one deal in four), the table is still at version 1 here.
        own = await person.get(f"/api/v1/games/{my_game}/replay", at=1, seat=seat)
        assert own.status_code == 200 and own.json()["view"]["hand"], own.text
        _embargoed(await person.get(f"/api/v1/games/{my_game}/replay", at=1, seat=(seat + 1) % 4))
        assert (await person.get(f"/api/v1/games/{my_game}/events", after=0)).status_code == 200
        _embargoed(await anon.get(f"/api/v1/games/{my_game}/events", after=0))

        # The tournament: no result of the round anywhere.
        events = (await anon.get(f"/api/v1/tournaments/{tid}/events")).json()
        assert events["version"] < loaded.version
        assert (await anon.get(f"/api/v1/tournaments/{tid}")).json()["version"] == events["version"]
        assert not any(e["event"]["type"] == "tn.table_finished" for e in events["events"])
        rounds = (await anon.get(f"/api/v1/tournaments/{tid}/rounds/1")).json()
        assert [t["result"] for t in rounds["tables"]] == [None, None]
        standings = (await anon.get(f"/api/v1/tournaments/{tid}/standings")).json()
        assert sorted(standings["in_play"]) == sorted(games)
        assert all(row["games"] == 0 and row["points"] == 0 for row in standings["standings"]), standings
        await asyncio.sleep(1.5)  # the stream has had every chance to send it
        assert any(m.get("event") == "tournament" for m in messages)
        assert not any("tn.table_finished" in m["data"] for m in messages)

        # The person finishes; the round ends and everything is shown.
        await _play_seat(runtime, my_game, player, random.Random(7))
        assert await runtime.tournaments.record_table(my_game)
        assert (await runtime.tournaments.load(tid)).state.status == "finished"
        r = await anon.get(f"/api/v1/games/{other_game}/replay", at=2, seat=2)
        assert r.status_code == 200 and r.json()["view"]["hand"], r.text
        assert (await anon.get(f"/api/v1/games/{other_game}/export")).status_code == 200
        assert (await anon.get(f"/api/v1/games/{other_game}/verify")).status_code == 200
        assert (await anon.get(f"/api/v1/games/{other_game}")).json()["result"] is not None
        events = (await anon.get(f"/api/v1/tournaments/{tid}/events")).json()
        assert sum(e["event"]["type"] == "tn.table_finished" for e in events["events"]) == 2
        rounds = (await anon.get(f"/api/v1/tournaments/{tid}/rounds/1")).json()
        assert all(t["result"] is not None for t in rounds["tables"])
        standings = (await anon.get(f"/api/v1/tournaments/{tid}/standings")).json()
        assert standings["final"] and standings["in_play"] == []

        async def streamed_results() -> bool:
            return sum("tn.table_finished" in m["data"] for m in messages) == 2

        deadline = time.monotonic() + 30  # generous: a loaded machine's fan-out
        while not await streamed_results() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert await streamed_results(), (
            [m["data"][:120] for m in messages],
            stream_task.done() and (stream_task.exception() if not stream_task.cancelled() else "cancelled"),
        )
    finally:
        if stream_task is not None:
            stream_task.cancel()
        await runtime.close()


async def test_ratings_wait_for_the_embargo_of_a_ranked_duplicate_table(server, database_url, redis_url):
    """A ranked duplicate table's result must not reach the ratings (the
    leaderboard, a player's rating history) before its round ends: the
    projection waits at it, then applies it in position order."""
    from services.app.ratings.projection import RatingsProjector, rebuild
    from services.infra.pg import PgTransactions

    runtime = await Runtime.open(Settings(database_url=database_url, redis_url=redis_url))
    try:
        game_id = str(uuid.uuid4())
        seats = [SeatHolder(s, None, "random", "random bot", "bot") for s in range(4)]
        table = await runtime.games.create_seated(
            game_id,
            "kabuki-tricks",
            {},
            True,
            4242,
            seats,
            tournament_id=str(uuid.uuid4()),
            embargoed=True,
        )
        for _ in range(600):
            if table.over:
                break
            await asyncio.sleep(0.05)
        assert table.over
        projector = RatingsProjector(runtime.ratings, PgTransactions(runtime.pool))

        async def rated() -> int:
            return await runtime.pool.fetchval("SELECT count(*) FROM rating_changes WHERE game_id = $1", game_id)

        while await projector.step():
            pass
        assert await rated() == 0, "an embargoed result reached the ratings"

        await runtime.pool.execute("UPDATE games SET embargoed = false WHERE game_id = $1::text::uuid", game_id)
        while await projector.step():
            pass
        assert await rated() == 1  # one house bot identity in four seats moves once, by the mean
        assert (await rebuild(runtime.ratings))["equal"]
    finally:
        await runtime.close()


async def test_an_unranked_embargoed_table_does_not_hold_the_ratings(server, database_url, redis_url):
    """The projection waits at a ranked embargoed table (above), but an
    unranked one changes no rating: held there (a casual duplicate round that
    never ended), it stopped every ranked result after it from reaching the
    leaderboard."""
    from services.app.ratings.projection import RatingsProjector
    from services.infra.pg import PgTransactions

    runtime = await Runtime.open(Settings(database_url=database_url, redis_url=redis_url, table_bot_delay_ms=0))
    try:
        seats = [SeatHolder(s, None, "random", "random bot", "bot") for s in range(4)]
        tables = {}
        for ranked in (False, True):  # the unranked one finishes first: earlier in position order
            game_id = str(uuid.uuid4())
            table = await runtime.games.create_seated(
                game_id,
                "kabuki-tricks",
                {},
                ranked,
                777,
                seats,
                tournament_id=str(uuid.uuid4()),
                embargoed=not ranked,
            )
            deadline = time.monotonic() + 60
            while not table.over and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert table.over
            tables[ranked] = game_id
        projector = RatingsProjector(runtime.ratings, PgTransactions(runtime.pool))
        while await projector.step():
            pass
        rated = await runtime.pool.fetchval("SELECT count(*) FROM rating_changes WHERE game_id = $1", tables[True])
        assert rated == 1, "the ranked table's result waited behind an unranked embargoed one"
        assert await runtime.pool.fetchval("SELECT count(*) FROM rating_changes WHERE game_id = $1", tables[False]) == 0
    finally:
        await runtime.close()
