"""The game service: every use case is one function here (load the stream,
fold, decide, append with the expected version, publish). HTTP handlers and
workers only translate into these calls."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

import msgspec

from engines.core import Ctx, OptionsError, RuleError
from engines.registry import get_game
from services.infra import logs
from services.infra import metrics
from services.infra.background import spawn
from services.app.errors import BadRequest, Conflict, Forbidden, Unavailable, Unprocessable, refused
from services.infra.eventstore import EventStore, VersionConflict
from services.infra.fanout import Notice, Publisher
from services.app.players import Player
from services.app.games.events import (
    GameFinished, MovePlayedForSeat, SeatHandedToBot, SeatRecord, places_after_forfeits,
)
from services.infra import keys as K
from services.infra.keys import SERVER_PREFIXES
from services.app.games.policy import STRIKE_LIMIT
from services.app.games.tables import SeatHolder, Table, TableCache, engine_events, event_tag

log = logging.getLogger("hanamichi.games")

# Rule codes that mean "not now" rather than "never": HTTP 409, like a stale version.


class Outcome(msgspec.Struct, frozen=True):
    """What a command did; stored with its command id so a retry gets it back."""

    version: int
    first: int  # first version the command wrote
    seat: int | None


def finished_record(table: Table) -> GameFinished | None:
    """The table's hm.game_finished, once it is over."""
    return next((e for e in reversed(table.events) if isinstance(e, GameFinished)), None) if table.over else None


