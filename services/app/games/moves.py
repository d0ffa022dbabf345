"""Game commands: a seat's move (`act`, and `submit` for the API), the
default move played for a seat that missed its turn, a due timer. Each is a
decision handed to the command kernel (services/app/kernel.py), which owns
the loop (decide on the copy, append with the expected version, catch up and
decide again after a conflict, publish). GameService
(services/app/games/service.py) holds one."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import msgspec

from engines.core import Ctx, RuleError
from services.app.errors import BadRequest, Conflict, Forbidden
from services.app.games import queries
from services.app.games.clocks import is_person, person_bank_left, person_overdraft, rules_at
from services.app.games.copies import TableCopies
from services.app.games.events import (
    GameFinished,
    MovePlayedForSeat,
    SeatHandedToBot,
    SeatRecord,
    places_after_forfeits,
)
from services.app.games.tables import Outcome, Table, engine_events
from services.app.kernel import Decision, Kernel
from services.app.players import Player
from services.app.ports import EventLog
from services.app.seatclock import ClockDefaults
from services.infra import keys as K
from services.infra import logs, metrics
from services.infra.keys import SERVER_PREFIXES


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class ActionAccepted(msgspec.Struct, frozen=True):
    """A submitted move: the version it reached and the events it wrote, as
    its seat may see them, and `chain_head`, the log's chain hash at that
    version: the player's receipt (engines/chain.py; null for a game stored
    before the log was chained)."""

    version: int
    events: list[dict]
    chain_head: str | None = None


class Moves:
    def __init__(self, copies: TableCopies, store: EventLog, kernel: Kernel, clock: ClockDefaults) -> None:
        self.tables = copies.tables
        self.refresh = copies.refresh
        self.known_version = copies.known_version
        self.store = store
        self.kernel = kernel
        self.clock = clock  # every seat's clock (services/app/seatclock.py)

    async def submit(
        self,
        game_id: str,
        player: Player,
        raw_action: Any,
        command_id: str,
        expected_version: int | None = None,
    ) -> ActionAccepted:
        """A person's or agent's move over the API. A retried command id
        gets the same answer as the first time."""
        table, outcome, events = await self.act(game_id, player, raw_action, command_id, expected_version)
        written = events or table.events[outcome.first - 1 : outcome.version]
        return ActionAccepted(
            outcome.version,
            queries.redacted(table, outcome.seat, outcome.first, written),
            table.chain_head(outcome.version),
        )

    async def act(
        self,
        game_id: str,
        seat_or_player: Player | int,
        raw_action: Any,
        command_id: str,
        expected_version: int | None = None,
        received_ms: int | None = None,
    ) -> tuple[Table, Outcome, list]:
        """Decide and append one command. `seat_or_player` is a Player (API)
        or a seat number (house bots, workers). Returns the outcome and the
        events it wrote (full; the caller redacts; none for a retry)."""
        if not command_id or len(command_id) > 100 or not command_id.isprintable():
            raise BadRequest("bad_command_id", "command_id is 1 to 100 printable characters")
        received_ms = now_ms() if received_ms is None else received_ms
        table = await self.tables.get(game_id)
        person = not isinstance(seat_or_player, int)
        if person and not table.full:
            # A seat taken at another process is in PostgreSQL, not yet in
            # this copy (seats are not in the game's stream): read them.
            await self.refresh(table, fresh=True)
        seat: int
        if isinstance(seat_or_player, int):
            seat = seat_or_player
        else:
            held = table.seat_of(seat_or_player.player_id)
            if held is None:
                raise Forbidden("not_seated", "you hold no seat at this table")
            if command_id.startswith(SERVER_PREFIXES):
                raise BadRequest(
                    "bad_command_id", f"command ids starting with {', '.join(SERVER_PREFIXES)} are the server's"
                )
            seat = held
        logs.bind(seat=seat)  # the request's log lines (services/infra/logs.py)
        action = raw_action if isinstance(raw_action, msgspec.Struct) else None  # house bots pass engine actions

        async def decide() -> Decision:
            nonlocal action
            # Command ids are per seat: another seat's
            # id never blocks this one, so nobody can squat an id.
            if table.state is None:
                await self.refresh(table, fresh=True)  # the deal may have been made at another process
            elif self.known_version(game_id) > table.version:
                # A commit notice says another process moved the table on:
                # catch up before deciding (no query when nothing was said).
                await self.refresh(table)
            if expected_version is not None and expected_version != table.version:
                await self.refresh(table, fresh=True)  # our copy may be behind another process
            # Looked up after every catch-up (the kernel calls decide again
            # after each): a retry of a command that another process applied
            # is known here only once its events are, and gets its stored
            # answer, never a refusal from the state its own move changed.
            stored = table.stream.commands.get((seat, command_id))
            if stored is not None:
                return Decision([], result=stored)
            if expected_version is not None and expected_version != table.version:
                raise Conflict(
                    "version_conflict",
                    f"the game is at version {table.version}, not {expected_version}",
                    version=table.version,
                )
            self._check_playing(table)
            if person and (holder := table.seats[seat]) is not None and holder.bot is not None:
                raise Forbidden("seat_played_by_bot", "a house bot plays your seat for the rest of this game")
            if action is None:
                try:
                    action = table.game.decode_action(raw_action)
                except RuleError as err:
                    raise BadRequest(err.code, err.message) from None
            # Read before the move: its cost is the turn's, on the table it answers.
            drawn = await person_overdraft(self.store, table, seat, received_ms, self.clock)
            # A refusal here may come from a copy whose notice of another
            # process's commit is still on its way: the kernel looks once.
            return self.command(
                table,
                seat,
                command_id,
                table.game.decide(table.state, seat, action, Ctx(received_ms)),
                bank_drawn_ms=drawn,
            )

        decision = await self.kernel.run(
            table,
            decide,
            catch_up=lambda: self.refresh(table, fresh=True),
            moved_on=lambda: Conflict("version_conflict", "the game moved on; try again", version=table.version),
            refusal=lambda: {"version": table.version},
        )
        assert decision is not None  # only a run that gives way ends without a decision
        if not decision.events:
            return table, decision.result, []
        return table, decision.outcome, decision.events

    @staticmethod
    def _check_playing(table: Table) -> None:
        if table.state is None:
            raise Conflict("game_not_started", "the game starts when every seat is taken")
        if table.over:
            raise Conflict("game_finished", "this game is over")

    async def play_for_seat(
        self,
        game_id: str,
        seat: int,
        reason: str,
        due_version: int | None = None,
        detail: str = "",
        strike_limit: int | None = None,
    ) -> bool:
        """Play the default move for a seat that did not move in time or
        whose agent failed, and record why. The default move is a uniformly
        random legal action drawn from the game's seed (Table.bot_rng): a
        failing seat must never play better than a working one (the
        house `heuristic` used to play here and beat most bots), and the move
        is an event in the log, so a replay is exact.
        The strike limit is the seat's (services/app/seatclock.py; a test
        may pass its own), and a person's move played for them spends what
        was left of their bank, as an agent's timeout does.
        Idempotent: nothing happens unless the game is still at `due_version`
        (when given) and waiting for that seat. Returns whether it moved."""
        table = await self.tables.get(game_id)

        async def decide() -> Decision:
            await self.refresh(table)
            if table.over or table.state is None or (due_version is not None and table.version != due_version):
                return Decision([])
            game = table.game
            if seat not in game.waiting_for(table.state):
                return Decision([])
            now = now_ms()
            legal = game.legal_actions(table.state, seat, now)
            if not legal or legal != game.legal_actions(table.state, seat):
                # Not all of its choices are open yet (a Kabuki masks placer
                # in the stop window, KM-3): no move is due, and a Stop played
                # for a placer would be no default. The sweep re-arms it.
                return Decision([])
            events = game.decide(table.state, seat, table.bot_rng(seat).choice(legal), Ctx(now))
            strikes = table.runtime.strikes.get(seat, 0) + 1
            prefix: list = [MovePlayedForSeat(seat, reason, strikes, detail)]
            holder = table.seats[seat]  # a started game's seats are all held
            rules = rules_at(table, seat, self.clock)
            limit = strike_limit if strike_limit is not None else (rules or self.clock).strike_limit
            if strikes >= limit and holder is not None and holder.bot is None:
                prefix.append(SeatHandedToBot(seat, "heuristic", f"{strikes} {reason} in a row"))
            spent = person_bank_left(table, seat, rules) if rules is not None and is_person(table, seat) else 0
            return self.command(
                table, seat, K.auto_command_id(seat, table.version), prefix + events, bank_drawn_ms=spent
            )

        decision = await self._give_way(table, decide)
        if decision is None or not decision.events:
            return False
        metrics.STRIKES.labels(reason).inc()
        return True

    async def on_timer(self, game_id: str, at_version: int | None = None) -> None:
        """Apply a due timed transition (KM-5), idempotently; with
        `at_version`, only if the game is still at that version (the caller
        asked its house bots there first, KM-5a)."""
        table = await self.tables.get(game_id)

        async def decide() -> Decision:
            await self.refresh(table)
            if at_version is not None and table.version != at_version:
                return Decision([])
            due = table.game.next_timer(table.state) if table.state is not None and not table.over else None
            if due is None or due > now_ms():
                return Decision([])
            events = table.game.on_timer(table.state, Ctx(now_ms()))
            return self.command(table, None, K.timer_command_id(table.version), events) if events else Decision([])

        await self._give_way(table, decide)

    async def _give_way(self, table: Table, decide) -> Decision | None:
        """A command of the server's own that another process may carry out
        as well (a default move, a timer): a conflict ends it."""
        return await self.kernel.run(
            table,
            decide,
            catch_up=lambda: self.refresh(table, fresh=True),
            give_way=True,
            attempts=1,
            moved_on=lambda: Conflict("version_conflict", "the game moved on", version=table.version),
        )

    def command(
        self, table: Table, seat: int | None, command_id: str, events: list, bank_drawn_ms: int = 0
    ) -> Decision:
        """A command's events with its outcome, plus the table's
        GameFinished in the same commit when they end the game.
        `bank_drawn_ms`: what it took from a person's bank."""
        after = table.game.fold(engine_events(events), table.state)
        if table.game.is_over(after):
            events = [*events, self._finished_event(table, after, events)]
        outcome = Outcome(table.version + len(events), table.version + 1, seat, bank_drawn_ms)
        return Decision(events, command_id, outcome, seat, state_after=after)

    def _finished_event(self, table: Table, state: Any, events: Sequence[Any] = ()) -> GameFinished:
        # A person's or agent's seat a house bot took over (before, or in this very commit).
        handed = {e.seat for e in events if isinstance(e, SeatHandedToBot)}
        forfeited = sorted(
            h.seat for h in table.seats if h is not None and h.kind != "bot" and (h.bot is not None or h.seat in handed)
        )
        result = table.game.result(state)
        return GameFinished(
            forfeited=forfeited,
            table_places=places_after_forfeits(result.places, forfeited) if forfeited else None,
            game=table.game.name,
            ranked=table.record.ranked,
            seats=[
                # No name: an event never carries one (a person may delete
                # their account; names are joined at read, services/app/upcast.py).
                SeatRecord(
                    h.seat,
                    "bot" if h.kind == "bot" else h.kind,
                    h.player_id,
                    h.bot if h.kind == "bot" else None,
                    h.name if h.kind == "bot" else None,
                )
                for h in table.seats
                if h is not None
            ],
            result=result,
            tournament_id=table.tournament_id,
            server_seed=table.record.seed if table.record.salt is not None else None,
        )
