"""A process's live copy of one game, in three parts: the lobby
record (the `games` and `seats` rows), the folded stream (version, state,
decoded log, command outcomes) and this process's runtime (lock, bots,
driver, strikes). PostgreSQL stays the truth; a table that another process
moved on is caught up from it when a commit notice says the copy is behind
(GameService.refresh), and the version check on append is the
backstop for a notice still on its way. (A little over 300 lines: the
Table's one-line accessors, which spare its many readers the three parts.)"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Union

import msgspec

from engines.core import Bot, Chance, Game
from services.app.games.events import TABLE_EVENTS, SeatHandedToBot, TableEvent
from services.app.kernel import Decision
from services.app.seats import SeatHolder
from services.infra.eventstore import StoredEvent
from services.infra.keys import AUTO_PREFIX

_decoders: dict[str, msgspec.json.Decoder] = {}


def event_decoder(game: Game) -> msgspec.json.Decoder:
    """Decodes a game stream's events: the engine's and the table's."""
    decoder = _decoders.get(game.name)
    if decoder is None:
        decoder = _decoders[game.name] = msgspec.json.Decoder(Union[game.event_type, *TABLE_EVENTS])  # noqa: UP007
    return decoder


def engine_events(events: list) -> list:
    return [e for e in events if not isinstance(e, TableEvent)]


