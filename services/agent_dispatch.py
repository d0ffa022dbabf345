"""After every commit: turns of agent seats. A push agent's awaited seat
gets an arq job `call_agent` (workers/agent_calls.py) plus a backstop
deadline in case the worker making the call dies; a pull agent's seat gets a
deadline like a person's. Agents seated in a game that starts or ends get a
notice on their own stream (GET /api/v1/agents/me/stream)."""

from __future__ import annotations

import asyncio
import time

from services.agents import AgentService, AgentSettings
from services.background import spawn
from services.constants import player_stream
from services.deadlines import deadline_job_id
from services.fanout import Notice, Publisher
from services.scheduler import Scheduler
from services.tables import SERVER_PREFIXES, Table


def agent_job_id(game_id: str, version: int, seat: int) -> str:
    return f"agent:{game_id}:{version}:{seat}"


class AgentDispatch:
    def __init__(self, agents: AgentService, scheduler: Scheduler, publisher: Publisher, settings: AgentSettings) -> None:
        self.agents = agents
        self.scheduler = scheduler
        self.publisher = publisher
        self.settings = settings
        # Set in worker processes (workers/agent_calls.py): call at once
        # instead of through the queue.
        self.call_directly = None

    def on_commit(self, table: Table, events: list) -> None:
        if table.state is None:
            return
        holders = [h for h in table.seats if h is not None and h.kind == "agent" and h.player_id]
        if not holders:
            return
        committed_ms = time.time() * 1000
        settle = self._pull_move_charge(table, holders, committed_ms, acted_at=table.version - len(events))
        started = table.version == len(events)  # the deal is the table's first commit
        over = table.over
        awaited = frozenset() if over else table.game.waiting_for(table.state)
        turns = []
        for holder in holders:
            if started or over:
                self.publisher.publish(Notice(player_stream(holder.player_id), table.version, table.version))
            if holder.seat in awaited and holder.bot is None:
                turns.append(self._turn(table.game_id, table.version, holder.seat, holder.player_id, committed_ms, table.time_control))
        work = [self._after_commit(settle, turns)] if settle is not None else turns
        for job in work:
            spawn(job)

    @staticmethod
    async def _after_commit(settle, turns: list) -> None:
        # A pull agent's move: its bank is charged before the next turns read it.
        await settle
        await asyncio.gather(*turns)

    def _pull_move_charge(self, table: Table, holders: list, committed_ms: float, acted_at: int):
        """When the commit is a pull agent's own move (acting on version
        `acted_at` or before): the coroutine that charges its bank."""
        if table.last_command is None:
            return None
        command_id, seat = table.last_command
        if seat is None or command_id.startswith(SERVER_PREFIXES) or not any(h.seat == seat for h in holders):
            return None
        move_ms, bank_ms = self.settings.time_control(table.time_control)
        return self.agents.charge_pull_move(table.game_id, seat, acted_at, committed_ms, move_ms, bank_ms)

    async def _turn(self, game_id: str, version: int, seat: int, player_id: str, committed_ms: float,
                    time_control: dict | None) -> None:
        mode = await self.agents.mode_of(player_id)
        move_ms, bank_ms = self.settings.time_control(time_control)
        if mode == "push":
            if self.call_directly is not None:
                self.call_directly(game_id, version, seat, committed_ms)
            else:
                await self.scheduler.enqueue(
                    "call_agent", game_id, version, seat, committed_ms, job_id=agent_job_id(game_id, version, seat)
                )
            # Only if the call never finished (its worker died): the call
            # itself is bounded by move_ms plus what is left of the bank.
            delay_ms = move_ms + bank_ms + self.settings.backstop_grace_ms
        else:
            # A pull agent moves through the API: its turn stays open until
            # then, and its deadline is the move's time plus its bank.
            await self.agents.record_turn(
                game_id, version, seat, player_id, committed_ms, committed_ms, None, None, 0, 0, "pending"
            )
            delay_ms = move_ms + await self.agents.bank_left(game_id, seat, bank_ms)
        await self.scheduler.enqueue(
            "agent_deadline", game_id, version, seat, job_id=deadline_job_id(game_id, version, seat), delay_s=delay_ms / 1000
        )
