"""The lobby's routes: GET /api/v1/games with cursor paging, the
server's clock and seat clocks on GET /api/v1/games/{id}, bot_delay_ms."""

from __future__ import annotations

import asyncio
import time
import uuid

from services.config import Settings
from tests.service.client import ApiClient


async def test_list_games_by_status_and_game_with_cursor_paging(server):
    host = await ApiClient.register(server.base_url, f"lobby-{uuid.uuid4().hex[:6]}")
    try:
        made = []
        for _ in range(5):
            r = await host.post("/api/v1/games", {"game": "tezuma-trick", "players": 3, "ranked": True})
            assert r.status_code == 201, r.text
            made.append(r.json()["game_id"])
        seen, before = [], None
        for _ in range(10):
            params = {"status": "open", "game": "tezuma-trick", "limit": 2}
            if before:
                params["before"] = before
            r = await host.get("/api/v1/games", **params)
            assert r.status_code == 200, r.text
            page = r.json()
            assert len(page["games"]) <= 2
            seen += [g["game_id"] for g in page["games"]]
            assert all(g["status"] == "open" and g["game"] == "tezuma-trick" for g in page["games"])
            before = page["next"]
            if before is None:
                break
        # Newest first, every table once, across pages.
        assert [g for g in seen if g in made] == list(reversed(made))
        assert len(seen) == len(set(seen))
        first = (await host.get("/api/v1/games", status="open", game="tezuma-trick", limit=1)).json()["games"][0]
        assert first["ranked"] is True and first["options"] == {} and len(first["seats"]) == 3
        assert not any(s["taken"] for s in first["seats"])
        for bad in ({"status": "closed"}, {"limit": 0}, {"limit": 101}, {"before": "yesterday"}, {"game": "chess"}):
            r = await host.get("/api/v1/games", **bad)
            assert r.status_code == 400, (bad, r.text)
            assert set(r.json()) >= {"code", "message"}
    finally:
        await host.close()


async def test_finished_tables_list_seats_and_no_result(server):
    host = await ApiClient.register(server.base_url, f"fin-{uuid.uuid4().hex[:6]}")
    try:
        gid = await host.create_game("cahoots", 3)
        await host.sit(gid, 0)
        for seat in (1, 2):
            assert (await host.post(f"/api/v1/games/{gid}/bots", {"seat": seat, "bot": "random"})).status_code == 200
        import random

        from tests.service.client import play_randomly

        await play_randomly(host, gid, random.Random(3))
        page = (await host.get("/api/v1/games", status="finished", game="cahoots", limit=5)).json()
        table = next(g for g in page["games"] if g["game_id"] == gid)
        assert [s["kind"] for s in table["seats"]] == ["human", "bot", "bot"]
        assert table["seats"][0]["name"] == host.name and table["seats"][1]["bot"] == "random"
        assert table["finished_at_ms"] >= table["created_at_ms"]
        assert "result" not in table and "view" not in table
    finally:
        await host.close()


async def test_server_time_and_seat_clocks_on_timed_tables(server):
    people = [await ApiClient.register(server.base_url, f"clock{i}-{uuid.uuid4().hex[:6]}") for i in range(3)]
    try:
        r = await people[0].post(
            "/api/v1/games", {"game": "cahoots", "players": 3, "time_control": {"move_ms": 60_000, "bank_ms": 0}}
        )
        assert r.status_code == 201, r.text
        gid = r.json()["game_id"]
        assert r.json()["clock"] is None  # not started
        for i, p in enumerate(people):
            await p.sit(gid, i)
        before = int(time.time() * 1000)
        info = await people[0].game(gid)
        after = int(time.time() * 1000)
        assert before - 1000 <= info["server_time_ms"] <= after + 1000
        assert info["status"] == "playing" and info["clock"], info
        for entry in info["clock"]:
            assert entry["seat"] in info["to_act"] and entry["bank_ms"] == 0
            # Due a minute after the turn began (no later than a minute from now).
            assert after - 5_000 <= entry["deadline_ms"] <= after + 60_000
        untimed = await people[0].create_game("cahoots", 3)
        assert (await people[0].game(untimed))["clock"] is None
    finally:
        for p in people:
            await p.close()


async def test_bot_delay_is_a_table_option(server):
    host = await ApiClient.register(server.base_url, f"pace-{uuid.uuid4().hex[:6]}")
    try:
        r = await host.post("/api/v1/games", {"game": "kabuki-tricks", "players": 3, "bot_delay_ms": 300})
        assert r.status_code == 201 and r.json()["bot_delay_ms"] == 300, r.text
        gid = r.json()["game_id"]
        await host.sit(gid, 0)
        for seat in (1, 2):
            await host.post(f"/api/v1/games/{gid}/bots", {"seat": seat, "bot": "random"})
        # Let the bots make a few moves where they can (the Director may be ours).
        start = time.monotonic()
        versions = []
        while time.monotonic() - start < 4:
            info = await host.game(gid)
            versions.append((time.monotonic(), info["version"]))
            if info["legal_actions"]:
                await host.act(gid, info["legal_actions"][0])
            await asyncio.sleep(0.05)
        moves = versions[-1][1] - versions[0][1]
        # 300 ms before each bot move: far fewer than unpaced bots (hundreds).
        assert 1 <= moves <= 4 / 0.3 * 2 + 2, moves
        r = await host.post("/api/v1/games", {"game": "kabuki-tricks", "players": 3, "bot_delay_ms": 20_000})
        assert r.status_code == 400
    finally:
        await host.close()


def test_people_tables_pace_bots_by_default(monkeypatch):
    """700 ms unless the server is told otherwise (the tests' servers say 0)."""
    monkeypatch.delenv("HANAMICHI_TABLE_BOT_DELAY_MS", raising=False)
    assert Settings.from_env().table_bot_delay_ms == 700
    monkeypatch.setenv("HANAMICHI_TABLE_BOT_DELAY_MS", "0")
    assert Settings.from_env().table_bot_delay_ms == 0


def test_tournament_tables_pace_bots_only_where_people_sit():
    """Tables without their own bot_delay_ms (tournaments): people's pace
    where a person sits, the process's (instant) elsewhere."""
    from services.app.games.housebots import HouseBots
    from services.app.games.tables import LobbyRecord, Table
    from services.app.seats import SeatHolder

    class Games:
        on_commit: list = []

    bots = HouseBots(Games(), delay_ms=0, people_delay_ms=700)

    def table(kinds, own=None):
        seats = [
            SeatHolder(i, None if k == "bot" else f"p{i}", "random" if k == "bot" else None, k, k)
            for i, k in enumerate(kinds)
        ]
        return Table(LobbyRecord("g", None, len(kinds), None, False, 1, "playing", None, seats, bot_delay_ms=own))

    assert bots.delay_for(table(["human", "bot", "bot"])) == 700
    assert bots.delay_for(table(["bot", "bot", "bot"])) == 0
    assert bots.delay_for(table(["agent", "bot", "bot"])) == 0  # sparring stays instant
    assert bots.delay_for(table(["human", "bot"], own=0)) == 0  # a table's own setting wins
    assert bots.delay_for(table(["bot", "bot"], own=250)) == 250
    assert HouseBots(Games(), delay_ms=15, people_delay_ms=0).delay_for(table(["human", "bot"])) == 15
