"""House bots play their seats by themselves, and nothing else.

After every commit the table's driver (one asyncio task per live table with
a house bot) asks each house-bot seat that may act for an action and submits
it through the same service function as a person's (command id
`bot:<seat>:<version>`, so two processes driving one table cannot both
move). Timed transitions are not the bots' work: services/app/games/timers.py
fires them at every table, with or without bots; the driver only asks its
bots again when time alone changes what they may do (KM-3: a placer may place
once the stop window has passed), and tells the timers when every bot that
may act was asked at a version (`asked`, KM-5a).

A table must never stall. A driver that fails (PostgreSQL
restarting, say) is started again after a backoff in its own process, and
the worker's sweep (`sweep`, every 5 s) starts a driver for any table in play
whose house bot's move is awaited but that nobody moved for a few seconds
(its process died, or lost the table).

One driver at a time, over every process: a driver drives only while it
holds the table's lease (services/infra/leases.py, key and expiry in
services/infra/keys.py), renewed while it drives and released when it is
done. A driver kicked while another holds the lease ends at once; the holder,
having let go, looks at the table again, so a commit whose own driver found
the lease held is never left unanswered. A dead driver's lease lapses
within DRIVER_LEASE_MS, and the next sweep takes its table over."""

from __future__ import annotations

import asyncio
import logging

from services.app.errors import ServiceError
from services.app.games.service import GameService, now_ms
from services.app.games.tables import Table
from services.infra import keys as K
from services.infra.leases import Lease, Leases
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.housebots")

RETRY_MAX_S = 5.0


