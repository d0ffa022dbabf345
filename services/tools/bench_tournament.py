"""`hanamichi bench tournament`: an all-bot swiss tournament through the real
workers (services/tools/bench.py parses `bench`; this is one of its kinds,
like bench_agents.py and bench_spectators.py)."""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from services.tools.benchrun import run_bench


def add_tournament_parser(which) -> None:
    t = which.add_parser("tournament", help="an all-bot swiss tournament through the real workers")
    t.add_argument("--entrants", type=int, default=1024)
    t.add_argument("--table-size", type=int, default=4)
    t.add_argument("--rounds", type=int, default=5)
    t.add_argument("--game", default="kabuki-tricks")
    t.add_argument("--workers", type=int, default=2, help="worker processes")
    t.add_argument("--timeout", type=float, default=600)
    t.add_argument("--worker-log", default="/tmp/hanamichi-bench-worker.log", help="worker output, one file per worker")
    t.add_argument("--json", action="store_true")
    t.set_defaults(run=_bench_tournament)


async def run_tournament_bench(args: argparse.Namespace, database_url: str, redis_url: str) -> dict:
    import engines.tournament as tn
    from services.app.games.service import now_ms
    from services.bootstrap import Runtime
    from services.config import Settings

    settings = replace(Settings.from_env(), database_url=database_url, redis_url=redis_url)
    runtime = await Runtime.open(settings)
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url)
    workers = []
    for n in range(args.workers):
        # The worker writes to its own copy of the file: this one closes once it runs.
        with open(f"{args.worker_log}.{n}", "w") as log:
            workers.append(
                subprocess.Popen(
                    [sys.executable, "-m", "services.cli", "worker"],
                    env=env,
                    cwd=Path(__file__).resolve().parents[2],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
    try:
        service = runtime.tournaments
        loaded = await service.create(
            None,
            {
                "game": args.game,
                "start_ms": now_ms() + 4_000 + 5 * args.entrants,
                "table_size": args.table_size,
                "rounds": args.rounds,
                "bots": "bots_only",
                "min_entrants": 2,
                "max_entrants": args.entrants,
                "ranked": True,
                "time_control": {"move_ms": 30_000, "bank_ms": 0},
            },
        )
        tid = loaded.tournament_id
        for n in range(1, args.entrants + 1):
            await service.command(tid, tn.Register(entrant=tn.Entrant(id=f"bot-{n}", name=f"Bot {n}", kind="bot")))
        # The worker starts it at its start time, as scheduled at creation.
        await asyncio.sleep(max(0, loaded.state.settings.start_ms - now_ms()) / 1000)
        started = time.perf_counter()
        status = "registering"
        while time.perf_counter() - started < args.timeout:
            await asyncio.sleep(0.5)
            status = (await service.load(tid)).state.status
            if status in ("finished", "cancelled"):
                break
        elapsed = time.perf_counter() - started
        row = await runtime.pool.fetchrow(
            "SELECT count(*) AS games, count(*) FILTER (WHERE g.status = 'finished') AS finished,"
            " coalesce(sum(s.version), 0) AS events FROM games g JOIN streams s ON s.stream_id = g.game_id::text"
            " WHERE g.tournament_id = $1",
            tid,
        )
        assert row is not None  # an aggregate always has its row
        actions = await runtime.pool.fetchval(
            "SELECT count(*) FROM commands c JOIN games g ON c.stream_id = g.game_id::text"
            " WHERE g.tournament_id = $1 AND c.command_id <> 'start:'",
            tid,
        )
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(30)
        await runtime.close()
    return {
        "entrants": args.entrants,
        "table_size": args.table_size,
        "rounds": args.rounds,
        "status": status,
        "games": row["games"],
        "games_finished": row["finished"],
        "events": int(row["events"]),
        "actions": actions,
        "wall_seconds": round(elapsed, 1),
        "games_per_s": round(row["finished"] / elapsed, 2),
        "actions_per_s": round(actions / elapsed, 1),
        "workers": args.workers,
    }


def _bench_tournament(args: argparse.Namespace) -> int:
    return run_bench(args, run_tournament_bench)
