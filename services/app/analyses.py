"""Post-game analyses as a service: who may ask, the queue, and
the job that runs one (the analysis itself is services/app/analysis/, pure
CPU work run in a child process).

- A finished, disclosed game's analysis is requested by its first reader
  (`read`), at priority 1, or at a tournament round's end for each of its
  games (`request_round`), at priority 0; a game in progress, or a duplicate
  deal still played elsewhere (the embargo), is never queued.
- New requests are limited per requester (a player, or a client address when
  anonymous): `requests_per_window` (30) per `WINDOW_MS` (an hour); reading an analysis that
  exists is never limited.
- The job claims the next record (tournament games first, then oldest
  request), runs it under a wall budget, stores the result, and queues itself
  again while records remain. One analysis at a time per worker process. A
  failure is retried once; a second one leaves the record `failed`, which the
  route answers with 409 `analysis_failed`. A record whose worker died is
  claimed again after `stale_ms`."""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Awaitable, Callable

from services.app.analysis.report import ANALYSIS_VERSION
from services.app.errors import Conflict, ServiceError
from services.app.games import embargo
from services.app.games.exports import exported
from services.app.games.service import GameService
from services.app.ports.analyses import AnalysisRecord, AnalysisStore
from services.app.ports.jobs import Jobs
from services.infra import keys as K

log = logging.getLogger("hanamichi.analysis")

REQUESTS_PER_WINDOW = 30
WINDOW_MS = 3600_000
BUDGET_S = 120.0  # one analysis's wall time; the child is killed past it
STALE_AFTER_BUDGET_MS = 60_000  # a running record older than budget + this lost its worker
TRIES = 2  # a failed analysis is tried once more

Runner = Callable[[str, bytes, float, Callable[[int, int], Awaitable[None]]], Awaitable[bytes]]


class AnalysisRateLimited(ServiceError):
    status = 429


def now_ms() -> int:
    return int(time.time() * 1000)


class Analyses:
    def __init__(
        self,
        store: AnalysisStore,
        games: GameService,
        jobs: Jobs,
        runner: Runner | None = None,
        clock: Callable[[], int] = now_ms,
        budget_s: float = BUDGET_S,
        version: int = ANALYSIS_VERSION,
        requests_per_window: int = REQUESTS_PER_WINDOW,
    ) -> None:
        self.store = store
        self.games = games
        self.jobs = jobs
        self.runner = runner
        self.clock = clock
        self.budget_s = budget_s
        self.stale_ms = int(budget_s * 1000) + STALE_AFTER_BUDGET_MS
        self.version = version
        self.requests_per_window = requests_per_window
        self.busy = False  # one analysis at a time in this process
        self._ids = itertools.count()

    # --- the route's side ---------------------------------------------------------

    async def _finished(self, game_id: str) -> None:
        table = await self.games.load(game_id)  # 404 for an unknown game
        if not table.over:
            raise Conflict("game_in_progress", "a game is analysed once it has ended")
        embargo.check(table, None, whole=True)  # a duplicate deal still played at other tables

    async def read(self, game_id: str, requester: str, request: bool = True) -> AnalysisRecord | None:
        """The game's analysis record, requested at priority 1 when there is
        none (which the requester's rate limit counts); without `request`,
        None when there is none, and nothing is queued."""
        await self._finished(game_id)
        record = await self.store.get(game_id, self.version)
        if record is not None or not request:
            return record
        now = self.clock()
        recent = await self.store.requests_since(requester, now - WINDOW_MS)
        if len(recent) >= self.requests_per_window:
            retry_after_s = max(1, -(-(recent[0] + WINDOW_MS - now) // 1000))
            raise AnalysisRateLimited(
                "analysis_rate_limited",
                f"{self.requests_per_window} new analyses an hour may be asked for; try again in {retry_after_s} s",
                retry_after_s=retry_after_s,
            )
        record = await self.store.request(game_id, self.version, 1, requester, now)
        await self.kick(game_id)
        return record

    async def request_round(self, game_ids: list[str]) -> None:
        """A tournament round has ended: its games first in the queue."""
        for game_id in game_ids:
            await self.store.request(game_id, self.version, 0, None, self.clock())
        if game_ids:
            await self.kick(game_ids[0])

    async def kick(self, tag: str) -> None:
        await self.jobs.enqueue(K.JOB_ANALYSE_GAME, job_id=K.analyse_job_id(tag))

    # --- the worker's side --------------------------------------------------------

    async def sweep(self) -> int:
        """The reconcile sweep: queue the job while records wait (queued, or stale)."""
        pending = await self.store.pending(self.version, self.clock(), self.stale_ms)
        if pending and not self.busy:
            await self.kick(f"sweep:{self.clock() // 5000}")
        return pending

    async def run_next(self) -> str | None:
        """Claim and run one analysis; queue the job again while more wait.
        Returns the game analysed (None: nothing to do, or one already runs here)."""
        if self.busy or self.runner is None:
            return None
        self.busy = True
        try:
            record = await self.store.claim_next(self.version, self.clock(), self.stale_ms)
            if record is None:
                return None
            await self._run(record)
            return record.game_id
        finally:
            self.busy = False
            if await self.store.pending(self.version, self.clock(), self.stale_ms):
                await self.kick(f"next:{next(self._ids)}:{self.clock()}")

    async def _run(self, record: AnalysisRecord) -> None:
        game_id, started = record.game_id, time.monotonic()

        def elapsed() -> int:
            return int((time.monotonic() - started) * 1000)

        try:
            table = await self.games.load(game_id)
            if not table.over:  # never a game in progress (nothing queues one)
                await self.store.fail(game_id, self.version, "game_in_progress", 0, retry=False)
                return
            export = await exported(self.games.store, table)
        except ServiceError as err:
            await self.store.fail(game_id, self.version, err.code, elapsed(), retry=False)
            return

        async def progress(done: int, total: int) -> None:
            await self.store.progress(game_id, self.version, done, total)

        assert self.runner is not None
        try:
            result = await self.runner(game_id, export, self.budget_s, progress)
        except Exception as exc:
            retry = record.attempts < TRIES
            log.warning("analysis of %s failed (%s)%s", game_id, exc, "; queued again" if retry else "")
            await self.store.fail(game_id, self.version, str(exc)[:500] or type(exc).__name__, elapsed(), retry)
            return
        await self.store.finish(game_id, self.version, result, elapsed())
