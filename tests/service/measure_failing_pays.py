"""The "failing pays" experiment (does a failing bot do better than a
working one?), a measurement, not a test (its
name keeps it out of the suite's collection; run it on purpose):

    python -m pytest tests/service/measure_failing_pays.py -q -s

Six push agents (tests/service/agent_variants.py): `always500` (HTTP 500 to
every call), `slow` (every answer past its deadline), `illegal` (an illegal
move every call), `garbage` (unparseable, illegal and good answers in turn),
`good` (random legal moves) and `highest` (a working bot that plays its
highest card) each spar 30 three-player Kabuki Tricks games against two
`heuristic` house bots on the same deals (one seed), through a real server
and worker, at once. It prints each report's figures: games forfeited, mean
score (of the games the agent finished itself), mean counted place (a
forfeited seat is last), wins, strikes by reason and the share of its own
moves; then the same deals in duplicate (the house bot in the agent's seat)
with the mean difference and its interval."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.service.agent_harness import Stack, push_agent, wait_for
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAMES = 30
SEED = 20261207
KINDS = ("always500", "slow", "illegal", "garbage", "good", "highest")


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
                {
                    "game": "kabuki-tricks",
                    "games": GAMES,
                    "players": 3,
                    "bot": "heuristic",
                    "seed": SEED,
                    "duplicate": True,
                },
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
        print("agent      forfeited  score  place  wins  duplicate diff (95% CI)   strikes (by reason)  own moves")
        for kind, rep in reports.items():
            dup = rep["duplicate"]
            score = "  -  " if rep["mean_score"] is None else f"{rep['mean_score']:5.2f}"
            diff = "-" if dup["mean_difference"] is None else f"{dup['mean_difference']:+.2f} {dup['ci95']}"
            print(
                f"{kind:<10} {rep['forfeited']:4d}/{GAMES:<4} {score}  {rep['mean_place']:5.2f}  {rep['wins']:4d}"
                f"  {diff:<24}  {rep['strikes']['total']:4d} {rep['strikes']['by_reason']!s}  {rep['moves']['share']}"
            )
            assert rep["finished"] == GAMES
    finally:
        for process in processes:
            process.stop()
        stack.stop()
