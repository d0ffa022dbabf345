"""The bot authors' kit: the push runner over real HTTP (signature,
timestamp, replays, the deadline, the author's errors), the pull runner
against a real server through a gate that drops its stream, and the kit's
imports (nothing of the server)."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
import threading
import time

import httpx
import pytest

from services.kit.pull import PullAgent
from services.kit.push import make_server
from services.kit.runner import Runner
from services.kit.signing import sign
from tests.conftest import ROOT, WorkerProcess, free_test_port
from tests.service.client import ApiClient
from tests.service.tcpgate import TcpGate

SECRET = "whsec_kit"
LEGAL = [{"type": "play", "card": 3}, {"type": "play", "card": 16}]


def _turn(version: int = 12, deadline_ms: int = 5000) -> bytes:
    return json.dumps(
        {
            "game": "kabuki-tricks",
            "game_id": "g1",
            "seat": 1,
            "version": version,
            "view": {"hand": [3, 16]},
            "legal_actions": LEGAL,
            "deadline_ms": deadline_ms,
            "time_bank_ms": 30000,
        }
    ).encode()


_HTTP = httpx.Client(timeout=10)


def _post(port: int, body: bytes, timestamp: str | None = None, signature: str | None = None) -> httpx.Response:
    ts = timestamp or str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-Hanamichi-Timestamp": ts,
        "X-Hanamichi-Signature": signature or sign(SECRET, ts, body),
    }
    return _HTTP.post(f"http://127.0.0.1:{port}/turn", content=body, headers=headers, timeout=10)


class _Push:
    def __init__(self, fn) -> None:
        self.out = io.StringIO()
        self.server = make_server(fn, SECRET, 0, runner=Runner(fn, out=self.out))
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def reports(self):
        return self.server.runner.reports

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_push_answers_the_function_and_refuses_forged_stale_and_replayed_requests():
    seen = []
    push = _Push(lambda request: seen.append(request) or request["legal_actions"][1])
    try:
        body = _turn()
        ts = str(int(time.time()))
        r = _post(push.port, body, ts)
        assert r.status_code == 200 and r.json() == {"action": LEGAL[1]}
        assert seen == [json.loads(body)]  # exactly the JSON sent
        assert _post(push.port, body, ts).status_code == 409  # the same signed request again: a replay
        assert _post(push.port, _turn(13), signature="sha256=" + "0" * 64).status_code == 401
        stale = str(int(time.time()) - 301)
        assert _post(push.port, _turn(14), stale).status_code == 401
        assert _post(push.port, _turn(15), signature=sign(SECRET, ts, body)).status_code == 401  # tampered body
        assert len(seen) == 1
    finally:
        push.stop()


def test_push_answers_the_default_move_on_time_when_the_function_is_late():
    release = threading.Event()
    push = _Push(lambda request: release.wait(10) or LEGAL[0])
    try:
        _post(push.port, _turn(version=11, deadline_ms=400))  # a first call opens the connection
        # 3 s for the move: the runner keeps a tenth (300 ms) for the answer to
        # travel, enough on a loaded machine (400 ms left only 40 ms of it).
        started = time.monotonic()
        r = _post(push.port, _turn(deadline_ms=3000))
        took = time.monotonic() - started
        assert r.status_code == 200 and r.json()["action"] in LEGAL
        assert 2.7 <= took < 3.0, took  # the function had its budget, and the answer came within the move's time
        assert [(rep.kind, rep.request["version"]) for rep in push.reports] == [("late", 11), ("late", 12)]
    finally:
        release.set()
        push.stop()


def test_push_reports_the_authors_exception_and_illegal_answer_with_the_request_and_keeps_running():
    def act(request):
        if request["version"] == 1:
            raise KeyError("oops")
        if request["version"] == 2:
            return {"type": "play", "card": 99}
        return LEGAL[0]

    push = _Push(act)
    try:
        for version in (1, 2, 3):
            r = _post(push.port, _turn(version))
            assert r.status_code == 200 and r.json()["action"] in LEGAL
        assert r.json()["action"] == LEGAL[0]
        assert [(rep.kind, rep.request["version"]) for rep in push.reports] == [("exception", 1), ("illegal", 2)]
        text = push.out.getvalue()
        assert "KeyError: 'oops'" in text and '"version":1' in text and '"card":99' in text
    finally:
        push.stop()


STOP = [{"type": "stop"}]


def _chance(version: int, deadline_ms: int = 5000) -> bytes:
    """An optional call as workers/agent_calls.py sends it (a Kabuki masks Stop chance)."""
    return json.dumps(
        {
            "game": "kabuki-masks",
            "game_id": "g2",
            "seat": 1,
            "version": version,
            "view": {},
            "legal_actions": STOP,
            "deadline_ms": deadline_ms,
            "time_bank_ms": 0,
            "optional": True,
        }
    ).encode()


def test_push_passes_optional_calls_to_the_function_and_a_failed_one_lets_the_chance_pass():
    """docs/agents.md "Optional calls": the function sees `optional: true` and
    may answer None; an exception, an illegal or a late answer is reported and
    answered `{"action": null}`, never a random Stop (before the fix: a Stop)."""
    release = threading.Event()
    seen = []

    def act(request):
        seen.append(request)
        if request["version"] in (1, 20):
            return None  # let it pass (20: a turn, where None is no answer)
        if request["version"] == 2:
            return STOP[0]
        if request["version"] == 3:
            raise ValueError("bad chance")
        if request["version"] == 4:
            return {"type": "place", "slot": 9}
        release.wait(10)
        return STOP[0]

    push = _Push(act)
    try:
        answers = [_post(push.port, _chance(v, deadline_ms=400 if v == 5 else 5000)) for v in (1, 2, 3, 4, 5)]
        assert [r.status_code for r in answers] == [200] * 5
        assert [r.json() for r in answers] == [
            {"action": None},
            {"action": STOP[0]},
            {"action": None},
            {"action": None},
            {"action": None},
        ]
        assert all(r["optional"] is True for r in seen) and len(seen) == 5
        assert "let the chance pass" in push.out.getvalue()
        # An awaited turn still gets the default move for a None answer.
        assert _post(push.port, _turn(20)).json()["action"] in LEGAL
        assert [(rep.kind, rep.request["version"]) for rep in push.reports] == [
            ("exception", 3),
            ("illegal", 4),
            ("late", 5),
            ("illegal", 20),
        ]
    finally:
        release.set()
        push.stop()


def test_the_kit_imports_nothing_of_the_server():
    code = (
        "import sys, services.kit, services.kit.push, services.kit.pull, services.kit.arena, services.kit.cli;"
        "bad = [m for m in ('asyncpg', 'redis', 'litestar', 'arq', 'httpx', 'uvicorn', 'services.http.app',"
        " 'services.infra.db')"
        " if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.fixture(scope="module")
def worker(server, server_env, tmp_path_factory):
    """One worker beside `server` for the module's pull-runner tests (they
    stop no process)."""
    worker = WorkerProcess(server_env, tmp_path_factory.mktemp("kit") / "worker.log").start()
    yield worker
    worker.stop()


@pytest.mark.asyncio(loop_scope="session")
async def test_pull_runner_plays_a_whole_game_through_a_dropped_stream_and_reports_errors(server, worker):
    port = free_test_port()
    gate = TcpGate(("tcp", "127.0.0.1", server.port), port).start()
    calls = []

    def act(request):
        calls.append(request)
        if len(calls) == 2:
            raise RuntimeError("bug in my bot")
        return request["legal_actions"][0]

    agent = None
    try:
        owner = await ApiClient.register(server.base_url, "kit-author")
        r = await owner.post("/api/v1/agents", {"name": "kit-puller", "games": ["kabuki-tricks"], "mode": "pull"})
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        out = io.StringIO()
        agent = PullAgent(act, f"http://127.0.0.1:{port}", token, runner=Runner(act, out=out))
        threading.Thread(target=agent.run, daemon=True).start()
        r = await owner.post(
            "/api/v1/games", {"game": "kabuki-tricks", "players": 4, "time_control": {"move_ms": 3000, "bank_ms": 3000}}
        )
        game_id = r.json()["game_id"]
        for seat in (1, 2, 3):
            assert (
                await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
            ).status_code == 200
        assert await ApiClient(server.base_url, token=token).sit(game_id, 0)
        deadline = time.monotonic() + 30
        while agent.moves < 5:
            assert time.monotonic() < deadline, "the pull runner made no moves"
            await asyncio.sleep(0.05)
        gate.close()  # the stream and any call in flight are cut; the server is unreachable for a while
        await asyncio.sleep(1.0)
        gate.open()
        while (await owner.game(game_id))["status"] != "finished":
            assert time.monotonic() < deadline + 60, "the game did not finish"
            await asyncio.sleep(0.2)
        assert agent.connections >= 2  # it reconnected
        events = (await owner.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
        played_for = [
            e["event"] for e in events if e["event"]["type"] == "hm.move_played_for_seat" and e["event"]["seat"] == 0
        ]
        assert played_for == []  # every move of seat 0 was the runner's, the failed call's default move included
        assert [rep.kind for rep in agent.runner.reports] == ["exception"]
        assert agent.runner.reports[0].request == calls[1]
        assert "bug in my bot" in out.getvalue()
    finally:
        if agent is not None:
            agent.stop.set()
        gate.stop()


@pytest.mark.asyncio(loop_scope="session")
async def test_pull_runner_answers_your_chance_with_an_optional_request(server, worker):
    """At a Kabuki masks table the pull runner turns `your_chance` into the
    request marked optional (time_bank_ms 0) and posts the Stop the function
    takes; before the fix the event was ignored and no Stop came from seat 0
    while another seat was awaited."""
    requests = []

    def act(request):
        requests.append(request)
        stops = [a for a in request["legal_actions"] if a["type"] == "stop"]
        if request.get("optional"):
            return stops[0] if stops else None
        places = [a for a in request["legal_actions"] if a["type"] == "place"]
        return (places or request["legal_actions"])[0]

    agent = None
    try:
        owner = await ApiClient.register(server.base_url, "kit-chance-author")
        r = await owner.post("/api/v1/agents", {"name": "kit-chancer", "games": ["kabuki-masks"], "mode": "pull"})
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        agent = PullAgent(act, server.base_url, token, runner=Runner(act, out=io.StringIO()))
        threading.Thread(target=agent.run, daemon=True).start()
        r = await owner.post(
            "/api/v1/games",
            {
                "game": "kabuki-masks",
                "players": 2,
                "options": {"stop_window_ms": 150},
                "time_control": {"move_ms": 3000, "bank_ms": 3000},
            },
        )
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        assert (await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": 1, "bot": "random"})).status_code == 200
        assert await ApiClient(server.base_url, token=token).sit(game_id, 0)
        deadline = time.monotonic() + 90
        while (await owner.game(game_id))["status"] != "finished":
            assert time.monotonic() < deadline, "the game did not finish"
            await asyncio.sleep(0.2)
        optional = [q for q in requests if q.get("optional")]
        assert optional and all(q["time_bank_ms"] == 0 and q["seat"] == 0 and q["view"] for q in optional)
        assert agent.chances_taken >= 1
        events = (await owner.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
        assert [e for e in events if e["event"]["type"] == "km.stopped" and e["event"].get("caller") == 0]
        assert [e for e in events if e["event"]["type"] == "hm.move_played_for_seat" and e["event"]["seat"] == 0] == []
    finally:
        if agent is not None:
            agent.stop.set()


@pytest.mark.asyncio(loop_scope="session")
async def test_pull_runner_says_so_and_stops_when_its_token_is_replaced(server, worker, capsys):
    """A new bot token (POST /api/v1/agents/{id}/token) ends the old one:
    the runner's next call is a 401, and it says what happened and how to go
    on, once, and stops (exit 3 from `hanamichi agent run --pull`) instead
    of retrying until its seat is handed over."""
    moved = threading.Event()

    def act(request):
        moved.set()
        return request["legal_actions"][0]

    agent = None
    try:
        owner = await ApiClient.register(server.base_url, "kit-rotating-author")
        r = await owner.post("/api/v1/agents", {"name": "kit-rotated", "games": ["kabuki-tricks"], "mode": "pull"})
        assert r.status_code == 201, r.text
        agent_id, token = r.json()["agent_id"], r.json()["token"]
        agent = PullAgent(act, server.base_url, token, runner=Runner(act, out=io.StringIO()))
        runner = threading.Thread(target=agent.run, daemon=True)
        runner.start()
        r = await owner.post(
            "/api/v1/games", {"game": "kabuki-tricks", "players": 2, "time_control": {"move_ms": 3000, "bank_ms": 0}}
        )
        game_id = r.json()["game_id"]
        assert (await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": 1, "bot": "random"})).status_code == 200
        assert await ApiClient(server.base_url, token=token).sit(game_id, 0)
        assert await asyncio.to_thread(moved.wait, 30), "the runner was never asked for a move"
        r = await owner.post(f"/api/v1/agents/{agent_id}/token")
        assert r.status_code == 200 and r.json()["token"] != token
        deadline = time.monotonic() + 30
        while runner.is_alive():
            assert time.monotonic() < deadline, "the runner went on with a refused token"
            await asyncio.sleep(0.05)
        assert agent.refused
        said = capsys.readouterr().err
        assert said.count("refused the agent's token (HTTP 401") == 1, said
        assert "--token" in said
    finally:
        if agent is not None:
            agent.stop.set()
