"""A process's live copy of one game: metadata, seats, the folded state and
the decoded log. PostgreSQL stays the truth; a table that another process
moved on is caught up from it when a commit notice says the copy is behind
(GameService.refresh, issue 16), and the version check on append is the
backstop for a notice still on its way."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Union

import asyncpg
import msgspec

from engines.core import Bot, Chance, Game
from engines.registry import get_game
from services.app.errors import NotFound
from services.infra.eventstore import EventStore, StoredEvent
from services.infra.keys import AUTO_PREFIX
from services.app.games.events import TABLE_EVENTS, SeatHandedToBot, TableEvent

_decoders: dict[str, msgspec.json.Decoder] = {}


def event_decoder(game: Game) -> msgspec.json.Decoder:
    """Decodes a game stream's events: the engine's and the table's."""
    decoder = _decoders.get(game.name)
    if decoder is None:
        decoder = _decoders[game.name] = msgspec.json.Decoder(Union[game.event_type, *TABLE_EVENTS])  # noqa: UP007
    return decoder


def engine_events(events: list) -> list:
    return [e for e in events if not isinstance(e, TableEvent)]


def event_tag(event: Any) -> str:
    return type(event).__struct_config__.tag


@dataclass
class SeatHolder:
    seat: int
    player_id: str | None
    bot: str | None
    name: str
    kind: str  # 'human', 'agent', 'bot'


@dataclass
class Table:
    game_id: str
    game: Game
    players: int
    options: Any
    ranked: bool
    seed: int
    status: str
    created_by: str | None
    seats: list[SeatHolder | None]
    version: int = 0
    state: Any = None
    events: list = field(default_factory=list)  # events[i] has version i + 1
    commands: dict[tuple[int | None, str], bytes] = field(default_factory=dict)  # (seat, command id) -> stored outcome
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bots: dict[int, Bot] = field(default_factory=dict)
    driver: asyncio.Task | None = None
    strikes: dict[int, int] = field(default_factory=dict)  # seat -> moves played for it in a row
    time_control: dict | None = None  # {"move_ms": ...} when moves have deadlines
    # House bots' delay at this table (issue 14); None: the process setting.
    bot_delay_ms: int | None = None
    tournament_id: str | None = None
    checked_at: float = 0.0  # monotonic time of the last catch-up with PostgreSQL
    ended_at: int | None = None  # first version of the commit that ended the game
    # Duplicate tournaments: the same deal is still being played at other
    # tables, so this finished game's contents stay hidden until they end.
    embargo: bool = False
    changed_at: float = 0.0  # monotonic time this copy last took in new events
    last_command: tuple[str, int | None] | None = None  # (command id, seat) of the latest commit, for on_commit hooks

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for holder in self.seats:
            if holder is not None and holder.player_id == player_id:
                return holder.seat
        return None

    @property
    def full(self) -> bool:
        return all(self.seats)

    @property
    def disclosed(self) -> bool:
        """Over, and free to show in full (RULES.md: after the end everything is public)."""
        return self.over and not self.embargo

    @property
    def visible_version(self) -> int:
        """The last version anyone may see: during an embargo, the game up to its last move."""
        if self.over and self.embargo and self.ended_at is not None:
            return self.ended_at - 1
        return self.version

    @property
    def over(self) -> bool:
        return self.state is not None and self.game.is_over(self.state)

    def chance(self) -> Chance:
        # Issue 11.3: a fresh random salt for the deal's commitment, drawn
        # here (the engine draws nothing); it lives in the start event, private
        # until the final event reveals it. A start that loses the race to
        # another process is discarded, salt and all.
        return Chance(self.seed, salt=secrets.token_hex(32))

    def bot_rng(self, seat: int) -> random.Random:
        # Deterministic per (game, seat, version): a replayed or retried bot
        # turn picks the same action, and nothing outside sees the seed.
        return random.Random(f"{self.seed}:{seat}:{self.version}")

    def bot_for(self, seat: int) -> Bot | None:
        holder = self.seats[seat]
        if holder is None or holder.bot is None:
            return None
        bot = self.bots.get(seat)
        if bot is None:
            bot = self.bots[seat] = self.game.bots[holder.bot](seat, self.options)
            # Rebuilt (after a restart, or a seat handed over) a memory bot
            # gets what its seat gets from the history (GEN-1); live, `apply`
            # shows it every event at its moment.
            self._show(seat, bot, self.history(self.version))
        return bot

    def _show(self, seat: int, bot: Bot, events: list) -> None:
        """A memory bot (`observes`, engines/core.py Bot) sees the events as its seat may."""
        if bot.observes:
            redact = self.game.redact
            for event in engine_events(events):
                seen = redact(event, seat)
                if seen is not None:
                    bot.observe(seen)

    def history(self, upto: int) -> list:
        """The log up to version `upto` as the history of the game shows it
        to everyone (GEN-1): cards public only at a moment that has passed by
        `upto` are blanked while the game runs; table events as they are."""
        events = self.events[:upto]
        blanked = iter(self.game.history(engine_events(events)))
        return [e if isinstance(e, TableEvent) else next(blanked) for e in events]

    def apply(self, first: int, events: list, state_after: Any = None) -> None:
        """Fold in events whose versions start at `first`. Events this copy
        already holds are skipped: a reader catching up from PostgreSQL and
        the writer that committed them may both bring the same events. The
        writer passes the state it already folded (`state_after`)."""
        if first <= self.version:
            events = events[self.version + 1 - first :]
            first = self.version + 1
            state_after = None  # folded from a state this copy has moved past
        if not events:
            return
        if first != self.version + 1:
            raise RuntimeError(f"log gap in {self.game_id}: have {self.version}, got {first}")
        was_over = self.over
        evolve, state = self.game.evolve, self.state
        for event in events:
            if isinstance(event, TableEvent):
                self._note(event)
            elif state_after is None:
                state = evolve(state, event)
        self.state = state if state_after is None else state_after
        self.events.extend(events)
        self.version += len(events)
        self.changed_at = time.monotonic()
        if not was_over and self.over:
            # Right for a commit applied as it happens; a log loaded whole
            # learns it from the commands instead (note_end_from_commands).
            self.ended_at = first
        for seat, bot in self.bots.items():
            self._show(seat, bot, events)

    def note_end_from_commands(self) -> None:
        """The first version of the commit that ended the game: the command whose outcome reached the last version."""
        if self.over:
            for raw in self.commands.values():
                outcome = msgspec.json.decode(raw)
                if outcome["version"] == self.version:
                    self.ended_at = outcome["first"]

    def _note(self, event: TableEvent) -> None:
        if isinstance(event, SeatHandedToBot):
            holder = self.seats[event.seat]
            if holder is not None:
                holder.bot = event.bot
                self.bots.pop(event.seat, None)

    def note_command(self, command_id: str, seat: int | None) -> None:
        """Strikes are the run of moves the service played for a seat
        (command ids `auto:...`) since the seat last moved by itself."""
        if seat is None:
            return
        if command_id.startswith(AUTO_PREFIX):
            self.strikes[seat] = self.strikes.get(seat, 0) + 1
        else:
            self.strikes.pop(seat, None)

    def recount_strikes(self) -> None:
        """Strikes from the stored commands (in log order), for a copy that
        caught up with commands another process wrote."""
        self.strikes = {}
        outcomes = [(msgspec.json.decode(o), c) for (_seat, c), o in self.commands.items()]
        for outcome, command_id in sorted(outcomes, key=lambda oc: oc[0]["first"]):
            self.note_command(command_id, outcome.get("seat"))

    def apply_stored(self, stored: list[StoredEvent]) -> None:
        stored = [s for s in stored if s.version > self.version]
        if stored:
            decode = event_decoder(self.game).decode
            self.apply(stored[0].version, [decode(s.data) for s in stored])


