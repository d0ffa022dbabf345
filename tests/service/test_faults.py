"""The fault suite (workers ride out outages, tables never stall): a tournament in
play, with house bots, people who have deadlines (one of them too slow at
times) and a pull agent, while Redis is killed for 5 s, or PostgreSQL is
SIGKILLed for 5 s, then restarted. Every table finishes, nothing acknowledged
is lost, and spectators' SSE streams neither duplicate nor skip an event.

Against PostgreSQL and Redis servers this test starts itself (the embedded
ones, in a folder of its own under /tmp, on Unix sockets): never the
machine's shared servers, which other runs use."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import signal
import tempfile
import time
from pathlib import Path

import asyncpg
import pytest

from services.tools.embedded import _stop_postgres, _stop_redis, start_postgres, start_redis
from tests.conftest import ROOT, ServerProcess, WorkerProcess, free_test_port
from tests.service.agent_harness import AGENT_ENV, PullAgentProcess, register_agent
from tests.service.client import ApiClient, SseReader
from tests.service.tournament_play import (
    GAME,
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

OUTAGE_S = 5.0


# --- servers the test owns -------------------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_dead(pid: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while _pid_alive(pid):
        assert time.monotonic() < deadline, f"pid {pid} still alive"
        time.sleep(0.02)


class PrivateServers:
    """PostgreSQL and Redis in a temporary folder, killed and restarted at will."""

    def __init__(self) -> None:
        # A short path: both servers listen on Unix sockets inside it.
        self.dir = Path(tempfile.mkdtemp(prefix="hm-faults-", dir="/tmp"))
        self.database_url = start_postgres(self.dir)
        self.redis_proc, self.redis_url = start_redis(self.dir)

    def kill_redis(self) -> None:
        pid = int((self.dir / "redis" / "redis.pid").read_text())
        os.kill(pid, signal.SIGKILL)
        _wait_dead(pid)
        if self.redis_proc is not None:
            self.redis_proc.wait()

    def start_redis(self) -> None:
        self.redis_proc, _ = start_redis(self.dir)

    def kill_postgres(self) -> None:
        pid = int((self.dir / "postgres" / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        _wait_dead(pid)

    def start_postgres(self) -> None:
        # The killed postmaster's backends leave within moments; until then
        # the shared memory is in use and a new postmaster refuses to start.
        deadline = time.monotonic() + 30
        while True:
            try:
                start_postgres(self.dir)
                return
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def stop(self) -> None:
        _stop_redis(self.dir, self.redis_proc)
        _stop_postgres(self.dir)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def private():
    servers = PrivateServers()
    yield servers
    servers.stop()


@pytest.fixture
def stack(private, tmp_path):
    env = dict(os.environ, **AGENT_ENV)
    env.update(
        DATABASE_URL=private.database_url,
        REDIS_URL=private.redis_url,
        PYTHONPATH=str(ROOT),
        # House bots think a little, so that tables are still in play during the outage.
        HANAMICHI_BOT_DELAY_MS="25",
        HANAMICHI_TABLE_BOT_DELAY_MS="25",
    )
    server = ServerProcess(free_test_port(), env)
    worker = WorkerProcess(env, tmp_path / "worker.log")
    server.start()
    worker.start()
    yield server, worker
    worker.stop()
    server.stop()


# --- the scenario ------------------------------------------------------------------------------


async def _bot_table(owner: ApiClient, game: str, options: dict) -> str:
    """A casual table of house bots only: nobody's move will kick its driver."""
    game_id = await owner.create_game(game, 3, options)
    for seat in range(3):
        r = await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
        assert r.status_code == 200, r.text
    return game_id


