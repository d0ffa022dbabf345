"""This process's copies of the tables, kept current from the log and the
lobby's rows: every use case reads a table through `load` (or `refresh`s
the copy it holds), so what another API process wrote is seen here before
a decision is made on it (docs/architecture.md, "Seats")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from services.app.games.cache import TableCache, holder_from_row
from services.app.games.tables import Table, decode_outcomes
from services.app.ports import EventLog, Lobby


class TableCopies:
    def __init__(
        self,
        lobby: Lobby,
        store: EventLog,
        tables: TableCache,
        known_version: Callable[[str], int] = lambda stream_id: 0,
        recheck_s: float = 1.0,
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.tables = tables
        # The newest version the fan-out has seen for a stream (Hub.latest_version).
        self.known_version = known_version
        self.recheck_s = recheck_s
        self._refreshing: dict[str, asyncio.Future] = {}  # game id -> the catch-up query in flight

    async def refresh(self, table: Table, fresh: bool = False) -> None:
        """Catch up with events another process appended, and with the
        command ids it recorded. The copies stay current from the
        commit notices: callers refresh only when a notice (Hub.latest_version)
        says the copy is behind. Everyone who wants the same table caught up
        at once (its SSE streams, a GET, a move) shares one query: a caller
        joins the one in flight and queries again only if the fan-out still
        knows of a newer version. `fresh`: read PostgreSQL after this call
        whatever the fan-out says (a write that lost the race, a timer)."""
        game_id = table.game_id
        pending = self._refreshing.get(game_id)
        if pending is not None and not fresh:
            await asyncio.shield(pending)
            if self.known_version(game_id) <= table.version:
                return
        task = asyncio.ensure_future(self._catch_up(table))
        self._refreshing[game_id] = task
        task.add_done_callback(
            lambda done: self._refreshing.pop(game_id, None) if self._refreshing.get(game_id) is done else None
        )
        # Shielded: a client that leaves must not cancel the query others wait on.
        await asyncio.shield(task)

    async def _catch_up(self, table: Table) -> None:
        table.runtime.checked_at = time.monotonic()
        # The new events and only their commands (those past the copy's
        # version), in one round trip: a catch-up reads and decodes what is
        # new, never the whole command table.
        undealt = table.state is None
        stored, new = await self.store.read_with_commands(table.game_id, table.version)
        if stored:
            table.apply_stored(stored)
            known = table.stream.commands  # this process's own commits, already counted
            table.take_commands(decode_outcomes({key: raw for key, raw in new.items() if key not in known}))
        if undealt or not table.full:
            # After the events: a seat row is committed before the deal it
            # completes, so a copy that has read the deal reads every seat,
            # as the rows stood at the deal (a seat a leaving player's bot
            # took before it, services/app/games/leaving.py).
            await self.read_seats(table)

    async def read_seats(self, table: Table) -> None:
        """The seats as other processes set them since this copy was loaded.
        Seats live in the `seats` rows, not in the game's stream (see the
        "Seats" section of docs/architecture.md): until a table is dealt and
        full a process reads them where it decides (taking a seat, the deal,
        a read, a move); after the deal they change only through the log
        (hm.seat_handed_to_bot)."""
        status, rows = await self.lobby.seats(table.game_id)
        seats = table.record.seats
        if status == "cancelled":
            table.record.status = "cancelled"
        if table.state is None:
            # Before the deal a seat's row goes when its player leaves
            # (services/app/games/leaving.py): the seat is open again here too.
            held = {row.seat for row in rows}
            for seat in range(len(seats)):
                if seat not in held:
                    seats[seat] = None
        for row in rows:
            holder = seats[row.seat]
            # A holder the row still names keeps what the log did to it (a
            # seat handed to a bot after its strikes leaves the row as it was).
            if holder is None or holder.player_id != row.player_id:
                seats[row.seat] = holder_from_row(row)

    async def load(self, game_id: str) -> Table:
        """A table for reading: this process's copy, refreshed from PostgreSQL
        when the fan-out says another process has written since."""
        table = await self.tables.get(game_id)
        # Another process wrote (the fan-out says so), or nobody has checked
        # for a while (the fan-out may have missed it): catch up.
        if not table.full or table.state is None:
            # Seating: another process may have taken a seat, or dealt, just
            # before this read (its call has returned): ask PostgreSQL.
            await self.refresh(table, fresh=True)
        elif (
            self.known_version(game_id) > table.version or time.monotonic() - table.runtime.checked_at > self.recheck_s
        ):
            await self.refresh(table)
        if table.record.status == "open" and table.full:
            table.record.status = "playing"
        await self.check_embargo(table)
        return table

    async def seat_taken(self, table: Table, player_id: str) -> int | None:
        """The seat `player_id` holds now: this process's copy of the table, or
        PostgreSQL when another process seated them."""
        seat = table.seat_of(player_id)
        if seat is None and not table.full:
            await self.read_seats(table)
            seat = table.seat_of(player_id)
        if seat is None:
            seat = await self.lobby.seat_of(table.game_id, player_id)
        return seat

    async def check_embargo(self, table: Table) -> None:
        """A withheld finished table learns when its round has ended."""
        if table.over and table.record.embargo:
            table.record.embargo = await self.lobby.embargoed(table.game_id)
