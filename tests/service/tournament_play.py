"""People who play a tournament through a fault, and the checks that nothing
they were told was lost: shared by the fault suite (test_faults.py)
and the interchangeable processes test (test_multiprocess.py),
which run the same tournament and ask the same of it."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import msgspec

from tests.service.client import ApiClient, SseReader

GAME = "kabuki-tricks"
TN = "/api/v1/tournaments"


@dataclass
class Ack:
    game_id: str
    command_id: str
    seat: int
    version: int
    types: list[str]


@dataclass
class Person:
    client: ApiClient
    rng: random.Random
    slow_every: int = 0  # every n-th own turn, think past the deadline
    acks: list[Ack] = field(default_factory=list)
    errors: int = 0  # answers other than 200/409 (the outage), and dropped connections

    async def request(self, method: str, path: str, body=None) -> httpx.Response | None:
        try:
            if method == "GET":
                return await self.client.get(path)
            return await self.client.post(path, body)
        except httpx.HTTPError:
            self.errors += 1
            await asyncio.sleep(0.2)
            return None

    async def follow(self, tournament_id: str, games: set[str]) -> None:
        played = 0
        while True:
            r = await self.request("GET", f"{TN}/{tournament_id}")
            if r is None or r.status_code != 200:
                await asyncio.sleep(0.2)
                continue
            summary = r.json()
            if summary["status"] in ("finished", "cancelled"):
                return
            if summary["status"] != "running" or summary["round"] <= played:
                await asyncio.sleep(0.1)
                continue
            r = await self.request("GET", f"{TN}/{tournament_id}/rounds/{summary['round']}")
            if r is None or r.status_code != 200:
                await asyncio.sleep(0.2)
                continue
            played = summary["round"]
            table = next((t for t in r.json()["tables"] if self.client.player_id in t["seats"]), None)
            if table is not None:
                games.add(table["game_id"])
                await self.play(table["game_id"])

    async def play(self, game_id: str) -> None:
        turns = 0
        while True:
            r = await self.request("GET", f"/api/v1/games/{game_id}")
            if r is None or r.status_code != 200:  # not created yet, or the outage
                await asyncio.sleep(0.1)
                continue
            info = r.json()
            seat = info["your_seat"]
            if info["status"] == "finished" or info["seats"][seat]["bot"]:
                return
            if not info["legal_actions"]:
                await asyncio.sleep(0.03)
                continue
            turns += 1
            if self.slow_every and turns % self.slow_every == 0:
                await asyncio.sleep(1.3)  # the deadline (1 s) plays for this seat
            command_id = uuid.uuid4().hex
            action = self.rng.choice(info["legal_actions"])
            r = await self.request(
                "POST",
                f"/api/v1/games/{game_id}/actions",
                {"action": action, "command_id": command_id, "expected_version": info["version"]},
            )
            if r is None:
                continue
            if r.status_code == 200:
                body = r.json()
                self.acks.append(
                    Ack(game_id, command_id, seat, body["version"], [e["event"]["type"] for e in body["events"]])
                )
            elif r.status_code not in (403, 409, 422):  # 422: a deadline moved first and the hand changed
                self.errors += 1
                await asyncio.sleep(0.2)


# --- reading through a fault -------------------------------------------------------------------


async def get_json(client: ApiClient, path: str) -> dict | None:
    """The body of a 200, else None (the fault may answer anything, or nothing)."""
    try:
        r = await client.get(path)
    except httpx.HTTPError:
        return None
    return r.json() if r.status_code == 200 else None


async def until(check, timeout: float, what: str, workers, every: float = 0.2):
    """`check()`'s first true value; on timeout, fail with the workers' logs."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            logs = "".join(f"\n--- worker {i} ---\n{w.tail(3000)}" for i, w in enumerate(workers))
            raise AssertionError(f"timed out after {timeout} s waiting for {what}{logs}")
        await asyncio.sleep(every)


# --- the tournament ----------------------------------------------------------------------------


async def open_tournament(owner: ApiClient, people: list[Person]) -> str:
    """A 2-round swiss of 4-seat tables filled with house bots to 8, 1 s a
    move (the slow person's deadlines fire), with `people` registered."""
    r = await owner.post(
        TN,
        {
            "game": GAME,
            "start_ms": int(time.time() * 1000) + 2000,
            "table_size": 4,
            "format": "swiss",
            "rounds": 2,
            "bots": "fill",
            "fill_to": 8,
            "max_entrants": 8,
            "min_entrants": 2,
            "time_control": {"move_ms": 1000, "bank_ms": 0},
        },
    )
    assert r.status_code == 201, r.text
    tid = r.json()["tournament_id"]
    for person in people:
        r = await person.client.post(f"{TN}/{tid}/registrations")
        assert r.status_code == 200, r.text
    return tid