@pytest.mark.parametrize("victim", ["redis", "postgres"])
async def test_a_tournament_rides_out_an_outage(victim, private, stack):
    server, worker = stack
    base = server.base_url
    owner = await ApiClient.register(base, "organiser")
    people = [
        Person(await ApiClient.register(base, "prompt"), random.Random(1)),
        Person(await ApiClient.register(base, "slow"), random.Random(2), slow_every=4),
    ]
    agent = await register_agent(owner, "puller", [GAME], mode="pull")
    agent_process = PullAgentProcess(base, agent["token"])
    readers: list[SseReader] = []
    try:
        tid = await open_tournament(owner, people)
        r = await owner.post(f"/api/v1/agents/{agent['agent_id']}/tournaments/{tid}")
        assert r.status_code == 200, r.text

        games: set[str] = set()
        playing = [asyncio.create_task(p.follow(tid, games)) for p in people]

        tables = await until(lambda: first_round_tables(owner, tid), 20, "round 1", [worker])
        assert len(tables) == 2
        # Spectators on every table of round 1, from the first event on.
        readers = [SseReader(base, t["game_id"]).start() for t in tables]

        async def under_way():
            infos = [await get_json(owner, f"/api/v1/games/{t['game_id']}") for t in tables]
            return all(i and i["version"] >= 15 for i in infos)

        await until(under_way, 20, "both tables under way", [worker])
        # Tables never stall: tables of house bots only, in play when the outage comes
        # (Kabuki masks also waits on timers: its stop window).
        bot_games = [
            await _bot_table(owner, GAME, {}),
            await _bot_table(owner, "kabuki-masks", {"stop_window_ms": 150}),
        ]
        readers += [SseReader(base, game_id).start() for game_id in bot_games]

        # The outage.
        kill, restart = {
            "redis": (private.kill_redis, private.start_redis),
            "postgres": (private.kill_postgres, private.start_postgres),
        }[victim]
        versions_before = [(await get_json(owner, f"/api/v1/games/{t['game_id']}"))["version"] for t in tables]
        kill()
        await asyncio.sleep(OUTAGE_S)
        await asyncio.to_thread(restart)

        # Every table finishes (the bot tables too), and so does the tournament.
        await until(lambda: tournament_finished(owner, tid), 120, "the tournament to finish", [worker], every=0.5)
        await asyncio.wait_for(asyncio.gather(*playing), 30)
        assert worker.proc.poll() is None, "the worker exited\n" + worker.tail()
        if victim == "redis":  # the worker saw the outage and rode it out
            # One line when the outage starts, one when it ends (services/infra/outages.py).
            log = worker.tail(200_000)
            assert "Redis unreachable" in log and "Redis back after" in log, log[-3000:]

        finals = await finished_games(owner, tid)
        all_games = set(finals)
        # The outage came mid-game: play went on after it at both tables.
        assert all(finals[t["game_id"]] > v for t, v in zip(tables, versions_before, strict=True))

        # A Kabuki masks game waits its 150 ms window at each of ~150
        # placements: minutes on a loaded machine. What must not happen is a
        # stall, so: fail when a table's version stands still for 30 s (its
        # driver restarts within 5 s and the sweep looks every 5 s), and
        # otherwise give it a generous 300 s.
        progress: dict[str, tuple[int, float]] = {}

        async def bot_tables_done():
            infos = [await get_json(owner, f"/api/v1/games/{g}") for g in bot_games]
            now = time.monotonic()
            for game_id, info in zip(bot_games, infos, strict=True):
                if info and info["status"] != "finished":
                    version, since = progress.get(game_id, (-1, now))
                    if info["version"] != version:
                        progress[game_id] = (info["version"], now)
                    elif now - since > 30:
                        raise AssertionError(
                            f"bot table {game_id} stalled at version {version} for 30 s\n"
                            f"--- worker ---\n{worker.tail()}"
                        )
            return all(i and i["status"] == "finished" for i in infos) and infos

        for game_id, info in zip(
            bot_games, await until(bot_tables_done, 300, "the bot tables to finish", [worker]), strict=True
        ):
            finals[game_id] = info["version"]
        tables = [*tables, *({"game_id": g} for g in bot_games)]

        # Nothing acknowledged is lost: every 200 is in the log as answered.
        conn = await asyncpg.connect(private.database_url)
        try:
            acks = [a for p in people for a in p.acks]
            assert acks, "the people moved"
            await assert_acks_logged(conn, acks)
            # Deadlines played for the slow person, and the agent played its seats itself.
            assert await deadline_moves(conn, all_games) >= 1
            own = await agent_moves(conn, owner, tid, agent["agent_id"])
            assert sum(own.values()) > 0, "the pull agent played moves of its own"
        finally:
            await conn.close()

        # Spectators saw every event once, in order, across the outage.
        for reader, table in zip(readers, tables, strict=True):
            versions = await assert_every_event_once(reader, finals[table["game_id"]])
            assert [int(m["id"]) for m in reader.messages if m.get("event") == "game"] == versions
    finally:
        for reader in readers:
            await reader.stop()
        agent_process.stop()
        for person in people:
            await person.client.close()
        await owner.close()
