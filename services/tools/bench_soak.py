"""`hanamichi bench soak`: steady load on `serve` for N minutes, printing the
resident memory of every API process and of the worker each minute, so a
leak shows as a line that keeps rising after warm-up (services/tools/bench.py
parses `bench`; this is one of its kinds).

The load is `slots` tables played one after the other in each slot, every
seat over HTTP at a thinking pace, one spectator stream per table; each slot
keeps its four players, so the steady state has a fixed number of people
and an ever growing number of finished games, like a live service."""

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

from services.tools.benchrun import run_bench


def add_soak_parser(which) -> None:
    soak = which.add_parser("soak", help="steady load for N minutes; RSS of every process each minute")
    soak.add_argument("--minutes", type=float, default=15.0)
    soak.add_argument("--slots", type=int, default=16, help="tables in play at any time")
    soak.add_argument("--game", default="kabuki-tricks")
    soak.add_argument("--players", type=int, default=4)
    soak.add_argument("--think-ms", type=float, default=20.0, help="each seat's pause before it answers a turn")
    soak.add_argument("--processes", type=int, default=2, help="API processes of serve")
    soak.add_argument("--port", type=int, default=18960)
    soak.add_argument("--every-s", type=float, default=60.0, help="seconds between RSS lines")
    soak.add_argument("--http-seconds", type=float, default=3.0, help="the trivial-route HTTP ceiling, same run")
    soak.add_argument("--json", action="store_true")
    soak.set_defaults(run=_bench_soak)


def rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def serve_processes(serve_pid: int) -> dict[str, int]:
    """serve's API processes (uvicorn's spawned workers) and its worker, by role."""
    found: dict[str, int] = {}
    apis = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid != serve_pid:
            continue
        words = b" ".join(argv)
        if b"services.cli worker" in words:
            found["worker"] = int(entry.name)
        elif b"spawn_main" in words:
            apis.append(int(entry.name))
    for n, pid in enumerate(sorted(apis)):
        found[f"api{n + 1}"] = pid
    return found


class Load:
    """Slots playing table after table until `stop`; counts what they did."""

    def __init__(self, host: str, port: int, args: argparse.Namespace) -> None:
        self.host, self.port, self.args = host, port, args
        self.finished = 0
        self.accepted = 0
        self.refused = 0
        self.errors = 0
        self.run = uuid.uuid4().hex[:6]  # names are unique: a second run on the same database needs new ones

    async def slot(self, n: int, stop: float) -> None:
        from services.tools.benchplay import GameRunner, spectate
        from services.tools.loadclient import HttpConnection

        host, port, args = self.host, self.port, self.args
        conn = HttpConnection(host, port)
        tokens = []
        for seat in range(args.players):
            _, player, _ = await conn.request("POST", "/api/v1/players", {"name": f"soak{self.run}-{n}-{seat}"})
            tokens.append(player["token"])
        rng = random.Random(n)
        try:
            while time.monotonic() < stop:
                try:
                    status, created, _ = await conn.request(
                        "POST", "/api/v1/games", {"game": args.game, "players": args.players}, tokens[0]
                    )
                    if status != 201 and status != 200:
                        raise RuntimeError(f"create answered {status}")
                    game_id = created["game_id"]
                    for seat, token in enumerate(tokens):
                        await conn.request("POST", f"/api/v1/games/{game_id}/seats", {"seat": seat}, token)
                    watcher = asyncio.create_task(spectate(host, port, game_id, {}))
                    runner = GameRunner(host, port, tokens, game_id, rng, "stream", args.think_ms / 1000)
                    try:
                        await runner.play()
                    finally:
                        runner.close()
                    with_end = await asyncio.wait({watcher}, timeout=10)
                    if not with_end[0]:
                        watcher.cancel()
                    self.finished += 1
                    self.accepted += runner.accepted
                    self.refused += runner.refused
                except (OSError, ConnectionError, RuntimeError, KeyError, asyncio.IncompleteReadError):
                    self.errors += 1
                    conn.close()
                    conn = HttpConnection(host, port)
                    await asyncio.sleep(1)
        finally:
            conn.close()


async def run_soak_bench(args: argparse.Namespace, database_url: str, redis_url: str) -> dict:
    from services.tools.benchplay import http_ceiling
    from services.tools.loadclient import HttpConnection

    host, port = "127.0.0.1", args.port
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url)
    argv = [sys.executable, "-m", "services.cli", "serve", "--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen(
        [*argv, "--processes", str(args.processes)], env=env, cwd=Path(__file__).resolve().parents[2]
    )
    minutes: list[dict] = []
    try:
        for _ in range(600):
            try:
                probe = HttpConnection(host, port)
                status, _, _ = await probe.request("GET", "/health")
                probe.close()
                if status == 200:
                    break
            except OSError:
                await asyncio.sleep(0.1)
        roles: dict[str, int] = {}
        for _ in range(100):  # uvicorn spawns its workers and serve its worker after the socket opens
            roles = serve_processes(server.pid)
            if len([r for r in roles if r.startswith("api")]) >= args.processes and "worker" in roles:
                break
            await asyncio.sleep(0.1)
        ceiling = await http_ceiling(host, port, args.http_seconds)
        print(f"soak: trivial-route HTTP ceiling {ceiling:.0f} requests/s; processes {roles}", flush=True)
        load = Load(host, port, args)
        started = time.monotonic()
        stop = started + args.minutes * 60
        slots = [asyncio.create_task(load.slot(n, stop)) for n in range(args.slots)]
        last = (started, 0, 0)
        while time.monotonic() < stop:
            await asyncio.sleep(min(args.every_s, max(0.0, stop - time.monotonic())))
            now = time.monotonic()
            rss = {role: rss_kib(pid) for role, pid in serve_processes(server.pid).items()}
            row = {
                "minute": round((now - started) / 60, 1),
                "rss_mib": {role: None if k is None else round(k / 1024, 1) for role, k in sorted(rss.items())},
                "games_finished": load.finished - last[1],
                "actions_per_s": round((load.accepted - last[2]) / max(1e-9, now - last[0]), 1),
                "errors": load.errors,
            }
            last = (now, load.finished, load.accepted)
            minutes.append(row)
            print(f"soak: {row}", flush=True)
        await asyncio.gather(*slots, return_exceptions=True)
        after = await http_ceiling(host, port, args.http_seconds)
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return {
        "minutes": args.minutes,
        "slots": args.slots,
        "think_ms": args.think_ms,
        "api_processes": args.processes,
        "games_finished": load.finished,
        "accepted_actions": load.accepted,
        "refused_actions": load.refused,
        "errors": load.errors,
        "http_ceiling_trivial_route_per_s_before": round(ceiling, 1),
        "http_ceiling_trivial_route_per_s_after": round(after, 1),
        "rss_mib_per_minute": minutes,
    }


def _bench_soak(args: argparse.Namespace) -> int:
    return run_bench(args, run_soak_bench)
