"""`hanamichi bench agents`: the overhead the service adds to a push agent's
turn, with many agents playing at once.

A real API server and worker processes run as children; this process hosts
every agent (one small asyncio HTTP server, a path per agent, answering like
the house `random` bot at once) and records when each call arrived and when
its answer left. The worker records (agent_turns) when the commit that made
it the seat's turn happened and when the answer's commit was done, so:

  to_agent   = POST received by the agent  - commit of the previous event
  to_commit  = commit of the answer        - answer sent by the agent

Tables are all agents (4 per table), so every move is an agent call."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import httpx

from services.tools.benchrun import percentile

logging.getLogger("httpx").setLevel(logging.WARNING)

ROOT = Path(__file__).resolve().parents[2]


def add_agents_parser(which) -> None:
    a = which.add_parser("agents", help="overhead the service adds to push agents' turns")
    a.add_argument("--agents", type=int, default=100)
    a.add_argument("--players", type=int, default=4, help="seats per table (all agents)")
    a.add_argument("--game", default="kabuki-tricks")
    a.add_argument("--games-per-table", type=int, default=1)
    a.add_argument("--workers", type=int, default=1)
    a.add_argument("--think-ms", type=float, default=0.0, help="each agent's thinking time before it answers")
    a.add_argument("--port", type=int, default=18960)
    a.add_argument("--agent-port", type=int, default=18961)
    a.add_argument("--worker-log", default="/tmp/hanamichi-bench-agents-worker.log")
    a.add_argument("--json", action="store_true")
    a.set_defaults(run=_bench_agents)


class AgentFarm:
    """Every bench agent behind one asyncio HTTP/1.1 server (keep-alive)."""

    def __init__(self, think_ms: float = 0.0) -> None:
        self.think_s = think_ms / 1000
        self.arrivals: dict[
            tuple[str, int, int], tuple[float, float]
        ] = {}  # (game, version, seat) -> (received, answered)
        self.rng = random.Random(1)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                body = await reader.readexactly(length)
                received = time.time() * 1000
                turn = json.loads(body)
                if self.think_s:
                    await asyncio.sleep(self.think_s)
                data = json.dumps({"action": self.rng.choice(turn["legal_actions"])}).encode()
                answered = time.time() * 1000
                self.arrivals[(turn["game_id"], turn["version"], turn["seat"])] = (received, answered)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(data), data)
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the service hung up, or the bench is shutting the farm down
        finally:
            writer.close()


async def run_agents_bench(args: argparse.Namespace, database_url: str, redis_url: str) -> dict:
    import asyncpg

    env = dict(
        os.environ,
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        PYTHONPATH=str(ROOT),
        HANAMICHI_ALLOW_HTTP_AGENTS="1",
        HANAMICHI_ALLOW_PRIVATE_AGENTS="1",
        HANAMICHI_AGENT_RATE_LIMIT="100000",
        # One person owns every agent and hosts every table of the bench.
        HANAMICHI_MAX_AGENTS_PER_PLAYER="100000",
        HANAMICHI_MAX_OPEN_TABLES_PER_PLAYER="100000",
    )
    farm = AgentFarm(args.think_ms)
    agent_server = await asyncio.start_server(farm.handle, "127.0.0.1", args.agent_port, backlog=1024)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "services.bootstrap:app_from_env",
            "--host",
            "127.0.0.1",
            "--port",
            str(args.port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    workers = []
    for n in range(args.workers):
        # The worker writes to its own copy of the file: this one closes once it runs.
        with open(f"{args.worker_log}.{n}", "w") as log:
            workers.append(
                subprocess.Popen(
                    [sys.executable, "-m", "services.cli", "worker"],
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
    base = f"http://127.0.0.1:{args.port}"
    http = httpx.AsyncClient(base_url=base, timeout=60)
    try:
        for _ in range(300):
            try:
                if (await http.get("/health")).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
        # Player and agent names are unique, and a bench may run again on the same data.
        run = os.urandom(4).hex()
        owner = await http.post("/api/v1/players", json={"name": f"bench owner {run}"})
        owner.raise_for_status()
        owner = owner.json()
        auth = {"Authorization": f"Bearer {owner['token']}"}
        agents = []
        for i in range(args.agents):
            r = await http.post(
                "/api/v1/agents",
                headers=auth,
                json={
                    "name": f"bench agent {run} {i}",
                    "games": [args.game],
                    "endpoint": f"http://127.0.0.1:{args.agent_port}/a/{i}",
                },
            )
            r.raise_for_status()
            agents.append(r.json())
        await asyncio.sleep(1.0)  # the workers are up by now
        tables = [agents[i : i + args.players] for i in range(0, len(agents) - args.players + 1, args.players)]
        started = time.perf_counter()
        game_ids: list[str] = []
        for _round in range(args.games_per_table):
            round_ids = []
            for _table in tables:
                r = await http.post("/api/v1/games", headers=auth, json={"game": args.game, "players": args.players})
                r.raise_for_status()
                round_ids.append(r.json()["game_id"])
            # Seat every table's agents, then let them all play at once.
            for game_id, seated in zip(round_ids, tables, strict=True):
                for agent in seated:
                    r = await http.post(
                        f"/api/v1/games/{game_id}/seats", headers={"Authorization": f"Bearer {agent['token']}"}, json={}
                    )
                    r.raise_for_status()
            while True:
                states = [(await http.get(f"/api/v1/games/{g}")).json()["status"] for g in round_ids]
                if all(s == "finished" for s in states):
                    break
                await asyncio.sleep(0.5)
            game_ids.extend(round_ids)
        elapsed = time.perf_counter() - started
        conn = await asyncpg.connect(database_url)
        try:
            rows = await conn.fetch(
                "SELECT game_id::text AS game_id, version, seat, committed_ms, sent_ms, answered_ms, done_ms, outcome"
                " FROM agent_turns WHERE game_id = ANY($1::text[]::uuid[])",
                game_ids,
            )
        finally:
            await conn.close()
    finally:
        await http.aclose()
        for worker in workers:
            worker.terminate()
        server.terminate()
        for proc in [*workers, server]:
            proc.wait(30)
        agent_server.close()
    to_agent, to_commit, answer = [], [], []
    for row in rows:
        seen = farm.arrivals.get((row["game_id"], row["version"], row["seat"]))
        if seen is None or row["outcome"] != "ok":
            continue
        to_agent.append(seen[0] - row["committed_ms"])
        to_commit.append(row["done_ms"] - seen[1])
        answer.append(row["answered_ms"] - row["sent_ms"])
    ms = lambda x: None if x is None else round(x, 2)  # noqa: E731
    outcomes: dict[str, int] = {}
    for row in rows:
        outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
    return {
        "agents": args.agents,
        "tables_at_once": len(tables),
        "games": len(game_ids),
        "workers": args.workers,
        "think_ms": args.think_ms,
        "calls": len(rows),
        "outcomes": outcomes,
        "seconds": round(elapsed, 2),
        "calls_per_s": round(len(rows) / elapsed, 1),
        "commit_to_agent_p50_ms": ms(percentile(to_agent, 0.50)),
        "commit_to_agent_p99_ms": ms(percentile(to_agent, 0.99)),
        "answer_to_commit_p50_ms": ms(percentile(to_commit, 0.50)),
        "answer_to_commit_p99_ms": ms(percentile(to_commit, 0.99)),
        "round_trip_seen_by_service_p50_ms": ms(percentile(answer, 0.50)),
        "round_trip_seen_by_service_p99_ms": ms(percentile(answer, 0.99)),
    }


def _bench_agents(args: argparse.Namespace) -> int:
    from services.tools.benchrun import run_bench

    return run_bench(args, run_agents_bench)
