"""`hanamichi bench spectators --clients N`: many SSE
spectators on one table of house bots, against a real server process.

In one run, each phase on a server and database of its own:
1. the table with nobody watching, `--seconds` long: its events/s;
2. the same table with N spectators (raw sockets in `--client-processes`
   processes, services/bench_crowd.py) connected before the first move: the
   server's RSS before and after they connect (memory per idle connection),
   then the game: events/s, commit to first delivery and first-to-last
   spread p50/p99, missing and repeated deliveries, connections cut;
3. the ceiling: the same clients fed by a bare asyncio server (no framework,
   no Redis, no redaction) at the same pace. What is left between the two is
   our server's share.

The commit time is the event's `recorded_at` in PostgreSQL, the start of the
appending transaction: delays err on the slow side by the transaction's
length (a few ms), never on the fast side. The fd limit is raised to the hard
limit for every process of the run (10,000 spectators need as many fds)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg

from services.tools.benchrun import percentile, run_bench
from services.tools.children import piped


def add_spectators_parser(which) -> None:
    s = which.add_parser("spectators", help="many SSE spectators on one table of house bots")
    s.add_argument("--clients", type=int, default=200)
    s.add_argument("--game", default="kabuki-tricks")
    s.add_argument("--players", type=int, default=4)
    s.add_argument("--bot-delay-ms", type=int, default=40, help="house bots' pause before each move")
    s.add_argument("--port", type=int, default=18960)
    s.add_argument(
        "--seconds",
        "--timeout",
        type=float,
        default=25,
        dest="seconds",
        help="how long each table plays (the game rarely ends sooner)",
    )
    s.add_argument(
        "--client-processes",
        type=int,
        default=0,
        help="processes holding the spectators' sockets (default: one per 500 spectators, up to 8)",
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(run=lambda args: run_bench(args, run_spectators_bench))


async def _wait_health(host: str, port: int) -> None:
    from services.tools.loadclient import HttpConnection

    for _ in range(300):
        conn = HttpConnection(host, port)
        try:
            status, _, _ = await conn.request("GET", "/health")
            if status == 200:
                return
        except OSError:
            await asyncio.sleep(0.1)
        finally:
            conn.close()
    raise RuntimeError("server did not start")


def _rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) / 1024


def _scratch_url(url: str, name: str) -> str:
    head, _, query = url.partition("?")
    return f"{head.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


@asynccontextmanager
async def _server(args, admin_url: str, redis_url: str):
    """A server process on a database of its own (dropped after): start-up
    resumes every table in play, so a table of an earlier run or phase must
    not share it."""
    name = f"bench_spectators_{os.getpid()}_{time.time_ns()}"
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    database_url = _scratch_url(admin_url, name)
    host, port = "127.0.0.1", args.port
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
            "--timeout-graceful-shutdown",
            "3",
            "--backlog",
            "4096",
            "--http",
            "services.http.httpserver:GuardedHttpProtocol",
        ],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        await _wait_health(host, port)
        yield server, database_url
    finally:
        server.terminate()
        try:
            await asyncio.to_thread(server.wait, 15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def _table(args, conn) -> tuple[str, str]:
    _, me, _ = await conn.request("POST", "/api/v1/players", {"name": f"bench-host-{os.getpid()}-{time.time_ns()}"})
    body = {"game": args.game, "players": args.players, "bot_delay_ms": args.bot_delay_ms}
    _, created, _ = await conn.request("POST", "/api/v1/games", body, me["token"])
    return created["game_id"], me["token"]


async def _play(args, conn, game_id: str, token: str) -> float:
    """Seat the house bots (the game starts with the last); the wall clock then."""
    started = time.time()
    for seat in range(args.players):
        await conn.request("POST", f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"}, token)
    return started


async def _committed(database_url: str, game_id: str, started: float, seconds: float) -> dict[int, float]:
    """The versions committed within the window, and when."""
    pg = await asyncpg.connect(database_url)
    try:
        rows = await pg.fetch(
            "SELECT version, extract(epoch FROM recorded_at)::float8 AS at FROM events WHERE stream_id = $1 ORDER BY"
            " version",
            game_id,
        )
    finally:
        await pg.close()
    return {r["version"]: r["at"] for r in rows if started - 1 <= r["at"] <= started + seconds}


def _pace(committed: dict[int, float], started: float) -> float:
    """Events per second at the table: versions in the window over the time to the last of them."""
    return len(committed) / max(max(committed.values(), default=started) - started, 1e-9)


async def _baseline(args, admin_url: str, redis_url: str) -> dict:
    """The same table with nobody watching: the pace the crowd must not slow."""
    from services.tools.loadclient import HttpConnection

    async with _server(args, admin_url, redis_url) as (_, database_url):
        conn = HttpConnection("127.0.0.1", args.port)
        game_id, token = await _table(args, conn)
        started = await _play(args, conn, game_id, token)
        conn.close()
        await asyncio.sleep(max(0.0, started + args.seconds - time.time()))
        committed = await _committed(database_url, game_id, started, args.seconds)
    return {"versions": len(committed), "events_per_s": _pace(committed, started)}


def _deliveries(rows, committed: dict[int, float]) -> dict:
    """Per version, every arrival; missing and repeated deliveries to clients that were not cut."""
    arrivals: dict[int, list[float]] = {v: [] for v in committed}
    missing = repeated = cut = refused = 0
    for flag, pairs in rows:
        cut += flag == 1
        refused += flag == -1
        got = set()
        for version, at in pairs:
            if version in arrivals:
                repeated += version in got
                got.add(version)
                arrivals[version].append(at)
        if flag == 0:
            missing += len(committed) - len(got)
    return {"arrivals": arrivals, "missing": missing, "repeated": repeated, "clients_cut": cut, "refused": refused}


def _timings(arrivals: dict[int, list[float]], sent: dict[int, float]) -> dict:
    """Sent (or committed) to each delivery, to the first delivery, and first to last."""
    delays = [at - sent[v] for v, ats in arrivals.items() for at in ats]
    firsts = [min(ats) - sent[v] for v, ats in arrivals.items() if ats]
    spreads = [max(ats) - min(ats) for ats in arrivals.values() if len(ats) > 1]
    ms = lambda x: None if x is None else round(x * 1000, 1)  # noqa: E731
    return {
        "to_delivery_p50_ms": ms(percentile(delays, 0.5)),
        "to_delivery_p99_ms": ms(percentile(delays, 0.99)),
        "to_first_p50_ms": ms(percentile(firsts, 0.5)),
        "to_first_p99_ms": ms(percentile(firsts, 0.99)),
        "spread_p50_ms": ms(percentile(spreads, 0.5)),
        "spread_p99_ms": ms(percentile(spreads, 0.99)),
        "deliveries": len(delays),
    }


async def _crowded(args, admin_url: str, redis_url: str, processes: int) -> dict:
    """N spectators in before the first move; idle memory, then the game."""
    from services.tools.bench_crowd import Crowd
    from services.tools.loadclient import HttpConnection

    host, port = "127.0.0.1", args.port
    async with _server(args, admin_url, redis_url) as (server, database_url):
        conn = HttpConnection(host, port)
        game_id, token = await _table(args, conn)
        rss_before = _rss_mb(server.pid)
        crowd = Crowd(host, port, f"/api/v1/games/{game_id}/stream", args.clients, processes)
        try:
            connected, failed = await crowd.connect()
            # Every spectator is in before the first move: the server's own count says so.
            deadline = time.monotonic() + 30
            while True:
                _, info, _ = await conn.request("GET", f"/api/v1/games/{game_id}")
                counted = info.get("spectators")
                if counted == connected or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            rss_idle = _rss_mb(server.pid)  # the table has not moved: idle connections only
            started = await _play(args, conn, game_id, token)
            conn.close()
            await asyncio.sleep(max(0.0, started + args.seconds - time.time()))
            rss_end = _rss_mb(server.pid)
            metrics_text = await asyncio.to_thread(
                lambda: urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30).read().decode()
            )
            await asyncio.sleep(2)  # what was committed in the window still on its way
            rows = await crowd.stop()
        finally:
            await crowd.close()
        committed = await _committed(database_url, game_id, started, args.seconds)
    cut = sum(
        float(line.split()[-1]) for line in metrics_text.splitlines() if line.startswith("hanamichi_sse_cut_total{")
    )
    got = _deliveries(rows, committed)
    return {
        "connected": connected,
        "connect_failures": failed,
        "counted": counted,
        "versions": len(committed),
        "events_per_s": _pace(committed, started),
        "rss_before": rss_before,
        "rss_idle": rss_idle,
        "rss_end": rss_end,
        "cut": cut,
        **got,
        **_timings(got["arrivals"], committed),
    }


# --- the ceiling: a bare asyncio SSE broadcaster (services/tools/sse_ceiling.py) ----------


async def _measure_ceiling(args, processes: int, ticks: int, interval_s: float) -> dict:
    from services.tools.bench_crowd import Crowd

    host, port = "127.0.0.1", args.port + 1
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.tools.sse_ceiling",
        str(port),
        str(args.clients),
        str(ticks),
        str(interval_s),
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    crowd = Crowd(host, port, "/", args.clients, processes)
    try:
        ticker = piped(proc.stdout)
        await asyncio.wait_for(ticker.readline(), 20)
        await crowd.connect()
        sent = {
            int(v): at
            for v, at in json.loads(await asyncio.wait_for(ticker.readline(), ticks * interval_s + 90)).items()
        }
        await asyncio.sleep(2)
        got = _deliveries(await crowd.stop(), sent)
    finally:
        await crowd.close()
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
    return {**_timings(got["arrivals"], sent), "missing": got["missing"]}


async def run_spectators_bench(args: argparse.Namespace, database_url: str, redis_url: str) -> dict:
    from services.tools.bench_crowd import raise_fd_limit

    fds = raise_fd_limit()  # the server and the ceiling inherit it
    processes = args.client_processes or min(8, max(1, -(-args.clients // 500)))
    load_before = os.getloadavg()
    alone = await _baseline(args, database_url, redis_url)
    served = await _crowded(args, database_url, redis_url, processes)
    versions = max(served["versions"], 1)
    # The same clients at the same pace, for up to 60 messages.
    ceiling = await _measure_ceiling(args, processes, min(versions, 60), args.seconds / versions)
    ratio = lambda a, b: None if not a or not b else round(a / b, 2)  # noqa: E731
    return {
        "clients": args.clients,
        "client_processes": processes,
        "fd_limit": fds,
        "game": args.game,
        "players": args.players,
        "bot_delay_ms": args.bot_delay_ms,
        "seconds": args.seconds,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "connected": served["connected"],
        "connect_failures": served["connect_failures"],
        "spectators_counted_by_server": served["counted"],
        "versions": served["versions"],
        "deliveries": served["deliveries"],
        "missing_deliveries": served["missing"],
        "repeated_deliveries": served["repeated"],
        "commit_to_first_delivery_p50_ms": served["to_first_p50_ms"],
        "commit_to_first_delivery_p99_ms": served["to_first_p99_ms"],
        "commit_to_delivery_p50_ms": served["to_delivery_p50_ms"],
        "commit_to_delivery_p99_ms": served["to_delivery_p99_ms"],
        "spread_p50_ms": served["spread_p50_ms"],
        "spread_p99_ms": served["spread_p99_ms"],
        "events_per_s_with_crowd": round(served["events_per_s"], 2),
        "events_per_s_no_spectators": round(alone["events_per_s"], 2),
        "pace_ratio": ratio(served["events_per_s"], alone["events_per_s"]),
        "server_rss_mb_before": round(served["rss_before"], 1),
        "server_rss_mb_idle_crowd": round(served["rss_idle"], 1),
        "server_rss_mb_end": round(served["rss_end"], 1),
        "kb_per_idle_connection": round(
            (served["rss_idle"] - served["rss_before"]) * 1024 / max(served["connected"], 1), 1
        ),
        "connections_cut": served["cut"],
        "clients_told_to_reconnect": served["clients_cut"],
        "ceiling_spread_p50_ms": ceiling["spread_p50_ms"],
        "ceiling_spread_p99_ms": ceiling["spread_p99_ms"],
        "ceiling_to_delivery_p50_ms": ceiling["to_delivery_p50_ms"],
        "ceiling_to_delivery_p99_ms": ceiling["to_delivery_p99_ms"],
        "ceiling_missing": ceiling["missing"],
        "spread_p99_over_ceiling": ratio(served["spread_p99_ms"], ceiling["spread_p99_ms"]),
        "goal_spread_p99_ms": 150 if args.clients <= 2000 else 1000,
        "goal_met": (served["spread_p99_ms"] or 1e9) < (150 if args.clients <= 2000 else 1000)
        and served["missing"] == 0
        and (served["events_per_s"] >= 0.9 * alone["events_per_s"]),
    }