class TableCache:
    """Live tables by game id, least recently used evicted past `capacity`."""

    def __init__(self, pool, store: EventStore, capacity: int = 20_000) -> None:
        self.pool = pool
        self.store = store
        self.capacity = capacity
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._loading: dict[str, asyncio.Future] = {}

    def forget(self, game_id: str) -> None:
        self._tables.pop(game_id, None)

    async def get(self, game_id: str) -> Table:
        table = self._tables.get(game_id)
        if table is not None:
            self._tables.move_to_end(game_id)
            return table
        pending = self._loading.get(game_id)
        if pending is None:
            pending = self._loading[game_id] = asyncio.ensure_future(self._load(game_id))
            try:
                table = await pending
            finally:
                del self._loading[game_id]
            self._tables[game_id] = table
            while len(self._tables) > self.capacity:
                old_id, old = next(iter(self._tables.items()))
                if old.lock.locked() or (old.driver and not old.driver.done()):
                    self._tables.move_to_end(old_id)
                    break
                self._tables.popitem(last=False)
            return table
        return await pending

    async def _load(self, game_id: str) -> Table:
        try:
            row = await self.pool.fetchrow("SELECT * FROM games WHERE game_id = $1::text::uuid", game_id)
        except asyncpg.DataError:  # not a uuid: no such game (an outage propagates: a 503, not a 404)
            row = None
        if row is None:
            raise NotFound("game_not_found", f"there is no game {game_id}")
        seat_rows = await self.pool.fetch(
            "SELECT s.seat, s.player_id, s.bot, p.name, p.kind FROM seats s"
            " LEFT JOIN players p ON p.player_id = s.player_id WHERE s.game_id = $1",
            row["game_id"],
        )
        game = get_game(row["game"])
        options_raw = msgspec.json.decode(row["options"]) if isinstance(row["options"], str) else row["options"]
        seats: list[SeatHolder | None] = [None] * row["players"]
        for r in seat_rows:
            seats[r["seat"]] = holder_from_row(r)
        table = Table(
            game_id=game_id,
            game=game,
            players=row["players"],
            options=game.make_options(options_raw),
            ranked=row["ranked"],
            seed=row["seed"],
            status=row["status"],
            time_control=msgspec.json.decode(row["time_control"]) if row["time_control"] else None,
            tournament_id=row["tournament_id"],
            bot_delay_ms=row["bot_delay_ms"],
            embargo=row["embargoed"],
            created_by=str(row["created_by"]) if row["created_by"] else None,
            seats=seats,
        )
        table.apply_stored(await self.store.read(game_id))
        table.commands = await self.store.commands_of(game_id)
        table.recount_strikes()
        table.note_end_from_commands()
        return table


def holder_from_row(r) -> SeatHolder:
    if r["bot"] is not None:
        return SeatHolder(r["seat"], None, r["bot"], f"{r['bot']} bot", "bot")
    return SeatHolder(r["seat"], str(r["player_id"]), None, r["name"], r["kind"])
