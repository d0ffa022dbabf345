"""The `hanamichi` command."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path


def _simulate(args: argparse.Namespace) -> int:
    from engines.registry import get_game
    from services.simulate import render, simulate

    if args.calibrate:  # issue 17: every engine's random playouts over a bare pure-Python one
        from services.simulate import calibrate, render_calibration

        report = calibrate(args.players, args.seconds)
        print(json.dumps(report) if args.json else render_calibration(report))
        return 0
    if not args.game:
        args.parser.error("--game is required (or --calibrate)")
    game = get_game(args.game)
    bots = args.bots.split(",") if args.bots else ["random"] * args.players
    report = simulate(
        game, args.players, args.games, args.seed, bots, json.loads(args.options),
        progress=not args.json and args.games >= 200 and sys.stderr.isatty(),
    )
    print(json.dumps(report) if args.json else render(report))
    return 0


def _golden(args: argparse.Namespace) -> int:
    from engines.golden import encode, golden_path, playthrough
    from engines.registry import all_games

    for game in all_games():
        if args.game and game.name != args.game:
            continue
        path = golden_path(game)
        data = encode(playthrough(game))
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path} ({len(data)} bytes)")
        else:
            same = path.exists() and path.read_bytes() == data
            print(f"{game.name}: {'unchanged' if same else 'DIFFERS (run with --write to regenerate)'}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    """Provably fair deals (issue 11.3): the three checks of engines.verify on
    an export; exit 0 when all pass, 1 when one fails, 2 for an unreadable file."""
    from engines.verify import ExportError, verify_export

    try:
        verdict = verify_export(Path(args.export).read_bytes())
    except (OSError, ExportError) as exc:
        print(f"hanamichi verify: {exc}", file=sys.stderr)
        return 2
    for name, ok in (("commitment", verdict.commitment_ok), ("deals", verdict.deals_ok), ("replay", verdict.replay_ok)):
        print(f"{name}: {'ok' if ok else 'FAILED'}")
    for problem in verdict.problems:
        print(f"  {problem}")
    return 0 if verdict.ok else 1


def resolve_servers(data_dir: Path):
    """DATABASE_URL/REDIS_URL when set; otherwise embedded servers (returned to stop)."""
    from services.embedded import start_embedded

    database_url, redis_url = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    embedded = None
    if not database_url or not redis_url:
        embedded = start_embedded(data_dir, need_postgres=not database_url, need_redis=not redis_url)
        database_url = database_url or embedded.database_url
        redis_url = redis_url or embedded.redis_url
    return database_url, redis_url, embedded


# Seconds uvicorn waits for responses still running after SIGTERM before it
# cancels them: with the worker's and the servers' stop, serve exits within 5 s.
SHUTDOWN_GRACE_S = 2


def _serve(args: argparse.Namespace) -> int:
    """The API in this process; embedded PostgreSQL/Redis unless DATABASE_URL/REDIS_URL.
    SIGTERM and Ctrl-C stop the API gracefully, then everything serve started."""
    import signal
    from dataclasses import replace

    import uvicorn

    metrics_dir = _metrics_dir()  # before prometheus-client is imported (services/metrics.py)
    if args.access_log:
        os.environ["HANAMICHI_ACCESS_LOG"] = "1"
    from services.app import create_app
    from services.config import Settings

    def _exit(signum, frame):
        raise SystemExit(0)

    # uvicorn handles SIGTERM/SIGINT while it runs, then re-raises the signal
    # with the handler it found: make that one unwind through `finally`.
    signal.signal(signal.SIGTERM, _exit)
    signal.signal(signal.SIGINT, _exit)
    from services.children import Supervised

    settings = Settings.from_env()
    embedded = None
    children: list[Supervised] = []  # processes serve keeps alive next to the API, stopped first
    try:
        database_url, redis_url, embedded = resolve_servers(settings.data_dir)
        settings = replace(settings, database_url=database_url, redis_url=redis_url)
        if embedded is not None:
            started = [f"{name} at {url}" for name, url in
                       (("PostgreSQL", embedded.database_url), ("Redis", embedded.redis_url)) if url]
            print(f"hanamichi: embedded {' and '.join(started)}; data in {embedded.data_dir}", flush=True)
        given = [name for name in ("DATABASE_URL", "REDIS_URL") if os.environ.get(name)]
        if given:
            print(f"hanamichi: using {' and '.join(given)} from the environment", flush=True)
        # The arq worker (tournaments, deadlines, ratings, agents) runs beside
        # the API as a child process with the same servers.
        if not args.no_worker:
            env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url)
            children.append(Supervised("worker", [sys.executable, "-m", "services.cli", "worker"], env).start())
        print(f"hanamichi: listening on http://{args.host}:{args.port} (OpenAPI at /schema)", flush=True)
        # SSE streams end at the signal (services/shutdown.py); the timeout is
        # the backstop for any other response that would hold the exit.
        # GuardedHttpProtocol times out incomplete requests and caps connections
        # per address (services/httpserver.py, issue 11 item 16).
        from services.httpserver import GuardedHttpProtocol

        # log_config=None: uvicorn's lines go through our JSON handler (services/logs.py);
        # the access log is ours too (services/observe.py).
        common = dict(host=args.host, port=args.port, log_level=args.log_level.lower(), access_log=False,
                      log_config=None, timeout_graceful_shutdown=SHUTDOWN_GRACE_S, http=GuardedHttpProtocol,
                      timeout_keep_alive=int(os.environ.get("HANAMICHI_KEEPALIVE_S", "5")))
        if args.processes < 0:
            print("hanamichi: --processes is a count of API processes (0: one per core)", file=sys.stderr)
            return 2
        processes = args.processes or usable_cores()
        if processes == 1:
            uvicorn.run(create_app(settings), **common)
        else:
            # uvicorn's workers: N processes accept on the one socket, each
            # with its own table copies kept current by the fan-out
            # (services/games.py), so any of them may serve any request. uvicorn
            # restarts one that dies and passes SIGTERM on to each, whose
            # lifespan ends its SSE streams (services/shutdown.py).
            os.environ.update(DATABASE_URL=database_url, REDIS_URL=redis_url, HANAMICHI_LOG_LEVEL=args.log_level)
            print(f"hanamichi: {processes} API processes", flush=True)
            uvicorn.run("services.cli:api_process_app", factory=True, workers=processes, **common)
    finally:
        # A second signal must not cut the shutdown short.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for child in children:
            child.stop()
        if embedded is not None:
            embedded.stop()
            print("hanamichi: embedded servers stopped", flush=True)
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity, capped by a cgroup v2
    CPU quota (a container's CPU limit), since os.cpu_count() counts the
    whole machine's, and a pod limited to one CPU must not start 16 API processes."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)


def api_process_app():
    """The app of one of serve's API processes (`--processes N`): it dies
    with serve, like the worker, so a SIGKILLed serve leaves nothing holding the port."""
    from services.app import app_from_env
    from services.children import _die_with_parent

    _die_with_parent()
    return app_from_env()


def _metrics_dir() -> str | None:
    """serve runs several processes (the API, its worker): their Prometheus
    figures meet in PROMETHEUS_MULTIPROC_DIR, a fresh folder of this run
    (returned to remove at exit) unless the operator set one."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    folder = tempfile.mkdtemp(prefix="hanamichi-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    return folder


