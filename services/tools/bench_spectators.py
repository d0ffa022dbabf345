"""`hanamichi bench spectators --clients 200` (issue 15): many SSE spectators
on one table of house bots, against a real server process.

Every client must get every version of the game once; the figure is the
delay from each commit to its arrival at each client, p50 and p99. The commit
time is the event's `recorded_at` in PostgreSQL, which is the start of the
appending transaction: the figure errs on the slow side by the transaction's
length (a few ms), never on the fast side.

The ceiling, measured in the same run with the same clients: a bare asyncio
server (no framework, no Redis, no redaction) that writes a timestamped SSE
message to the same number of clients at the same pace. What is left between
the two is our server's share."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import asyncpg

from services.tools.benchrun import percentile, run_bench


def add_spectators_parser(which) -> None:
    s = which.add_parser("spectators", help="many SSE spectators on one table of house bots")
    s.add_argument("--clients", type=int, default=200)
    s.add_argument("--game", default="kabuki-tricks")
    s.add_argument("--players", type=int, default=4)
    s.add_argument("--bot-delay-ms", type=int, default=40, help="house bots' pause before each move")
    s.add_argument("--port", type=int, default=18960)
    s.add_argument("--timeout", type=float, default=50, help="give up on the game after this many seconds")
    s.add_argument("--json", action="store_true")
    s.set_defaults(run=lambda args: run_bench(args, run_spectators_bench))


async def _follow(host: str, port: int, path: str, arrivals: dict[int, float], stamps: dict[int, float] | None = None) -> None:
    """One spectator: the arrival time of each version (and, from the
    ceiling server, the time it was sent)."""
    from services.tools.loadclient import HttpConnection

    conn = HttpConnection(host, port)
    try:
        async for event, _id, data in conn.sse(path):
            if event in ("game", "tick"):
                arrivals[data["version"]] = time.time()
                if stamps is not None:
                    stamps[data["version"]] = data["sent"]
            elif event == "end":
                return
    finally:
        conn.close()


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


async def _measure_server(args, database_url: str, redis_url: str) -> dict:
    from services.tools.loadclient import HttpConnection

    host, port = "127.0.0.1", args.port
    env = dict(
        os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url,
        HANAMICHI_BOT_DELAY_MS=str(args.bot_delay_ms), HANAMICHI_TABLE_BOT_DELAY_MS=str(args.bot_delay_ms),
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "services.bootstrap:app_from_env", "--host", host,
         "--port", str(port), "--log-level", "warning", "--no-access-log", "--timeout-graceful-shutdown", "3",
         "--http", "services.http.httpserver:GuardedHttpProtocol"],
        env=env, cwd=Path(__file__).resolve().parents[2],
    )
    followers: list[asyncio.Task] = []
    try:
        await _wait_health(host, port)
        conn = HttpConnection(host, port)
        _, me, _ = await conn.request("POST", "/api/v1/players", {"name": f"bench-host-{os.getpid()}-{time.time_ns()}"})
        token = me["token"]
        _, created, _ = await conn.request("POST", "/api/v1/games", {"game": args.game, "players": args.players}, token)
        game_id = created["game_id"]
        arrivals = [dict() for _ in range(args.clients)]
        followers = [
            asyncio.create_task(_follow(host, port, f"/api/v1/games/{game_id}/stream", arrivals[i]))
            for i in range(args.clients)
        ]
        # Every spectator is in before the first move: the server's own count says so.
        deadline = time.monotonic() + 20
        while True:
            _, info, _ = await conn.request("GET", f"/api/v1/games/{game_id}")
            if info.get("spectators") == args.clients or time.monotonic() > deadline:
                counted = info.get("spectators")
                break
            await asyncio.sleep(0.1)
        started = time.perf_counter()
        for seat in range(args.players):
            await conn.request("POST", f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"}, token)
        conn.close()
        done, _ = await asyncio.wait(followers, timeout=args.timeout)
        elapsed = time.perf_counter() - started
        # Issue 18: the server's memory and the spectators it cut for falling behind.
        rss_kb = int(Path(f"/proc/{server.pid}/status").read_text().split("VmRSS:")[1].split()[0])
        metrics_text = await asyncio.to_thread(
            lambda: urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10).read().decode())
        cut = sum(float(line.split()[-1]) for line in metrics_text.splitlines()
                  if line.startswith("hanamichi_sse_cut_total{"))
    finally:
        for task in followers:
            task.cancel()
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    pg = await asyncpg.connect(database_url)
    try:
        rows = await pg.fetch(
            "SELECT version, extract(epoch FROM recorded_at)::float8 AS at FROM events WHERE stream_id = $1 ORDER BY version",
            game_id,
        )
    finally:
        await pg.close()
    committed = {r["version"]: r["at"] for r in rows}
    delays = [a[v] - committed[v] for a in arrivals for v in committed if v in a]
    missing = sum(1 for a in arrivals for v in committed if v not in a)
    return {
        "game_id": game_id, "versions": len(committed), "counted": counted, "finished": len(done),
        "seconds": elapsed, "delays": delays, "missing": missing, "rss_mb": rss_kb / 1024, "cut": cut,
        # Issue 18: from the first spectator's arrival of a version to the last one's.
        "spreads": [max(t) - min(t) for v in committed
                    if len(t := [a[v] for a in arrivals if v in a]) > 1],
    }


# --- the ceiling: a bare asyncio SSE broadcaster ---------------------------------

async def _ceiling_server(port: int, clients: int, ticks: int, interval_s: float) -> None:
    writers: list[asyncio.StreamWriter] = []
    ready = asyncio.Event()

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n")
        writers.append(writer)
        if len(writers) >= clients:
            ready.set()

    server = await asyncio.start_server(accept, "127.0.0.1", port)
    print("ready", flush=True)
    await asyncio.wait_for(ready.wait(), 30)
    for version in range(1, ticks + 1):
        await asyncio.sleep(interval_s)
        message = f"event: tick\ndata: {json.dumps({'version': version, 'sent': time.time()})}\n\n".encode()
        for w in writers:
            w.write(message)
    for w in writers:
        w.write(b"event: end\ndata: {}\n\n")
        await w.drain()
        w.close()
    server.close()


async def _measure_ceiling(args, ticks: int, interval_s: float) -> dict:
    host, port = "127.0.0.1", args.port + 1
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "services.tools.bench_spectators", "--ceiling-server", str(port), str(args.clients),
        str(ticks), str(interval_s), stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).resolve().parents[2],
    )
    try:
        await asyncio.wait_for(proc.stdout.readline(), 20)
        arrivals = [dict() for _ in range(args.clients)]
        stamps: dict[int, float] = {}
        followers = [asyncio.create_task(_follow(host, port, "/", arrivals[i], stamps)) for i in range(args.clients)]
        await asyncio.wait(followers, timeout=ticks * interval_s + 30)
        for task in followers:
            task.cancel()
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
    delays = [a[v] - stamps[v] for a in arrivals for v in stamps if v in a]
    return {"delays": delays, "missing": sum(1 for a in arrivals for v in stamps if v not in a)}


async def run_spectators_bench(args: argparse.Namespace, database_url: str, redis_url: str) -> dict:
    served = await _measure_server(args, database_url, redis_url)
    versions = max(served["versions"], 1)
    pace = max(served["seconds"] / versions, 0.005)
    # The same clients at the same pace, for up to 100 messages.
    ceiling = await _measure_ceiling(args, min(versions, 100), pace)
    ms = lambda x: None if x is None else round(x * 1000, 2)  # noqa: E731
    return {
        "clients": args.clients,
        "game": args.game,
        "players": args.players,
        "bot_delay_ms": args.bot_delay_ms,
        "spectators_counted_by_server": served["counted"],
        "versions": served["versions"],
        "clients_to_the_end": served["finished"],
        "deliveries": len(served["delays"]),
        "missing_deliveries": served["missing"],
        "seconds": round(served["seconds"], 2),
        "commit_to_delivery_p50_ms": ms(percentile(served["delays"], 0.50)),
        "commit_to_delivery_p99_ms": ms(percentile(served["delays"], 0.99)),
        "commit_to_delivery_max_ms": ms(max(served["delays"], default=None)),
        "ceiling_bare_asyncio_p50_ms": ms(percentile(ceiling["delays"], 0.50)),
        "ceiling_bare_asyncio_p99_ms": ms(percentile(ceiling["delays"], 0.99)),
        "ceiling_missing": ceiling["missing"],
        "spread_p50_ms": ms(percentile(served["spreads"], 0.50)),
        "spread_p99_ms": ms(percentile(served["spreads"], 0.99)),
        "events_per_s_at_table": round(served["versions"] / max(served["seconds"], 1e-9), 2),
        "server_rss_mb": round(served["rss_mb"], 1),
        "connections_cut": served["cut"],
        "goal_p99_under_150_ms": (percentile(served["delays"], 0.99) or 1e9) < 0.150 and served["missing"] == 0,
    }


if __name__ == "__main__" and sys.argv[1:2] == ["--ceiling-server"]:
    port, clients, ticks, interval = sys.argv[2:6]
    asyncio.run(_ceiling_server(int(port), int(clients), int(ticks), float(interval)))
