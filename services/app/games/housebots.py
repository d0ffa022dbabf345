"""House bots play their seats by themselves, and timed transitions fire.

After every commit the table's driver (one asyncio task per live table) asks
each house-bot seat that may act for an action, submits it through the same
service function as a person's (command id `bot:<seat>:<version>`, so two
processes driving one table cannot both move), and sleeps until the next
timer when the rules make everyone wait (KM-3's stop window).

A table must never stall (issue 11, item 8). A driver that fails (PostgreSQL
restarting, say) is started again after a backoff in its own process, and
the worker's sweep (`sweep`, every 5 s) starts a driver for any table in play
that a house bot or a due timer should have moved but nobody did for a few
seconds (its process died, or lost the table)."""

from __future__ import annotations

import asyncio
import logging

from engines.core import Ctx
from services.app.errors import ServiceError
from services.infra import keys as K
from services.app.games.service import GameService, now_ms
from services.app.games.tables import Table

log = logging.getLogger("hanamichi.housebots")

# A table a house bot or a due timer should move, untouched this long, has no
# working driver: the sweep gives it one.
STALL_S = 3.0
RETRY_MAX_S = 5.0


class HouseBots:
    def __init__(self, games: GameService, delay_ms: int = 0, people_delay_ms: int | None = None) -> None:
        self.games = games
        self.delay_ms = delay_ms
        # Tables without their own bot_delay_ms where a person sits (a
        # tournament's): bots at a pace people can follow (issue 14).
        # Never faster than the process's own delay.
        self.people_delay_ms = max(delay_ms, people_delay_ms or 0)
        self._closing = False
        self._retry_s: dict[str, float] = {}  # game id -> next backoff after a failed driver
        self.restarts = 0  # drivers started again after a failure (figures for tests)

    def on_commit(self, table: Table, events: list) -> None:
        self.kick(table)

    def delay_for(self, table: Table) -> int:
        """A table people play or watch paces its bots (issue 14): its own
        bot_delay_ms (casual tables), else the people's pace where a person
        sits, else the process's (benches, all-bot tournaments, sparring)."""
        if table.record.bot_delay_ms is not None:
            return table.record.bot_delay_ms
        if any(h is not None and h.kind == "human" for h in table.seats):
            return self.people_delay_ms
        return self.delay_ms

    def kick(self, table: Table) -> None:
        if self._closing or table.state is None or table.over:
            return
        # Nothing to drive at a table of people with no timer pending.
        if not any(h is not None and h.bot for h in table.seats) and table.game.next_timer(table.state) is None:
            return
        if table.runtime.driver is None or table.runtime.driver.done():
            table.runtime.driver = asyncio.create_task(self._drive(table))

    async def close(self) -> None:
        self._closing = True

    @staticmethod
    def needs_driver(table: Table) -> bool:
        """A house bot's move is awaited, or a due timer would write events.
        Not an optional chance (a Kabuki masks Stop, KM-2) nor a timer that
        has passed with nothing to do (KM-3's window while a person places):
        a table waiting on a person is not stalled, and the sweep must not
        warn and drive it every 5 s for as long as that person thinks."""
        if table.state is None or table.over:
            return False
        game, state = table.game, table.state
        if any(table.bot_for(seat) is not None for seat in game.waiting_for(state)):
            return True
        due = game.next_timer(state)
        now = now_ms()
        return due is not None and due <= now and bool(game.on_timer(state, Ctx(now)))

    async def sweep(self, stall_s: float = STALL_S) -> int:
        """Start a driver for every table in play that should have moved
        (`needs_driver`) but has written nothing for `stall_s`; mark finished
        the tables whose log ended but whose row missed it (PostgreSQL went
        away right after the last commit). Returns how many it picked up."""
        rows = await self.games.pool.fetch(
            "SELECT g.game_id::text AS id, extract(epoch FROM now() - (SELECT e.recorded_at FROM events e"
            " WHERE e.stream_id = g.game_id::text ORDER BY e.version DESC LIMIT 1)) AS idle_s"
            " FROM games g WHERE g.status = 'playing'"
        )
        picked = 0
        for row in rows:
            if row["idle_s"] is not None and row["idle_s"] < stall_s:
                continue
            try:
                table = await self.games.load(row["id"])
            except Exception as exc:
                log.warning("sweep could not load %s: %s", row["id"], exc)
                continue
            if table.over:
                await self.games._mark_finished(table.game_id)  # then the reconcile sweep records it
                picked += 1
            elif self.needs_driver(table) and (table.runtime.driver is None or table.runtime.driver.done()):
                log.warning("table %s stalled %.0f s with no driver; driving it from here", table.game_id, row["idle_s"] or 0)
                self.kick(table)
                picked += 1
        return picked

    def _failed(self, table: Table) -> None:
        """Start the table's driver again after a backoff (0.5 s doubling to 5 s)."""
        delay = self._retry_s.get(table.game_id, 0.5)
        self._retry_s[table.game_id] = min(RETRY_MAX_S, delay * 2)

        def again() -> None:
            if not self._closing and (table.runtime.driver is None or table.runtime.driver.done()):
                self.restarts += 1
                self.kick(table)

        asyncio.get_running_loop().call_later(delay, again)

    async def resume_all(self) -> int:
        """At start-up: tables that were mid-game when a process stopped."""
        # Every game in play: kick() itself skips tables with no house bot
        # and no timer pending (any game may have timers, e.g. KM-5, TT hands).
        rows = await self.games.pool.fetch("SELECT game_id::text AS id FROM games WHERE status = 'playing'")
        for row in rows:
            try:
                self.kick(await self.games.load(row["id"]))
            except Exception as exc:
                log.warning("could not resume %s: %s", row["id"], exc)
        return len(rows)

    async def _drive(self, table: Table) -> None:
        asked: dict[int, int] = {}  # seat -> version it was last asked at
        fired: tuple[int, int] | None = None  # (version, due) of the timer already fired
        try:
            while not self._closing and not table.over:
                game, state, version = table.game, table.state, table.version
                moved = False
                for seat in sorted(game.to_act(state)):
                    bot = table.bot_for(seat)
                    if bot is None or asked.get(seat) == version:
                        continue
                    asked[seat] = version
                    # Offered at this moment only (item 19): a placer in
                    # KM-3's stop window is offered Stop, not Place.
                    legal = game.legal_actions(state, seat, now_ms())
                    if not legal:
                        continue
                    view = None if getattr(bot, "blind", False) else game.view(state, seat)
                    action = bot.act(view, legal, table.bot_rng(seat))
                    if action is None:
                        continue
                    delay_ms = self.delay_for(table)
                    if delay_ms:
                        await asyncio.sleep(delay_ms / 1000)
                    try:
                        await self.games.act(table.game_id, seat, action, K.bot_command_id(seat, version))
                        self._retry_s.pop(table.game_id, None)  # working again: the next failure retries soon
                    except ServiceError as err:
                        if err.code == "too_early":
                            asked.pop(seat, None)  # ask again once the window has passed
                            continue
                        if err.status >= 500:
                            raise  # storage_unavailable: nothing was written; start again later
                        # too_late: the last card's window closed while it thought (KM-5a).
                        if err.code not in ("not_your_turn", "version_conflict", "game_finished", "too_late"):
                            log.warning("house bot %s at %s refused: %s", seat, table.game_id, err.message)
                    moved = True
                    break
                if moved:
                    continue
                if table.version != version:
                    continue
                due = game.next_timer(state)
                if due is None or fired == (version, due):
                    return  # nothing more until the next commit kicks the driver
                await asyncio.sleep(max(0, due - now_ms()) / 1000 + 0.001)
                if table.version == version:
                    # Only at the version every bot was just asked at: a
                    # timer that ends a round must not overtake the bots'
                    # chance at a newer last card (KM-5a), e.g. when this
                    # copy of the table was behind another process's.
                    await self.games.on_timer(table.game_id, version)
                    fired = (version, due)
                asked.clear()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("house bot driver for %s failed (%s: %s); starting it again", table.game_id, type(exc).__name__, exc)
            self._failed(table)

