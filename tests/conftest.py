"""Real servers for the service tests.

PostgreSQL and Redis: DATABASE_URL / REDIS_URL when set; else the ones this
machine runs on 127.0.0.1:5432 / :6379; else embedded servers started from
the project's own dependencies (a fresh machine). Each test session works in
a database of its own, dropped at the end, and a Redis database index of its
own, so parallel runs and CI's copy never see each other's data."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent


# The tiers, by folder: tests/unit and tests/engines need no server;
# tests/contract holds each port's adapters to one contract (PostgreSQL's
# included); tests/service and tests/web start real server, worker and
# browser processes: the `e2e` tier (`pytest -m "not e2e"` runs the rest).
E2E_FOLDERS = ("service", "web")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(ROOT).parts
        if len(parts) > 1 and parts[0] == "tests" and parts[1] in E2E_FOLDERS:
            item.add_marker(pytest.mark.e2e)
            # Under pytest-xdist's `--dist loadgroup` (the README's command)
            # every e2e test runs on one worker, in order, as they do without
            # xdist: two stacks of servers, workers and browsers at once
            # would share two cores, and the tests that time a deadline, a
            # stop window or a page would be timing the other stack's load.
            # The rest (engines, unit, contract, deploy) runs beside them.
            item.add_marker(pytest.mark.xdist_group("e2e"))


def _reachable(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


@pytest.fixture(scope="session")
def servers():
    """(admin database URL, redis base URL), starting embedded ones if needed."""
    database_url = os.environ.get("DATABASE_URL")
    redis_url = os.environ.get("REDIS_URL")
    embedded = None
    # HANAMICHI_TEST_EMBEDDED=1 acts out a fresh machine: embedded servers
    # even where local ones run.
    local = os.environ.get("HANAMICHI_TEST_EMBEDDED") != "1"
    if local and not database_url and _reachable("127.0.0.1", 5432):
        database_url = "postgresql://postgres@127.0.0.1:5432/test"
    if local and not redis_url and _reachable("127.0.0.1", 6379):
        redis_url = "redis://127.0.0.1:6379/0"
    if not database_url or not redis_url:
        from services.tools.embedded import start_embedded

        embedded = start_embedded(
            Path(os.environ.get("HANAMICHI_TEST_DATA", "/tmp/hanamichi-test-servers")),
            need_postgres=not database_url,
            need_redis=not redis_url,
        )
        database_url = database_url or embedded.database_url
        redis_url = redis_url or embedded.redis_url
    yield database_url, redis_url
    if embedded is not None:
        embedded.stop()


def _with_database(url: str, name: str) -> str:
    # postgresql://user@host:port/db?query  ->  same with db replaced
    head, _, query = url.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{name}" + (f"?{query}" if query else "")


def _redis_db(url: str, index: int) -> str:
    if url.startswith("unix://"):  # the embedded Redis: unix:///path/redis.sock?db=N
        return url.partition("?")[0] + f"?db={index}"
    return url.rsplit("/", 1)[0] + f"/{index}" if url.count("/") >= 3 else f"{url}/{index}"


@contextlib.contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A database of its own on the test server, dropped afterwards."""
    name = f"hanamichi_test_{uuid.uuid4().hex[:10]}"
    import asyncio

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    try:
        yield _with_database(admin_url, name)
    finally:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def database_url(servers):
    with fresh_database(servers[0]) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(servers):
    with fresh_redis_db(servers[1]) as url:
        yield url


@contextlib.contextmanager
def fresh_redis_db(base: str) -> Iterator[str]:
    """A Redis database index of its own (1-15), emptied afterwards: the arq
    queue and the fan-out stream have fixed names, so a worker of another run
    (or a bench, or another stack of this run) sharing the index would take
    its jobs. Claims an index nobody uses (empty, marked as ours), starting
    from one picked by pid."""
    import redis

    marker, token = "hanamichi:test-session", f"{os.getpid()}:{uuid.uuid4().hex}"
    start = os.getpid() % 15
    url = _redis_db(base, 1 + start)
    for step in range(15):
        candidate = _redis_db(base, 1 + (start + step) % 15)
        client = redis.Redis.from_url(candidate)
        try:
            if client.set(marker, token, nx=True, ex=3600):
                if client.dbsize() == 1:
                    url = candidate
                    break
                client.delete(marker)  # somebody's data is there: leave it alone
        finally:
            client.close()
    client = redis.Redis.from_url(url)
    client.flushdb()
    client.set(marker, token, ex=3600)
    client.close()
    try:
        yield url
    finally:
        client = redis.Redis.from_url(url)
        try:
            if client.get(marker) == token.encode():
                client.flushdb()
        finally:
            client.close()


