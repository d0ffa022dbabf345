"""The "failing pays" experiment (does a failing bot do better than a
working one?), a measurement, not a test (its
name keeps it out of the suite's collection; run it on purpose):

    python -m pytest tests/service/measure_failing_pays.py -q -s

Three push agents (tests/service/agent_variants.py): `always500` (HTTP 500 to
every call), `alternate500` (every other call) and `highest` (a working bot
that plays its highest card) each spar 50 three-player Kabuki Tricks games
against two `heuristic` house bots, through a real server and worker, at once.
It prints, per agent: mean points, mean place as the game scores it, mean
table place under the forfeit rule (a seat handed to a house bot ranks last),
wins, strikes by reason, games handed to a bot and the share of its own moves."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.service.agent_harness import Stack, push_agent, wait_for
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAMES = 50
KINDS = ("always500", "alternate500", "highest")


async def test_measure_failing_pays(server_env, tmp_path_factory):
    stack = Stack(server_env, tmp_path_factory.mktemp("failing-pays")).start()
    processes = []
    try:
        owner = await ApiClient.register(stack.base_url, "experimenter")
        series = {}
        started = time.monotonic()
        for kind in KINDS:
            agent, process = await push_agent(owner, kind)
            processes.append(process)
            r = await owner.post(
                f"/api/v1/agents/{agent['agent_id']}/sparring",
                {"game": "kabuki-tricks", "games": GAMES, "players": 3, "bot": "heuristic"},
            )
            assert r.status_code == 201, r.text
            series[kind] = (agent["agent_id"], r.json()["sparring_id"])

        async def report(kind: str) -> dict:
            agent_id, sid = series[kind]

            async def done():
                got = (await owner.get(f"/api/v1/agents/{agent_id}/sparring/{sid}")).json()
                return got if got["status"] == "done" else None

            return await wait_for(done, 1200, 2.0)

        reports = dict(zip(KINDS, await asyncio.gather(*(report(k) for k in KINDS)), strict=True))
        print(
            f"\n{GAMES} three-player Kabuki Tricks games per agent against 2 heuristic bots,"
            f" {time.monotonic() - started:.0f} s"
        )
        print("agent        points  place  table_place  wins  strikes (by reason)            handed  own moves")
        for kind, rep in reports.items():
            results = rep["results"]
            table_place = sum(r["table_place"] for r in results) / len(results)
            print(
                f"{kind:<12} {rep['mean_score']:6.2f}  {rep['mean_place']:5.2f}  {table_place:11.2f}  {rep['wins']:4d}"
                f"  {rep['strikes']['total']:4d} {rep['strikes']['by_reason']!s:<26}"
                f"  {rep['strikes']['games_handed_to_bot']:6d}  {rep['moves']['share']}"
            )
            assert rep["finished"] == GAMES
    finally:
        for process in processes:
            process.stop()
        stack.stop()
