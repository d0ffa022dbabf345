"""The servers `hanamichi bench faults` runs and breaks (services/tools/bench_faults.py):
its own `serve` (API processes and the supervised worker) on its own
embedded PostgreSQL and Redis in a temporary folder, never the machine's
shared servers, and the faults it injects into them, each followed by a
wait until the service answers again."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from services.tools.bench_soak import rss_kib, serve_processes
from services.tools.children import alive
from services.tools.embedded import _stop_postgres, _stop_redis, start_postgres, start_redis

ROOT = Path(__file__).resolve().parents[2]
FAULT_KINDS = ("api", "worker", "redis", "postgres", "serve")


async def _wait_for(check, timeout_s: float, every_s: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        await asyncio.sleep(every_s)
    return False


def _wait_dead(pids: list[int], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in pids:  # the backstop: a process that ignored its SIGTERM
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


class FaultStack:
    """`serve --processes N` on servers of its own (or the URLs given), killed and restarted at will."""

    def __init__(self, port: int, processes: int, database_url: str | None, redis_url: str | None) -> None:
        self.port, self.processes = port, processes
        # A short path: the embedded servers listen on Unix sockets inside it.
        self.dir = Path(tempfile.mkdtemp(prefix="hm-fsoak-", dir="/tmp"))
        self.own_postgres, self.own_redis = database_url is None, redis_url is None
        self.redis_proc: subprocess.Popen | None = None
        if database_url is None:
            database_url = start_postgres(self.dir)
        if redis_url is None:
            self.redis_proc, redis_url = start_redis(self.dir)
        self.database_url, self.redis_url = database_url, redis_url
        self.serve: subprocess.Popen | None = None
        self.serve_starts = 0
        self.serve_exits_unasked = 0  # serve found gone without a kill of ours: a failure to report

    # --- serve ----------------------------------------------------------------------------------

    def start_serve(self) -> None:
        env = dict(
            os.environ,
            DATABASE_URL=self.database_url,
            REDIS_URL=self.redis_url,
            HANAMICHI_DATA=str(self.dir),
            PYTHONPATH=str(ROOT),
        )
        argv = [sys.executable, "-m", "services.cli", "serve", "--port", str(self.port)]
        argv += ["--processes", str(self.processes), "--log-level", "warning"]
        with open(self.dir / "serve.log", "ab") as log:
            self.serve = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        self.serve_starts += 1

    def roles(self) -> dict[str, int]:
        return serve_processes(self.serve.pid) if self.serve is not None else {}

    def complete(self) -> bool:
        """All of serve's processes are up: N API processes and the worker."""
        roles = self.roles()
        return len([r for r in roles if r.startswith("api")]) >= self.processes and "worker" in roles

    async def ready(self, timeout_s: float = 300.0) -> bool:
        """serve's processes are all up and /ready answers 200 (PostgreSQL and Redis reachable).
        The bound is generous: on a loaded machine a new serve's imports alone take a minute."""
        from services.tools.faultload import once

        async def answers() -> bool:
            try:
                status, _, _ = await once("127.0.0.1", self.port, "GET", "/ready", timeout_s=3)
            except (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError, ValueError):
                return False
            return status == 200

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.serve is not None and self.serve.poll() is not None:
                self.serve_exits_unasked += 1
                self.start_serve()
            if self.complete() and await answers():
                return True
            await asyncio.sleep(0.2)
        return False

    def rss_mib(self) -> dict[str, float | None]:
        rss = {role: rss_kib(pid) for role, pid in sorted(self.roles().items())}
        return {role: None if kib is None else round(kib / 1024, 1) for role, kib in rss.items()}

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join((self.dir / "serve.log").read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    # --- faults ---------------------------------------------------------------------------------

    def can_inject(self, kind: str) -> bool:
        """Servers given by URL are someone else's: only the ones this bench started are stopped."""
        return {"redis": self.own_redis, "postgres": self.own_postgres}.get(kind, True)

    async def inject(self, kind: str, outage_s: float) -> dict:
        """One fault; returns what it was and how long until the service was ready again."""
        started = time.monotonic()
        detail = await getattr(self, f"_fault_{kind}")(outage_s)
        injected = time.monotonic()
        ok = await self.ready()
        return {
            "kind": kind,
            "detail": detail,
            "took_s": round(injected - started, 1),
            "ready_after_s": round(time.monotonic() - injected, 1),
            "ready": ok,
        }

    async def _kill_role(self, role: str) -> str:
        roles = self.roles()
        pid = roles.get(role)
        if pid is None:
            return f"no {role} to kill"
        os.kill(pid, signal.SIGKILL)
        # Its parent (uvicorn for an API process, serve for the worker) starts another.
        await _wait_for(lambda: pid not in self.roles().values() and self.complete(), 60)
        return f"SIGKILL {role} pid {pid}"

    async def _fault_api(self, outage_s: float) -> str:
        apis = sorted(r for r in self.roles() if r.startswith("api"))
        return await self._kill_role(apis[int(time.monotonic()) % len(apis)] if apis else "api1")

    async def _fault_worker(self, outage_s: float) -> str:
        return await self._kill_role("worker")

    async def _fault_redis(self, outage_s: float) -> str:
        await asyncio.to_thread(_stop_redis, self.dir, self.redis_proc)
        await asyncio.sleep(outage_s)
        self.redis_proc, _ = await asyncio.to_thread(start_redis, self.dir)
        return f"Redis stopped for {outage_s:g} s"

    async def _fault_postgres(self, outage_s: float) -> str:
        pid = int((self.dir / "postgres" / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        await asyncio.to_thread(_wait_dead, [pid], 10)
        await asyncio.sleep(outage_s)
        # The killed postmaster's backends leave within moments; until then
        # its shared memory is in use and a new postmaster refuses to start.
        deadline = time.monotonic() + 60
        while True:
            try:
                await asyncio.to_thread(start_postgres, self.dir)
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.3)
        return f"PostgreSQL SIGKILLed (pid {pid}), started again after {outage_s:g} s"

    async def _fault_serve(self, outage_s: float) -> str:
        if self.serve is None:
            return "no serve"
        if self.serve.poll() is not None:
            self.serve_exits_unasked += 1
        children = list(self.roles().values())
        old = self.serve.pid
        self.serve.kill()
        self.serve.wait()
        # Its children die with it (SIGTERM on their parent's death): the new
        # serve can bind the port once they have let it go.
        await asyncio.to_thread(_wait_dead, children, 20)
        self.start_serve()
        return f"SIGKILL serve pid {old} and started it again"

    # --- the end --------------------------------------------------------------------------------

    def stop(self, keep: bool = False) -> None:
        if self.serve is not None and self.serve.poll() is None:
            children = list(self.roles().values())
            self.serve.terminate()
            try:
                self.serve.wait(20)
            except subprocess.TimeoutExpired:
                self.serve.kill()
                self.serve.wait()
            _wait_dead(children, 10)
        if self.own_redis:
            _stop_redis(self.dir, self.redis_proc)
        if self.own_postgres:
            _stop_postgres(self.dir)
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)
