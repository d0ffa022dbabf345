"""Tournaments: each is a stream folded by the pure engine in
engines.tournament; this service decides on its copy through the command
kernel (services/app/kernel.py: append with the expected version, catch up
and decide again after a conflict, publish) and carries out what the events
ask for (creating a round's tables, scheduling the start). A copy loaded for
one piece of work is passed along (`loaded=`): recording a table's result
reads the tournament stream once."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from dataclasses import dataclass, field
from typing import Any

import msgspec

import engines.tournament as tn
from engines.core import OptionsError, RuleError
from engines.registry import get_game
from services.app.errors import SEED_REFUSED, BadRequest, Conflict, NotFound, Unprocessable
from services.app.games import embargo
from services.app.games.service import GameService, now_ms
from services.app.kernel import Decision, Kernel
from services.app.players import Player
from services.app.tournaments.rounds import Rounds, table_game_id
from services.infra import keys as K
from services.infra.eventstore import EventStore
from services.infra.fanout import Publisher
from services.infra.scheduler import Scheduler

_decoder = msgspec.json.Decoder(tn.AnyEvent)


@dataclass
class Loaded:
    tournament_id: str
    version: int = 0
    state: Any = None
    events: list = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def stream_id(self) -> str:
        return self.tournament_id

    def apply(self, first: int, events: list) -> None:
        """Fold in events from version `first`, skipping any a concurrent
        reader already brought in from PostgreSQL."""
        for version, event in enumerate(events, start=first):
            if version == self.version + 1:
                self.state = tn.evolve(self.state, event)
                self.events.append(event)
                self.version = version

    def fold_in(self, first: int, decision: Decision) -> None:
        self.apply(first, decision.events)  # the kernel's call, after a commit of this process


class TournamentService(Rounds):
    def __init__(self, pool, store: EventStore, publisher: Publisher, games: GameService, scheduler: Scheduler) -> None:
        self.pool = pool
        self.store = store
        self.publisher = publisher
        self.games = games
        self.scheduler = scheduler
        self.kernel = Kernel(store, publisher)
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
            loaded.apply(stored[0].version, [_decoder.decode(s.data) for s in stored])

    # --- commands ------------------------------------------------------------------

    async def create(self, player: Player | None, raw: dict, now: int | None = None, seed: int | None = None) -> Loaded:
        """`seed` is for the service's own use (a recurring tournament's next
        instance, drawn in `start`); a request's settings never carry one."""
        now = now_ms() if now is None else now
        raw = dict(raw)
        if "seed" in raw:  # whoever knows the seed knows every hand
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
                tournament_id,
                settings.game,
                settings.start_ms,
                player.player_id if player else None,
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
        return [
            {"tournament_id": r["id"], "game": r["game"], "status": r["status"], "start_ms": int(r["start_ms"])}
            for r in rows
        ]

    async def schedule_start(self, tournament_id: str, start_ms: int) -> None:
        await self.scheduler.enqueue(
            K.JOB_START_TOURNAMENT,
            tournament_id,
            job_id=K.start_job_id(tournament_id),
            delay_s=(start_ms - now_ms()) / 1000,
        )

    async def register(self, player: Player, tournament_id: str) -> Loaded:
        # No name in the event (a person may delete their account): reads
        # join the players table's (services/app/upcast.py).
        entrant = tn.Entrant(id=player.player_id, name="", kind=player.kind)
        loaded = await self.load(tournament_id)
        await self.command(tournament_id, tn.Register(entrant=entrant), loaded=loaded)
        return loaded

    async def withdraw(self, player: Player, tournament_id: str) -> Loaded:
        loaded = await self.load(tournament_id)
        await self.command(tournament_id, tn.Withdraw(entrant=player.player_id), loaded=loaded)
        return loaded

    async def start(self, tournament_id: str) -> list:
        """The scheduled start (a worker job); idempotent."""
        loaded = await self.load(tournament_id)
        if loaded.state.status != "registering":
            await self.ensure_tables(loaded)
            return []
        try:
            events = await self.command(tournament_id, tn.Start(), loaded=loaded)
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

    async def command(self, tournament_id: str, command, now: int | None = None, loaded: Loaded | None = None) -> list:
        """Decide and append one command; returns the events it wrote.
        `loaded`: the caller's copy, current as far as it knows (not read
        again; a copy left behind by another process costs one conflict)."""
        now = now_ms() if now is None else now
        if loaded is None:
            loaded = self._loaded.setdefault(tournament_id, Loaded(tournament_id))
            await self._refresh(loaded)

        async def decide() -> Decision:
            if loaded.state is None and not isinstance(command, tn.Create):
                self._loaded.pop(tournament_id, None)
                raise NotFound("tournament_not_found", f"there is no tournament {tournament_id}")
            return Decision(tn.decide(loaded.state, command, now))

        decision = await self.kernel.run(
            loaded,
            decide,
            catch_up=lambda: self._refresh(loaded),
            attempts=5,
            moved_on=lambda: Conflict("version_conflict", "the tournament moved on; try again"),
        )
        assert decision is not None  # only a run that gives way ends without a decision
        if not decision.events:
            return []
        await self._after(loaded, decision.events)
        return decision.events

    async def _after(self, loaded: Loaded, events: list) -> None:
        tournament_id = loaded.tournament_id
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
                await self.ensure_tables(loaded)
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
