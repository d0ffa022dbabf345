"""Command ids are scoped per seat, unique on (game, seat,
command_id). A person cannot squat the id an agent will use next, and two
seats calling Stop at the same version with `<game_id>:<version>` (the id
docs/agents.md suggests) do not collide: each call is judged on its own."""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg
import pytest

from services.infra.db import migration_files
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _seated(server, game: str, players: int, options: dict | None = None) -> tuple[str, list[ApiClient]]:
    clients = [await ApiClient.register(server.base_url, f"cmd{i}") for i in range(players)]
    game_id = await clients[0].create_game(game, players, options or {})
    for seat, c in enumerate(clients):
        await c.sit(game_id, seat)
    return game_id, clients


async def test_another_seat_cannot_squat_the_next_command_id(server):
    game_id, clients = await _seated(server, "kabuki-tricks", 3)
    info = await clients[0].game(game_id)
    dealer = clients[info["to_act"][0]]
    # The id the next seat to act will use, taken in advance by the dealer's own move.
    squatted = f"{game_id}:{info['version'] + 1}"
    r = await dealer.act(game_id, (await dealer.game(game_id))["legal_actions"][0], command_id=squatted)
    assert r.status_code == 200, r.text
    dealt = r.json()
    while (after := await clients[0].game(game_id))["to_act"] == info["to_act"]:  # the dealer also directs
        r = await dealer.act(game_id, (await dealer.game(game_id))["legal_actions"][0])
        assert r.status_code == 200, r.text
    nxt = clients[after["to_act"][0]]
    legal = (await nxt.game(game_id))["legal_actions"]
    r = await nxt.act(game_id, legal[0], command_id=squatted, expected_version=after["version"])
    assert r.status_code == 200, r.text  # was 409 command_id_taken
    assert r.json()["version"] > dealt["version"]
    # Each seat's retry still gets its own first outcome back, and appends nothing.
    version = (await clients[0].game(game_id))["version"]
    assert (await dealer.act(game_id, {"type": "deal"}, command_id=squatted)).json() == dealt
    again = await nxt.act(game_id, legal[0], command_id=squatted)
    assert again.status_code == 200 and again.json()["version"] == r.json()["version"]
    assert (await clients[0].game(game_id))["version"] == version


async def test_two_stop_calls_with_the_same_command_id_are_judged_each_on_its_own(server):
    game_id, clients = await _seated(server, "kabuki-masks", 3, {"stop_window_ms": 0})
    deadline = time.monotonic() + 5
    while (info := await clients[0].game(game_id))["view"]["placer"] is None:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    placer = info["view"]["placer"]
    r = await clients[placer].act(game_id, {"type": "place", "pile": 0})
    assert r.status_code == 200, r.text
    version = r.json()["version"]
    callers = [c for seat, c in enumerate(clients) if seat != placer]
    command_id = f"{game_id}:{version}"  # what both agents derive from the same turn
    replies = await asyncio.gather(*(c.act(game_id, {"type": "stop"}, command_id=command_id) for c in callers))
    codes = sorted((r.status_code, r.json().get("code")) for r in replies)
    assert codes[0][0] == 200, codes
    # The loser is refused by the rules (already called / the round moved on),
    # never by the other seat's command id.
    assert codes[1][0] in (409, 422) and codes[1][1] != "command_id_taken", codes


async def test_the_migration_keeps_stored_commands_and_scopes_new_ones_per_seat(servers):
    admin_url, _ = servers
    name = f"hanamichi_mig_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        head, _, query = admin_url.partition("?")
        conn = await asyncpg.connect(head.rsplit("/", 1)[0] + f"/{name}" + (f"?{query}" if query else ""))
        try:
            files = migration_files()
            before = [sql for version, _, sql in files if version < 7]
            scoped = next(sql for version, _, sql in files if version == 7)
            for sql in before:
                await conn.execute(sql)
            # Commands stored before the migration: a seat's, and the deal (no seat).
            await conn.execute(
                "INSERT INTO commands (stream_id, command_id, outcome) VALUES"
                " ('g', 'start:', '{\"version\":3,\"first\":1,\"seat\":null}'::bytea),"
                " ('g', 'g:3', '{\"version\":4,\"first\":4,\"seat\":2}'::bytea)"
            )
            await conn.execute(scoped)
            rows = await conn.fetch("SELECT command_id, seat FROM commands ORDER BY command_id")
            assert [tuple(r) for r in rows] == [("g:3", 2), ("start:", None)]
            # Another seat may use the same id; the same seat (or the server) may not.
            await conn.execute("INSERT INTO commands (stream_id, seat, command_id, outcome) VALUES ('g', 1, 'g:3', '')")
            for seat, command_id in ((2, "g:3"), (None, "start:")):
                with pytest.raises(asyncpg.UniqueViolationError):
                    await conn.execute(
                        "INSERT INTO commands (stream_id, seat, command_id, outcome) VALUES ('g', $1, $2, '')",
                        seat,
                        command_id,
                    )
        finally:
            await conn.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
