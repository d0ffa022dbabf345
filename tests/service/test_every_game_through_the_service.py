"""Every registered game runs through the service unchanged:
a table of house bots and one person, played to the end over HTTP against
two API processes on one port (as `serve` runs them, each request on a new
connection, both processes answering), with the log exported and folded
back by the engine to the same result."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator

import msgspec
import pytest

from engines.registry import all_games
from tests.service.client import play_randomly
from tests.service.two_processes import FreshClients, TwoApiProcesses

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture
def api(session_two_api_processes) -> TwoApiProcesses:
    """`serve --processes 2 --no-worker`: the session's (tests/conftest.py),
    the tests kill no process."""
    return session_two_api_processes


@pytest.fixture
async def people(api) -> AsyncIterator[FreshClients]:
    """The test's clients, each request on a fresh connection; at the end,
    both API processes answered them."""
    crowd = FreshClients(api)
    yield crowd
    await crowd.close_and_check_both_answered()


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
async def test_a_person_and_house_bots_play_every_game_to_the_end(people, game):
    players = game.min_players if game.name != "kabuki-tricks" else 4
    person = await people.register("host")
    # Bot-only timing (KM-3 allows 0); the person still plays by HTTP.
    options = {"stop_window_ms": 0} if game.name == "kabuki-masks" else {}
    game_id = await person.create_game(game.name, players, options)
    await person.sit(game_id, 0)
    for seat in range(1, players):
        r = await person.post(
            f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "heuristic" if seat == 1 else "random"}
        )
        assert r.status_code == 200, r.text
    await asyncio.wait_for(play_randomly(person, game_id, random.Random(3)), 120)
    info = await person.game(game_id)
    assert info["status"] == "finished"
    assert sorted(info["result"]["places"])[0] == 1
    export = (await person.get(f"/api/v1/games/{game_id}/export")).text.splitlines()
    lines = [json.loads(line) for line in export]
    engine_events = [msgspec.convert(e["event"], game.event_type) for e in lines if not e["type"].startswith("hm.")]
    state = game.fold(engine_events)
    assert game.is_over(state)
    # The game's result as the engine folds it, plus the table's ranking
    # (a forfeited seat is ranked last): nobody forfeited here, so table_places are the game's places.
    folded = msgspec.to_builtins(game.result(state))
    assert info["result"] == {**folded, "forfeited": [], "table_places": folded["places"]}
    finished = [e for e in lines if e["type"] == "hm.game_finished"]
    assert len(finished) == 1
    assert finished[0]["event"]["result"] == folded
    assert finished[0]["event"]["forfeited"] == []
