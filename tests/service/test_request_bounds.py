"""Every number a client sends is bounded: out of range is
a 400 `bad_request` naming the field, a move time too short where a person
sits is a 422 `time_control_too_short`, a start outside [now, now + 366 days]
is a 422 `bad_start`, and none of them writes anything. Before the fix,
`start_ms: 1e30` and `10**16` answered 500, and `-1`, `max_entrants: 10**6`
and `time_control.move_ms: 0` were accepted."""

from __future__ import annotations

import time

import asyncpg
import pytest

from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

TN = "/api/v1/tournaments"
GAME = "kabuki-tricks"


def now_ms() -> int:
    return int(time.time() * 1000)


def _refused(r, status: int, code: str, field: str | None = None) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"], body
    if field:
        assert field in body["message"], body


async def _counts(database_url: str) -> tuple[int, int, int]:
    conn = await asyncpg.connect(database_url)
    try:
        row = await conn.fetchrow(
            "SELECT (SELECT count(*) FROM tournaments) AS t, (SELECT count(*) FROM games) AS g,"
            " (SELECT count(*) FROM events) AS e"
        )
        assert row is not None  # counts always make a row
        return row["t"], row["g"], row["e"]
    finally:
        await conn.close()


async def test_tournament_numbers_out_of_range_are_refused_and_change_nothing(server, database_url):
    organiser = await ApiClient.register(server.base_url, "bounds-organiser")
    base = {"game": GAME, "start_ms": now_ms() + 60_000, "rounds": 2}
    before = await _counts(database_url)
    for change, field in [
        ({"start_ms": 1e30}, "start_ms"),
        ({"start_ms": 10**16}, "start_ms"),
        ({"start_ms": -1}, "start_ms"),
        ({"max_entrants": 10**6}, "max_entrants"),
        ({"fill_to": 10**6}, "fill_to"),
        ({"min_entrants": 10**6}, "min_entrants"),
        ({"rounds": 10**6}, "rounds"),
        ({"rounds": -1}, "rounds"),
        ({"every_minutes": 0}, "every_minutes"),
        ({"every_minutes": 10**9}, "every_minutes"),
        ({"table_size": 10**6}, "table_size"),
        ({"advance": 10**6}, "advance"),
        ({"opens_ms": -5}, "opens_ms"),
        ({"bye_points": 1e300}, "bye_points"),
        ({"time_control": {"move_ms": 0}}, "move_ms"),
        ({"time_control": {"move_ms": 86_400_001}}, "move_ms"),
        ({"time_control": {"move_ms": 5_000, "bank_ms": -1}}, "bank_ms"),
        ({"time_control": {"move_ms": 5_000, "bank_ms": 86_400_001}}, "bank_ms"),
        ({"time_control": {"move_ms": 5_000, "spare_ms": 1}}, "spare_ms"),
    ]:
        r = await organiser.post(TN, {**base, **change})
        _refused(r, 400, "bad_request", field)
    # In range, but not sane here and now.
    for start in (0, now_ms() - 3_600_000, now_ms() + 400 * 86_400_000):
        _refused(await organiser.post(TN, {**base, "start_ms": start}), 422, "bad_start")
    # People may register unless the tournament is for programs only.
    for bots in ("fill", "none"):
        r = await organiser.post(TN, {**base, "bots": bots, "time_control": {"move_ms": 999}})
        _refused(r, 422, "time_control_too_short")
    assert await _counts(database_url) == before

    r = await organiser.post(TN, {**base, "bots": "bots_only", "time_control": {"move_ms": 100}})
    assert r.status_code == 201, r.text
    assert r.json()["settings"]["time_control"] == {"move_ms": 100, "bank_ms": 0}
    r = await organiser.post(TN, {**base, "time_control": {"move_ms": 1000}, "max_entrants": 256, "fill_to": 256})
    assert r.status_code == 201, r.text
    r = await organiser.post(TN, base)  # no time control: the default one
    assert r.status_code == 201 and r.json()["settings"]["time_control"] == {"move_ms": 30_000, "bank_ms": 120_000}


async def test_game_numbers_out_of_range_are_refused_and_change_nothing(server, database_url):
    host = await ApiClient.register(server.base_url, "bounds-host")
    game_id = await host.create_game(GAME, 4)
    before = await _counts(database_url)
    for body, field in [
        ({"game": GAME, "players": 10**6}, "players"),
        ({"game": GAME, "players": 4, "time_control": {"move_ms": 99}}, "move_ms"),
        ({"game": GAME, "players": 4, "time_control": {"move_ms": 1000, "bank_ms": 86_400_001}}, "bank_ms"),
        ({"game": GAME, "players": 4, "time_control": {"move_ms": 1e30}}, "move_ms"),
    ]:
        _refused(await host.post("/api/v1/games", body), 400, "bad_request", field)
    # A casual table is for people: at least a second per move.
    r = await host.post("/api/v1/games", {"game": GAME, "players": 4, "time_control": {"move_ms": 500}})
    _refused(r, 422, "time_control_too_short")
    _refused(await host.post(f"/api/v1/games/{game_id}/seats", {"seat": 10**6}), 400, "bad_request", "seat")
    _refused(
        await host.post(f"/api/v1/games/{game_id}/bots", {"seat": -1, "bot": "random"}), 400, "bad_request", "seat"
    )
    r = await host.post(
        f"/api/v1/games/{game_id}/actions", {"action": {"type": "deal"}, "command_id": "x1", "expected_version": 10**30}
    )
    _refused(r, 400, "bad_request", "expected_version")
    _refused(await host.get(f"/api/v1/games/{game_id}/events", after=10**12), 400, "bad_request", "after")
    _refused(await host.get(f"/api/v1/games/{game_id}/replay", at=0, seat=10**6), 400, "bad_request", "seat")
    assert await _counts(database_url) == before


async def test_sparring_numbers_out_of_range_are_refused(server, database_url):
    owner = await ApiClient.register(server.base_url, "bounds-owner")
    r = await owner.post("/api/v1/agents", {"name": "bounded", "games": [GAME], "mode": "pull"})
    assert r.status_code == 201, r.text
    path = f"/api/v1/agents/{r.json()['agent_id']}/sparring"
    before = await _counts(database_url)
    # A series' length has its own documented code (docs/agents.md, Sparring:
    # 1..50, else 400 bad_games); the others are type bounds.
    for body, code, field in [
        ({"game": GAME, "games": 10**6}, "bad_games", "games"),
        ({"game": GAME, "games": 0}, "bad_games", "games"),
        ({"game": GAME, "players": 10**6}, "bad_request", "players"),
        ({"game": GAME, "time_control": {"move_ms": 99}}, "bad_request", "move_ms"),
        ({"game": GAME, "time_control": {"move_ms": 100, "bank_ms": 10**12}}, "bad_request", "bank_ms"),
    ]:
        _refused(await owner.post(path, body), 400, code, field)
    assert await _counts(database_url) == before
    # Only programs sit at a sparring table: 100 ms per move is allowed there.
    r = await owner.post(path, {"game": GAME, "games": 1, "time_control": {"move_ms": 100}})
    assert r.status_code == 201, r.text


async def test_a_missing_body_says_so(server):
    client = await ApiClient.register(server.base_url, "bounds-nobody")
    for path in ("/api/v1/players", "/api/v1/games", TN):
        r = await client.http.post(path, headers=client.headers)
        _refused(r, 400, "bad_request")
        assert "needs a JSON body" in r.json()["message"] and "'data'" not in r.json()["message"], r.text
