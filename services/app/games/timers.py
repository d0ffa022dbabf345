"""Timed transitions fire by themselves, whoever sits at the table.

A rule that waits on the clock (Kabuki masks: the deck's last card ends the
round once its stop window has passed, KM-5; a log written while the next hand or
round was still a timer may also wait at a Tezuma hand's or a masks round's
end) is the engine's `next_timer` / `on_timer`. Here every table with a timer
pending gets one task (in the process that committed, from `on_commit`) that sleeps until the timer
is due and applies it through `GameService.on_timer`. So a table of people
moves on by itself, with no house bot and no house-bot driver involved.

- Exactly once across processes: `on_timer` appends at the version the timer
  was due at, with that version expected and a command id of its own
  (`timer:<version>`); a second process's attempt is a conflict and does nothing.
- House bots first (KM-5a): with a window of 0 (bot tables) the round-ending
  timer is due at once, yet every house bot at the table gets its chance at
  the last card first. `bots_asked(table)` (HouseBots.asked, wired in
  services/bootstrap.py) returns once the bots that may act were asked at the
  table's version; the timer then fires only if nothing was played since.
- Never stalled: a task that fails (PostgreSQL restarting)
  is started again after a backoff, and the worker's sweep (`sweep`, every
  5 s, over `tables_in_play`) starts one for any table whose due timer would
  write something but that has written nothing for a few seconds (its
  process died)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from engines.core import Ctx
from services.app.games.service import GameService, now_ms
from services.app.games.tables import Table
from services.infra.background import spawn
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.timers")

# A table that should have moved by itself (a due timer, a house bot's move),
# untouched this long, has lost whatever was to move it: the sweep takes it.
STALL_S = 3.0
RETRY_MAX_S = 5.0


async def tables_in_play(games: GameService, idle_s: float = 0.0) -> list[Table]:
    """Every table in play that has written nothing for `idle_s` (0: all of
    them, at start-up), for the sweeps of the timers and the house bots. A
    table whose log ended but whose row missed it (PostgreSQL went away right
    after the last commit) is marked finished instead (then the reconcile
    sweep records it)."""
    tables = []
    for game_id, idle in await games.lobby.playing():
        if idle_s and idle is not None and idle < idle_s:
            continue
        try:
            table = await games.load(game_id)
        except Exception as exc:
            if not OUTAGES.failed(exc, "tables resumed at start"):
                log.warning("could not load %s: %s", game_id, exc)
            continue
        if table.over:
            await games.mark_finished(table.game_id)
        else:
            tables.append(table)
    return tables


def due_now(table: Table) -> bool:
    """A timer is due and would write events: not one that has passed with
    nothing to do (KM-3's window while a person places, which is only a wait
    for the placer; a table waiting on a person is not stalled)."""
    if table.state is None or table.over:
        return False
    game, state, now = table.game, table.state, now_ms()
    due = game.next_timer(state)
    return due is not None and due <= now and bool(game.on_timer(state, Ctx(now)))


async def _nobody(table: Table) -> bool:
    return True


class Timers:
    def __init__(self, games: GameService, bots_asked: Callable[[Table], Awaitable[bool]] = _nobody) -> None:
        self.games = games
        self.bots_asked = bots_asked
        self._tasks: dict[str, asyncio.Task] = {}  # game id -> its timer task
        self._retry_s: dict[str, float] = {}  # game id -> next backoff after a failed task
        self._closing = False
        self.restarts = 0  # tasks started again after a failure (figures for tests)

    def on_commit(self, table: Table, events: list) -> None:
        self.kick(table)

    def kick(self, table: Table) -> None:
        if self._closing or table.state is None or table.over:
            return
        # Only a timer that will write something once due: not KM-3's window
        # while a seat is to place (only a wait for the placer), so a table of
        # people holds no task for every card placed.
        game, state = table.game, table.state
        due = game.next_timer(state)
        if due is None or not game.on_timer(state, Ctx(max(due, now_ms()))):
            return
        game_id = table.game_id
        task = self._tasks.get(game_id)
        if task is None or task.done():
            task = self._tasks[game_id] = asyncio.create_task(self._run(game_id))
            task.add_done_callback(
                lambda done: self._tasks.pop(game_id, None) if self._tasks.get(game_id) is done else None
            )

    def pending(self, game_id: str) -> bool:
        task = self._tasks.get(game_id)
        return task is not None and not task.done()

    def resume(self, tables: list[Table]) -> int:
        """At start-up: every table in play with a timer pending."""
        for table in tables:
            self.kick(table)
        return sum(1 for table in tables if self.pending(table.game_id))

    def sweep(self, idle: list[Table]) -> int:
        """Of the tables idle past STALL_S, those whose due timer would write
        events and that no task here holds: start one. Returns how many."""
        picked = 0
        for table in idle:
            if due_now(table) and not self.pending(table.game_id):
                log.warning("table %s has a timer due and nothing firing it; firing it from here", table.game_id)
                self.kick(table)
                picked += 1
        return picked

    async def close(self) -> None:
        self._closing = True

    async def _run(self, game_id: str) -> None:
        """Until the table waits on nothing but a seat: sleep to the next
        timer, then fire it at the version it was due at. A commit meanwhile
        (a Stop, a placement) only changes what the next loop reads."""
        fired: tuple[int, int] | None = None  # (version, due) of the timer last fired
        try:
            while not self._closing:
                table = await self.games.load(game_id)
                if table.state is None or table.over:
                    return
                game, version = table.game, table.version
                due = game.next_timer(table.state)
                if due is None or fired == (version, due):
                    return  # nothing more until the next commit kicks the table
                wait_ms = due - now_ms()
                if wait_ms > 0:
                    await asyncio.sleep(wait_ms / 1000 + 0.001)
                    continue
                fired = (version, due)
                if not game.on_timer(table.state, Ctx(now_ms())):
                    continue  # passed with nothing to do (KM-3 while a seat places)
                if not await self.bots_asked(table):
                    fired = None
                    await asyncio.sleep(0.5)  # their driver failed: it retries, so do we
                    continue
                if table.version == version:  # nothing played while the bots thought (KM-5a)
                    await self.games.on_timer(game_id, version)
                self._retry_s.pop(game_id, None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not OUTAGES.failed(exc, "table timers; each starts again"):
                log.warning("timer for %s failed (%s: %s); starting it again", game_id, type(exc).__name__, exc)
            self._failed(game_id)

    def _failed(self, game_id: str) -> None:
        """Start the table's timer task again after a backoff (0.5 s doubling to 5 s)."""
        delay = self._retry_s.get(game_id, 0.5)
        self._retry_s[game_id] = min(RETRY_MAX_S, delay * 2)

        async def again() -> None:
            await asyncio.sleep(delay)
            if self._closing or self.pending(game_id):
                return
            self.restarts += 1
            try:
                self.kick(await self.games.load(game_id))
            except Exception as exc:  # still down: later, with a longer backoff
                if not OUTAGES.failed(exc, "table timers; each starts again"):
                    log.warning("timer for %s not restarted yet (%s)", game_id, exc)
                self._failed(game_id)

        spawn(again())
