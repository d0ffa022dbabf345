"""Tournaments: each is a stream folded by the pure engine in
engines.tournament; this service loads it, decides, appends with the
expected version, publishes, and carries out what the events ask for
(creating a round's tables, scheduling the start)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from dataclasses import dataclass, field
from typing import Any

import msgspec

import engines.tournament as tn
from engines.core import OptionsError, RuleError
from engines.registry import get_game
from services.app.games import embargo
from services.infra.background import spawn
from services.infra import keys as K
from services.app.errors import SEED_REFUSED, BadRequest, Conflict, NotFound, Unprocessable, refused
from services.infra.eventstore import EventStore, VersionConflict
from services.infra.fanout import Notice, Publisher
from services.app.games.service import GameService, now_ms
from services.app.players import Player
from services.infra.scheduler import Scheduler
from services.app.games.events import GameFinished
from services.app.games.tables import SeatHolder, event_tag

log = logging.getLogger("hanamichi.tournaments")

# Tables of one tournament get ids derived from (tournament, round, table),
# so creating a round twice finds the same games.
TABLE_NAMESPACE = uuid.UUID("6f1d2c3a-4b5e-4f60-8a7b-9c0d1e2f3a4b")
_decoder = msgspec.json.Decoder(tn.AnyEvent)


def table_game_id(tournament_id: str, round_no: int, table_no: int) -> str:
    return str(uuid.uuid5(TABLE_NAMESPACE, f"{tournament_id}:{round_no}:{table_no}"))


@dataclass
class Loaded:
    tournament_id: str
    version: int = 0
    state: Any = None
    events: list = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def _apply(loaded: Loaded, first: int, events: list) -> None:
    """Fold in events from version `first`, skipping any a concurrent
    reader already brought in from PostgreSQL."""
    for version, event in enumerate(events, start=first):
        if version == loaded.version + 1:
            loaded.state = tn.evolve(loaded.state, event)
            loaded.events.append(event)
            loaded.version = version


class TournamentService:
    def __init__(self, pool, store: EventStore, publisher: Publisher, games: GameService, scheduler: Scheduler) -> None:
        self.pool = pool
        self.store = store
        self.publisher = publisher
        self.games = games
        self.scheduler = scheduler
        self._loaded: dict[str, Loaded] = {}

    # --- loading -----------------------------------------------------------------

    async def load(self, tournament_id: str) -> Loaded:
        loaded = self._loaded.get(tournament_id)
        if loaded is None:
            try:
                uuid.UUID(tournament_id)
            except ValueError:
                raise NotFound("tournament_not_found", f"there is no tournament {tournament_id}") from None
            loaded = self._loaded.setdefault(tournament_id, Loaded(tournament_id))
        await self._refresh(loaded)
        if loaded.state is None:
            raise NotFound("tournament_not_found", f"there is no tournament {tournament_id}")
        return loaded

    async def _refresh(self, loaded: Loaded) -> None:
        stored = await self.store.read(loaded.tournament_id, after=loaded.version)
        if stored:
            _apply(loaded, stored[0].version, [_decoder.decode(s.data) for s in stored])

    # --- commands ------------------------------------------------------------------

    async def create(self, player: Player | None, raw: dict, now: int | None = None, seed: int | None = None) -> Loaded:
        """`seed` is for the service's own use (a recurring tournament's next
        instance, drawn in `start`); a request's settings never carry one."""
        now = now_ms() if now is None else now
        raw = dict(raw)
        if "seed" in raw:  # issue 11.2: whoever knows the seed knows every hand
            raise Unprocessable(*SEED_REFUSED)
        # The seed fixes every deal of the tournament: drawn here from the
        # CSPRNG, kept out of every public view until the tournament is over.
        raw["seed"] = secrets.randbits(62) if seed is None else seed
        try:
            settings = tn.make_settings(raw, get_game(str(raw.get("game", ""))))
        except (OptionsError, RuleError) as err:
            raise Unprocessable(err.code, err.message) from None
        except msgspec.ValidationError as err:
            raise BadRequest("bad_settings", str(err)) from None
        tournament_id = str(uuid.uuid4())
        async with self.pool.acquire() as conn, conn.transaction():
            await self.store.create_stream(tournament_id, "tournament", conn)
            await conn.execute(
                "INSERT INTO tournaments (tournament_id, game, start_at, created_by)"
                " VALUES ($1::text::uuid, $2, to_timestamp($3 / 1000.0), $4::text::uuid)",
                tournament_id, settings.game, settings.start_ms, player.player_id if player else None,
            )
        await self.command(tournament_id, tn.Create(settings=settings), now)
        await self.schedule_start(tournament_id, settings.start_ms)
        return await self.load(tournament_id)

    async def listing(self, status: str | None) -> list[dict]:
        """The newest 200 tournaments, of one status or all."""
        rows = await self.pool.fetch(
            "SELECT tournament_id::text AS id, game, status, extract(epoch FROM start_at) * 1000 AS start_ms"
            " FROM tournaments WHERE ($1::text IS NULL OR status = $1) ORDER BY start_at DESC LIMIT 200",
            status,
        )
        return [{"tournament_id": r["id"], "game": r["game"], "status": r["status"], "start_ms": int(r["start_ms"])} for r in rows]

    async def schedule_start(self, tournament_id: str, start_ms: int) -> None:
        await self.scheduler.enqueue(
            K.JOB_START_TOURNAMENT, tournament_id, job_id=K.start_job_id(tournament_id), delay_s=(start_ms - now_ms()) / 1000
        )

    async def register(self, player: Player, tournament_id: str) -> Loaded:
        entrant = tn.Entrant(id=player.player_id, name=player.name, kind=player.kind)
        await self.command(tournament_id, tn.Register(entrant=entrant))
        return await self.load(tournament_id)

    async def withdraw(self, player: Player, tournament_id: str) -> Loaded:
        await self.command(tournament_id, tn.Withdraw(entrant=player.player_id))
        return await self.load(tournament_id)

    async def start(self, tournament_id: str) -> list:
        """The scheduled start (a worker job); idempotent."""
        loaded = await self.load(tournament_id)
        if loaded.state.status != "registering":
            await self.ensure_tables(tournament_id)
            return []
        try:
            events = await self.command(tournament_id, tn.Start())
        except Conflict as err:
            if err.code == "too_early":
                await self.schedule_start(tournament_id, loaded.state.settings.start_ms)
                return []
            raise
        following = tn.next_settings(loaded.state.settings, seed=secrets.randbits(62))
        if following is not None:  # recurrence: announce the next instance now
            raw = msgspec.to_builtins(following)
            await self.create(None, raw, seed=raw.pop("seed"))
        return events

    async def command(self, tournament_id: str, command, now: int | None = None) -> list:
        now = now_ms() if now is None else now
        loaded = self._loaded.setdefault(tournament_id, Loaded(tournament_id))
        for _attempt in range(5):
            async with loaded.lock:
                await self._refresh(loaded)
                if loaded.state is None and not isinstance(command, tn.Create):
                    self._loaded.pop(tournament_id, None)
                    raise NotFound("tournament_not_found", f"there is no tournament {tournament_id}")
                try:
                    events = tn.decide(loaded.state, command, now)
                except RuleError as err:
                    raise refused(err) from None
                if not events:
                    return []
                encoded = [(event_tag(e), msgspec.json.encode(e)) for e in events]
                first = loaded.version + 1
                try:
                    await self.store.append(tournament_id, loaded.version, encoded)
                except VersionConflict:
                    continue
                _apply(loaded, first, events)
                self.publisher.publish(Notice(tournament_id, first, loaded.version))
            await self._after(tournament_id, events)
            return events
        raise Conflict("version_conflict", "the tournament moved on; try again")

    async def _after(self, tournament_id: str, events: list) -> None:
        status = None
        for event in events:
            if isinstance(event, (tn.RoundEnded, tn.Cancelled)):
                # Every table that held a deal has finished (or the tournament
                # was called off): their logs may be shown, and the ratings
                # projection, which waits at an embargoed result, moves on.
                await self.pool.execute(
                    "UPDATE games SET embargoed = false WHERE tournament_id = $1 AND embargoed", tournament_id
                )
            if isinstance(event, tn.RoundPaired):
                await self.ensure_tables(tournament_id)
            if isinstance(event, tn.Started):
                status = "running"
            elif isinstance(event, tn.Finished):
                status = "finished"
            elif isinstance(event, tn.Cancelled):
                status = "cancelled"
        if status:
            await self.pool.execute(
                "UPDATE tournaments SET status = $2 WHERE tournament_id = $1::text::uuid", tournament_id, status
            )

    # --- tables ---------------------------------------------------------------------

    async def ensure_tables(self, tournament_id: str) -> int:
        """Create (idempotently) and start every table of the current round."""
        loaded = await self.load(tournament_id)
        state = loaded.state
        if state.status != "running" or state.round_over:
            return 0
        settings = state.settings
        by_id = {e.id: e for e in state.entrants}
        created = 0
        for table in state.tables:
            if state.finished_result(state.round, table.table) is not None:
                continue
            seats = []
            for seat_no, entrant_id in enumerate(table.seats):
                entrant = by_id[entrant_id]
                if entrant.kind == "bot":
                    seats.append(SeatHolder(seat_no, None, settings.fill_bot, entrant.name, "bot"))
                else:
                    seats.append(SeatHolder(seat_no, entrant.id, None, entrant.name, entrant.kind))
            game_id = table_game_id(tournament_id, state.round, table.table)
            await self.games.create_seated(
                game_id, settings.game, dict(settings.options), settings.ranked, table.deal_seed, seats,
                tournament_id=tournament_id, time_control=msgspec.to_builtins(settings.time_control),
                embargoed=settings.duplicate,
            )
            created += 1
            # A table that ended before this process knew of it still counts.
            finished = await self.games.tables.get(game_id)
            if finished.over:
                await self.scheduler.enqueue(K.JOB_RECORD_TABLE, game_id, job_id=K.record_job_id(game_id))
        return created

    def on_game_commit(self, table, events: list) -> None:
        if table.tournament_id is None:
            return
        if any(isinstance(e, GameFinished) for e in events):
            spawn(self.scheduler.enqueue(K.JOB_RECORD_TABLE, table.game_id, job_id=K.record_job_id(table.game_id)))

    async def record_table(self, game_id: str) -> list:
        """A finished tournament game's result into the tournament stream (a worker job)."""
        table = await self.games.load(game_id)
        await self.games.refresh(table)
        if table.tournament_id is None or not table.over:
            return []
        finished = next(e for e in reversed(table.events) if isinstance(e, GameFinished))
        loaded = await self.load(table.tournament_id)
        where = next(
            ((t.table) for t in loaded.state.tables if table_game_id(table.tournament_id, loaded.state.round, t.table) == game_id),
            None,
        )
        if where is None:
            return []  # a game of an earlier round, recorded already
        result = finished.result
        return await self.command(
            table.tournament_id,
            tn.RecordResult(
                round=loaded.state.round, table=where, game_id=game_id,
                places=tuple(finished.ranking), scores=tuple(float(s) for s in result.scores),
                forfeited=tuple(finished.forfeited),
            ),
        )

    async def reconcile(self) -> dict[str, int]:
        """The sweep a worker runs at start and every few seconds: starts
        what is due, recreates missing tables, records finished ones. After a
        worker was killed, this is what picks the tournaments up again."""
        counts = {"started": 0, "recorded": 0}
        due = await self.pool.fetch(
            "SELECT tournament_id::text AS id FROM tournaments WHERE status = 'registering' AND start_at <= now()"
        )
        for row in due:
            try:
                if await self.start(row["id"]):
                    counts["started"] += 1
            except Exception as exc:
                log.warning("start of %s failed: %s", row["id"], exc)
        running = await self.pool.fetch("SELECT tournament_id::text AS id FROM tournaments WHERE status = 'running'")
        for row in running:
            try:
                await self.ensure_tables(row["id"])
                rows = await self.pool.fetch(
                    "SELECT game_id::text AS id FROM games WHERE tournament_id = $1 AND status = 'finished'", row["id"]
                )
                for game in rows:
                    if await self.record_table(game["id"]):
                        counts["recorded"] += 1
            except Exception as exc:
                log.warning("reconcile of %s failed: %s", row["id"], exc)
        return counts

    # --- reading ----------------------------------------------------------------------

    def summary(self, loaded: Loaded) -> dict:
        state = loaded.state
        settings = msgspec.to_builtins(state.settings)
        if state.status in ("registering", "running"):
            settings.pop("seed")  # it fixes every deal
        return {
            "tournament_id": loaded.tournament_id,
            # The version anyone may read up to (a duplicate round's results wait: services.app.games.embargo).
            "version": embargo.tournament_upto(state, loaded.events),
            "status": state.status,
            "settings": settings,
            "registered": msgspec.to_builtins(state.registered),
            "entrants": msgspec.to_builtins(state.entrants),
            "round": state.round,
            "rounds": state.rounds,
        }

    def public_events(self, loaded: Loaded, after: int) -> list[dict]:
        """The stream as anyone may see it: while the tournament runs, the
        seed and the tables' deal seeds (which fix every hand) are left out,
        and a duplicate round's results wait for its end (services.app.games.embargo)."""
        secret = loaded.state.status in ("registering", "running")
        out = []
        upto = embargo.tournament_upto(loaded.state, loaded.events)
        for version, event in enumerate(loaded.events[after:upto], start=after + 1):
            data = msgspec.to_builtins(event)
            if secret:
                if "settings" in data:
                    data["settings"].pop("seed", None)
                for table in data.get("tables", ()):
                    table.pop("deal_seed", None)
            out.append({"version": version, "event": data})
        return out

    def round_tables(self, loaded: Loaded, round_no: int) -> dict:
        # A duplicate round in play shows no table's result (services.app.games.embargo).
        state = embargo.tournament_view(loaded.state, loaded.events)
        history = {r.round: r for r in state.history}
        if round_no == state.round and not state.round_over:
            tables, results, byes = state.tables, state.results, state.byes
        elif round_no in history:
            record = history[round_no]
            tables, results, byes = record.tables, {r.table: r for r in record.results}, record.byes
        else:
            raise NotFound("round_not_found", f"round {round_no} has not been paired")
        return {
            "round": round_no,
            "byes": list(byes),
            "tables": [
                {
                    "table": t.table,
                    "game_id": table_game_id(loaded.tournament_id, round_no, t.table),
                    "seats": list(t.seats),
                    "deal_seed_group": t.group,
                    "result": msgspec.to_builtins(results[t.table]) if t.table in results else None,
                }
                for t in tables
            ],
        }