def _settings_with_servers():
    """Settings from the environment, with embedded servers where no URL is set."""
    from dataclasses import replace

    from services.config import Settings

    settings = Settings.from_env()
    database_url, redis_url, embedded = resolve_servers(settings.data_dir)
    return replace(settings, database_url=database_url, redis_url=redis_url), embedded


def _worker(args: argparse.Namespace) -> int:
    from workers.main import run_worker

    settings, embedded = _settings_with_servers()
    print("hanamichi: worker started (tournaments, deadlines, ratings)", flush=True)
    try:
        run_worker(settings)
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def _migrate(args: argparse.Namespace) -> int:
    """Apply pending migrations and exit: k8s runs it as the API's init
    container, so a rollout migrates once (under services/db.py's advisory
    lock) before new code takes traffic."""
    import asyncio

    import asyncpg

    from services.db import migrate

    settings, embedded = _settings_with_servers()

    async def run() -> list[str]:
        conn = await asyncpg.connect(settings.database_url)
        try:
            return await migrate(conn)
        finally:
            await conn.close()

    try:
        applied = asyncio.run(run())
    finally:
        if embedded is not None:
            embedded.stop()
    print(f"hanamichi: migrations applied: {', '.join(applied) if applied else 'none, the schema is up to date'}", flush=True)
    return 0


