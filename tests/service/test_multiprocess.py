"""Interchangeable API processes: tournaments, agents, timers,
sessions and spectator counts keep working with two API processes and two
worker processes, while one of each is SIGKILLed mid-tournament and not
started again.

Clients reach the API through a round-robin balancer (a TCP proxy in this
test, one backend per connection, the next one when a backend refuses), so
consecutive requests of one person land on either process and a cut stream
resumes at the survivor, as behind an ingress. Every client of the
balancer opens a new connection per request (no keep-alive), so its
requests alternate between the processes; the test checks that both
answered before the kill. The spectators that are counted, and the web
session's cookie, go to each process directly."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
import uuid

import asyncpg
import httpx
import pytest

from tests.conftest import ServerProcess, WorkerProcess, free_test_port
from tests.service.agent_harness import AGENT_ENV, PullAgentProcess, push_agent, register_agent
from tests.service.client import ApiClient, SseReader
from tests.service.tcpgate import TcpGate
from tests.service.tournament_play import (
    GAME,
    TN,
    Person,
    agent_moves,
    assert_acks_logged,
    assert_every_event_once,
    deadline_moves,
    finished_games,
    first_round_tables,
    get_json,
    open_tournament,
    tournament_finished,
    until,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


class Balancer(TcpGate):
    """A TCP round-robin over several API processes: each connection goes to
    the next backend, or the one after when it refuses (a killed process)."""

    def __init__(self, ports: list[int], port: int) -> None:
        super().__init__(("tcp", "127.0.0.1", ports[0]), port)
        self._ports = itertools.cycle(ports)
        self._count = len(ports)

    async def _connect_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        for _ in range(self._count):
            try:
                return await asyncio.open_connection("127.0.0.1", next(self._ports))
            except OSError:
                continue
        raise OSError("no backend accepts the connection")  # the gate resets the client's

    def stop(self) -> None:
        super().stop()
        self._loop.close()  # its thread has ended: free the loop's sockets


async def test_the_balancer_passes_a_refused_backend_by_and_resets_when_none_answers():
    """The balancer is a TcpGate whose upstream connect picks the next live
    backend: bytes go through it both ways, and a client it cannot place is reset."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    live = await asyncio.start_server(echo, "127.0.0.1", free_test_port())
    live_port = live.sockets[0].getsockname()[1]
    balancer = Balancer([free_test_port(), live_port], free_test_port()).start()  # the first one refuses
    try:
        for n in range(2):  # both connections begin at the refusing backend
            reader, writer = await asyncio.open_connection("127.0.0.1", balancer.port)
            writer.write(b"ping %d" % n)
            assert await asyncio.wait_for(reader.readexactly(6), 10) == b"ping %d" % n
            writer.close()
        live.close()
        await live.wait_closed()
        reader, writer = await asyncio.open_connection("127.0.0.1", balancer.port)
        with contextlib.suppress(ConnectionResetError):  # a reset is the expected answer too: no backend, no bytes
            assert await asyncio.wait_for(reader.read(1), 10) == b""
        writer.close()
    finally:
        balancer.stop()
        live.close()


@pytest.fixture
def cluster(server_env, tmp_path):
    env = dict(server_env, **AGENT_ENV)
    # House bots think a little, so that tables are still in play at the kill.
    env.update(HANAMICHI_BOT_DELAY_MS="25", HANAMICHI_TABLE_BOT_DELAY_MS="25")
    apis = [ServerProcess(free_test_port(), env) for _ in range(2)]
    workers = [WorkerProcess(env, tmp_path / f"worker{i}.log") for i in range(2)]
    balancer = Balancer([a.port for a in apis], free_test_port())
    try:
        for api in apis:
            api.start()
        for worker in workers:
            worker.start()
        balancer.start()
        yield apis, workers, balancer
    finally:
        balancer.stop()
        for process in (*workers, *apis):
            process.stop()


async def _spectators(web: httpx.AsyncClient, base_url: str, game_id: str) -> int | None:
    try:
        r = await web.get(f"{base_url}/api/v1/games/{game_id}")
    except httpx.HTTPError:
        return None
    return r.json()["spectators"] if r.status_code == 200 else None


async def _agent_streams(web: httpx.AsyncClient, base_url: str) -> int:
    """Open agent streams at this API process (its own figure: the test sets
    no PROMETHEUS_MULTIPROC_DIR)."""
    text = (await web.get(base_url + "/metrics")).text
    return int(
        sum(
            float(line.split()[-1])
            for line in text.splitlines()
            if line.startswith('hanamichi_sse_clients{kind="agent"}')
        )
    )


