"""`hanamichi serve --processes 2` as a test fixture: two API processes
(uvicorn's workers) sharing one listening socket, as `serve` runs them, on
the session's PostgreSQL database and Redis index.

The kernel decides on the copy of the process that answers, so a test of
what the two processes agree on must send each request on a fresh
connection (either process may take it): `fresh_client()` is an httpx
client without keep-alive. Every response names its process in the
`X-API-Process` header (services/http/observe.py); the fixture yields only
once requests have been answered by both.

    def test_something(two_api_processes):
        with two_api_processes.fresh_client() as http:
            r = http.get("/ready")
            r.headers["x-api-process"] in map(str, two_api_processes.pids)

`two_api_processes` runs the API only (`--no-worker`);
`two_api_processes_with_worker` runs serve's supervised arq worker too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, free_test_port
from tests.service.client import PROCESS_HEADER, ApiClient


def fresh_client(base_url: str, **kwargs) -> httpx.Client:
    """An httpx client that opens a new connection for every request."""
    kwargs.setdefault("timeout", 30)
    return httpx.Client(base_url=base_url, limits=httpx.Limits(max_keepalive_connections=0), **kwargs)


def fresh_async_client(base_url: str, **kwargs) -> httpx.AsyncClient:
    """The asyncio twin of `fresh_client`."""
    kwargs.setdefault("timeout", 30)
    return httpx.AsyncClient(base_url=base_url, limits=httpx.Limits(max_keepalive_connections=0), **kwargs)


def alive(pid: int) -> bool:
    """A live process (a zombie is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def children_of(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of each live child of `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and alive(int(entry.name)):
            found.append((int(entry.name), cmdline))
    return found


class TwoApiProcesses:
    """A running `serve --processes 2`: `.base_url`, `.pids` (the API
    processes, as `X-API-Process` names them), `.kill(pid)`, `.output`."""

    def __init__(self, env: dict[str, str], with_worker: bool = False, processes: int = 2) -> None:
        self.port = free_test_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.processes = processes
        self.lines: list[str] = []
        args = ["serve", "--port", str(self.port), "--processes", str(processes)]
        if not with_worker:
            args.append("--no-worker")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "services.cli", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    @property
    def pids(self) -> list[int]:
        """The live API processes (uvicorn's spawned workers, not the arq worker)."""
        return sorted(pid for pid, cmd in children_of(self.proc.pid) if "multiprocessing.spawn" in cmd)

    @property
    def worker_pids(self) -> list[int]:
        """serve's supervised arq worker (none with `--no-worker`)."""
        return sorted(pid for pid, cmd in children_of(self.proc.pid) if "services.cli worker" in cmd)

    def fresh_client(self, **kwargs) -> httpx.Client:
        return fresh_client(self.base_url, **kwargs)

    def fresh_async_client(self, **kwargs) -> httpx.AsyncClient:
        return fresh_async_client(self.base_url, **kwargs)

    def wait_serving(self, timeout: float = 90) -> set[int]:
        """Until /ready has answered 200 from `processes` different API
        processes on fresh connections; returns their pids."""
        deadline = time.monotonic() + timeout
        seen: set[int] = set()
        with self.fresh_client(timeout=2) as http:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise AssertionError(f"serve exited with {self.proc.returncode}:\n{self.output}")
                try:
                    r = http.get("/ready")
                    if r.status_code == 200:
                        seen.add(int(r.headers[PROCESS_HEADER]))
                        if len(seen) >= self.processes:
                            return seen
                        continue  # the next connection may land on the other one
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
        raise AssertionError(f"only {sorted(seen)} of {self.processes} API processes answered:\n{self.output}")

    def kill(self, pid: int) -> None:
        """SIGKILL one API process (uvicorn starts a replacement)."""
        if pid not in self.pids:
            raise ValueError(f"{pid} is not an API process of this serve ({self.pids})")
        os.kill(pid, signal.SIGKILL)

    def stop(self, timeout: float = 20) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class FreshClients:
    """A test's `ApiClient`s of a `TwoApiProcesses`, each request on a fresh
    connection (either process may take it); `answered` holds every API
    process that answered any of them, and `close_and_check_both_answered()`
    (a fixture's teardown) fails unless both did: the test spread its load.

        @pytest.fixture
        async def people(api):
            crowd = FreshClients(api)
            yield crowd
            await crowd.close_and_check_both_answered()"""

    def __init__(self, api: TwoApiProcesses) -> None:
        self.api = api
        self.answered: set[str] = set()
        self.clients: list[ApiClient] = []

    async def register(self, name: str) -> ApiClient:
        client = await ApiClient.register(self.api.base_url, name, fresh_connections=True, answered=self.answered)
        self.clients.append(client)
        return client

    def anonymous(self) -> ApiClient:
        client = ApiClient(self.api.base_url, fresh_connections=True, answered=self.answered)
        self.clients.append(client)
        return client

    async def close_and_check_both_answered(self) -> None:
        for client in self.clients:
            await client.close()
        pids = set(map(str, self.api.pids))
        assert self.answered == pids, f"answered by {sorted(self.answered)}, the API processes are {sorted(pids)}"


def start_two_api_processes(server_env: dict[str, str], with_worker: bool) -> Iterator[TwoApiProcesses]:
    """The body of a fixture of any scope: yields once both API processes
    answer, stops serve after. Tests that kill no process share the
    session's (`shared_two_api_processes`); serve takes seconds to start."""
    serve = TwoApiProcesses(dict(server_env), with_worker=with_worker)
    try:
        serve.wait_serving()
        yield serve
    finally:
        serve.stop()


@pytest.fixture
def two_api_processes(server_env) -> Iterator[TwoApiProcesses]:
    """`serve --processes 2 --no-worker`, both API processes answering."""
    yield from start_two_api_processes(server_env, with_worker=False)


@pytest.fixture
def shared_two_api_processes(session_two_api_processes) -> TwoApiProcesses:
    """The session's one `serve --processes 2 --no-worker` (tests/conftest.py),
    for modules whose tests use people and tables of their own and kill no
    process (serve takes seconds to start). A module takes it as its own:
    `two_api_processes = shared_two_api_processes` after importing it."""
    return session_two_api_processes


@pytest.fixture
def two_api_processes_with_worker(server_env) -> Iterator[TwoApiProcesses]:
    """`serve --processes 2` with its supervised arq worker."""
    yield from start_two_api_processes(server_env, with_worker=True)
