"""`hanamichi bench ...`: figures measured against real servers.

`bench service` plays many games at once through the HTTP API of a real
server process, with load-generator clients choosing actions by the house
`random` bot's rule from the legal actions the API lists, one spectator SSE
stream per game, and measures in the same run the raw asyncpg ceiling of
single-event appends from 8 connections."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

from services.tools.benchplay import GameRunner, http_ceiling, raw_append_ceiling, spectate
from services.tools.benchrun import percentile, run_bench


def add_bench_parser(sub) -> None:
    bench = sub.add_parser("bench", help="measure the service")
    which = bench.add_subparsers(dest="bench", required=True)
    service = which.add_parser("service", help="many games at once through the HTTP API")
    service.add_argument("--games", type=int, default=200)
    service.add_argument("--game", default="kabuki-tricks")
    service.add_argument("--players", type=int, default=4)
    service.add_argument("--port", type=int, default=18950)
    service.add_argument("--raw-seconds", type=float, default=3.0)
    service.add_argument(
        "--http-seconds", type=float, default=3.0, help="how long to measure the trivial-route HTTP ceiling"
    )
    service.add_argument("--server-processes", type=int, default=1, help="API processes (uvicorn --workers)")
    service.add_argument(
        "--client",
        choices=["stream", "poll"],
        default="poll",
        help="stream: each seat waits for `turn` on its SSE stream; poll: a GET before each move",
    )
    service.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="each seat's thinking time before it answers a turn (0: at once, which saturates"
        " the server; a pace like people's or bots' measures latency below saturation)",
    )
    service.add_argument("--json", action="store_true")
    service.set_defaults(run=_bench_service)
    from services.tools.bench_tournament import add_tournament_parser

    add_tournament_parser(which)
    from services.tools.bench_agents import add_agents_parser

    add_agents_parser(which)
    from services.tools.bench_spectators import add_spectators_parser

    add_spectators_parser(which)
    from services.tools.bench_soak import add_soak_parser

    add_soak_parser(which)
    from services.tools.bench_faults import add_faults_parser

    add_faults_parser(which)


async def run_service_bench(args: argparse.Namespace, database_url: str, redis_url: str) -> dict:
    from services.tools.loadclient import HttpConnection

    host, port = "127.0.0.1", args.port
    raw = await raw_append_ceiling(database_url, args.raw_seconds)
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "services.bootstrap:app_from_env",
            "--host",
            host,
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
            "--workers",
            str(args.server_processes),
            "--timeout-graceful-shutdown",
            "3",
        ],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        setup = HttpConnection(host, port)
        for _ in range(300):
            try:
                status, _, _ = await setup.request("GET", "/health")
                if status == 200:
                    break
            except OSError:
                setup.close()
                await asyncio.sleep(0.1)
        setup.close()
        http = await http_ceiling(host, port, args.http_seconds)
        tables = []
        run = uuid.uuid4().hex[:6]  # names are unique: a second run on the same database needs new ones

        async def make_table(n: int) -> tuple[str, list[str]]:
            conn = HttpConnection(host, port)
            tokens = []
            for seat in range(args.players):
                _, player, _ = await conn.request("POST", "/api/v1/players", {"name": f"bench{run}-{n}-{seat}"})
                tokens.append(player["token"])
            _, created, _ = await conn.request(
                "POST", "/api/v1/games", {"game": args.game, "players": args.players}, tokens[0]
            )
            game_id = created["game_id"]
            for seat, token in enumerate(tokens):
                await conn.request("POST", f"/api/v1/games/{game_id}/seats", {"seat": seat}, token)
            conn.close()
            return game_id, tokens

        for start in range(0, args.games, 50):
            tables += await asyncio.gather(*(make_table(n) for n in range(start, min(args.games, start + 50))))
        arrivals: list[dict[int, float]] = [{} for _ in tables]
        watchers = [asyncio.create_task(spectate(host, port, gid, arrivals[i])) for i, (gid, _) in enumerate(tables)]
        await asyncio.sleep(0.5)  # streams connected
        runners = [
            GameRunner(host, port, tokens, gid, random.Random(i), args.client, args.think_ms / 1000)
            for i, (gid, tokens) in enumerate(tables)
        ]
        started = time.perf_counter()
        await asyncio.gather(*(r.play() for r in runners))
        elapsed = time.perf_counter() - started
        await asyncio.wait(watchers, timeout=15)
        for watcher in watchers:
            watcher.cancel()  # a spectator that missed its `end` must not hold the server's exit
        for runner in runners:
            runner.close()
    finally:
        # SIGTERM ends the server's SSE streams (services/http/shutdown.py); the
        # kill is the backstop, so that the figures are printed whatever happens.
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    latencies = [x for r in runners for x in r.latencies]
    accepted = sum(r.accepted for r in runners)
    fanout = [
        arrivals[i][v] - runner.committed[v]
        for i, runner in enumerate(runners)
        for v in runner.committed
        if v in arrivals[i]
    ]
    missing = sum(1 for i, r in enumerate(runners) for v in r.committed if v not in arrivals[i])
    ms = lambda x: None if x is None else round(x * 1000, 2)  # noqa: E731
    return {
        "games": args.games,
        "game": args.game,
        "client": args.client,
        "think_ms": args.think_ms,
        "players": args.players,
        "accepted_actions": accepted,
        "refused_actions": sum(r.refused for r in runners),
        "seconds": round(elapsed, 2),
        "accepted_actions_per_s": round(accepted / elapsed, 1),
        "action_latency_p50_ms": ms(percentile(latencies, 0.50)),
        "action_latency_p99_ms": ms(percentile(latencies, 0.99)),
        "fanout_delay_p50_ms": ms(percentile(fanout, 0.50)),
        "fanout_delay_p99_ms": ms(percentile(fanout, 0.99)),
        "fanout_samples": len(fanout),
        "fanout_missing": missing,
        "raw_single_event_appends_per_s_8_connections": round(raw, 1),
        "ratio_to_raw_ceiling": round(accepted / elapsed / raw, 3),
        "http_ceiling_trivial_route_per_s": round(http, 1),
        "ratio_to_http_ceiling": round(accepted / elapsed / http, 3),
        "server_processes": args.server_processes,
    }


def _bench_service(args: argparse.Namespace) -> int:
    return run_bench(args, run_service_bench)
