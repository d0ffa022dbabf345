"""Metrics and logs an operator relies on: GET /metrics moves
with real play on a real server, `hanamichi serve` sums its worker's figures
(PROMETHEUS_MULTIPROC_DIR), log lines are JSON objects with the request's
fields, and an idle server and worker write nothing at INFO."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import ROOT, ServerProcess, WorkerProcess, free_test_port
from tests.service.client import ApiClient, SseReader
from tests.service.test_serve_cli import Serve

ACTIONS_ROUTE = "/api/v1/games/{game_id}/actions"


def figure(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called `name` whose labels include `labels`."""
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def scrape(base_url: str) -> str:
    r = httpx.get(base_url + "/metrics", timeout=5)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return r.text


def wait_for(check, timeout: float = 20, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class LoggedServer(ServerProcess):
    """The test server, its stderr (the JSON log) in a file."""

    def __init__(self, port: int, env: dict[str, str], log_path: Path) -> None:
        super().__init__(port, env)
        self.log_path = log_path

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
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
                    "info",
                    "--http",
                    "services.http.httpserver:GuardedHttpProtocol",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_for(lambda: self._up(), 30, "the server")

    def _up(self) -> bool:
        assert self.proc is not None and self.proc.poll() is None, self.log_path.read_text()
        try:
            return httpx.get(self.base_url + "/health", timeout=0.5).status_code == 200
        except httpx.HTTPError:
            return False

    def json_lines(self) -> list[dict]:
        lines = [line for line in self.log_path.read_text().splitlines() if line.strip()]
        return [json.loads(line) for line in lines]  # every line must be JSON


async def _play(clients: list[ApiClient], game_id: str, moves: int) -> int:
    """`moves` accepted moves, each by whichever seat may act."""
    done = 0
    while done < moves:
        moved = False
        for client in clients:
            if done == moves:
                break
            info = await client.game(game_id)
            if info["status"] == "finished":
                return done
            if info["legal_actions"]:
                r = await client.act(game_id, info["legal_actions"][0], expected_version=info["version"])
                assert r.status_code == 200, r.text
                done += 1
                moved = True
        if not moved:
            await asyncio.sleep(0.02)
    return done


async def test_metrics_move_with_play_and_log_lines_are_json_with_the_request_fields(server_env, tmp_path):
    env = dict(server_env, HANAMICHI_ACCESS_LOG="1")
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = LoggedServer(free_test_port(), env, tmp_path / "server.log")
    server.start()
    try:
        before = scrape(server.base_url)
        alice = await ApiClient.register(server.base_url, "metrics-alice")
        bob = await ApiClient.register(server.base_url, "metrics-bob")
        outsider = await ApiClient.register(server.base_url, "metrics-carol")
        game_id = await alice.create_game("kabuki-tricks", 2)
        await alice.sit(game_id, 0)
        await bob.sit(game_id, 1)

        reader = SseReader(server.base_url, game_id).start()
        wait = lambda: figure(scrape(server.base_url), "hanamichi_sse_clients", kind="game") == 1  # noqa: E731
        await asyncio.to_thread(wait_for, wait, 10, "one open game stream")

        moved = await _play([alice, bob], game_id, 6)
        assert moved == 6
        refused = await outsider.act(game_id, {"type": "anything"})
        assert refused.status_code == 403 and refused.json()["code"] == "not_seated"

        # One action with our own request id, to find its access line.
        info = await alice.game(game_id)
        mover = alice if info["legal_actions"] else bob
        info = await mover.game(game_id)
        request_id = f"test-{uuid.uuid4().hex[:12]}"
        r = await mover.http.post(
            f"/api/v1/games/{game_id}/actions",
            json={
                "action": info["legal_actions"][0],
                "command_id": uuid.uuid4().hex,
                "expected_version": info["version"],
            },
            headers={**mover.headers, "X-Request-ID": request_id},
        )
        assert r.status_code == 200, r.text
        assert r.headers["x-request-id"] == request_id
        mover_seat = 0 if mover is alice else 1

        after = scrape(server.base_url)
        delta = lambda name, **labels: figure(after, name, **labels) - figure(before, name, **labels)  # noqa: E731
        assert delta("hanamichi_actions_accepted_total") == 7
        assert delta("hanamichi_actions_refused_total", code="not_seated") == 1
        assert delta("hanamichi_http_request_seconds_count", route=ACTIONS_ROUTE, status="200", method="POST") == 7
        assert delta("hanamichi_http_request_seconds_count", route=ACTIONS_ROUTE, status="403", method="POST") == 1
        # Every accepted move is a group commit's append, published and read back by the hub.
        assert delta("hanamichi_group_commit_batch_size_sum") >= 7
        assert delta("hanamichi_group_commit_seconds_count") >= 1
        assert delta("hanamichi_commit_to_publish_seconds_count") >= 7
        assert delta("hanamichi_publish_to_deliver_seconds_count") >= 7
        assert figure(after, "hanamichi_live_tables") >= 1
        assert "hanamichi_tournaments" in after and 'status="running"' in after

        await reader.stop()
        gone = lambda: figure(scrape(server.base_url), "hanamichi_sse_clients", kind="game") == 0  # noqa: E731
        await asyncio.to_thread(wait_for, gone, 10, "the game stream to be counted as closed")

        # Log lines: JSON objects; the access line carries request id, game id and seat.
        lines = server.json_lines()
        access = [
            line for line in lines if line.get("request_id") == request_id and line["logger"] == "hanamichi.access"
        ]
        assert len(access) == 1, lines[-5:]
        line = access[0]
        assert line["game_id"] == game_id and line["seat"] == mover_seat
        assert line["status"] == 200 and line["route"] == ACTIONS_ROUTE and line["level"] == "info"
        assert line["duration_ms"] >= 0 and line["ts"].endswith("Z")
        for client in (alice, bob, outsider):
            await client.close()
    finally:
        server.stop()


def _api_processes_started(serve: Serve) -> bool:
    processes = next(
        (
            int(line.split()[1])
            for line in serve.lines
            if line.startswith("hanamichi: ") and line.endswith(" API processes")
        ),
        1,
    )
    return sum("Application startup complete." in line for line in serve.lines) >= processes


def test_serve_sums_its_worker_figures_and_an_idle_serve_writes_nothing(server_env, tmp_path):
    """`hanamichi serve` runs the API and its worker: one /metrics shows the
    worker's sweeps (PROMETHEUS_MULTIPROC_DIR, set by serve itself), and
    once started, an idle serve and worker print nothing at INFO while the
    worker sweeps twice (the sweep every 5 s used to log two lines each)."""
    env = {k: v for k, v in server_env.items() if k not in ("PROMETHEUS_MULTIPROC_DIR", "HANAMICHI_ACCESS_LOG")}
    env.update(HANAMICHI_LOG_LEVEL="info", HANAMICHI_DATA=str(tmp_path / "data"))
    port = free_test_port()
    serve = Serve(tmp_path, env, port)
    try:
        serve.wait_ready()
        # /ready answers once one API process is up; with several (one per
        # core) the others may still be starting: the quiet window opens
        # when every one has said its startup is complete.
        wait_for(lambda: _api_processes_started(serve), 30, "every API process's startup")
        sweeps = lambda: figure(scrape(serve.base_url), "hanamichi_job_seconds_count", job="reconcile")  # noqa: E731
        first = wait_for(sweeps, 20, "the worker's first sweep in serve's /metrics")
        quiet_from = len(serve.lines)
        wait_for(lambda: sweeps() >= first + 2, 20, "two more sweeps")
        assert serve.lines[quiet_from:] == [], "an idle serve logged:\n" + "\n".join(serve.lines[quiet_from:])
        # What it did print at start is JSON (prints of serve itself aside).
        logged = [line for line in serve.lines if line.startswith("{")]
        assert logged and all(json.loads(line)["level"] for line in logged)
    finally:
        serve.kill()


def test_an_idle_worker_writes_nothing_and_serves_its_own_metrics(server_env, tmp_path):
    """A standalone worker (k8s) exposes /metrics on HANAMICHI_METRICS_PORT;
    after its start it stays silent at INFO through its periodic sweeps."""
    port = free_test_port()
    env = {k: v for k, v in server_env.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(HANAMICHI_METRICS_PORT=str(port), HANAMICHI_LOG_LEVEL="info")
    worker = WorkerProcess(env, tmp_path / "worker.log").start()
    base = f"http://127.0.0.1:{port}"

    def sweeps() -> float:
        assert worker.proc.poll() is None, worker.tail()
        try:
            return figure(httpx.get(base + "/metrics", timeout=2).text, "hanamichi_job_seconds_count", job="reconcile")
        except httpx.HTTPError:
            return 0

    try:
        first = wait_for(sweeps, 30, "the worker's first sweep")
        size = os.path.getsize(worker.log_path)
        wait_for(lambda: sweeps() >= first + 2, 20, "two more sweeps")
        assert os.path.getsize(worker.log_path) == size, "an idle worker logged:\n" + worker.tail(2000)
        assert all(
            json.loads(line)["level"] for line in worker.log_path.read_text().splitlines() if line.startswith("{")
        )
    finally:
        worker.stop()
