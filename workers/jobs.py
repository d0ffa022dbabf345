"""The worker's jobs. Each is idempotent: the event log decides whether
anything is left to do, so a job run twice, or re-run after a worker was
killed, changes nothing twice."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the composition root imports this module, not the other way
    from services.bootstrap import Runtime

import logging

from arq.typing import WorkerCoroutine
from arq.worker import Function, func

from services.app.commands import PlayDefaultMove, RecordTable, RunAnalysis, StartTournament
from services.app.games.leaving import hand_stale_seats
from services.app.games.timers import STALL_S, tables_in_play
from services.app.seatclock import timed_seat_rules
from services.infra import keys as K
from services.infra.metrics import timed_job
from workers.agent_calls import agent_deadline, call_agent

log = logging.getLogger("hanamichi.worker")


def _rt(ctx: dict) -> Runtime:
    return ctx["runtime"]


async def start_tournament(ctx: dict, tournament_id: str) -> int:
    return len(await _rt(ctx).bus.handle(StartTournament(tournament_id)))


async def record_table(ctx: dict, game_id: str) -> int:
    return len(await _rt(ctx).bus.handle(RecordTable(game_id)))


async def move_deadline(ctx: dict, game_id: str, version: int, seat: int) -> bool:
    """The seat's time (its bank included) ran out at `version`: play the default move for it."""
    return await _rt(ctx).bus.handle(PlayDefaultMove(game_id, seat, "timeout", due_version=version))


async def analyse_game(ctx: dict) -> str | None:
    """The next queued post-game analysis, in a child process under its budget
    (services/app/analyses.py); the job queues itself again while more wait."""
    return await _rt(ctx).bus.handle(RunAnalysis())


async def reconcile(ctx: dict) -> dict:
    runtime = _rt(ctx)
    counts = await runtime.tournaments.reconcile()
    grace_ms = runtime.agents.settings.backstop_grace_ms

    def agent_budget_ms(table) -> int:
        # The longest an agent's turn may last: its move and a full bank.
        rules = timed_seat_rules(table.time_control, runtime.settings.clock)
        return rules.budget_ms(rules.bank_ms) + grace_ms

    counts["deadlines_rearmed"] = await runtime.deadlines.sweep(runtime.games, agent_budget_ms)
    # Tables whose house-bot driver or timer died with its process or an outage.
    idle = await tables_in_play(runtime.games, idle_s=STALL_S)
    counts["bot_tables_resumed"] = runtime.bots.sweep(idle)
    counts["timer_tables_resumed"] = runtime.timers.sweep(idle)
    counts["stale_seats_handed"] = await hand_stale_seats(runtime.games, runtime.settings.stale_table_s)
    # Play now: people whose wait ended while no page of theirs asked.
    counts["quick_play_tables"] = await runtime.quick_play.fill_due()
    # Post-game analyses queued, or running on a worker that died.
    counts["analyses_waiting"] = await runtime.analyses.sweep()
    return counts


# Agent calls last as long as a move's time plus the bank: their own timeout.
# One try: if the worker dies mid-call, the call's backstop deadline plays.
# Each timed and its failures counted by name (services/infra/metrics.py).
FUNCTIONS: list[Function | WorkerCoroutine] = [
    timed_job(start_tournament),
    timed_job(record_table),
    timed_job(move_deadline),
    func(timed_job(call_agent), name=K.JOB_CALL_AGENT, timeout=3600, max_tries=1, keep_result=0),
    timed_job(agent_deadline),
    # An analysis's child is killed at its budget (services/app/analyses.py): the job's own timeout is above it.
    func(timed_job(analyse_game), name=K.JOB_ANALYSE_GAME, timeout=600, max_tries=1, keep_result=0),
]