class HouseBots:
    def __init__(
        self, games: GameService, delay_ms: int = 0, people_delay_ms: int | None = None, leases: Leases | None = None
    ) -> None:
        self.games = games
        # None: no lease (a test's lone process); every service process has them.
        self.leases = leases
        self.delay_ms = delay_ms
        # Tables without their own bot_delay_ms where a person sits (a
        # tournament's): bots at a pace people can follow.
        # Never faster than the process's own delay.
        self.people_delay_ms = max(delay_ms, people_delay_ms or 0)
        self._closing = False
        self._retry_s: dict[str, float] = {}  # game id -> next backoff after a failed driver
        self._asked_at: dict[str, int] = {}  # game id -> version every bot that may act was asked at
        self.restarts = 0  # drivers started again after a failure (figures for tests)

    def on_commit(self, table: Table, events: list) -> None:
        self.kick(table)

    def delay_for(self, table: Table) -> int:
        """A table people play or watch paces its bots: its own
        bot_delay_ms (casual tables), else the people's pace where a person
        sits, else the process's (benches, all-bot tournaments, sparring)."""
        if table.record.bot_delay_ms is not None:
            return table.record.bot_delay_ms
        if any(h is not None and h.kind == "human" for h in table.seats):
            return self.people_delay_ms
        return self.delay_ms

    def kick(self, table: Table, swept: bool = False) -> None:
        if self._closing or table.state is None or table.over:
            self._asked_at.pop(table.game_id, None)
            return
        if not any(h is not None and h.bot for h in table.seats):
            return  # a table of people: nothing for house bots to do
        if table.runtime.driver is None or table.runtime.driver.done():
            table.runtime.driver = asyncio.create_task(self._drive(table, swept))

    async def close(self) -> None:
        self._closing = True

    async def asked(self, table: Table) -> bool:
        """For the timers (KM-5a): True once every house bot that may act was
        asked at the table's version (waiting for, or starting, its driver);
        False if the driver failed first."""
        if table.state is None or not any(table.bot_for(seat) is not None for seat in table.game.to_act(table.state)):
            return True
        version = table.version
        if self._asked_at.get(table.game_id) != version:
            self.kick(table)
            driver = table.runtime.driver
            if driver is not None:
                await asyncio.wait([driver])  # its failure is its own to log and retry
        return self._asked_at.get(table.game_id) == version or table.version != version

    @staticmethod
    def needs_driver(table: Table) -> bool:
        """A house bot's move is awaited. Not an optional chance (a Kabuki
        masks Stop, KM-2): a table waiting on a person is not stalled, and the
        sweep must not warn and drive it every 5 s for as long as that person
        thinks."""
        if table.state is None or table.over:
            return False
        return any(table.bot_for(seat) is not None for seat in table.game.waiting_for(table.state))

    def sweep(self, idle: list[Table]) -> int:
        """Of the tables idle past timers.STALL_S (`timers.tables_in_play`),
        start a driver for those awaiting a house bot's move that no driver
        here holds. Returns how many it kicked: a driver that finds the
        table's lease held (a live driver elsewhere) ends at once."""
        picked = 0
        for table in idle:
            if self.needs_driver(table) and (table.runtime.driver is None or table.runtime.driver.done()):
                self.kick(table, swept=True)  # it says so if it takes the table's lease: no live driver has it
                picked += 1
        return picked

    def resume(self, tables: list[Table]) -> int:
        """At start-up: the tables in play that were mid-game when a process stopped."""
        for table in tables:
            self.kick(table)
        return len(tables)

    def _failed(self, table: Table) -> None:
        """Start the table's driver again after a backoff (0.5 s doubling to 5 s)."""
        delay = self._retry_s.get(table.game_id, 0.5)
        self._retry_s[table.game_id] = min(RETRY_MAX_S, delay * 2)

        def again() -> None:
            if not self._closing and (table.runtime.driver is None or table.runtime.driver.done()):
                self.restarts += 1
                self.kick(table)

        asyncio.get_running_loop().call_later(delay, again)

    async def _drive(self, table: Table, swept: bool = False) -> None:
        try:
            while True:
                lease = self.leases.lease(K.driver_lease_key(table.game_id), K.DRIVER_LEASE_MS) if self.leases else None
                if lease is not None and not await lease.take():
                    return  # another driver has the table, and looks at it again when it lets go
                try:
                    # What the driver before did elsewhere: a commit of this
                    # process (its usual kick) left the copy current.
                    if swept:
                        log.warning("table %s stalled with no driver; driving it from here", table.game_id)
                        swept = False
                        await self.games.refresh(table, fresh=True)
                    elif self.games.known_version(table.game_id) > table.version:
                        await self.games.refresh(table)
                    done_at = await self._drive_held(table, lease)
                finally:
                    if lease is not None:
                        await lease.release()
                if lease is None or done_at is None:
                    return
                # A commit at another process while this driver held the
                # lease found it held: it came before the release, so a look
                # now sees it (and drives on if a bot's move is awaited).
                await self.games.refresh(table, fresh=True)
                if table.over or table.version == done_at or not self.needs_driver(table):
                    return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._driver_failed(table, exc)

    async def _drive_held(self, table: Table, lease: Lease | None) -> int | None:
        """Drive while holding the lease: returns the version at which every
        bot that may act was asked and none moved, or None when the game is
        over, the process closes or the lease was lost."""
        asked: dict[int, int] = {}  # seat -> version it was last asked at
        since = (-1, 0)  # (version, ms): when its bots were first asked at that version
        while not self._closing and not table.over:
            game, state, version = table.game, table.state, table.version
            if since[0] != version:
                since = (version, now_ms())
            moved = False
            for seat in sorted(game.to_act(state)):
                bot = table.bot_for(seat)
                if bot is None or asked.get(seat) == version:
                    continue
                asked[seat] = version
                # Offered at this moment only: a placer in
                # KM-3's stop window is offered Stop, not Place.
                legal = game.legal_actions(state, seat, now_ms())
                if not legal:
                    continue
                view = None if bot.blind else game.view(state, seat)
                action = bot.act(view, legal, table.bot_rng(seat))
                if action is None:
                    continue
                delay_ms = self.delay_for(table)
                if delay_ms:
                    await asyncio.sleep(delay_ms / 1000)
                if lease is not None and lease.lost:
                    return None  # another driver may have the table now: never two
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
            if moved or table.version != version:
                continue
            # Every bot that may act was asked at this version; none moved.
            due = game.next_timer(state)
            if due is not None and due > since[1]:
                # Time alone changes what they may do then (KM-3: the
                # placer may place): ask them again once it has passed.
                # The timer itself, if it writes anything, is timers.py's.
                await asyncio.sleep(max(0, due - now_ms()) / 1000 + 0.001)
                asked.clear()
                since = (version, now_ms())
                continue
            self._asked_at[table.game_id] = version
            return version  # nothing more until the next commit kicks the driver
        return None

    def _driver_failed(self, table: Table, exc: Exception) -> None:
        if not OUTAGES.failed(exc, "house bot drivers; each starts again"):
            log.warning(
                "house bot driver for %s failed (%s: %s); starting it again", table.game_id, type(exc).__name__, exc
            )
        self._failed(table)
