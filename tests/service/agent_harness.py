"""Processes for the agent tests: an API server and a worker that may call
agents on this machine over plain HTTP, and agent processes (the example
agent and its misbehaving variants) on real ports."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.conftest import ROOT, ServerProcess, WorkerProcess, _reachable, free_test_port
from tests.service.client import ApiClient

AGENT_ENV = {
    "HANAMICHI_ALLOW_HTTP_AGENTS": "1",
    "HANAMICHI_ALLOW_PRIVATE_AGENTS": "1",
    "HANAMICHI_AGENT_MOVE_MS": "500",
    "HANAMICHI_AGENT_BANK_MS": "500",
    "HANAMICHI_AGENT_RATE_LIMIT": "40",
}


class Stack:
    """API server + one worker, both allowed to call agents on 127.0.0.1.
    With `server` (a running one with AGENT_ENV, such as the session's
    `session_agent_api`), the stack starts and stops only its worker."""

    def __init__(self, server_env: dict[str, str], log_dir: Path, server: ServerProcess | None = None) -> None:
        self.env = {**server_env, **AGENT_ENV}
        self.own_server = server is None
        self.server = ServerProcess(free_test_port(), self.env) if server is None else server
        self.log_dir = log_dir
        self.worker = WorkerProcess(self.env, log_dir / "worker.log")

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def start(self) -> Stack:
        if self.own_server:
            self.server.start()
        self.worker.start()
        return self

    def stop(self) -> None:
        self.worker.stop()
        if self.own_server:
            self.server.stop()


def agent_api(server_env: dict[str, str]) -> Iterator[ServerProcess]:
    """The body of a fixture: an API server alone with AGENT_ENV."""
    server = ServerProcess(free_test_port(), {**server_env, **AGENT_ENV})
    server.start()
    try:
        yield server
    finally:
        server.stop()


class AgentProcess:
    """`tests/service/agent_variants.py KIND` (or the example agent) on a port."""

    def __init__(self, kind: str, port: int, secret: str, *extra: str) -> None:
        self.kind, self.port, self.secret = kind, port, secret
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "tests" / "service" / "agent_variants.py"),
                kind,
                "--port",
                str(port),
                "--secret",
                secret,
                *extra,
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while not _reachable("127.0.0.1", port):
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"agent {kind} did not start on {port}")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/turn"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)


class PullAgentProcess:
    def __init__(self, base_url: str, token: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "examples" / "agent.py"), "--pull", "--server", base_url, "--token", token],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)


async def register_agent(
    owner: ApiClient, name: str, games: list[str], endpoint: str | None = None, mode: str | None = None
) -> dict:
    body: dict = {"name": name, "games": games}
    if endpoint is not None:
        body["endpoint"] = endpoint
    if mode is not None:
        body["mode"] = mode
    r = await owner.post("/api/v1/agents", body)
    if r.status_code == 409 and r.json()["code"] == "name_taken":
        # Names are unique and tests of one run share a database.
        body["name"] = f"{name}-{uuid.uuid4().hex[:6]}"
        r = await owner.post("/api/v1/agents", body)
    assert r.status_code == 201, r.text
    return r.json()


async def push_agent(
    owner: ApiClient, kind: str, game: str = "kabuki-tricks", *extra: str
) -> tuple[dict, AgentProcess]:
    """Register a push agent on a free port, then start its process with the secret."""
    port = free_test_port()
    created = await register_agent(owner, f"{kind}-agent", [game], endpoint=f"http://127.0.0.1:{port}/turn")
    return created, AgentProcess(kind, port, created["secret"], *extra)


async def wait_for(predicate, timeout: float, interval: float = 0.25):
    deadline = time.monotonic() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s")
        await asyncio.sleep(interval)


async def export_events(base_url: str, game_id: str) -> list[dict]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        r = await http.get(f"/api/v1/games/{game_id}/export")
        assert r.status_code == 200, r.text
        import json

        return [json.loads(line) for line in r.text.splitlines()]