async def test_two_api_and_two_worker_processes_survive_a_sigkill_of_each(cluster, database_url):
    (api_a, api_b), workers, balancer = cluster
    lb = f"http://127.0.0.1:{balancer.port}"
    through_lb: set[str] = set()  # the API processes that answered through the balancer

    async def balanced(name: str) -> ApiClient:
        return await ApiClient.register(lb, name, fresh_connections=True, answered=through_lb)

    owner = await balanced("organiser")
    people = [
        Person(await balanced("prompt"), random.Random(1)),
        Person(await balanced("slow"), random.Random(2), slow_every=4),
    ]
    readers: list[SseReader] = []
    agents: list = []
    web = httpx.AsyncClient(timeout=30)
    viewer = httpx.AsyncClient(timeout=10)
    started = time.monotonic()
    try:
        # A web session: signed in at A, the cookie honoured at B (the secret is shared).
        name = f"web-{uuid.uuid4().hex[:8]}"
        r = await web.post(f"{api_a.base_url}/api/v1/players", json={"name": name, "password": "correct horse"})
        assert r.status_code == 201, r.text
        web_player = r.json()["player_id"]
        r = await web.post(f"{api_a.base_url}/api/v1/session", json={"name": name, "password": "correct horse"})
        assert r.status_code == 200, r.text
        for api in (api_a, api_b):
            r = await web.get(f"{api.base_url}/api/v1/session")
            assert r.status_code == 200 and r.json()["name"] == name, (api.port, r.text)

        pull = await register_agent(owner, "puller", [GAME], mode="pull")
        agents.append(PullAgentProcess(lb, pull["token"]))
        push, push_process = await push_agent(owner, "good", GAME)
        agents.append(push_process)

        tid = await open_tournament(owner, people)
        # The signed-in person enters with the cookie at B (a write: CSRF token and Origin).
        r = await web.post(
            f"{api_b.base_url}{TN}/{tid}/registrations",
            headers={"Origin": api_b.base_url, "X-CSRF-Token": web.cookies["hm_csrf"]},
        )
        assert r.status_code == 200, r.text
        for agent in (pull, push):
            r = await owner.post(f"/api/v1/agents/{agent['agent_id']}/tournaments/{tid}")
            assert r.status_code == 200, r.text
        # ... and plays through the balancer with the cookie alone (no token).
        web_client = ApiClient(lb, name=name, fresh_connections=True, answered=through_lb)
        web_client.player_id = web_player
        web_client.http.cookies = web.cookies
        web_client.http.headers.update({"Origin": lb, "X-CSRF-Token": web.cookies["hm_csrf"]})
        people.append(Person(web_client, random.Random(3)))

        games: set[str] = set()
        playing = [asyncio.create_task(p.follow(tid, games)) for p in people]

        tables = await until(lambda: first_round_tables(owner, tid), 20, "round 1", workers)
        assert len(tables) == 2
        # Spectators of every table of round 1 through the balancer, from the first event on.
        table_readers = [SseReader(lb, t["game_id"], answered=through_lb).start() for t in tables]
        readers = [*table_readers]

        # A table waiting for its second player: its spectators stay until told to go.
        watched = await owner.create_game(GAME, 2)
        await owner.sit(watched, 0)
        at_a = [SseReader(api_a.base_url, watched).start() for _ in range(2)]
        at_b = [SseReader(api_b.base_url, watched).start()]
        readers += [*at_a, *at_b]

        async def counted(n: int, apis=(api_a, api_b)):
            # Read without the session cookie: a seat's stream is not a spectator, a reader is anyone.
            return all([await _spectators(viewer, api.base_url, watched) == n for api in apis])

        await until(lambda: counted(3), 15, "3 spectators (2 at A, 1 at B) seen from both processes", workers)

        async def under_way():
            infos = [await get_json(owner, f"/api/v1/games/{t['game_id']}") for t in tables]
            return all(i and i["version"] >= 15 and i["status"] != "finished" for i in infos)

        await until(under_way, 20, "both tables under way", workers, every=0.1)

        # SIGKILL one API process and one worker mid-tournament; neither comes back.
        # The victim is the process that serves the pull agent's stream, so the
        # agent must resume at the other one.
        async def agent_stream_at():
            streams = [await _agent_streams(viewer, api.base_url) for api in (api_a, api_b)]
            return streams if sum(streams) == 1 else None

        streams = await until(agent_stream_at, 10, "the pull agent's one stream", workers)
        victim, survivor = (api_a, api_b) if streams[0] else (api_b, api_a)
        versions_before = [(await get_json(owner, f"/api/v1/games/{t['game_id']}"))["version"] for t in tables]
        pids = {str(api.proc.pid) for api in (api_a, api_b) if api.proc}
        assert through_lb == pids, f"through the balancer answered {sorted(through_lb)}, the processes {sorted(pids)}"
        victim.kill()
        workers[0].kill()
        killed_at = time.monotonic()
        print(f"\nkilled {killed_at - started:.1f} s into the test")

        # The session still works at the survivor.
        r = await web.get(f"{survivor.base_url}/api/v1/session")
        assert r.status_code == 200 and r.json()["name"] == name, r.text
        # The victim's spectators are gone with it: the count settles to the
        # survivor's own once the victim's entries lapse (WATCHERS_TTL_S).
        gone, stayed = (at_a, at_b) if victim is api_a else (at_b, at_a)
        for reader in gone:
            await reader.stop()
        assert await _spectators(viewer, survivor.base_url, watched) == 3, "the victim's entries count until they lapse"
        await until(lambda: counted(len(stayed), (survivor,)), 25, f"the count to settle to {len(stayed)}", workers)
        settled_s = time.monotonic() - killed_at
        # One who comes back at the survivor is counted again.
        readers.append(SseReader(survivor.base_url, watched).start())
        await until(lambda: counted(len(stayed) + 1, (survivor,)), 10, "the returning spectator counted", workers)

        await until(lambda: tournament_finished(owner, tid), 90, "the tournament to finish", workers, every=0.5)
        print(f"tournament finished {time.monotonic() - killed_at:.1f} s after the kill")
        await asyncio.wait_for(asyncio.gather(*playing), 30)
        assert survivor.proc.poll() is None and workers[1].proc.poll() is None, workers[1].tail()

        finals = await finished_games(owner, tid)
        all_games = set(finals)
        # The kill came mid-game: play went on after it at both tables.
        assert all(finals[t["game_id"]] > v for t, v in zip(tables, versions_before, strict=True))

        # Nothing acknowledged is lost: every 200 is in the log as answered.
        conn = await asyncpg.connect(database_url)
        try:
            assert all(p.acks for p in people), "every person moved (the web one by cookie)"
            await assert_acks_logged(conn, [a for p in people for a in p.acks])
            # Timers: deadlines played for the slow person.
            assert await deadline_moves(conn, all_games) >= 1
            # Both agents played moves of their own, in round 2 too (after the kills).
            for agent in (pull, push):
                own = await agent_moves(conn, owner, tid, agent["agent_id"])
                assert own[1] > 0 and own[2] > 0, (agent["name"], own)
        finally:
            await conn.close()

        # Spectators of round 1 saw every event once, in order, across the kill.
        for reader, table in zip(table_readers, tables, strict=True):
            await assert_every_event_once(reader, finals[table["game_id"]])
        print(
            f"\nkilled API process {'A' if victim is api_a else 'B'}; "
            f"spectator count settled {settled_s:.1f} s after the kill"
        )
    finally:
        for reader in readers:
            await reader.stop()
        for agent in agents:
            agent.stop()
        for person in people:
            await person.client.close()
        await owner.close()
        await web.aclose()
        await viewer.aclose()


