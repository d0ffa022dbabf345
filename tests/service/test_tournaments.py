"""Tournaments end to end: two API processes on one port as `serve` runs
them, real arq workers (started and killed here), PostgreSQL and Redis.
Entrants play over HTTP like clients do, each request on a new connection,
so consecutive requests of one entrant land on either process (and each test
checks that both answered); the workers start the tournament, create tables,
play for absent seats, record results, pair rounds and keep the ratings."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from itertools import pairwise

import asyncpg
import httpx
import msgspec
import pytest

from engines.core import commitment, deal_seed
from engines.tournament import default_points, table_points
from engines.tournament.standings import derive
from services.app.seatclock import ClockDefaults
from services.infra.keys import AUTO_PREFIX
from tests.conftest import ROOT, WorkerProcess
from tests.service.client import PROCESS_HEADER, ApiClient
from tests.service.two_processes import FreshClients, TwoApiProcesses, start_two_api_processes

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAME = "kabuki-tricks"
STRIKE_LIMIT = ClockDefaults().strike_limit  # the test servers leave HANAMICHI_AGENT_STRIKES unset
TN = "/api/v1/tournaments"


# --- processes ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def api(server_env) -> Iterator[TwoApiProcesses]:
    """`serve --processes 2 --no-worker`, shared by the module's tests: the
    tests start and kill their own workers (`workers`)."""
    yield from start_two_api_processes(server_env, with_worker=False)


@pytest.fixture
async def people(api) -> AsyncIterator[FreshClients]:
    """The test's clients; at the end, both API processes answered them."""
    crowd = FreshClients(api)
    yield crowd
    await crowd.close_and_check_both_answered()


@pytest.fixture
def workers(server_env, tmp_path):
    """start(**env) -> a running worker; every worker is stopped at the end."""
    started: list[WorkerProcess] = []

    def start(**extra_env: str) -> WorkerProcess:
        worker = WorkerProcess(dict(server_env, **extra_env), tmp_path / f"worker-{len(started)}.log")
        started.append(worker.start())
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
async def db(database_url):
    conn = await asyncpg.connect(database_url)
    yield conn
    await conn.close()


# --- helpers ----------------------------------------------------------------------------


def now_ms() -> int:
    return time.time_ns() // 1_000_000


