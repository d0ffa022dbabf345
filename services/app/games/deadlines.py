"""Turn deadlines: every awaited person's seat of a table with a time control
gets a job when its time runs out, its bank included (services/app/games/clocks.py);
the job plays the default move unless the game has moved on (see
GameService.play_for_seat). Agents' deadlines are armed by AgentDispatch."""

from __future__ import annotations

import time
from collections.abc import Callable

from services.app.games.clocks import people_due
from services.app.games.service import now_ms
from services.app.games.tables import Table
from services.app.ports.jobs import Jobs
from services.app.seatclock import ClockDefaults
from services.infra import keys as K
from services.infra.background import spawn


class Deadlines:
    def __init__(self, scheduler: Jobs, clock: ClockDefaults | None = None) -> None:
        self.scheduler = scheduler
        self.clock = clock or ClockDefaults()

    def on_commit(self, table: Table, events: list) -> None:
        self.schedule(table)

    async def sweep(self, games, agent_budget_ms: Callable[[Table], int]) -> int:
        """Re-arm the deadlines of tables still playing that have waited past
        them (timed tables, and tables with agents: the backstop of an
        agent's turn comes `agent_budget_ms` after it began). The worker's
        periodic sweep runs this, so a deadline job lost with Redis, or taken
        by a worker that died, cannot leave a table waiting forever.

        The re-armed job gets an id of its own (`:swept:<second>`): a worker
        SIGKILLed mid-job leaves that job queued with arq's in-progress key,
        held for the worker-wide lease (the longest job timeout, call_agent's
        hour, + 10 s), so no worker would run it and its id could not be
        enqueued again. A deadline that runs twice plays once: it is due at a
        version, and the event log decides (GameService.play_for_seat)."""
        stuck = 0
        swept = K.swept_retry(int(time.time()))
        for game_id in await games.lobby.playing_with_deadlines():
            table = await games.load(game_id)
            if table.state is None or table.over:
                continue
            waited_ms = (time.monotonic() - table.runtime.changed_at) * 1000
            # Only a table that has waited past a deadline lost its job; the
            # others' jobs are still due, and re-arming them costs.
            now = now_ms()
            began = now - int(waited_ms)
            if any(due <= now for due in people_due(table, began, self.clock).values()):
                self.schedule(table, began_ms=began, retry=swept)
                stuck += 1
            if waited_ms > agent_budget_ms(table):
                self._enqueue(table, K.JOB_AGENT_DEADLINE, dict.fromkeys(self._awaited_agents(table), 0), swept)
                stuck += 1
        return stuck

    def schedule(self, table: Table, began_ms: int | None = None, retry: str | None = None) -> None:
        """Deadline jobs for the awaited seats held by people, on a turn
        whose commit was at `began_ms` (now, unless the sweep says when).
        `retry` (the sweep's) makes the job id a new one."""
        if table.state is None or table.over or table.time_control is None:
            return
        now = now_ms()
        due = people_due(table, now if began_ms is None else began_ms, self.clock)
        self._enqueue(table, K.JOB_MOVE_DEADLINE, {seat: max(0, at - now) for seat, at in due.items()}, retry)

    @staticmethod
    def _awaited_agents(table: Table) -> list[int]:
        seats = []
        for seat in table.game.waiting_for(table.state):
            holder = table.seats[seat]
            if holder is not None and holder.bot is None and holder.kind == "agent":
                seats.append(seat)
        return seats

    def _enqueue(self, table: Table, job: str, delays_ms: dict[int, int], retry: str | None) -> None:
        for seat, delay_ms in delays_ms.items():
            job_id = K.deadline_job_id(table.game_id, table.version, seat)
            spawn(
                self.scheduler.enqueue(
                    job,
                    table.game_id,
                    table.version,
                    seat,
                    job_id=K.retry_job_id(job_id, retry),
                    delay_s=delay_ms / 1000,
                )
            )