async def test_a_deadline_whose_worker_died_mid_job_is_played_by_the_sweep(server, server_env, redis_url, tmp_path):
    """A worker SIGKILLed while it runs a deadline job leaves arq's state
    behind: the job still queued, and its in-progress key held for the
    worker-wide lease (the longest job timeout, call_agent's hour, + 10 s),
    so no other worker runs it and re-enqueueing its id is refused. The test
    leaves exactly that state (without racing a kill against a job of a few
    ms): the sweep must still play the seat's default move."""
    import redis.asyncio as aioredis
    from arq.constants import in_progress_key_prefix

    from services.infra.keys import deadline_job_id

    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    host = await ApiClient.register(server.base_url, "absent")
    rds = aioredis.Redis.from_url(redis_url)
    try:
        r = await host.post("/api/v1/games", {"game": GAME, "players": 2, "time_control": {"move_ms": 1000}})
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        await host.sit(game_id, 0)
        assert (await host.post(f"/api/v1/games/{game_id}/bots", {"seat": 1, "bot": "random"})).status_code == 200

        async def awaited():
            info = await host.game(game_id)
            return info["legal_actions"] and info["version"]

        version = await until(awaited, 10, "the person's turn", [worker], every=0.02)
        # The worker "took" the job and died with it, before it was due.
        taken = await rds.set(in_progress_key_prefix + deadline_job_id(game_id, version, 0), b"1", px=3_610_000)
        assert taken and (await host.game(game_id))["version"] == version, "the deadline had not fired yet"

        async def played():
            events = (await host.get(f"/api/v1/games/{game_id}/events", after=version)).json()["events"]
            return [e["event"] for e in events if e["event"]["type"] == "hm.move_played_for_seat"]

        # Deadline 1 s, then the sweep every 5 s: well within 15 s (not an hour).
        played_for = await until(played, 15, "the sweep to play the deadline", [worker])
        assert played_for[0]["seat"] == 0 and played_for[0]["reason"] == "timeout"
    finally:
        await rds.aclose()
        await host.close()
        worker.stop()
