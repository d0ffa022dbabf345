"""What `hanamichi serve`, `worker` and `migrate` run: the API, its
supervised worker and the embedded servers (services/cli.py parses their arguments)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path


def resolve_servers(data_dir: Path):
    """DATABASE_URL/REDIS_URL when set; otherwise embedded servers (returned to stop)."""
    from services.tools.embedded import start_embedded

    database_url, redis_url = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    embedded = None
    if not database_url or not redis_url:
        embedded = start_embedded(data_dir, need_postgres=not database_url, need_redis=not redis_url)
        database_url = database_url or embedded.database_url
        redis_url = redis_url or embedded.redis_url
    return database_url, redis_url, embedded


WORKER_HEALTHCHECK_S = 30

# Seconds uvicorn waits for responses still running after SIGTERM before it
# cancels them: with the worker's and the servers' stop, serve exits within 5 s.
SHUTDOWN_GRACE_S = 2


def serve(args: argparse.Namespace) -> int:
    """The API in this process; embedded PostgreSQL/Redis unless DATABASE_URL/REDIS_URL.
    SIGTERM and Ctrl-C stop the API gracefully, then everything serve started."""
    import signal
    from dataclasses import replace

    import uvicorn

    metrics_dir = _metrics_dir()  # before prometheus-client is imported (services/infra/metrics.py)
    if args.access_log:
        os.environ["HANAMICHI_ACCESS_LOG"] = "1"
    from services.bootstrap import create_app
    from services.config import Settings

    def _exit(signum, frame):
        raise SystemExit(0)

    # uvicorn handles SIGTERM/SIGINT while it runs, then re-raises the signal
    # with the handler it found: make that one unwind through `finally`.
    signal.signal(signal.SIGTERM, _exit)
    signal.signal(signal.SIGINT, _exit)
    from services.tools.children import Supervised

    settings = Settings.from_env()
    embedded = None
    children: list[Supervised] = []  # processes serve keeps alive next to the API, stopped first
    try:
        database_url, redis_url, embedded = resolve_servers(settings.data_dir)
        settings = replace(settings, database_url=database_url, redis_url=redis_url)
        if embedded is not None:
            started = [
                f"{name} at {url}"
                for name, url in (("PostgreSQL", embedded.database_url), ("Redis", embedded.redis_url))
                if url
            ]
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
        # SSE streams end at the signal (services/http/shutdown.py); the timeout is
        # the backstop for any other response that would hold the exit.
        # GuardedHttpProtocol times out incomplete requests and caps connections
        # per address (services/http/httpserver.py).
        from services.config import ProcessSettings
        from services.http.httpserver import GuardedHttpProtocol, forwarded_options

        # log_config=None: uvicorn's lines go through our JSON handler (services/infra/logs.py);
        # the access log is ours too (services/http/observe.py).
        common = dict(
            host=args.host,
            port=args.port,
            log_level=args.log_level.lower(),
            access_log=False,
            log_config=None,
            timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
            http=GuardedHttpProtocol,
            timeout_keep_alive=int(os.environ.get("HANAMICHI_KEEPALIVE_S", "5")),
            # X-Forwarded-Proto/-For from HANAMICHI_TRUSTED_PROXIES only.
            **forwarded_options(ProcessSettings.from_env().trusted_proxies),
        )
        if args.processes < 0:
            print("hanamichi: --processes is a count of API processes (0: one per core)", file=sys.stderr)
            return 2
        processes = args.processes or usable_cores()
        if processes == 1:
            uvicorn.run(create_app(settings), **common)
        else:
            # uvicorn's workers: N processes accept on the one socket, each
            # with its own table copies kept current by the fan-out
            # (services/app/games/service.py), so any of them may serve any request. uvicorn
            # restarts one that dies and passes SIGTERM on to each, whose
            # lifespan ends its SSE streams (services/http/shutdown.py).
            os.environ.update(DATABASE_URL=database_url, REDIS_URL=redis_url, HANAMICHI_LOG_LEVEL=args.log_level)
            print(f"hanamichi: {processes} API processes", flush=True)
            # uvicorn restarts a process that has not answered its supervisor's
            # ping within this long, also while it starts: 5 s (its default)
            # is less than an import of the service takes on a slow or busy
            # machine (2-3 s idle here, 3x that elsewhere), and serve then
            # never got past restarting its processes.
            uvicorn.run(
                "services.tools.serve:api_process_app",
                factory=True,
                workers=processes,
                timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
                **common,
            )
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
    import multiprocessing

    from services.tools.children import _die_with_parent

    # Before the heavy imports, and checked against the parent that spawned
    # it: serve may have been killed while this process was still starting.
    spawner = multiprocessing.parent_process()
    _die_with_parent(spawner.pid if spawner is not None else None)
    from services.bootstrap import app_from_env

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


def settings_with_servers():
    """Settings from the environment, with embedded servers where no URL is set."""
    from dataclasses import replace

    from services.config import Settings

    settings = Settings.from_env()
    database_url, redis_url, embedded = resolve_servers(settings.data_dir)
    return replace(settings, database_url=database_url, redis_url=redis_url), embedded


def run_with_servers(run):
    """`asyncio.run(run(settings))` against the servers `settings_with_servers`
    gives, embedded ones stopped afterwards: for one-shot commands."""
    import asyncio

    settings, embedded = settings_with_servers()
    try:
        return asyncio.run(run(settings))
    finally:
        if embedded is not None:
            embedded.stop()


def worker(args: argparse.Namespace) -> int:
    from workers.main import run_worker

    settings, embedded = settings_with_servers()
    print("hanamichi: worker starting (tournaments, deadlines, ratings)", flush=True)
    try:
        run_worker(settings)
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def migrate(args: argparse.Namespace) -> int:
    """Apply pending migrations and exit: k8s runs it as the API's init
    container, so a rollout migrates once (under services/infra/db.py's advisory
    lock) before new code takes traffic."""
    import asyncpg

    from services.infra.db import migrate

    async def run(settings) -> list[str]:
        conn = await asyncpg.connect(settings.database_url)
        try:
            return await migrate(conn)
        finally:
            await conn.close()

    applied = run_with_servers(run)
    print(
        f"hanamichi: migrations applied: {', '.join(applied) if applied else 'none, the schema is up to date'}",
        flush=True,
    )
    return 0
