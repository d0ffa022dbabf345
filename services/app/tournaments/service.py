"""Tournaments: each is a stream folded by the pure engine in
engines.tournament (services/app/tournaments/copies.py keeps the copies and
decides through the command kernel); this service carries out what the
events ask for (a round's tables, the start, the embargo's end, the row a
listing reads) and runs the sweep that picks it all up again after a worker
was killed. Its parts: TournamentCopies and Rounds (rounds.py)."""

from __future__ import annotations

import logging
import secrets
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import msgspec

import engines.tournament as tn
from engines.core import Game, OptionsError, RuleError, commitment
from engines.registry import get_game
from services.app.errors import SEED_REFUSED, BadRequest, Conflict, NotFound, Unprocessable
from services.app.games import embargo
from services.app.games.service import GameService, now_ms
from services.app.players import Player
from services.app.ports import EventLog, PlayerNames, Transactions
from services.app.ports.integrity import LogEvent
from services.app.ports.jobs import Jobs
from services.app.ports.notices import Notices
from services.app.ports.tournaments import NewTournament, TournamentStore
from services.app.tournaments.copies import Loaded, TournamentCopies
from services.app.tournaments.rounds import Rounds, table_game_id
from services.app.tournaments.travellers import Played, Travellers, compare, played
from services.app.upcast import current_names
from services.infra import keys as K
from services.infra.outages import OUTAGES

__all__ = ["Loaded", "TournamentService", "Travellers"]

log = logging.getLogger("hanamichi.tournaments")

MAX_TABLES_PER_ROUND = 1024  # looked for among the finished tables when a round ends
# Finished tables' logs read back into moves for the travellers (a log of an
# ended round never changes, and reading one back costs the engine ~15 ms):
# kept for the newest this many tables.
PLAYED_KEPT = 512