async def until(check, timeout: float, what: str, every: float = 0.2, worker: WorkerProcess | None = None):
    """Poll `check()` (async) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            tail = f"\n--- worker log ---\n{worker.tail()}" if worker else ""
            raise AssertionError(f"timed out after {timeout}s waiting for {what}{tail}")
        await asyncio.sleep(every)


async def create_tournament(client: ApiClient, **settings) -> dict:
    body = {"game": GAME, "table_size": 4, "format": "swiss", "min_entrants": 2, **settings}
    r = await client.post(TN, body)
    assert r.status_code == 201, r.text
    return r.json()


async def register(client: ApiClient, tournament_id: str, client_seed: str | None = None) -> httpx.Response:
    body = {"client_seed": client_seed} if client_seed is not None else None
    return await client.post(f"{TN}/{tournament_id}/registrations", body)


async def withdraw(client: ApiClient, tournament_id: str) -> httpx.Response:
    return await client.http.delete(f"{TN}/{tournament_id}/registrations", headers=client.headers)


async def get_json(client: ApiClient, path: str, **params) -> dict:
    r = await client.get(path, **params)
    assert r.status_code == 200, f"{path}: {r.status_code} {r.text}"
    return r.json()


async def tournament_status(client: ApiClient, tournament_id: str) -> str:
    return (await get_json(client, f"{TN}/{tournament_id}"))["status"]


@dataclass(frozen=True)
class Behaviour:
    """How a scripted entrant plays its tables."""

    delay: tuple[float, float] = (0.0, 0.0)  # think time before each move (s)
    absent_rounds: frozenset[int] = frozenset()  # never moves at these rounds' tables
    hesitate_every: int = 0  # every n-th own turn, think past the deadline
    hesitate_s: float = 0.0


async def play_table(client: ApiClient, game_id: str, behaviour: Behaviour, rng: random.Random) -> None:
    turns = 0
    while True:
        r = await client.get(f"/api/v1/games/{game_id}")
        if r.status_code == 404:  # the worker creates the round's tables just after pairing it
            await asyncio.sleep(0.05)
            continue
        assert r.status_code == 200, r.text
        info = r.json()
        if info["status"] == "finished":
            return
        seat = info["your_seat"]
        assert seat is not None, info
        if info["seats"][seat]["bot"]:  # handed to a house bot: nothing left to do here
            return
        if not info["legal_actions"]:
            await asyncio.sleep(0.02)
            continue
        turns += 1
        if behaviour.hesitate_every and turns % behaviour.hesitate_every == 0:
            await asyncio.sleep(behaviour.hesitate_s)
        elif behaviour.delay[1]:
            await asyncio.sleep(rng.uniform(*behaviour.delay))
        r = await client.act(game_id, rng.choice(info["legal_actions"]), expected_version=info["version"])
        if r.status_code == 403 and r.json().get("code") == "seat_played_by_bot":
            return
        # 409: the deadline played for us (or a bot moved) first; look again.
        assert r.status_code in (200, 409), r.text


async def entrant(
    client: ApiClient, tournament_id: str, behaviour: Behaviour, rng: random.Random, tables: list[tuple[int, str]]
) -> None:
    """Follow the tournament: at each new round find our table, play it
    (unless absent), until the tournament is over."""
    done = 0
    while True:
        summary = await get_json(client, f"{TN}/{tournament_id}")
        if summary["status"] in ("finished", "cancelled"):
            return
        if summary["status"] != "running" or summary["round"] <= done:
            await asyncio.sleep(0.05)
            continue
        round_no = summary["round"]
        paired = await get_json(client, f"{TN}/{tournament_id}/rounds/{round_no}")
        done = round_no
        table = next((t for t in paired["tables"] if client.player_id in t["seats"]), None)
        if table is None:
            continue  # a bye
        tables.append((round_no, table["game_id"]))
        if round_no in behaviour.absent_rounds:
            continue
        await play_table(client, table["game_id"], behaviour, rng)


async def rounds_of(client: ApiClient, tournament_id: str, rounds: int) -> dict[int, dict]:
    return {n: await get_json(client, f"{TN}/{tournament_id}/rounds/{n}") for n in range(1, rounds + 1)}


async def read_sse(people: FreshClients, path: str, timeout: float = 20) -> list[dict]:
    """Every message of a finished stream (it ends by itself with `end`), on
    a connection of its own (either API process may serve it)."""
    messages: list[dict] = []
    event: dict = {}
    async with (
        httpx.AsyncClient(base_url=people.api.base_url, timeout=httpx.Timeout(timeout)) as http,
        http.stream("GET", path) as r,
    ):
        assert r.status_code == 200, await r.aread()
        people.answered.add(r.headers[PROCESS_HEADER])
        async for line in r.aiter_lines():
            if line == "":
                if "data" in event:
                    messages.append(event)
                    if event.get("event") == "end":
                        return messages
                event = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                event[key] = json.loads(value) if key == "data" else value
    raise AssertionError("the stream closed without an end message")


async def seat_commands(db: asyncpg.Connection, game_id: str) -> list[tuple[int, int, str]]:
    """(first version, seat, command id) of every command with a seat, in log order."""
    rows = await db.fetch("SELECT command_id, outcome FROM commands WHERE stream_id = $1", game_id)
    out = []
    for row in rows:
        outcome = msgspec.json.decode(row["outcome"])
        if outcome.get("seat") is not None:
            out.append((outcome["first"], outcome["seat"], row["command_id"]))
    return sorted(out)


# --- 1. a scheduled swiss tournament runs by itself ---------------------------------------


async def test_scheduled_swiss_with_slow_absent_and_hesitant_humans_runs_to_a_final_ranking(people, workers, db):
    move_ms = 1000  # the least a person may be given
    worker = workers()
    organiser = await people.register("organiser")
    humans = [await people.register(f"entrant{i}") for i in range(10)]
    summary = await create_tournament(
        organiser,
        start_ms=now_ms() + 2500,
        rounds=3,
        bots="fill",
        fill_to=16,
        max_entrants=16,
        ranked=True,
        time_control={"move_ms": move_ms, "bank_ms": 0},
    )
    tid = summary["tournament_id"]
    assert summary["status"] == "registering"
    assert "seed" not in summary["settings"] and "salt" not in summary["settings"]
    published = summary["commitment"]  # fixed before any client seed is taken
    for i, client in enumerate(humans):
        # Half of the people add a client seed to their tables' deals.
        r = await register(client, tid, f"entrant {i}" if i % 2 == 0 else None)
        assert r.status_code == 200, r.text
    r = await register(humans[0], tid, "x" * 65)
    assert r.status_code == 400, r.text
    assert len((await get_json(organiser, f"{TN}/{tid}"))["registered"]) == 10

    slow = Behaviour(delay=(0.01, 0.06))
    behaviours = [
        slow,
        slow,
        slow,
        slow,
        slow,
        Behaviour(delay=(0.01, 0.04), hesitate_every=6, hesitate_s=(move_ms + 250) / 1000),  # late now and then
        Behaviour(delay=(0.01, 0.04), hesitate_every=7, hesitate_s=(move_ms + 250) / 1000),
        Behaviour(delay=(0.01, 0.06), absent_rounds=frozenset({1})),
        Behaviour(delay=(0.01, 0.06), absent_rounds=frozenset({2})),
        Behaviour(delay=(0.01, 0.06), absent_rounds=frozenset({1, 3})),
    ]
    tables: dict[str, list[tuple[int, str]]] = {c.player_id: [] for c in humans}
    started = time.monotonic()
    players = asyncio.gather(
        *(
            entrant(c, tid, b, random.Random(i), tables[c.player_id])
            for i, (c, b) in enumerate(zip(humans, behaviours, strict=True))
        )
    )
    try:
        # About 40-80 s here (absent seats wait out 1 s deadlines); a loaded CI
        # machine may be 3x slower.
        await asyncio.wait_for(players, 240)
    except TimeoutError:
        raise AssertionError(
            f"the tournament did not finish: {await get_json(organiser, f'{TN}/{tid}')}\n{worker.tail()}"
        ) from None
    elapsed = time.monotonic() - started

    final = await get_json(organiser, f"{TN}/{tid}")
    assert final["status"] == "finished", final
    assert final["round"] == 3 and final["rounds"] == 3
    assert len(final["entrants"]) == 16

    # 3 rounds x 4 tables, every game finished, each table once.
    paired = await rounds_of(organiser, tid, 3)
    game_ids = []
    for rnd in paired.values():
        assert len(rnd["tables"]) == 4 and rnd["byes"] == [], rnd
        for table in rnd["tables"]:
            assert len(table["seats"]) == 4 and table["result"] is not None
            game_ids.append(table["game_id"])
    assert len(set(game_ids)) == 12

    # Client seeds (docs/fairness.md): the finished tournament reveals its
    # seed and salt; each table's deal seed is the tournament's derived one
    # with its seats' client seeds mixed in, and its game was dealt from it.
    revealed = final["settings"]
    assert commitment(revealed["seed"], revealed["salt"]) == published
    client_seeds = {c.player_id: f"entrant {i}" for i, c in enumerate(humans) if i % 2 == 0}
    assert final["client_seeds"] == client_seeds
    for n, rnd in paired.items():
        for table in rnd["tables"]:
            unmixed = derive(revealed["seed"], "deal", n, table["table"])
            mixed = deal_seed(unmixed, [client_seeds.get(e, "") for e in table["seats"]])
            log = (await get_json(organiser, f"/api/v1/games/{table['game_id']}/events", after=0))["events"]
            ended = next(e["event"] for e in log if e["event"].get("salt"))
            assert ended["seed"] == mixed, (n, table["table"])
    stored = await db.fetch("SELECT game_id::text AS id, status FROM games WHERE tournament_id = $1", tid)
    assert sorted(r["id"] for r in stored) == sorted(game_ids)
    assert all(r["status"] == "finished" for r in stored)
    for game_id in game_ids:
        assert (await get_json(organiser, f"/api/v1/games/{game_id}"))["status"] == "finished"

    # Every entrant has a place; the 6 fill bots are flagged as bots.
    standings = await get_json(organiser, f"{TN}/{tid}/standings")
    assert standings["final"] is True and standings["status"] == "finished"
    rows = standings["standings"]
    assert len(rows) == 16
    assert {r["entrant"] for r in rows if r["kind"] == "human"} == {c.player_id for c in humans}
    bots = [r for r in rows if r["kind"] == "bot"]
    assert len(bots) == 6
    assert all(1 <= r["place"] <= 16 for r in rows)
    assert [r["place"] for r in rows] == sorted(r["place"] for r in rows)
    assert all(r["games"] == 3 and r["byes"] == 0 for r in rows)
    # Table points: 4/2/1/0 per table (ties share, the sum stays 7), except
    # that a seat handed to a house bot after its strikes earns nothing.
    per_entrant: dict[str, float] = {}
    forfeited_points = 0.0
    for rnd in paired.values():
        for table in rnd["tables"]:
            points = table_points(table["result"]["places"], default_points(4))
            for seat, (entrant_id, p) in enumerate(zip(table["seats"], points, strict=True)):
                own = seat not in table["result"]["forfeited"]
                forfeited_points += 0.0 if own else p
                per_entrant[entrant_id] = per_entrant.get(entrant_id, 0.0) + (p if own else 0.0)
    assert sum(r["points"] for r in rows) == pytest.approx(12 * sum(default_points(4)) - forfeited_points)
    assert {r["entrant"]: pytest.approx(r["points"]) for r in rows} == per_entrant

    # The tournament's own stream: one result per table, one finish.
    events = [e["event"] for e in (await get_json(organiser, f"{TN}/{tid}/events"))["events"]]
    finished_tables = [(e["round"], e["table"]) for e in events if e["type"] == "tn.table_finished"]
    assert len(finished_tables) == 12 and len(set(finished_tables)) == 12
    assert [e["type"] for e in events].count("tn.finished") == 1

    # Deadlines: moves played for late or absent humans are in the game logs,
    # with the reason; a seat goes to a house bot after 3 such moves in a row.
    human_ids = {c.player_id for c in humans}
    absent_games = {
        (game_id, pid)
        for pid, played in tables.items()
        for (n, game_id) in played
        if n in behaviours[[c.player_id for c in humans].index(pid)].absent_rounds
    }
    assert len(absent_games) == 4
    handed: set[tuple[str, str]] = set()
    timeouts = 0
    for rnd in paired.values():
        for table in rnd["tables"]:
            game_id = table["game_id"]
            log = (await get_json(organiser, f"/api/v1/games/{game_id}/events", after=0))["events"]
            by_version = {e["version"]: e["event"] for e in log}
            assert log[-1]["event"]["type"] == "hm.game_finished"
            assert sum(1 for e in log if e["event"]["type"] == "hm.game_finished") == 1
            played_for = [e for e in log if e["event"]["type"] == "hm.move_played_for_seat"]
            timeouts += len(played_for)
            for e in played_for:
                assert e["event"]["reason"] == "timeout", e
                assert table["seats"][e["event"]["seat"]] in human_ids, "deadlines apply to human seats only"
            # Strikes as the log shows them: a run of server moves for a
            # seat, reset by any move the seat made itself.
            run: dict[int, int] = {}
            for first, seat, command_id in await seat_commands(db, game_id):
                if command_id.startswith(AUTO_PREFIX):
                    run[seat] = run.get(seat, 0) + 1
                    event = by_version[first]
                    assert event["type"] == "hm.move_played_for_seat" and event["seat"] == seat, event
                    assert event["strikes"] == run[seat], (
                        f"{game_id} seat {seat}: the log shows {run[seat]} moves played for it in a row, "
                        f"the event says strikes={event['strikes']}"
                    )
                    nxt = by_version.get(first + 1, {})
                    if nxt.get("type") == "hm.seat_handed_to_bot":
                        assert nxt["seat"] == seat and nxt["bot"] == "heuristic"
                        assert run[seat] == STRIKE_LIMIT, (
                            f"{game_id} seat {seat} handed over after {run[seat]} in a row"
                        )
                        handed.add((game_id, table["seats"][seat]))
                    else:
                        assert run[seat] < STRIKE_LIMIT, f"{game_id} seat {seat}: {run[seat]} in a row, not handed over"
                else:
                    run.pop(seat, None)
            handovers = [e["event"] for e in log if e["event"]["type"] == "hm.seat_handed_to_bot"]
            assert len(handovers) == len({h["seat"] for h in handovers}), "a seat is handed over once"
            # The handed-over seat shows the bot now; its entrant keeps the seat's result.
            info = await get_json(organiser, f"/api/v1/games/{game_id}")
            for h in handovers:
                assert info["seats"][h["seat"]]["bot"] == "heuristic"
    # Every absent human's table went to a bot; nobody else's did unless the log says so (checked above).
    assert absent_games <= handed, absent_games - handed
    assert timeouts >= 3 * len(absent_games)
    print(f"\nswiss: 12 games in {elapsed:.1f}s, {timeouts} moves played on timeout, {len(handed)} seats handed over")


# --- 2. the worker is killed mid-round --------------------------------------------------


async def test_worker_sigkilled_mid_round_restarts_and_the_tournament_finishes_exactly_once(people, workers, db):
    rounds, tables_per_round = 3, 3
    # Bots think a little in the worker, so a round lasts long enough to be cut.
    worker = workers(HANAMICHI_BOT_DELAY_MS="15")
    organiser = await people.register("organiser-kill")
    humans = [await people.register(f"killer{i}") for i in range(2)]
    tid = (
        await create_tournament(
            organiser,
            start_ms=now_ms() + 2000,
            rounds=rounds,
            bots="fill",
            fill_to=12,
            max_entrants=12,
            ranked=True,
            time_control={"move_ms": 10_000, "bank_ms": 0},
        )
    )["tournament_id"]
    for client in humans:
        assert (await register(client, tid)).status_code == 200
    seen: dict[str, list] = {c.player_id: [] for c in humans}
    players = asyncio.gather(
        *(
            entrant(c, tid, Behaviour(delay=(0.0, 0.01)), random.Random(50 + i), seen[c.player_id])
            for i, c in enumerate(humans)
        )
    )
    try:
        # Mid-round: round 2 is paired and its tables are being played.
        async def round_two_under_way():
            summary = await get_json(organiser, f"{TN}/{tid}")
            if summary["round"] < 2:
                return False
            assert summary["round"] == 2, "round 2 went by before the kill"
            versions = await db.fetchval(
                "SELECT min(s.version) FROM streams s JOIN games g ON s.stream_id = g.game_id::text"
                " WHERE g.tournament_id = $1 AND g.status = 'playing'",
                tid,
            )
            return versions is not None and versions >= 15

        await until(round_two_under_way, 40, "round 2 under way", every=0.05, worker=worker)
        worker.kill()
        recorded_at_kill = sum(
            1
            for e in (await get_json(organiser, f"{TN}/{tid}/events"))["events"]
            if e["event"]["type"] == "tn.table_finished"
        )
        # Tables of bots only: nobody but a worker plays them, so they wait.
        bots_only = (
            "SELECT g.game_id::text AS id, s.version FROM games g JOIN streams s ON s.stream_id = g.game_id::text"
            " WHERE g.tournament_id = $1 AND g.status = 'playing'"
            " AND NOT EXISTS (SELECT 1 FROM seats x WHERE x.game_id = g.game_id AND x.player_id IS NOT NULL)"
        )
        stalled = {r["id"]: r["version"] for r in await db.fetch(bots_only, tid)}
        await asyncio.sleep(1.5)  # the human tables go on through the API
        assert stalled, "a table of bots only was mid-game when the worker died"
        assert {r["id"]: r["version"] for r in await db.fetch(bots_only, tid)} == stalled
        worker = workers(HANAMICHI_BOT_DELAY_MS="15")
        await asyncio.wait_for(players, 60)
        await until(lambda: _is_finished(organiser, tid), 30, "the tournament to finish", worker=worker)
    finally:
        players.cancel()
        with contextlib.suppress(BaseException):
            await players
    assert recorded_at_kill < rounds * tables_per_round

    paired = await rounds_of(organiser, tid, rounds)
    game_ids = [t["game_id"] for r in paired.values() for t in r["tables"]]
    assert all(len(r["tables"]) == tables_per_round for r in paired.values())
    assert len(game_ids) == len(set(game_ids)) == rounds * tables_per_round

    # The games table: exactly these, each finished; each log has one finish, last.
    rows = await db.fetch("SELECT game_id::text AS id, status FROM games WHERE tournament_id = $1", tid)
    assert sorted(r["id"] for r in rows) == sorted(game_ids)
    assert {r["status"] for r in rows} == {"finished"}
    for game_id in game_ids:
        types = [
            r["type"] for r in await db.fetch("SELECT type FROM events WHERE stream_id = $1 ORDER BY version", game_id)
        ]
        assert types.count("hm.game_finished") == 1 and types[-1] == "hm.game_finished", game_id
        versions = [
            r["version"]
            for r in await db.fetch("SELECT version FROM events WHERE stream_id = $1 ORDER BY version", game_id)
        ]
        assert versions == list(range(1, len(versions) + 1))
        assert await db.fetchval("SELECT count(*) FROM seats WHERE game_id = $1::text::uuid", game_id) == 4

    # The tournament stream (over SSE, as clients follow it): one result per
    # table, each naming that table's game, the rounds in order.
    messages = await read_sse(people, f"{TN}/{tid}/stream")
    assert messages[-1]["event"] == "end" and messages[-1]["data"]["status"] == "finished"
    streamed = [m["data"] for m in messages if m["event"] == "tournament"]
    assert [m["version"] for m in streamed] == list(range(1, len(streamed) + 1))
    events = [m["event"] for m in streamed]
    assert events == [e["event"] for e in (await get_json(organiser, f"{TN}/{tid}/events"))["events"]]
    finished = [e for e in events if e["type"] == "tn.table_finished"]
    assert len(finished) == rounds * tables_per_round
    assert len({(e["round"], e["table"]) for e in finished}) == len(finished)
    assert sorted(e["game_id"] for e in finished) == sorted(game_ids)
    for e in finished:
        assert e["game_id"] == paired[e["round"]]["tables"][e["table"] - 1]["game_id"]
    types = [e["type"] for e in events]
    assert types.count("tn.started") == 1 and types.count("tn.finished") == 1
    assert [e["round"] for e in events if e["type"] == "tn.round_paired"] == [1, 2, 3]
    assert [e["round"] for e in events if e["type"] == "tn.round_ended"] == [1, 2, 3]
    standings = await get_json(organiser, f"{TN}/{tid}/standings")
    assert len(standings["standings"]) == 12
    assert sum(r["points"] for r in standings["standings"]) == pytest.approx(
        rounds * tables_per_round * sum(default_points(4))
    )


async def _is_finished(client: ApiClient, tid: str) -> bool:
    return await tournament_status(client, tid) == "finished"


# --- 3. ratings: the projection equals a rebuild from the log -----------------------------


def _cli(env: dict[str, str], *args: str) -> tuple[int, dict]:
    done = subprocess.run(
        [sys.executable, "-m", "services.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no JSON report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.returncode, json.loads(lines[-1])


async def _ratings_snapshot(db: asyncpg.Connection) -> dict:
    rows = await db.fetch("SELECT game, rated_id, kind, name, mu, sigma, games FROM ratings")
    return {(r["game"], r["rated_id"]): tuple(r) for r in rows}


async def _changes_snapshot(db: asyncpg.Connection) -> list:
    return [tuple(r) for r in await db.fetch("SELECT * FROM rating_changes ORDER BY position, rated_id")]


async def test_ratings_rebuilt_from_the_log_equal_the_stored_ones(people, server_env, workers, db):
    worker = workers()
    organiser = await people.register("organiser-ratings")
    humans = [await people.register(f"rated{i}") for i in range(2)]
    tid = (
        await create_tournament(
            organiser,
            start_ms=now_ms() + 1500,
            rounds=2,
            bots="fill",
            fill_to=4,
            max_entrants=4,
            ranked=True,
            time_control={"move_ms": 10_000, "bank_ms": 0},
        )
    )["tournament_id"]
    for client in humans:
        assert (await register(client, tid)).status_code == 200
    seen: dict[str, list] = {c.player_id: [] for c in humans}
    await asyncio.wait_for(
        asyncio.gather(
            *(entrant(c, tid, Behaviour(), random.Random(70 + i), seen[c.player_id]) for i, c in enumerate(humans))
        ),
        60,
    )
    assert await tournament_status(organiser, tid) == "finished"
    game_ids = [t["game_id"] for r in (await rounds_of(organiser, tid, 2)).values() for t in r["tables"]]

    # The projection catches up with the last finished game in the log.
    async def caught_up():
        last = await db.fetchval("SELECT max(position) FROM events WHERE type = 'hm.game_finished'")
        position = await db.fetchval("SELECT position FROM projections WHERE name = 'ratings'")
        return position is not None and position >= last

    await until(caught_up, 20, "the ratings projection to catch up", worker=worker)
    board = await get_json(organiser, f"/api/v1/leaderboards/{GAME}")
    worker.stop()  # nothing writes ratings while they are compared and rewritten

    # Bots are listed apart from people.
    assert any(b["rated_id"] == "bot:heuristic" and b["kind"] == "bot" for b in board["bots"]), board["bots"]
    assert all(p["kind"] != "bot" for p in board["players"])
    assert all(b["kind"] == "bot" for b in board["bots"])
    listed = {p["rated_id"]: p for p in board["players"]}
    for client in humans:
        assert listed[client.player_id]["games"] == 2

    # Every rating change links to the game that caused it.
    for client in humans:
        mine = await get_json(client, f"/api/v1/players/{client.player_id}/ratings", game=GAME)
        assert len(mine["ratings"]) == 1
        history = mine["history"]
        assert [h["game_id"] for h in history] == game_ids  # the tournament's games, in order
        assert history[-1]["mu_after"] == mine["ratings"][0]["mu"]
        assert history[-1]["sigma_after"] == mine["ratings"][0]["sigma"]
        for before, after in pairwise(history):
            assert (after["mu_before"], after["sigma_before"]) == (before["mu_after"], before["sigma_after"])
        for h in history:
            game = await get_json(client, h["link"])
            assert game["game_id"] == h["game_id"] and game["status"] == "finished" and game["ranked"]
            assert 1 <= h["place"] <= 4
    r = await organiser.get(f"/api/v1/players/{uuid.uuid4()}/ratings")
    assert r.status_code == 404 and r.json()["code"] == "no_ratings"

    env = dict(server_env)
    ratings_before = await _ratings_snapshot(db)
    changes_before = await _changes_snapshot(db)
    position_before = await db.fetchval("SELECT position FROM projections WHERE name = 'ratings'")
    assert ratings_before and changes_before

    code, report = _cli(env, "ratings", "rebuild")
    assert code == 0, report
    assert report["equal"] is True and report["mismatched"] == [] and report["written"] is False
    assert report["ratings"] == len(ratings_before) and report["changes"] == len(changes_before)

    code, report = _cli(env, "ratings", "rebuild", "--write")
    assert code == 0, report
    assert report["equal"] is True and report["written"] is True
    assert await _ratings_snapshot(db) == ratings_before  # same mu and sigma, to the bit
    assert await _changes_snapshot(db) == changes_before
    assert await db.fetchval("SELECT position FROM projections WHERE name = 'ratings'") == position_before

    # And a second look after the rewrite still agrees.
    code, report = _cli(env, "ratings", "rebuild")
    assert code == 0 and report["equal"] is True, report


# --- 4. registration over the API --------------------------------------------------------


async def test_registration_and_withdrawal_rules_over_http(people, workers):
    organiser = await people.register("organiser-reg")
    alice, bob, carol = [await people.register(n) for n in ("alice", "bob", "carol")]
    anonymous = people.anonymous()

    # Bad settings: a 4xx with a stable code.
    future = now_ms() + 60_000
    for body, status, code in [
        ({"game": GAME, "start_ms": future, "rounds": 0}, 422, "bad_tournament"),
        ({"game": GAME, "start_ms": future, "rounds": 2, "table_size": 9}, 422, "bad_tournament"),
        # A wrong type, value or field is malformed input (the body is typed).
        ({"game": GAME, "start_ms": future, "rounds": 2, "format": "ladder"}, 400, "bad_request"),
        ({"game": GAME, "start_ms": future, "rounds": 2, "bots": "many"}, 400, "bad_request"),
        ({"game": GAME, "start_ms": future, "rounds": 2, "colour": "red"}, 400, "bad_request"),
        ({"game": GAME, "start_ms": "soon", "rounds": 2}, 400, "bad_request"),
        ({"game": GAME, "start_ms": future, "rounds": 2, "min_entrants": 9, "max_entrants": 4}, 422, "bad_tournament"),
        ({"game": GAME, "start_ms": future, "rounds": 2, "options": {"nope": True}}, 422, None),
        ({"game": "no-such-game", "start_ms": future, "rounds": 2}, 422, "unknown_game"),
    ]:
        r = await organiser.post(TN, body)
        assert r.status_code == status, (body, r.status_code, r.text)
        assert isinstance(r.json().get("code"), str) and r.json()["code"], r.text
        if code:
            assert r.json()["code"] == code, (body, r.text)
    r = await organiser.http.post(
        TN, content=b"[1, 2", headers={**organiser.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["code"], r.text

    # Unknown tournaments: 404 for reads and for registration.
    for missing in (str(uuid.uuid4()), "not-a-uuid"):
        for path in (
            f"{TN}/{missing}",
            f"{TN}/{missing}/standings",
            f"{TN}/{missing}/events",
            f"{TN}/{missing}/rounds/1",
        ):
            r = await organiser.get(path)
            assert r.status_code == 404 and r.json()["code"] == "tournament_not_found", (path, r.text)
        r = await register(alice, missing)
        assert r.status_code == 404 and r.json()["code"] == "tournament_not_found", r.text
        r = await withdraw(alice, missing)
        assert r.status_code == 404 and r.json()["code"] == "tournament_not_found", r.text

    tid = (
        await create_tournament(
            organiser,
            start_ms=now_ms() + 2500,
            rounds=1,
            bots="fill",
            fill_to=4,
            max_entrants=4,
            ranked=False,
            time_control={"move_ms": 1000, "bank_ms": 0},  # people: 1 s at least
        )
    )["tournament_id"]
    r = await organiser.get(f"{TN}/{tid}/rounds/1")
    assert r.status_code == 404 and r.json()["code"] == "round_not_found"

    # Registration needs a player.
    r = await register(anonymous, tid)
    assert r.status_code == 401, r.text

    r = await register(alice, tid)
    assert r.status_code == 200 and [e["id"] for e in r.json()["registered"]] == [alice.player_id], r.text
    assert r.json()["registered"][0]["kind"] == "human"
    r = await register(alice, tid)
    assert r.status_code == 409 and r.json()["code"] == "already_registered", r.text

    r = await withdraw(bob, tid)
    assert r.status_code in (409, 422) and r.json()["code"] == "not_registered", r.text
    r = await register(bob, tid)
    assert r.status_code == 200
    r = await withdraw(bob, tid)
    assert r.status_code == 200 and [e["id"] for e in r.json()["registered"]] == [alice.player_id], r.text
    r = await withdraw(bob, tid)
    assert r.status_code in (409, 422) and r.json()["code"] == "not_registered", r.text
    r = await register(bob, tid)  # back again after withdrawing
    assert r.status_code == 200 and len(r.json()["registered"]) == 2

    # After the start (the worker's): no more registering or withdrawing.
    worker = workers()
    await until(lambda: _status_is(organiser, tid, "running", "finished"), 20, "the start", worker=worker)
    r = await register(carol, tid)
    assert r.status_code in (409, 422) and r.json()["code"] in ("already_started", "registration_closed"), r.text
    r = await register(alice, tid)
    assert r.status_code in (409, 422) and r.json()["code"] in ("already_started", "already_registered"), r.text
    r = await withdraw(bob, tid)
    assert r.status_code == 409 and r.json()["code"] == "already_started", r.text
    summary = await get_json(organiser, f"{TN}/{tid}")
    assert {e["id"] for e in summary["entrants"] if e["kind"] == "human"} == {alice.player_id, bob.player_id}
    assert sum(1 for e in summary["entrants"] if e["kind"] == "bot") == 2

    # Nobody plays: deadlines hand both seats to bots and the tournament still ends.
    await until(lambda: _status_is(organiser, tid, "finished"), 40, "the finish", worker=worker)
    r = await register(carol, tid)
    assert r.status_code in (409, 422) and r.json()["code"] == "tournament_over", r.text


async def _status_is(client: ApiClient, tid: str, *statuses: str) -> bool:
    return await tournament_status(client, tid) in statuses


async def test_fill_bot_chooses_the_house_bot_at_the_tables_and_is_checked(people, workers):
    """`fill_bot` (default heuristic) is the bot the fill seats; it
    must be one of the game's bots (422 bad_tournament) and a known bot name
    (400 otherwise). Before, every filled seat was `heuristic`."""
    workers()
    organiser = await people.register(f"fill-bot-{uuid.uuid4().hex[:6]}")
    r = await organiser.post(TN, {"game": GAME, "start_ms": now_ms() + 60_000, "rounds": 1, "fill_bot": "memory"})
    assert r.status_code == 422 and r.json()["code"] == "bad_tournament", r.text
    r = await organiser.post(TN, {"game": GAME, "start_ms": now_ms() + 60_000, "rounds": 1, "fill_bot": "grandmaster"})
    assert r.status_code == 400, r.text
    default = await create_tournament(organiser, start_ms=now_ms() + 60_000, rounds=1)
    assert (await get_json(organiser, f"{TN}/{default['tournament_id']}"))["settings"]["fill_bot"] == "heuristic"
    created = await create_tournament(
        organiser, start_ms=now_ms() + 2000, rounds=1, bots="fill", fill_to=4, max_entrants=4, fill_bot="random"
    )
    tid = created["tournament_id"]
    assert (await register(organiser, tid)).status_code in (200, 201)

    async def seated():
        # The round is paired first, its tables created just after: wait for the game itself.
        r = await organiser.get(f"{TN}/{tid}/rounds/1")
        if r.status_code != 200 or not r.json().get("tables"):
            return None
        r = await organiser.get(f"/api/v1/games/{r.json()['tables'][0]['game_id']}")
        return r.json() if r.status_code == 200 else None

    game = await until(seated, 30, "round 1's table")
    assert sorted(s["bot"] for s in game["seats"] if s["kind"] == "bot") == ["random"] * 3
