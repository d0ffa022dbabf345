"""The collusion screening on a real server's log: two people play a few
Kabuki Tricks games together beside a house bot; `GET
/api/v1/admin/integrity` answers the report to the operator's token only
(403 admin_token_refused otherwise), and `hanamichi integrity --json`
reads the same database. One server and one database of their own for
the module."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import uuid

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess, free_test_port, fresh_database
from tests.service.client import ApiClient, play_randomly

asyncio_test = pytest.mark.asyncio(loop_scope="session")

TOKEN = "operator-" + uuid.uuid4().hex
GAME = "kabuki-tricks"
GAMES = 3


@pytest.fixture(scope="module")
def stack(servers, server_env):
    with fresh_database(servers[0]) as url:
        env = dict(server_env, DATABASE_URL=url, HANAMICHI_ADMIN_TOKEN=TOKEN)
        proc = ServerProcess(free_test_port(), env)
        proc.start()
        try:
            yield proc, env
        finally:
            proc.stop()


async def _play_together(base_url: str) -> tuple[str, str, str, str]:
    ann = await ApiClient.register(base_url, f"ann-{uuid.uuid4().hex[:6]}")
    bo = await ApiClient.register(base_url, f"bo-{uuid.uuid4().hex[:6]}")
    rng = random.Random(5)
    for _ in range(GAMES):
        game_id = await ann.create_game(GAME, 3)
        await ann.sit(game_id, 0)
        await bo.sit(game_id, 1)
        r = await ann.post(f"/api/v1/games/{game_id}/bots", {"seat": 2, "bot": "heuristic"})
        assert r.status_code == 200, r.text
        await asyncio.wait_for(asyncio.gather(play_randomly(ann, game_id, rng), play_randomly(bo, game_id, rng)), 120)
    ids = (ann.player_id, bo.player_id, ann.name, bo.name)
    await ann.close()
    await bo.close()
    return ids


@asyncio_test
async def test_the_operator_reads_the_report_and_nobody_else_does(stack):
    proc, env = stack
    ann, bo, ann_name, bo_name = await _play_together(proc.base_url)
    async with httpx.AsyncClient(base_url=proc.base_url, timeout=60) as http:
        for headers in ({}, {"Authorization": "Bearer not-the-token"}):
            r = await http.get("/api/v1/admin/integrity", headers=headers)
            assert r.status_code == 403 and r.json()["code"] == "admin_token_refused", r.text
        r = await http.get(
            "/api/v1/admin/integrity", params={"min_games": GAMES}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
    assert r.status_code == 200, r.text
    report = r.json()
    assert (report["games"], report["accounts"], report["skipped"]) == (GAMES, 2, 0)
    # The house bot is the reference, never a suspect: one pair, both ways.
    assert report["pairs_screened"] == 2
    assert {(p["giver"], p["receiver"]) for p in report["pairs"]} == {(ann, bo), (bo, ann)}
    assert all(p["shared_games"] == GAMES for p in report["pairs"])
    # Named as the players table names them now.
    assert {(p["giver_name"], p["receiver_name"]) for p in report["pairs"]} == {
        (ann_name, bo_name),
        (bo_name, ann_name),
    }
    assert {b["kind"].split(":")[0] for b in report["baselines"]} == {GAME}

    # The command reads the same log.
    out = subprocess.run(
        [sys.executable, "-m", "services.cli", "integrity", "--json", "--min-games", str(GAMES)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert printed["games"] == GAMES and printed["pairs_screened"] == 2
    assert printed["baselines"] == report["baselines"]
