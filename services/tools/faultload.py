"""The steady play of `hanamichi bench faults` (services/tools/bench_faults.py):
tables of every game, each with two people over HTTP and a house bot, one
after the other in each slot, and a spectator per table on SSE.

Every request goes on a fresh connection, so either API process may answer
it. A move carries a command id; an answer lost to a dropped connection, a
timeout or a 503 is asked again with the same command id (and body), which
the service answers from the stored outcome if the first attempt was
applied. What the people were told (acknowledgements) and what the
spectators saw are kept for the checks against the log."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

HOST = "127.0.0.1"
GAMES = ("kabuki-tricks", "kabuki-masks", "cahoots", "tezuma-trick")
LOST = (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError, ValueError, IndexError)


async def once(
    host: str, port: int, method: str, path: str, body: Any = None, token: str | None = None, timeout_s: float = 15.0
) -> tuple[int, Any, dict]:
    """One request on a connection of its own, closed after the answer."""
    from services.tools.loadclient import HttpConnection

    conn = HttpConnection(host, port)
    try:
        return await asyncio.wait_for(conn._request(method, path, body, token), timeout_s)
    finally:
        conn.close()


@dataclass
class Tally:
    """Every answer the load was given, by status, and the answers it lost."""

    statuses: Counter = field(default_factory=Counter)
    with_retry_after: int = 0  # 503s that said when to come back
    lost: int = 0  # connection refused or dropped, or no answer in time
    retries: int = 0
    gave_up: int = 0  # requests still unanswered after their time budget

    def report(self) -> dict:
        return {
            "answers_by_status": {str(k): v for k, v in sorted(self.statuses.items())},
            "answers_500": sum(v for k, v in self.statuses.items() if k >= 500 and k != 503),
            "answers_503": self.statuses[503],
            "answers_503_with_retry_after": self.with_retry_after,
            "lost_answers": self.lost,
            "retries": self.retries,
            "requests_given_up": self.gave_up,
        }


class Client:
    """Requests that are asked again, bounded in time, until they get an answer other than 503."""

    def __init__(self, port: int, tally: Tally) -> None:
        self.port, self.tally = port, tally

    async def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, budget_s: float = 120.0
    ) -> tuple[int, Any] | None:
        deadline = time.monotonic() + budget_s
        pause = 0.2
        for attempt in range(1000):  # bounded in count as well as in time
            if attempt:
                self.tally.retries += 1
            try:
                status, reply, headers = await once(HOST, self.port, method, path, body, token)
            except LOST:
                self.tally.lost += 1
            else:
                self.tally.statuses[status] += 1
                if status != 503:
                    return status, reply
                if "retry-after" in headers:
                    self.tally.with_retry_after += 1
                    pause = min(float(headers["retry-after"]), 2.0)
            if time.monotonic() + pause > deadline:
                break
            await asyncio.sleep(pause)
            pause = min(2.0, pause * 1.5)
        self.tally.gave_up += 1
        return None


@dataclass(frozen=True)
class Ack:
    game_id: str
    command_id: str
    seat: int
    version: int  # the version the answer said the move reached
    events: int


@dataclass
class Spectator:
    """One anonymous SSE stream on a table, resumed with Last-Event-ID after every break."""

    game_id: str
    versions: list[int] = field(default_factory=list)
    reconnects: int = 0
    ended: bool = False
    causes: Counter = field(default_factory=Counter)  # why each stream ended before `end`

    async def watch(self, port: int, deadline: float) -> None:
        from services.tools.loadclient import HttpConnection

        last: str | None = None
        while not self.ended and time.monotonic() < deadline:
            conn = HttpConnection(HOST, port)
            try:
                events = conn.sse(f"/api/v1/games/{self.game_id}/stream", last_event_id=last)
                while True:  # keep-alives come every few seconds: a silent minute is a dead stream
                    event, event_id, data = await asyncio.wait_for(anext(events), 60)
                    if event_id:
                        last = event_id
                    if event == "game":
                        self.versions.append(data["version"])
                    elif event == "end":
                        self.ended = True
                        return
            except (*LOST, StopAsyncIteration, KeyError) as exc:
                self.reconnects += 1
                self.causes[str(exc) if "refused" in str(exc) else type(exc).__name__] += 1
                await asyncio.sleep(0.3)
            finally:
                conn.close()


@dataclass
class Person:
    client: Client
    token: str
    rng: random.Random
    acks: list[Ack]
    sent: dict[str, set[str]]  # game -> every command id sent there, answered or not
    refused: Counter
    last_seen: dict = field(default_factory=dict)  # the table as this person read it last

    async def play(self, game_id: str, seat: int, deadline: float, think_s: float) -> bool:
        """Until the table finishes (True) or the deadline: read it, and move when it is our turn."""
        path = f"/api/v1/games/{game_id}"
        while time.monotonic() < deadline:
            answer = await self.client.call("GET", path, token=self.token, budget_s=60)
            if answer is None or answer[0] != 200:
                await asyncio.sleep(0.5)
                continue
            info = answer[1]
            self.last_seen = {k: info.get(k) for k in ("game_id", "game", "status", "version", "to_act", "your_seat")}
            if info["status"] == "finished":
                return True
            if seat in info["to_act"] and info["legal_actions"]:
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * think_s)
                await self.move(game_id, seat, self.rng.choice(info["legal_actions"]), info["version"])
            else:
                await asyncio.sleep(think_s)
        return False

    async def move(self, game_id: str, seat: int, action: Any, version: int) -> None:
        command_id = uuid.uuid4().hex
        self.sent.setdefault(game_id, set()).add(command_id)
        body = {"action": action, "command_id": command_id, "expected_version": version}
        answer = await self.client.call("POST", f"/api/v1/games/{game_id}/actions", body, self.token)
        if answer is None:
            return
        status, reply = answer
        if status == 200:
            self.acks.append(Ack(game_id, command_id, seat, reply["version"], len(reply["events"])))
        else:  # the table moved on first (a stale version): the person reads it again
            self.refused[status] += 1


@dataclass
class Load:
    """Slots playing table after table until `stop`; what they were told and saw."""

    port: int
    think_s: float
    # Kabuki Masks' stop window on the load's tables (None: the game's default,
    # 2 s, between any two placements: a masks table is the longest to play).
    masks_stop_window_ms: int | None = None
    tally: Tally = field(default_factory=Tally)
    acks: list[Ack] = field(default_factory=list)
    sent: dict[str, set[str]] = field(default_factory=dict)
    refused: Counter = field(default_factory=Counter)
    spectators: list[Spectator] = field(default_factory=list)
    tables: dict[str, str] = field(default_factory=dict)  # game id -> game
    finished: int = 0
    unfinished: int = 0
    stuck: list[dict] = field(default_factory=list)  # unfinished tables as the people saw them last
    unfinished_ids: list[str] = field(default_factory=list)  # game ids of the tables the people stopped playing
    setup_failures: int = 0
    run: str = field(default_factory=lambda: uuid.uuid4().hex[:6])  # unique names on a reused database

    async def slot(self, n: int, stop: float, table_s: float) -> None:
        client = Client(self.port, self.tally)
        people = []
        for p in range(2):
            answer = await client.call("POST", "/api/v1/players", {"name": f"faults{self.run}-{n}-{p}"})
            if answer is None or answer[0] != 201:
                self.setup_failures += 1
                return
            people.append(
                Person(client, answer[1]["token"], random.Random(n * 2 + p), self.acks, self.sent, self.refused)
            )
        table = 0
        while time.monotonic() < stop:
            game = GAMES[(n + table) % len(GAMES)]
            table += 1
            game_id = await self._set_table(client, people, game)
            if game_id is None:
                self.setup_failures += 1
                await asyncio.sleep(1)
                continue
            spectator = Spectator(game_id)
            self.spectators.append(spectator)
            deadline = min(time.monotonic() + table_s, stop + table_s)
            watching = asyncio.create_task(spectator.watch(self.port, deadline + 30))
            played = await asyncio.gather(
                *(p.play(game_id, seat, deadline, self.think_s) for seat, p in enumerate(people))
            )
            if all(played):
                self.finished += 1
            else:
                self.unfinished += 1
                self.unfinished_ids.append(game_id)
                self.stuck.append(people[0].last_seen)
            # A finished table's stream ends (its "end" event) within moments; an
            # unfinished one waits for a person, so its stream has no end to wait for:
            # a few seconds cover a table that ends on the service's move just after.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watching), 30 if all(played) else 3)
            watching.cancel()

    async def _set_table(self, client: Client, people: list[Person], game: str) -> str | None:
        """Two people and a house bot at a new table of `game`: its id once it is dealt."""
        owner = people[0].token
        body: dict[str, Any] = {"game": game, "players": 3, "bot_delay_ms": 100}
        if game == "kabuki-masks" and self.masks_stop_window_ms is not None:
            body["options"] = {"stop_window_ms": self.masks_stop_window_ms}
        created = await client.call("POST", "/api/v1/games", body, owner)
        if created is None or created[0] != 201:
            return None  # a lost answer may leave an empty table behind: it is not played
        game_id = created[1]["game_id"]
        for seat, person in enumerate(people):
            taken = await client.call("POST", f"/api/v1/games/{game_id}/seats", {"seat": seat}, person.token)
            if taken is None or (taken[0] != 200 and not await self._seated(client, game_id, person.token, seat)):
                return None
        bot = await client.call("POST", f"/api/v1/games/{game_id}/bots", {"seat": 2, "bot": "random"}, owner)
        if bot is None or (bot[0] != 200 and not await self._seated(client, game_id, owner, None)):
            return None
        self.tables[game_id] = game
        return game_id

    async def _seated(self, client: Client, game_id: str, token: str, seat: int | None) -> bool:
        """A repeated request refused because the first one did it: the seat
        is ours (or, for the bot's seat, the table was dealt)."""
        answer = await client.call("GET", f"/api/v1/games/{game_id}", token=token)
        if answer is None or answer[0] != 200:
            return False
        if seat is None:
            return answer[1]["status"] != "open"
        return answer[1].get("your_seat") == seat
