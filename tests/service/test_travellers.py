"""The travellers of a duplicate round (GET /api/v1/tournaments/{id}/travellers)
against the games' own logs: every table's score and place with a seat's
cards are the game's result, and the first difference is the first of that
seat's moves where the two tables chose otherwise. While the round is in
play (held open by a person who has not finished their table) the route
answers 409 `results_embargoed` and shows nothing of the group."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid

import msgspec
import pytest

from services.app.errors import ServiceError
from services.app.players import Player
from services.app.tournaments.service import Travellers, table_game_id
from services.bootstrap import Runtime
from services.config import Settings
from tests.service.client import ApiClient
from tests.service.tournament_play import one_duplicate_round_with_a_person

pytestmark = pytest.mark.asyncio(loop_scope="session")

# The events of kabuki-tricks that open a seat's move (a deal is the dealer's
# Deal action, the round's first included), and the field naming the seat.
MOVE_OPENERS = {"kt.dealt": "dealer", "kt.directed": "seat", "kt.played": "seat", "kt.joker_played": "seat"}


async def _play_seat(runtime: Runtime, game_id: str, player: Player, rng: random.Random) -> None:
    """The person's seat played in this process (the house bots answer here too)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
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
    raise AssertionError("the person's game did not end")


def _seat_moves(events: list[dict], seat: int) -> list[tuple[int, dict]]:
    """(version, event) of every event that opens one of `seat`'s moves."""
    out = []
    for item in events:
        event = item["event"]
        key = MOVE_OPENERS.get(event["type"])
        if key is not None and event.get(key) == seat:
            out.append((item["version"], event))
    return out


def _check_difference(line: dict, logs: dict[str, list[dict]], seat: int) -> None:
    """The line's first difference is where that seat's play at the two
    tables first differs, read from both games' logs."""
    d = line["first_difference"]
    mine = _seat_moves(logs[line["game_id"]], seat)
    theirs = _seat_moves(logs[d["against_game_id"]], seat)
    before_mine = [e for v, e in mine if v < d["version"]]
    before_theirs = [e for v, e in theirs if v < d["against_version"]]
    # Every earlier move of the seat was the same choice at both tables ...
    assert before_mine == before_theirs, (line, d)
    assert len(before_mine) == d["move"] - 1
    # ... and this one differs (or one table had no such move).
    at_mine = next((e for v, e in mine if v == d["version"]), None)
    at_theirs = next((e for v, e in theirs if v == d["against_version"]), None)
    assert at_mine is not None or at_theirs is not None
    assert at_mine != at_theirs
    if at_mine is None:
        assert len(mine) == len(before_mine)  # the seat made no more moves there
    if at_theirs is None:
        assert len(theirs) == len(before_theirs)
    assert d["replay"] == f"/games/{line['game_id']}/replay?at={d['version']}"
    assert d["against_replay"] == f"/games/{d['against_game_id']}/replay?at={d['against_version']}"