class Outcome(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a command did; stored with its command id so a retry gets it back."""

    version: int
    first: int  # first version the command wrote
    seat: int | None
    # What the command took from a person's time bank (services/app/games/clocks.py):
    # recorded in the same commit as the move, so every process reads the
    # same bank from the log. Omitted when 0, as in outcomes from before banks.
    bank_drawn_ms: int = 0


_outcome = msgspec.json.Decoder(Outcome)


def decode_outcomes(stored: dict[tuple[int | None, str], bytes]) -> dict[tuple[int | None, str], Outcome]:
    return {key: _outcome.decode(raw) for key, raw in stored.items()}


@dataclass
class GameStream:
    """The game's stream folded: what PostgreSQL's log says, in this process."""

    version: int = 0
    state: Any = None
    events: list = field(default_factory=list)  # events[i] has version i + 1
    # hashes[i]: the chain hash of version i + 1 (engines/chain.py); None for
    # a game stored before the log was chained.
    hashes: list[str | None] = field(default_factory=list)
    commands: dict[tuple[int | None, str], Outcome] = field(default_factory=dict)  # (seat, command id) -> outcome
    ended_at: int | None = None  # first version of the commit that ended the game


@dataclass
class LobbyRecord:
    """The table's row in `games` and `seats`: who plays what, how."""

    game_id: str
    game: Game
    players: int
    options: Any
    ranked: bool
    seed: int
    status: str
    created_by: str | None
    seats: list[SeatHolder | None]
    time_control: dict | None = None  # {"move_ms": ...} when moves have deadlines
    # House bots' delay at this table; None: the process setting.
    bot_delay_ms: int | None = None
    tournament_id: str | None = None
    # Duplicate tournaments: the same deal is still being played at other
    # tables, so this finished game's contents stay hidden until they end.
    embargo: bool = False
    rematch_of: str | None = None  # "Play again": the finished table this one plays again
    salt: str | None = None  # the deal commitment's salt when the seats add client seeds (private)


@dataclass
class TableRuntime:
    """What only this process holds for the table: never stored."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bots: dict[int, Bot] = field(default_factory=dict)
    driver: asyncio.Task | None = None
    strikes: dict[int, int] = field(default_factory=dict)  # seat -> moves played for it in a row
    checked_at: float = 0.0  # monotonic time of the last catch-up with PostgreSQL
    changed_at: float = 0.0  # monotonic time this copy last took in new events
    last_command: tuple[str, int | None] | None = None  # (command id, seat) of the latest commit, for on_commit hooks


class Table:
    """A live table: the lobby record, the folded stream and this process's
    runtime, with accessors for what most callers read (the rest is reached
    through `record`, `stream` and `runtime`)."""

    __slots__ = ("record", "stream", "runtime")

    def __init__(
        self, record: LobbyRecord, stream: GameStream | None = None, runtime: TableRuntime | None = None
    ) -> None:
        self.record = record
        self.stream = stream if stream is not None else GameStream()
        self.runtime = runtime if runtime is not None else TableRuntime()

    # --- accessors --------------------------------------------------------------

    @property
    def game_id(self) -> str:
        return self.record.game_id

    stream_id = game_id  # the kernel's name for it (services/app/kernel.py)

    @property
    def game(self) -> Game:
        return self.record.game

    @property
    def players(self) -> int:
        return self.record.players

    @property
    def seats(self) -> list[SeatHolder | None]:
        return self.record.seats

    @property
    def tournament_id(self) -> str | None:
        return self.record.tournament_id

    @property
    def time_control(self) -> dict | None:
        return self.record.time_control

    @property
    def version(self) -> int:
        return self.stream.version

    @property
    def state(self) -> Any:
        return self.stream.state

    @property
    def events(self) -> list:
        return self.stream.events

    @property
    def lock(self) -> asyncio.Lock:
        return self.runtime.lock

    def chain_head(self, version: int | None = None) -> str | None:
        """The chain hash at `version` (default: the copy's version): a
        receipt of the log up to there. None before the first event and for
        a game stored before the log was chained."""
        at = self.stream.version if version is None else version
        hashes = self.stream.hashes
        return hashes[at - 1] if 0 < at <= len(hashes) else None

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for holder in self.record.seats:
            if holder is not None and holder.player_id == player_id:
                return holder.seat
        return None

    def bank_drawn(self, seat: int) -> int:
        """What a person's seat has taken from its time bank in this game:
        the sum its commands recorded (an agent's bank is in agent_turns)."""
        return sum(o.bank_drawn_ms for (s, _), o in self.stream.commands.items() if s == seat)

    @property
    def full(self) -> bool:
        return all(self.record.seats)

    @property
    def disclosed(self) -> bool:
        """Over, and free to show in full (docs/rules/general.md: after the end everything is public)."""
        return self.over and not self.record.embargo

    @property
    def visible_version(self) -> int:
        """The last version anyone may see: during an embargo, the game up to its last move."""
        if self.over and self.record.embargo and self.stream.ended_at is not None:
            return self.stream.ended_at - 1
        return self.stream.version

    @property
    def over(self) -> bool:
        state = self.stream.state
        return state is not None and self.record.game.is_over(state)

    def chance(self) -> Chance:
        # Provably fair deals: a fresh random salt for the deal's commitment, drawn
        # here (the engine draws nothing); it lives in the start event, private
        # until the final event reveals it. A start that loses the race to
        # another process is discarded, salt and all.
        return Chance(self.record.seed, salt=secrets.token_hex(32))

    def bot_rng(self, seat: int) -> random.Random:
        # Deterministic per (game, seat, version): a replayed or retried bot
        # turn picks the same action, and nothing outside sees the seed.
        return random.Random(f"{self.record.seed}:{seat}:{self.stream.version}")

    def bot_for(self, seat: int) -> Bot | None:
        holder = self.record.seats[seat]
        if holder is None or holder.bot is None:
            return None
        bots = self.runtime.bots
        bot = bots.get(seat)
        if bot is None:
            bot = bots[seat] = self.record.game.bots[holder.bot](seat, self.record.options)
            # Rebuilt (after a restart, or a seat handed over) a memory bot
            # gets what its seat gets from the history (GEN-1); live, `apply`
            # shows it every event at its moment.
            self._show(seat, bot, self.history(self.stream.version))
        return bot

    def _show(self, seat: int, bot: Bot, events: list) -> None:
        """A memory bot (`observes`, engines/core.py Bot) sees the events as its seat may."""
        if bot.observes:
            redact = self.record.game.redact
            for event in engine_events(events):
                seen = redact(event, seat)
                if seen is not None:
                    bot.observe(seen)

    def history(self, upto: int) -> list:
        """The log up to version `upto` as the history of the game shows it
        to everyone (GEN-1): cards public only at a moment that has passed by
        `upto` are blanked while the game runs; table events as they are."""
        events = self.stream.events[:upto]
        blanked = iter(self.record.game.history(engine_events(events)))
        return [e if isinstance(e, TableEvent) else next(blanked) for e in events]

    # --- folding ------------------------------------------------------------------

    def fold_in(self, first: int, decision: Decision) -> None:
        """A commit of this process (the kernel's call): its command, then its events."""
        if decision.command_id is not None:
            self.stream.commands[(decision.seat, decision.command_id)] = decision.outcome
            self.note_command(decision.command_id, decision.seat)
            self.runtime.last_command = (decision.command_id, decision.seat)
        else:
            self.runtime.last_command = None
        self.apply(first, decision.events, decision.state_after, decision.hashes)

    def apply(self, first: int, events: list, state_after: Any = None, hashes: list | None = None) -> None:
        """Fold in events whose versions start at `first`. Events this copy
        already holds are skipped: a reader catching up from PostgreSQL and
        the writer that committed them may both bring the same events. The
        writer passes the state it already folded (`state_after`); `hashes`,
        the events' chain hashes (none: unchained)."""
        stream = self.stream
        linked: list = list(hashes) if hashes else [None] * len(events)
        if first <= stream.version:
            linked = linked[stream.version + 1 - first :]
            events = events[stream.version + 1 - first :]
            first = stream.version + 1
            state_after = None  # folded from a state this copy has moved past
        if not events:
            return
        if first != stream.version + 1:
            raise RuntimeError(f"log gap in {self.game_id}: have {stream.version}, got {first}")
        was_over = self.over
        evolve, state = self.record.game.evolve, stream.state
        for event in events:
            if isinstance(event, TableEvent):
                self._note(event)
            elif state_after is None:
                state = evolve(state, event)
        stream.state = state if state_after is None else state_after
        stream.events.extend(events)
        stream.hashes.extend(linked)
        stream.version += len(events)
        self.runtime.changed_at = time.monotonic()
        if not was_over and self.over:
            # Right for a commit applied as it happens; a log loaded whole
            # learns it from the commands instead (take_commands).
            stream.ended_at = first
        for seat, bot in self.runtime.bots.items():
            self._show(seat, bot, events)

    def take_commands(self, new: dict[tuple[int | None, str], Outcome]) -> None:
        """Commands another process recorded, all past what this copy had
        (their outcomes' `first` is above its version before the catch-up):
        only they are read and decoded, and strikes and the end
        follow them in log order."""
        self.stream.commands.update(new)
        over = self.over
        for (_seat, command_id), outcome in sorted(new.items(), key=lambda item: item[1].first):
            self.note_command(command_id, outcome.seat)  # a seat's own move in another process ends its run
            if over and outcome.version == self.stream.version:
                # The first version of the commit that ended the game.
                self.stream.ended_at = outcome.first

    def _note(self, event: TableEvent) -> None:
        if isinstance(event, SeatHandedToBot):
            holder = self.record.seats[event.seat]
            if holder is not None:
                holder.bot = event.bot
                self.runtime.bots.pop(event.seat, None)

    def note_command(self, command_id: str, seat: int | None) -> None:
        """Strikes are the run of moves the service played for a seat
        (command ids `auto:...`) since the seat last moved by itself."""
        if seat is None:
            return
        strikes = self.runtime.strikes
        if command_id.startswith(AUTO_PREFIX):
            strikes[seat] = strikes.get(seat, 0) + 1
        else:
            strikes.pop(seat, None)

    def apply_stored(self, stored: list[StoredEvent]) -> None:
        stored = [s for s in stored if s.version > self.stream.version]
        if stored:
            decode = event_decoder(self.record.game).decode
            self.apply(stored[0].version, [decode(s.data) for s in stored], hashes=[s.hash for s in stored])