class ChildProcess:
    """A service process the tests start, stop and kill."""

    proc: subprocess.Popen | None = None

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no cleanup."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        stop_process(self.proc)


class ServerProcess(ChildProcess):
    """`uvicorn services.bootstrap:app_from_env` in a child process, on a fixed port."""

    def __init__(self, port: int, env: dict[str, str]) -> None:
        self.port = port
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.base_url = f"http://127.0.0.1:{port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "services.bootstrap:app_from_env",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                # the protocol `hanamichi serve` runs: request timeouts, per-address cap
                "--http",
                "services.http.httpserver:GuardedHttpProtocol",
            ],
            cwd=ROOT,
            env=self.env,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if httpx.get(self.base_url + "/health", timeout=0.5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not start")


def stop_process(proc: subprocess.Popen | None, timeout: float = 15) -> None:
    """SIGTERM, then SIGKILL if it has not stopped within `timeout` seconds."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


READY_LINE = "worker started (pid"  # workers/main.py logs it once jobs are taken


class WorkerProcess(ChildProcess):
    """`python -m services.cli worker` in a child process, its output in a file."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None

    def start(self, wait: bool = True) -> WorkerProcess:
        """Start it; with `wait`, return once it takes jobs (its log says
        "worker started" after its startup hook): a job due before then
        would run late, and a test timing a deadline would see it late."""
        before = self.tail(10**9).count(READY_LINE)
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "services.cli", "worker"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        if wait:
            deadline = time.monotonic() + 60
            while self.tail(10**9).count(READY_LINE) <= before:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"worker exited with {self.proc.returncode}:\n{self.tail()}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"worker did not start:\n{self.tail()}")
                time.sleep(0.02)
        return self

    def tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


def _port_block() -> range:
    """This test run's own ports, below the kernel's ephemeral range (32768
    and up, where outgoing connections take theirs). A port is handed to a
    child that binds it later, so "nobody listens now" is not enough: runs
    at once take disjoint blocks rather than overlapping ones: a pytest-xdist
    worker by its number (gw0, gw1, ...), any other run by its pid."""
    size = 1400
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    slot = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else os.getpid()
    start = 18000 + (slot % 10) * size  # 18000-31999
    return range(start, start + size)


_ports = iter(_port_block())


def free_test_port() -> int:
    for port in _ports:
        if not _reachable("127.0.0.1", port):
            return port
    raise RuntimeError("this test process used up its block of ports")


@pytest.fixture(scope="session")
def server_env(database_url, redis_url):
    env = dict(os.environ)
    env.update(DATABASE_URL=database_url, REDIS_URL=redis_url, PYTHONPATH=str(ROOT))
    # Tables made with POST /api/v1/games pace their house bots for people
    # (700 ms); the tests' bots play at full speed unless a test
    # sets bot_delay_ms on its table.
    env.setdefault("HANAMICHI_TABLE_BOT_DELAY_MS", "0")
    # Play now's wait for people before house bots fill a table (10 s): 2 s
    # keeps the tests of a lone person short and still lets two pair first.
    env.setdefault("HANAMICHI_QUICK_PLAY_FILL_S", "2")
    # Tournament tests would otherwise spend their workers' CPU analysing
    # every round's games (seconds each): the analysis has tests of its own.
    env.setdefault("HANAMICHI_ANALYSE_ON_REQUEST_ONLY", "1")
    return env


@pytest.fixture(scope="session")
def server(server_env):
    proc = ServerProcess(free_test_port(), server_env)
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def session_two_api_processes(server_env):
    """One `serve --processes 2 --no-worker` for the whole session, like
    `server`: the modules whose tests use people and tables of their own and
    kill no process share it (tests/service/two_processes.py's
    `shared_two_api_processes`); serve takes seconds to start. Here, not in
    two_processes.py: a session fixture imported into several modules would
    start once per module."""
    from tests.service.two_processes import start_two_api_processes

    yield from start_two_api_processes(server_env, with_worker=False)


@pytest.fixture(scope="session")
def session_agent_api(server_env):
    """One API server allowed to call agents on this machine (AGENT_ENV,
    tests/service/agent_harness.py) for the whole session. The agent modules
    start their own worker beside it (`Stack(..., server=session_agent_api)`):
    a worker must not outlive its module, other modules' workers take jobs
    from the same queue."""
    from tests.service.agent_harness import agent_api

    yield from agent_api(server_env)