def result_shown(table: Table) -> dict:
    """The game's result plus the table's ranking: `forfeited` seats (handed
    to a house bot after their strikes) and `table_places`, forfeits last."""
    record = finished_record(table)
    result = msgspec.to_builtins(table.game.result(table.state))
    result["forfeited"] = list(record.forfeited) if record else []
    result["table_places"] = list(record.ranking) if record else result["places"]
    return result


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class GameService:
    def __init__(
        self, pool, store: EventStore, publisher: Publisher, tables: TableCache,
        known_version: Callable[[str], int] = lambda stream_id: 0, recheck_s: float = 1.0,
    ) -> None:
        self.pool = pool
        self.store = store
        self.publisher = publisher
        self.tables = tables
        self.on_commit: list = []  # callbacks(table, events), e.g. the bot driver
        # The newest version the fan-out has seen for a stream (Hub.latest_version).
        self.known_version = known_version
        self.recheck_s = recheck_s
        self.commits = 0
        self._refreshing: dict[str, asyncio.Future] = {}  # game id -> the catch-up query in flight

    # --- lobby ---------------------------------------------------------------

    async def create_game(
        self, player: Player, name: str, players: int, options: dict, ranked: bool, time_control: dict | None = None,
        bot_delay_ms: int | None = None,
    ) -> Table:
        try:
            game = get_game(name)
            game.check_players(players)
            game.make_options(options)
        except OptionsError as err:
            raise Unprocessable(err.code, err.message) from None
        game_id = str(uuid.uuid4())
        seed = secrets.randbits(62)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO games (game_id, game, players, options, ranked, seed, created_by, time_control, bot_delay_ms)"
                " VALUES ($1::text::uuid, $2, $3, $4::jsonb, $5, $6, $7::text::uuid, $8::jsonb, $9)",
                game_id, game.name, players, msgspec.json.encode(options).decode(), ranked, seed, player.player_id,
                msgspec.json.encode(time_control).decode() if time_control else None, bot_delay_ms,
            )
            await self.store.create_stream(game_id, "game", conn)
        return await self.tables.get(game_id)

    async def create_seated(
        self, game_id: str, name: str, options: dict, ranked: bool, seed: int, seats: list[SeatHolder],
        tournament_id: str | None = None, time_control: dict | None = None, embargoed: bool = False,
    ) -> Table:
        """A table whose seats are all assigned (tournaments), started at once.
        Idempotent: creating it again finds the existing table."""
        game = get_game(name)
        async with self.pool.acquire() as conn, conn.transaction():
            created = await conn.fetchval(
                "INSERT INTO games (game_id, game, players, options, ranked, seed, tournament_id, time_control, embargoed)"
                " VALUES ($1::text::uuid, $2, $3, $4::jsonb, $5, $6, $7, $8::jsonb, $9)"
                " ON CONFLICT (game_id) DO NOTHING RETURNING true",
                game_id, game.name, len(seats), msgspec.json.encode(options).decode(), ranked, seed,
                tournament_id, msgspec.json.encode(time_control).decode() if time_control else None, embargoed,
            )
            if created:
                await self.store.create_stream(game_id, "game", conn)
                await conn.executemany(
                    "INSERT INTO seats (game_id, seat, player_id, bot) VALUES ($1::text::uuid, $2, $3::text::uuid, $4)",
                    [(game_id, h.seat, h.player_id, h.bot) for h in seats],
                )
        table = await self.tables.get(game_id)
        if table.state is None:
            async with table.lock:
                await self.refresh(table)
                if table.state is None:
                    await self._start(table)
        return table

    async def take_seat(self, player: Player, game_id: str, seat: int | None) -> Table:
        table = await self.tables.get(game_id)
        if table.seat_of(player.player_id) is not None:
            raise Conflict("already_seated", "you already hold a seat at this table")
        return await self._seat(table, seat, SeatHolder(-1, player.player_id, None, player.name, player.kind))

    async def seat_bot(self, player: Player, game_id: str, seat: int | None, bot: str) -> Table:
        table = await self.tables.get(game_id)
        if table.created_by != player.player_id:
            raise Forbidden("not_table_host", "only the player who created the table seats house bots")
        if bot not in table.game.bots:
            raise Unprocessable("unknown_bot", f"no house bot {bot!r} for {table.game.title}; known: {', '.join(table.game.bots)}")
        return await self._seat(table, seat, SeatHolder(-1, None, bot, f"{bot} bot", "bot"))

    async def _seat(self, table: Table, seat: int | None, holder: SeatHolder) -> Table:
        async with table.lock:
            if table.status != "open":
                raise Conflict("table_full", "every seat at this table is taken")
            if seat is None:
                seat = next((i for i, s in enumerate(table.seats) if s is None), None)
            elif not 0 <= seat < table.players:
                raise BadRequest("bad_seat", f"seats are numbered 0 to {table.players - 1}")
            if seat is None or table.seats[seat] is not None:
                raise Conflict("seat_taken", "that seat is taken")
            try:
                await self.pool.execute(
                    "INSERT INTO seats (game_id, seat, player_id, bot) VALUES ($1::text::uuid, $2, $3::text::uuid, $4)",
                    table.game_id, seat, holder.player_id, holder.bot,
                )
            except Exception as exc:  # another process took it first
                if "unique" in str(exc).lower() or "duplicate" in str(exc).lower():
                    self.tables.forget(table.game_id)
                    raise Conflict("seat_taken", "that seat is taken") from None
                raise
            holder.seat = seat
            table.seats[seat] = holder
            if table.full:
                await self._start(table)
        return table

    async def _start(self, table: Table) -> None:
        """Deal: the engine's start events become versions 1..k (lock held)."""
        events = table.game.new_game(table.players, table.options, table.chance())
        try:
            await self._commit(table, events, (K.START_PREFIX, msgspec.json.encode(Outcome(len(events), 1, None))))
        except VersionConflict:
            await self.refresh(table)  # another process started it
        await self.pool.execute("UPDATE games SET status = 'playing' WHERE game_id = $1::text::uuid", table.game_id)
        table.status = "playing"

    # --- play ------------------------------------------------------------------

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
        events it wrote (full; the caller redacts)."""
        if not command_id or len(command_id) > 100 or not command_id.isprintable():
            raise BadRequest("bad_command_id", "command_id is 1 to 100 printable characters")
        received_ms = now_ms() if received_ms is None else received_ms
        table = await self.tables.get(game_id)
        if isinstance(seat_or_player, int):
            seat = seat_or_player
        else:
            seat = table.seat_of(seat_or_player.player_id)
            if seat is None:
                raise Forbidden("not_seated", "you hold no seat at this table")
            if command_id.startswith(SERVER_PREFIXES):
                raise BadRequest("bad_command_id", f"command ids starting with {', '.join(SERVER_PREFIXES)} are the server's")
        logs.bind(seat=seat)  # the request's log lines (services/infra/logs.py)
        action = raw_action if isinstance(raw_action, msgspec.Struct) else None  # house bots pass engine actions
        rechecked = False
        for _attempt in range(3):
            async with table.lock:
                # Command ids are per seat (issue 11, item 5): another seat's
                # id never blocks this one, so nobody can squat an id.
                stored = table.commands.get((seat, command_id))
                if stored is not None:
                    return table, msgspec.json.decode(stored, type=Outcome), []
                if self.known_version(game_id) > table.version:
                    # A commit notice says another process moved the table on:
                    # catch up before deciding (no query when nothing was said).
                    await self.refresh(table)
                if expected_version is not None and expected_version != table.version:
                    await self.refresh(table, fresh=True)  # our copy may be behind another process
                    if expected_version != table.version:
                        raise Conflict(
                            "version_conflict",
                            f"the game is at version {table.version}, not {expected_version}",
                            version=table.version,
                        )
                self._check_playing(table)
                if not isinstance(seat_or_player, int) and table.seats[seat].bot is not None:
                    raise Forbidden("seat_played_by_bot", "a house bot plays your seat for the rest of this game")
                if action is None:
                    try:
                        action = table.game.decode_action(raw_action)
                    except RuleError as err:
                        raise BadRequest(err.code, err.message) from None
                try:
                    events = table.game.decide(table.state, seat, action, Ctx(received_ms))
                except RuleError as err:
                    if not rechecked:
                        # Refused on our copy, whose notice of another process's
                        # commit may still be on its way: one look at PostgreSQL
                        # before the refusal stands (a refusal costs a query;
                        # an accepted move on a current copy costs none).
                        rechecked, seen = True, table.version
                        await self.refresh(table, fresh=True)
                        if table.version != seen:
                            continue
                    raise refused(err, version=table.version) from None
                try:
                    outcome, events = await self._commit_command(table, seat, command_id, events)
                except VersionConflict:
                    # Another process wrote first (our copy was stale and its
                    # notice not here yet): the one conflict round trip, then decide again.
                    await self.refresh(table, fresh=True)
                    continue
            return table, outcome, events
        raise Conflict("version_conflict", "the game moved on; try again", version=table.version)

    @staticmethod
    def _check_playing(table: Table) -> None:
        if table.state is None:
            raise Conflict("game_not_started", "the game starts when every seat is taken")
        if table.over:
            raise Conflict("game_finished", "this game is over")

    async def play_for_seat(self, game_id: str, seat: int, reason: str, due_version: int | None = None,
                            detail: str = "", strike_limit: int = STRIKE_LIMIT) -> bool:
        """Play the default move for a seat that did not move in time or
        whose agent failed, and record why. The default move is a uniformly
        random legal action drawn from the game's seed (Table.bot_rng): a
        failing seat must never play better than a working one (issue 12; the
        house `heuristic` used to play here and beat most bots), and the move
        is an event in the log, so a replay is exact.
        Idempotent: nothing happens unless the game is still at `due_version`
        (when given) and waiting for that seat. Returns whether it moved."""
        table = await self.tables.get(game_id)
        async with table.lock:
            await self.refresh(table)
            if table.over or table.state is None or (due_version is not None and table.version != due_version):
                return False
            game = table.game
            if seat not in game.waiting_for(table.state):
                return False
            now = now_ms()
            legal = game.legal_actions(table.state, seat, now)
            if not legal or legal != game.legal_actions(table.state, seat):
                # Not all of its choices are open yet (a Kabuki masks placer
                # in the stop window, KM-3): no move is due, and a Stop played
                # for a placer would be no default. The sweep re-arms it.
                return False
            action = table.bot_rng(seat).choice(legal)
            events = game.decide(table.state, seat, action, Ctx(now))
            strikes = table.strikes.get(seat, 0) + 1
            prefix: list = [MovePlayedForSeat(seat, reason, strikes, detail)]
            if strikes >= strike_limit and table.seats[seat].bot is None:
                prefix.append(SeatHandedToBot(seat, "heuristic", f"{strikes} {reason} in a row"))
            try:
                await self._commit_command(table, seat, K.auto_command_id(seat, table.version), prefix + events)
            except VersionConflict:
                return False
            metrics.STRIKES.labels(reason).inc()
            return True

    async def _commit_command(self, table: Table, seat: int | None, command_id: str, events: list) -> tuple[Outcome, list]:
        """Append a command's events (lock held), with the table's
        GameFinished in the same commit when they end the game."""
        after = table.game.fold(engine_events(events), table.state)
        if table.game.is_over(after):
            events = [*events, self._finished_event(table, after, events)]
        outcome = Outcome(table.version + len(events), table.version + 1, seat)
        await self._commit(table, events, (command_id, msgspec.json.encode(outcome)), seat, state_after=after)
        return outcome, events

    async def refresh(self, table: Table, fresh: bool = False) -> None:
        """Catch up with events another process appended, and with the
        command ids it recorded (issue 16). The copies stay current from the
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
        task.add_done_callback(lambda done: self._refreshing.pop(game_id, None) if self._refreshing.get(game_id) is done else None)
        # Shielded: a client that leaves must not cancel the query others wait on.
        await asyncio.shield(task)

    async def _catch_up(self, table: Table) -> None:
        table.checked_at = time.monotonic()
        seen = table.version
        # The new events and only their commands (outcome.first > seen), in one round trip.
        stored, new = await self.store.read_with_commands(table.game_id, seen)
        if stored:
            table.apply_stored(stored)
            table.commands.update(new)
            table.recount_strikes()  # a seat's own move in another process ends its run
            table.note_end_from_commands()

    async def _commit(self, table: Table, events: list, command: tuple[str, bytes] | None, seat: int | None = None,
                      state_after: Any = None) -> None:
        """Append (expecting the table's version), fold in, publish.
        `state_after`, when the caller already folded the events, is not folded again."""
        encoded = [(event_tag(e), msgspec.json.encode(e)) for e in events]
        first = table.version + 1
        try:
            await self.store.append(table.game_id, first - 1, encoded, command, seat)
        except VersionConflict:
            raise
        except Exception as exc:
            log.error("append failed for %s: %s", table.game_id, exc)
            raise Unavailable("storage_unavailable", "the event log is unavailable; nothing was written") from None
        if command is not None:
            table.commands[(seat, command[0])] = command[1]
            table.note_command(command[0], seat)
        table.last_command = (command[0], seat) if command is not None else None
        table.apply(first, events, state_after)
        self.commits += 1
        self.publisher.publish(Notice(table.game_id, first, first + len(events) - 1))
        if table.over and table.status != "finished":
            table.status = "finished"
            spawn(self._mark_finished(table.game_id))
        for callback in self.on_commit:
            callback(table, events)

    def _finished_event(self, table: Table, state: Any, events: list = ()) -> GameFinished:
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
            ranked=table.ranked,
            seats=[
                SeatRecord(h.seat, "bot" if h.kind == "bot" else h.kind, h.player_id, h.bot if h.kind == "bot" else None, h.name)
                for h in table.seats
                if h is not None
            ],
            result=result,
            tournament_id=table.tournament_id,
        )

    async def _mark_finished(self, game_id: str) -> None:
        try:
            await self.pool.execute(
                "UPDATE games SET status = 'finished', finished_at = now() WHERE game_id = $1::text::uuid", game_id
            )
        except Exception as exc:  # the log says it is over; the lobby row is fixed on next load
            log.warning("could not mark %s finished: %s", game_id, exc)

    async def on_timer(self, game_id: str, at_version: int | None = None) -> None:
        """Apply a due timed transition (KM-5), idempotently; with
        `at_version`, only if the game is still at that version (the caller
        asked its house bots there first, KM-5a)."""
        table = await self.tables.get(game_id)
        async with table.lock:
            await self.refresh(table)
            if at_version is not None and table.version != at_version:
                return
            due = table.game.next_timer(table.state) if table.state is not None and not table.over else None
            if due is None or due > now_ms():
                return
            events = table.game.on_timer(table.state, Ctx(now_ms()))
            if events:
                try:
                    await self._commit_command(table, None, K.timer_command_id(table.version), events)
                except VersionConflict:
                    pass

    # --- reading ---------------------------------------------------------------

    async def load(self, game_id: str) -> Table:
        """A table for reading: this process's copy, refreshed from PostgreSQL
        when the fan-out says another process has written since."""
        table = await self.tables.get(game_id)
        # Another process wrote (the fan-out says so), or nobody has checked
        # for a while (the fan-out may have missed it): catch up.
        if self.known_version(game_id) > table.version or time.monotonic() - table.checked_at > self.recheck_s:
            await self.refresh(table)
        if table.status == "open" and table.full:
            table.status = "playing"
        await self.check_embargo(table)
        return table

    async def check_embargo(self, table: Table) -> None:
        """A withheld finished table learns when its round has ended."""
        if table.over and table.embargo:
            table.embargo = bool(
                await self.pool.fetchval("SELECT embargoed FROM games WHERE game_id = $1::text::uuid", table.game_id)
            )