async def first_round_tables(owner: ApiClient, tid: str) -> list[dict] | None:
    paired = await get_json(owner, f"{TN}/{tid}/rounds/1")
    return paired["tables"] if paired and paired["tables"] else None


async def tournament_finished(owner: ApiClient, tid: str) -> bool:
    summary = await get_json(owner, f"{TN}/{tid}")
    return bool(summary and summary["status"] == "finished")


async def finished_games(owner: ApiClient, tid: str) -> dict[str, int]:
    """Each game of both rounds (4 tables), finished with a result: its final version."""
    all_games = set()
    for round_no in (1, 2):
        paired = await get_json(owner, f"{TN}/{tid}/rounds/{round_no}")
        assert paired is not None, round_no
        all_games |= {t["game_id"] for t in paired["tables"]}
    assert len(all_games) == 4
    finals = {}
    for game_id in all_games:
        info = await get_json(owner, f"/api/v1/games/{game_id}")
        assert info is not None and info["status"] == "finished" and info["result"], info
        finals[game_id] = info["version"]
    return finals


# --- what the log must hold --------------------------------------------------------------------


async def assert_acks_logged(conn, acks: list[Ack]) -> None:
    """Nothing acknowledged is lost: every 200 is in the log as answered,
    its events at the versions it reported."""
    for ack in acks:
        outcome = await conn.fetchval(
            "SELECT outcome FROM commands WHERE stream_id = $1 AND command_id = $2", ack.game_id, ack.command_id
        )
        assert outcome is not None, f"acknowledged command {ack.command_id} is not in the log"
        assert msgspec.json.decode(outcome)["version"] == ack.version
        first = ack.version - len(ack.types) + 1
        rows = await conn.fetch(
            "SELECT version, type FROM events WHERE stream_id = $1 AND version BETWEEN $2 AND $3 ORDER BY version",
            ack.game_id,
            first,
            ack.version,
        )
        assert [r["type"] for r in rows] == ack.types and rows[0]["version"] == first


async def deadline_moves(conn, games) -> int:
    """Moves the deadlines played for a seat in these games."""
    return await conn.fetchval(
        "SELECT count(*) FROM events WHERE type = 'hm.move_played_for_seat' AND stream_id = ANY($1::text[])",
        list(games),
    )


async def agent_moves(conn, owner: ApiClient, tid: str, agent_id: str) -> dict[int, int]:
    """Per round, the moves the agent's seats played themselves (not a deadline's or a bot's)."""
    own = {1: 0, 2: 0}
    for round_no in (1, 2):
        paired = await get_json(owner, f"{TN}/{tid}/rounds/{round_no}")
        assert paired is not None, round_no
        for t in paired["tables"]:
            if agent_id in t["seats"]:
                seat = t["seats"].index(agent_id)
                rows = await conn.fetch("SELECT command_id, outcome FROM commands WHERE stream_id = $1", t["game_id"])
                own[round_no] += sum(
                    1
                    for r in rows
                    if msgspec.json.decode(r["outcome"]).get("seat") == seat
                    and not r["command_id"].startswith(("auto:", "bot:"))
                )
    return own


async def assert_every_event_once(reader: SseReader, final: int) -> list[int]:
    """A spectator saw every event of its table once, in order, and the end: the versions it saw."""
    await asyncio.wait_for(reader.ended.wait(), 30)
    versions = [m["version"] for m in reader.game_events]
    assert versions == list(range(1, final + 1)), (
        f"duplicates {len(versions) - len(set(versions))}, "
        f"missing {sorted(set(range(1, final + 1)) - set(versions))[:10]}"
    )
    assert reader.messages[-1]["event"] == "end"
    return versions


async def one_duplicate_round_with_a_person(runtime, base_url: str, name: str) -> tuple[ApiClient, Any, str]:
    """A one-round duplicate Kabuki Tricks tournament of two 4-seat tables
    (one deal at both), a person registered and the rest house bots, started
    once its start time has come. The person's client, the person as the
    service's Player, and the tournament id."""
    from services.app.players import Player

    person = await ApiClient.register(base_url, name)
    loaded = await runtime.tournaments.create(
        None,
        {
            "game": "kabuki-tricks",
            "start_ms": int(time.time() * 1000) + 300,
            "table_size": 4,
            "format": "swiss",
            "rounds": 1,
            "duplicate": True,
            "bots": "fill",
            "fill_to": 8,
            "ranked": False,
        },
    )
    tid = loaded.tournament_id
    player = Player(person.player_id, name, "human")
    await runtime.tournaments.register(player, tid)
    deadline = time.monotonic() + 10
    while not await runtime.tournaments.start(tid):
        assert time.monotonic() < deadline, "the tournament did not start"
        await asyncio.sleep(0.05)
    return person, player, tid