async def test_travellers_are_withheld_in_play_then_match_the_games_logs(server, database_url, redis_url):
    runtime = await Runtime.open(Settings(database_url=database_url, redis_url=redis_url, table_bot_delay_ms=0))
    try:
        person, player, tid = await one_duplicate_round_with_a_person(runtime, server.base_url, "traveller player")
        state = (await runtime.tournaments.load(tid)).state
        assert len(state.tables) == 2 and state.tables[0].group == state.tables[1].group
        games = {t.table: table_game_id(tid, 1, t.table) for t in state.tables}
        mine = next(t.table for t in state.tables if person.player_id in t.seats)
        other_game = games[next(n for n in games if n != mine)]

        # The all-bot table ends and is recorded; the person's is still in play.
        other = await runtime.games.load(other_game)
        deadline = time.monotonic() + 60
        while not other.over:
            assert time.monotonic() < deadline, "the bots' table did not end"
            await asyncio.sleep(0.05)
        assert await runtime.tournaments.record_table(other_game)

        anon = ApiClient(server.base_url)
        for client in (anon, person):
            r = await client.get(f"/api/v1/tournaments/{tid}/travellers", round=1)
            assert r.status_code == 409 and r.json()["code"] == "results_embargoed", r.text
            assert set(r.json()) <= {"code", "message", "version"}
            r = await client.get(f"/api/v1/tournaments/{tid}/travellers")
            assert r.status_code == 200 and r.json()["groups"] == [] and r.json()["withheld_round"] == 1, r.text
        r = await anon.get(f"/api/v1/tournaments/{tid}/travellers", round=2)
        assert r.status_code == 404 and r.json()["code"] == "round_not_found"
        r = await anon.get(f"/api/v1/tournaments/{uuid.uuid4()}/travellers")
        assert r.status_code == 404 and r.json()["code"] == "tournament_not_found"

        # The person finishes: the round ends and the travellers are shown.
        await _play_seat(runtime, games[mine], player, random.Random(3))
        assert await runtime.tournaments.record_table(games[mine])
        assert (await runtime.tournaments.load(tid)).state.status == "finished"
        answer = (await anon.get(f"/api/v1/tournaments/{tid}/travellers")).json()
        assert answer == (await anon.get(f"/api/v1/tournaments/{tid}/travellers", round=1)).json()
        assert answer["duplicate"] and answer["withheld_round"] is None
        # The answer is the Struct the OpenAPI document is generated from, field for field.
        assert msgspec.to_builtins(msgspec.convert(answer, Travellers)) == answer
        schema = (await anon.get("/schema/openapi.json")).json()
        route = schema["paths"]["/api/v1/tournaments/{tournament_id}/travellers"]["get"]
        assert {"200", "404", "409"} <= set(route["responses"])
        assert route["responses"]["200"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Travellers"
        }
        [group] = answer["groups"]
        assert (group["round"], group["group"], group["tables"]) == (1, state.tables[0].group, [1, 2])

        logs, finished = {}, {}
        for game_id in games.values():
            page = (await anon.get(f"/api/v1/games/{game_id}/events", after=0)).json()
            logs[game_id] = page["events"]
            finished[game_id] = next(e["event"] for e in page["events"] if e["event"]["type"] == "hm.game_finished")
        tables = {t.table: t for t in state.tables}
        differed = 0
        assert [s["seat"] for s in group["seats"]] == [0, 1, 2, 3]
        for seat in group["seats"]:
            s = seat["seat"]
            assert [line["table"] for line in seat["lines"]] == [1, 2]
            for line in seat["lines"]:
                done = finished[line["game_id"]]
                places = done["table_places"] or done["result"]["places"]
                assert line["game_id"] == games[line["table"]]
                assert line["entrant"] == tables[line["table"]].seats[s]
                assert line["score"] == done["result"]["scores"][s] and line["place"] == places[s]
                assert line["moves"] == len(_seat_moves(logs[line["game_id"]], s))
                assert line["replay"] == f"/games/{line['game_id']}/replay?at=0"
                if line["first_difference"] is None:
                    # The same choices at both tables, move for move.
                    against = games[3 - line["table"]]
                    assert [e for _, e in _seat_moves(logs[line["game_id"]], s)] == [
                        e for _, e in _seat_moves(logs[against], s)
                    ]
                else:
                    differed += 1
                    assert line["first_difference"]["against_table"] == 3 - line["table"]
                    _check_difference(line, logs, s)
        # A person's random play against the bots' always parts somewhere.
        assert differed >= 2
        person_line = next(
            line for seat in group["seats"] for line in seat["lines"] if line["entrant"] == person.player_id
        )
        assert person_line["name"] == "traveller player" and person_line["kind"] == "human"
        # Every replay link opens a page.
        for seat in group["seats"]:
            for line in seat["lines"]:
                if line["first_difference"]:
                    page = await anon.get(line["first_difference"]["replay"])
                    assert page.status_code == 200
    finally:
        await runtime.close()
