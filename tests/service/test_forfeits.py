"""Failing never pays. The default move for a late seat is a
uniformly random legal move drawn from the game's seed (so anyone can check
it from the log once the seed is revealed), and a seat handed to a house bot
after its strikes is ranked last at its table for tournament points and
ratings, flagged in the result, the rating history and the leaderboard."""

from __future__ import annotations

import asyncio
import json
import random

import msgspec
import pytest

from engines.core import Ctx, Result
from engines.registry import get_game
from services.app.games.events import (
    GameFinished,
    MovePlayedForSeat,
    SeatHandedToBot,
    SeatRecord,
    places_after_forfeits,
)
from services.app.games.tables import engine_events, event_decoder
from services.app.ratings.projection import Rating, apply_game
from tests.conftest import WorkerProcess
from tests.service.client import ApiClient


def test_forfeited_seats_share_last_place_and_the_others_close_ranks():
    assert places_after_forfeits([1, 2, 3, 4], [0]) == [4, 1, 2, 3]
    assert places_after_forfeits([2, 1, 2, 4], [1]) == [1, 4, 1, 3]  # a tie stays a tie
    assert places_after_forfeits([1, 2, 3], [0, 2]) == [2, 1, 2]  # competition ranking: both share 2nd-to-3rd


def test_a_forfeited_winner_is_rated_as_last():
    seats = [SeatRecord(s, "human", f"p{s}", None, f"p{s}") for s in range(3)]
    result = Result(scores=[30.0, 10.0, 5.0], places=[1, 2, 3], winners=[0])
    finished = GameFinished("kabuki-tricks", True, seats, result, forfeited=[0], table_places=[3, 1, 2])
    ratings: dict[str, Rating] = {}
    changes = {c.rated_id: c for c in apply_game(ratings, finished, 1, "g")}
    assert changes["p0"].place == 3 and changes["p0"].forfeited
    assert ratings["p0"].mu < ratings["p2"].mu < ratings["p1"].mu
    assert ratings["p0"].forfeits == 1 and ratings["p1"].forfeits == 0


async def _finished(host: ApiClient, game_id: str, worker: WorkerProcess) -> dict:
    for _ in range(400):
        info = await host.game(game_id)
        if info["status"] == "finished":
            return info
        await asyncio.sleep(0.1)
    pytest.fail("the game did not finish:\n" + worker.tail())


@pytest.mark.asyncio(loop_scope="session")
async def test_a_timed_out_seat_plays_a_seeded_random_move_and_is_ranked_last(server, server_env, tmp_path):
    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    try:
        host = await ApiClient.register(server.base_url, "walks-away")
        r = await host.post(
            "/api/v1/games",
            {
                "game": "kabuki-tricks",
                "players": 3,
                "ranked": True,
                "time_control": {"move_ms": 1000},
            },
        )
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        await host.sit(game_id, 0)
        for seat in (1, 2):
            assert (
                await host.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
            ).status_code == 200
        info = await _finished(host, game_id, worker)

        # Every default move is Random("<seed>:<seat>:<version>").choice(legal):
        # re-derived here from the log alone (the seed is public after the end).
        game = get_game("kabuki-tricks")
        decode = event_decoder(game).decode
        export = (await host.get(f"/api/v1/games/{game_id}/export")).text.splitlines()
        events = [decode(json.dumps(json.loads(line)["event"])) for line in export]
        # The server's own seed, revealed at the end: the deal is dealt from a seed
        # mixed with the seats' client seeds, the default moves from the server's.
        seed = next(e.server_seed for e in events if isinstance(e, GameFinished))
        assert seed is not None
        played = [i for i, e in enumerate(events) if isinstance(e, MovePlayedForSeat)]
        assert len(played) == 3
        for i in played:
            seat, version = events[i].seat, i  # the move was decided at version i (events[i] is version i + 1)
            state = game.fold(engine_events(events[:i]))
            legal = game.legal_actions(state, seat)
            expected = game.decide(state, seat, random.Random(f"{seed}:{seat}:{version}").choice(legal), Ctx(0))
            after = [e for e in events[i + 1 :] if not isinstance(e, SeatHandedToBot)][: len(expected)]
            assert [msgspec.to_builtins(e) for e in after] == [msgspec.to_builtins(e) for e in expected]

        # The seat a house bot finished is last at the table, whatever the bot scored.
        result = info["result"]
        assert result["forfeited"] == [0]
        assert result["table_places"][0] == 3
        assert sorted(result["table_places"][1:]) == sorted(places_after_forfeits(result["places"], [0])[1:])
        # ... and in its rating, flagged in the history and on the leaderboard.
        for _ in range(100):
            r = await host.get(f"/api/v1/players/{host.player_id}/ratings", game="kabuki-tricks")
            # 200 with an empty history until the worker has rated the game.
            if r.status_code == 200 and r.json()["history"]:
                break
            await asyncio.sleep(0.1)
        assert r.status_code == 200, r.text
        change = r.json()["history"][-1]
        assert change["game_id"] == game_id and change["place"] == 3 and change["forfeited"] is True
        board = (await host.get("/api/v1/leaderboards/kabuki-tricks", limit=500)).json()
        me = next(p for p in board["players"] if p["rated_id"] == host.player_id)
        assert me["forfeits"] == 1
    finally:
        worker.stop()
