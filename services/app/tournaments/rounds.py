"""A tournament's rounds at the game tables: creating and starting each
round's tables and recording a finished table's result into the tournament
stream. A part of TournamentService (services/app/tournaments/service.py),
which also runs the sweep that calls these again after a worker was killed;
the copy of the tournament loaded for one piece of work is passed along, so
a result reads the tournament stream once."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import msgspec

import engines.tournament as tn
from services.app.games.events import GameFinished
from services.app.games.queries import finished_record
from services.app.games.service import GameService, now_ms
from services.app.ports.jobs import Jobs
from services.app.ports.tournaments import TournamentStore
from services.app.seats import SeatHolder
from services.app.tournaments.copies import Loaded, TournamentCopies
from services.infra import keys as K
from services.infra.background import spawn

# Tables of one tournament get ids derived from (tournament, round, table),
# so creating a round twice finds the same games.
TABLE_NAMESPACE = uuid.UUID("6f1d2c3a-4b5e-4f60-8a7b-9c0d1e2f3a4b")


def table_game_id(tournament_id: str, round_no: int, table_no: int) -> str:
    return str(uuid.uuid5(TABLE_NAMESPACE, f"{tournament_id}:{round_no}:{table_no}"))


class Rounds:
    """The tournament's work at its tables."""

    def __init__(
        self,
        copies: TournamentCopies,
        rows: TournamentStore,
        games: GameService,
        jobs: Jobs,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.clock = clock
        self.copies = copies
        self.rows = rows
        self.games = games
        self.jobs = jobs

    async def ensure_tables(self, loaded: Loaded) -> int:
        """Create (idempotently) and start every table of the current round."""
        tournament_id, state = loaded.tournament_id, loaded.state
        if state.status != "running" or state.round_over:
            return 0
        settings = state.settings
        by_id = {e.id: e for e in state.entrants}
        # Entrants' names as they are now (events carry none); an entrant
        # whose account was deleted plays its later rounds as a house bot
        # (services/app/deletion.py): no table waits for them.
        rows = await self.rows.entrant_names([e.id for e in state.entrants if e.kind != "bot"])
        names = {r.player_id: r.name for r in rows}
        gone = {r.player_id for r in rows if r.gone}
        created = 0
        for table in state.tables:
            if state.finished_result(state.round, table.table) is not None:
                continue
            seats = []
            for seat_no, entrant_id in enumerate(table.seats):
                entrant = by_id[entrant_id]
                if entrant.kind == "bot" or entrant.id in gone:
                    name = entrant.name if entrant.kind == "bot" else f"{settings.fill_bot} bot"
                    seats.append(SeatHolder(seat_no, None, settings.fill_bot, name, "bot"))
                else:
                    name = names.get(entrant.id, entrant.name)
                    seats.append(SeatHolder(seat_no, entrant.id, None, name, entrant.kind))
            game_id = table_game_id(tournament_id, state.round, table.table)
            await self.games.create_seated(
                game_id,
                settings.game,
                dict(settings.options),
                settings.ranked,
                table.deal_seed,
                seats,
                tournament_id=tournament_id,
                time_control=msgspec.to_builtins(settings.time_control),
                embargoed=settings.duplicate,
            )
            created += 1
            # A table that ended before this process knew of it still counts.
            finished = await self.games.tables.get(game_id)
            if finished.over:
                await self.jobs.enqueue(K.JOB_RECORD_TABLE, game_id, job_id=K.record_job_id(game_id))
        return created

    def on_game_commit(self, table, events: list) -> None:
        if table.tournament_id is None:
            return
        if any(isinstance(e, GameFinished) for e in events):
            spawn(self.jobs.enqueue(K.JOB_RECORD_TABLE, table.game_id, job_id=K.record_job_id(table.game_id)))

    async def record_table(self, game_id: str, loaded: Loaded | None = None) -> list:
        """A finished tournament game's result into the tournament stream (a
        worker job). `loaded`: its tournament, read already (the sweep)."""
        table = await self.games.tables.get(game_id)
        await self.games.refresh(table, fresh=True)
        if table.tournament_id is None or not table.over:
            return []
        finished = finished_record(table)
        assert finished is not None  # the table is over
        if loaded is None or loaded.tournament_id != table.tournament_id:
            loaded = await self.copies.load(table.tournament_id)
        where = next(
            (
                (t.table)
                for t in loaded.state.tables
                if table_game_id(table.tournament_id, loaded.state.round, t.table) == game_id
            ),
            None,
        )
        if where is None:
            return []  # a game of an earlier round, recorded already
        result = finished.result
        return await self.copies.command(
            table.tournament_id,
            tn.RecordResult(
                round=loaded.state.round,
                table=where,
                game_id=game_id,
                places=tuple(finished.ranking),
                scores=tuple(float(s) for s in result.scores),
                forfeited=tuple(finished.forfeited),
            ),
            self.clock(),
            loaded=loaded,
        )
