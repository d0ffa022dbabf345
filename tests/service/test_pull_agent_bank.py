"""A pull agent's time bank: a slow first move is paid from the bank, and a
move slower than what is left is played for the seat (`timeout`)."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from tests.conftest import WorkerProcess
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _wait_for_turn(agent: ApiClient, game_id: str, from_version: int) -> dict:
    """The agent's next turn at `from_version` or later (a dealer deals, then directs: two turns in a row)."""
    for _ in range(1000):
        info = await agent.game(game_id)
        if info["legal_actions"] and info["version"] >= from_version:
            return info
        await asyncio.sleep(0.01)
    raise AssertionError("the agent's turn never came")


async def test_a_pull_agent_pays_from_its_bank_then_times_out(server, server_env, database_url, tmp_path):
    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    try:
        owner = await ApiClient.register(server.base_url, "author")
        r = await owner.post(
            "/api/v1/agents", {"name": "bank-puller", "games": ["kabuki-tricks"], "mode": "pull"}
        )  # names are unique; test_multiprocess has "puller"
        assert r.status_code == 201, r.text
        agent = ApiClient(server.base_url, token=r.json()["token"])
        r = await owner.post(
            "/api/v1/games",
            {
                "game": "kabuki-tricks",
                "players": 4,
                "time_control": {"move_ms": 1000, "bank_ms": 1000},
            },
        )
        game_id = r.json()["game_id"]
        for seat in (1, 2, 3):
            assert (
                await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
            ).status_code == 200
        await agent.sit(game_id, 0)

        # Turn 1: 1.6 s, 600 ms over the move's limit: taken from the bank.
        first = await _wait_for_turn(agent, game_id, 1)
        await asyncio.sleep(1.6)
        r = await agent.act(game_id, first["legal_actions"][0], expected_version=first["version"])
        assert r.status_code == 200, r.text
        # Turn 2: 1.9 s, more than 1 s plus what is left of the bank (about 400 ms).
        second = await _wait_for_turn(agent, game_id, r.json()["version"])
        started = time.monotonic()
        await asyncio.sleep(1.9)
        r = await agent.act(game_id, second["legal_actions"][0], expected_version=second["version"])
        assert r.status_code == 409, r.text  # the service moved for it meanwhile
        assert time.monotonic() - started >= 1.9

        events = (await agent.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
        played = [e for e in events if e["event"]["type"] == "hm.move_played_for_seat"]
        assert [(e["event"]["seat"], e["event"]["reason"], e["event"]["strikes"]) for e in played][:1] == [
            (0, "timeout", 1)
        ]
        assert played[0]["version"] > second["version"]  # nothing was played for turn 1

        conn = await asyncpg.connect(database_url)
        try:
            rows = await conn.fetch(
                "SELECT version, outcome, overdraft_ms FROM agent_turns WHERE game_id = $1::text::uuid AND seat = 0"
                " ORDER BY version",
                game_id,
            )
        finally:
            await conn.close()
        by_version = {row["version"]: row for row in rows}
        assert by_version[first["version"]]["outcome"] == "ok"
        # 600 ms over, plus the stream's and the move's own latency (up to ~300
        # ms on a loaded machine); below the bank's 1,000 ms, so the move counted.
        assert 550 <= by_version[first["version"]]["overdraft_ms"] <= 950
        assert by_version[second["version"]]["outcome"] == "timeout"
        # The bank is spent: its 1,000 ms are all charged.
        assert by_version[first["version"]]["overdraft_ms"] + by_version[second["version"]]["overdraft_ms"] == 1000
    finally:
        worker.stop()