class TournamentService:
    def __init__(
        self,
        rows: TournamentStore,
        store: EventLog,
        notices: Notices,
        games: GameService,
        jobs: Jobs,
        transactions: Transactions,
        names: PlayerNames,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.clock = clock  # ms since the epoch: registration windows, the start, results
        self.rows = rows
        self.store = store
        self.games = games
        self.jobs = jobs
        self.transactions = transactions
        self.names = names  # entrants' names now, joined into what is read (services/app/upcast.py)
        self.copies = TournamentCopies(store, notices)
        self.rounds = Rounds(self.copies, rows, games, jobs, clock)
        self.copies.after.append(self._after)
        # Told the ids of a round's finished tables once the round has ended
        # (the post-game analyses queue them first; services/bootstrap.py).
        self.round_ended: list[Callable[[list[str]], Awaitable[None]]] = []
        self.load = self.copies.load
        self.record_table = self.rounds.record_table
        self.ensure_tables = self.rounds.ensure_tables
        self.on_game_commit = self.rounds.on_game_commit
        self._played: OrderedDict[str, Played] = OrderedDict()

    # --- commands ------------------------------------------------------------------

    async def create(self, player: Player | None, raw: dict, now: int | None = None, seed: int | None = None) -> Loaded:
        """`seed` is for the service's own use (a recurring tournament's next
        instance, drawn in `start`); a request's settings never carry one."""
        now = self.clock() if now is None else now
        raw = dict(raw)
        if "seed" in raw or "salt" in raw:  # whoever knows the seed knows every hand
            raise Unprocessable(*SEED_REFUSED)
        # The seed fixes every deal of the tournament: drawn here from the
        # CSPRNG, kept out of every public view until the tournament is over;
        # its commitment (with the salt) is public from now on, before any
        # entrant registers its client seed.
        raw["seed"] = secrets.randbits(62) if seed is None else seed
        raw["salt"] = secrets.token_hex(32)
        try:
            settings = tn.make_settings(raw, get_game(str(raw.get("game", ""))))
        except (OptionsError, RuleError) as err:
            raise Unprocessable(err.code, err.message) from None
        except msgspec.ValidationError as err:
            raise BadRequest("bad_settings", str(err)) from None
        tournament_id = str(uuid.uuid4())
        async with self.transactions.transaction() as tx:
            await self.store.create_stream(tournament_id, "tournament", tx)
            await self.rows.insert_tournament(
                NewTournament(tournament_id, settings.game, settings.start_ms, player.player_id if player else None),
                tx,
            )
        await self.command(tournament_id, tn.Create(settings=settings), now)
        await self.schedule_start(tournament_id, settings.start_ms)
        return await self.load(tournament_id)

    async def listing(self, status: str | None) -> list[dict]:
        """The newest 200 tournaments, of one status or all."""
        return [msgspec.to_builtins(row) for row in await self.rows.listing(status)]

    async def schedule_start(self, tournament_id: str, start_ms: int) -> None:
        await self.jobs.enqueue(
            K.JOB_START_TOURNAMENT,
            tournament_id,
            job_id=K.start_job_id(tournament_id),
            delay_s=(start_ms - self.clock()) / 1000,
        )

    async def register(self, player: Player, tournament_id: str, client_seed: str = "") -> Loaded:
        # No name in the event (a person may delete their account): reads
        # join the players table's (services/app/upcast.py).
        entrant = tn.Entrant(id=player.player_id, name="", kind=player.kind)
        loaded = await self.load(tournament_id)
        await self.command(tournament_id, tn.Register(entrant=entrant, client_seed=client_seed), loaded=loaded)
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
            raw.pop("salt", None)  # the next instance draws its own
            await self.create(None, raw, seed=raw.pop("seed"))
        return events

    async def command(self, tournament_id: str, command, now: int | None = None, loaded: Loaded | None = None) -> list:
        """Decide and append one command; returns the events it wrote."""
        return await self.copies.command(tournament_id, command, self.clock() if now is None else now, loaded)

    async def _after(self, loaded: Loaded, events: list) -> None:
        tournament_id = loaded.tournament_id
        status = None
        for event in events:
            if isinstance(event, (tn.RoundEnded, tn.Cancelled)):
                # Every table that held a deal has finished (or the tournament
                # was called off): their logs may be shown, and the ratings
                # projection, which waits at an embargoed result, moves on.
                await self.games.lobby.lift_embargo(tournament_id)
            if isinstance(event, tn.RoundEnded) and self.round_ended:
                finished = set(await self.rows.finished_tables(tournament_id))
                ended = [
                    game_id
                    for n in range(1, MAX_TABLES_PER_ROUND + 1)
                    if (game_id := table_game_id(tournament_id, event.round, n)) in finished
                ]
                for hook in self.round_ended:
                    try:
                        await hook(ended)
                    except Exception as exc:  # the tournament goes on; the analyses can be asked for
                        log.warning("analyses of round %s of %s not queued: %s", event.round, tournament_id, exc)
            if isinstance(event, tn.RoundPaired):
                await self.rounds.ensure_tables(loaded)
            if isinstance(event, tn.Started):
                status = "running"
            elif isinstance(event, tn.Finished):
                status = "finished"
            elif isinstance(event, tn.Cancelled):
                status = "cancelled"
        if status:
            await self.rows.set_status(tournament_id, status)

    async def reconcile(self) -> dict[str, int]:
        """The sweep a worker runs at start and every few seconds: starts
        what is due, recreates missing tables, records finished ones. After a
        worker was killed, this is what picks the tournaments up again."""
        counts = {"started": 0, "recorded": 0}
        for tournament_id in await self.rows.due_to_start():
            try:
                if await self.start(tournament_id):
                    counts["started"] += 1
            except Exception as exc:
                if not OUTAGES.failed(exc, "tournament starts; the reconcile sweep retries"):
                    log.warning("start of %s failed: %s", tournament_id, exc)
        for tournament_id in await self.rows.running():
            try:
                loaded = await self.load(tournament_id)  # once: every step below shares this copy
                await self.rounds.ensure_tables(loaded)
                for game_id in await self.rows.finished_tables(tournament_id):
                    if await self.rounds.record_table(game_id, loaded):
                        counts["recorded"] += 1
            except Exception as exc:
                if not OUTAGES.failed(exc, "tournament reconcile; the sweep retries"):
                    log.warning("reconcile of %s failed: %s", tournament_id, exc)
        return counts

    # --- reading ----------------------------------------------------------------------

    def summary(self, loaded: Loaded) -> dict:
        state = loaded.state
        settings = msgspec.to_builtins(state.settings)
        if state.status in ("registering", "running"):
            settings.pop("seed")  # it fixes every deal
            settings.pop("salt")
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
            # sha256("<seed>:<salt>"): fixed before any entrant's client seed
            # (docs/fairness.md); None for a tournament from before.
            "commitment": commitment(state.settings.seed, state.settings.salt) if state.settings.salt else None,
            "client_seeds": state.client_seeds,
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
                    data["settings"].pop("salt", None)
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

    async def travellers(self, tournament_id: str, round_no: int | None = None) -> Travellers:
        """The travellers of the duplicate deal groups of every ended round
        (or of round `round_no`): services/app/tournaments/travellers.py.
        The round in play is 409 `results_embargoed` (its tables' scores and
        moves would tell the players of one table the cards of another)."""
        loaded = await self.load(tournament_id)
        state = loaded.state
        withheld = state.round if embargo.round_withheld(state) else None
        ended = [record.round for record in state.history]
        if round_no is not None:
            if round_no == withheld:
                raise Conflict(embargo.CODE, embargo.MESSAGE)
            if round_no not in ended:
                raise NotFound("round_not_found", f"round {round_no} has not ended")
            ended = [round_no]
        if not state.settings.duplicate:
            return Travellers(tournament_id=tournament_id, duplicate=False, groups=[], withheld_round=None)
        game = get_game(state.settings.game)
        games: dict[str, Played] = {}
        for record in state.history:
            if record.round in ended:
                for result in record.results:
                    games[result.game_id] = await self._played_table(game, result.game_id)
        names = await current_names(self.names, [e.id for e in state.entrants if e.kind != "bot"])
        groups = compare(state, games, names, ended)
        return Travellers(tournament_id=tournament_id, duplicate=True, groups=groups, withheld_round=withheld)

    async def _played_table(self, game: Game, game_id: str) -> Played:
        """A finished table of an ended round, read back into moves once."""
        if game_id in self._played:
            self._played.move_to_end(game_id)
            return self._played[game_id]
        log = [LogEvent(e.version, e.type, e.data) for e in await self.store.read(game_id)]
        out = self._played[game_id] = played(game, log)
        while len(self._played) > PLAYED_KEPT:
            self._played.popitem(last=False)
        return out