def _ratings(args: argparse.Namespace) -> int:
    import asyncio

    from services.db import create_pool
    from services.ratings import rebuild

    settings, embedded = _settings_with_servers()

    async def run() -> dict:
        pool = await create_pool(settings.database_url, 2)
        try:
            return await rebuild(pool, write=args.write)
        finally:
            await pool.close()

    try:
        report = asyncio.run(run())
    finally:
        if embedded is not None:
            embedded.stop()
    print(json.dumps(report))
    return 0 if report["equal"] or args.write else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hanamichi", description="Hanamichi: online tournaments for card games")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play whole bot games in one process and print figures")
    sim.add_argument("--game")
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--bots", default="", help="comma-separated bot per seat (default: all random)")
    sim.add_argument("--options", default="{}", help="table options as JSON")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument("--calibrate", action="store_true",
                     help="time a bare pure-Python Kabuki Tricks playout and each game's random playouts beside it")
    sim.add_argument("--seconds", type=float, default=1.0, help="--calibrate: seconds per timing (best of 3)")
    sim.set_defaults(run=_simulate, parser=sim)

    gold = sub.add_parser("golden", help="check or regenerate the golden playthrough files")
    gold.add_argument("--write", action="store_true")
    gold.add_argument("--game", default=None)
    gold.set_defaults(run=_golden)

    check = sub.add_parser("verify", help="check a finished game's export: commitment, deals and replay")
    check.add_argument("export", help="the file GET /api/v1/games/{id}/export answered (NDJSON)")
    check.set_defaults(run=_verify)

    serve = sub.add_parser("serve", help="run the API (embedded PostgreSQL/Redis unless DATABASE_URL/REDIS_URL)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default=os.environ.get("HANAMICHI_LOG_LEVEL", "info"),
                       help="debug, info (default; an idle server writes nothing), warning, error")
    serve.add_argument("--access-log", action="store_true", help="a JSON line per request (or HANAMICHI_ACCESS_LOG=1)")
    serve.add_argument("--no-worker", action="store_true", help="run the API only (workers run elsewhere)")
    serve.add_argument("--processes", type=int, default=int(os.environ.get("HANAMICHI_PROCESSES", "0")),
                       help="API processes on the one port (default: one per core)")
    serve.set_defaults(run=_serve)

    worker = sub.add_parser("worker", help="run an arq worker: tournaments, deadlines, ratings")
    worker.set_defaults(run=_worker)

    migrate = sub.add_parser("migrate", help="apply pending schema migrations and exit (k8s init container)")
    migrate.set_defaults(run=_migrate)

    ratings = sub.add_parser("ratings", help="ratings maintenance")
    ratings_sub = ratings.add_subparsers(dest="ratings_command", required=True)
    rebuild = ratings_sub.add_parser("rebuild", help="recompute every rating from the log and compare with the stored ones")
    rebuild.add_argument("--write", action="store_true", help="replace the stored ratings with the recomputed ones")
    rebuild.set_defaults(run=_ratings)

    from services.bench import add_bench_parser
    from services.kit.cli import add_kit_parsers

    add_bench_parser(sub)
    add_kit_parsers(sub)

    args = parser.parse_args(argv)
    from services import logs

    logs.configure(getattr(args, "log_level", None))  # JSON lines, quiet when idle
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
