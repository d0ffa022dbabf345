"""The game service: the games' use cases, composed of one part per concern
(no part knows the whole):

- services/app/games/copies.py: this process's copies of the tables, kept
  current from the log and the lobby, read by every other part;
- services/app/games/seating.py: creating tables, taking seats, the deal;
- services/app/games/moves.py: moves, default moves, timers (through the
  command kernel, services/app/kernel.py).

The message bus's handlers (services/app/games/handlers.py) and the workers
call GameService; after each commit it marks a finished table's lobby row
and runs the commit subscribers that services/bootstrap.py lists."""

from __future__ import annotations

import logging
from collections.abc import Callable

from services.app.caps import CapPolicy
from services.app.games.cache import TableCache
from services.app.games.copies import TableCopies
from services.app.games.moves import ActionAccepted, Moves, now_ms
from services.app.games.queries import finished_record, result_shown
from services.app.games.seating import Seating
from services.app.games.tables import Outcome, Table
from services.app.kernel import Decision, Kernel
from services.app.ports import EventLog, Lobby, Transactions
from services.app.ports.notices import Notices
from services.app.seatclock import ClockDefaults
from services.infra.background import spawn
from services.infra.outages import OUTAGES

# Their callers' one import for the game service's names.
__all__ = ["ActionAccepted", "GameService", "Outcome", "finished_record", "now_ms", "result_shown"]

log = logging.getLogger("hanamichi.games")

Subscriber = Callable[[Table, list], None]


class GameService:
    def __init__(
        self,
        lobby: Lobby,
        store: EventLog,
        publisher: Notices,
        tables: TableCache,
        transactions: Transactions,
        known_version: Callable[[str], int] = lambda stream_id: 0,
        recheck_s: float = 1.0,
        caps: CapPolicy | None = None,
        clock: ClockDefaults | None = None,
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.publisher = publisher
        self.tables = tables
        self.transactions = transactions
        self.caps = caps or CapPolicy()  # what one account may hold at once
        self.clock = clock or ClockDefaults()  # every seat's clock (services/app/seatclock.py)
        self.on_commit: list[Subscriber] = []  # the commit subscribers, in order (services/bootstrap.py)
        self.kernel = Kernel(store, publisher, committed=self._committed)
        self.copies = TableCopies(lobby, store, tables, known_version, recheck_s)
        self.seating = Seating(self.copies, lobby, store, transactions, self.kernel, self.caps)
        self.moves = Moves(self.copies, store, self.kernel, self.clock)
        # The parts' use cases, as their callers name them.
        self.known_version = known_version
        self.load, self.refresh, self.read_seats = self.copies.load, self.copies.refresh, self.copies.read_seats
        self.seat_taken, self.check_embargo = self.copies.seat_taken, self.copies.check_embargo
        self.create_game, self.create_seated = self.seating.create_game, self.seating.create_seated
        self.take_seat, self.seat_bot = self.seating.take_seat, self.seating.seat_bot
        self.send_client_seed = self.seating.send_client_seed
        self.submit, self.act, self.command = self.moves.submit, self.moves.act, self.moves.command
        self.play_for_seat, self.on_timer = self.moves.play_for_seat, self.moves.on_timer

    def _committed(self, table: Table, decision: Decision) -> None:
        """After each commit (the kernel's hook, lock held): the lobby row of
        a game that just ended, then the commit subscribers."""
        if table.over and table.record.status != "finished":
            table.record.status = "finished"
            spawn(self.mark_finished(table.game_id))
        for subscriber in self.on_commit:
            subscriber(table, decision.events)

    async def mark_finished(self, game_id: str) -> None:
        try:
            await self.lobby.mark_finished(game_id)
        except Exception as exc:  # the log says it is over; the lobby row is fixed on next load
            if not OUTAGES.failed(exc, "lobby rows of finished games; fixed on next load"):
                log.warning("could not mark %s finished: %s", game_id, exc)
