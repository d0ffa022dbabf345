"""House bots play their seats by themselves, and timed transitions fire.

After every commit the table's driver (one asyncio task per live table) asks
each house-bot seat that may act for an action, submits it through the same
service function as a person's (command id `bot:<seat>:<version>`, so two
processes driving one table cannot both move), and sleeps until the next
timer when the rules make everyone wait (KM-3's stop window)."""

from __future__ import annotations

import asyncio
import logging

from services.errors import ServiceError
from services.games import GameService, now_ms
from services.tables import Table

log = logging.getLogger("hanamichi.housebots")


class HouseBots:
    def __init__(self, games: GameService, delay_ms: int = 0) -> None:
        self.games = games
        self.delay_ms = delay_ms
        games.on_commit.append(self.on_commit)
        self._closing = False

    def on_commit(self, table: Table, events: list) -> None:
        self.kick(table)

    def kick(self, table: Table) -> None:
        if self._closing or table.state is None or table.over:
            return
        # Nothing to drive at a table of people with no timer pending.
        if not any(h is not None and h.bot for h in table.seats) and table.game.next_timer(table.state) is None:
            return
        if table.driver is None or table.driver.done():
            table.driver = asyncio.create_task(self._drive(table))

    async def close(self) -> None:
        self._closing = True

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
                    legal = game.legal_actions(state, seat)
                    if not legal:
                        continue
                    view = None if getattr(bot, "blind", False) else game.view(state, seat)
                    action = bot.act(view, legal, table.bot_rng(seat))
                    if action is None:
                        continue
                    if self.delay_ms:
                        await asyncio.sleep(self.delay_ms / 1000)
                    try:
                        await self.games.act(table.game_id, seat, action, f"bot:{seat}:{version}")
                    except ServiceError as err:
                        if err.code == "too_early":
                            asked.pop(seat, None)  # ask again once the window has passed
                            continue
                        if err.code not in ("not_your_turn", "version_conflict", "game_finished"):
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
                    await self.games.on_timer(table.game_id)
                    fired = (version, due)
                asked.clear()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("house bot driver for %s stopped", table.game_id)

