"""After every commit: turns of agent seats. A push agent's awaited seat
gets an arq job `call_agent` (workers/agent_calls.py) plus a backstop
deadline in case the worker making the call dies; a pull agent's seat gets a
deadline like a person's. Agents seated in a game that starts or ends get a
notice on their own stream (GET /api/v1/agents/me/stream).

A turn is handed over, and its clock starts, when the seat can act: a Kabuki
masks placer once the stop window has passed (services/turns.opens_at),
not right after the previous card, when every place would be
refused `too_early`. A seat that may act without being awaited (a Stop during
the window, KM-2) is offered the chance: a push agent gets an optional call
(no deadline, no strike, its bank untouched), a pull agent a `your_chance`
event on its stream."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING, Protocol

from services.app.agents.registry import AgentService
from services.app.agents.settings import AgentSettings
from services.app.games.clocks import opens_at
from services.app.games.turns import chance_now
from services.app.seatclock import timed_seat_rules
from services.infra import keys as K
from services.infra.background import spawn
from services.infra.fanout import Notice, Publisher
from services.infra.keys import SERVER_PREFIXES, player_stream
from services.infra.scheduler import Scheduler

if TYPE_CHECKING:  # a commit subscriber is handed the table: its type only
    from services.app.games.tables import Table


class DirectCall(Protocol):
    """A worker's direct path to an agent (services/app/agents/calls.py, AgentCaller.call_soon)."""

    def __call__(
        self, game_id: str, version: int, seat: int, committed_ms: float, delay_ms: int = 0, optional: bool = False
    ) -> None: ...


class AgentDispatch:
    def __init__(
        self, agents: AgentService, scheduler: Scheduler, publisher: Publisher, settings: AgentSettings
    ) -> None:
        self.agents = agents
        self.scheduler = scheduler
        self.publisher = publisher
        self.settings = settings
        # Set in worker processes (services/bootstrap.py): call at once
        # instead of through the queue.
        self.call_directly: DirectCall | None = None
        # A pull agent's bank charge still being written, per table: a turn
        # handed over by a later commit (after the house bots' moves) reads
        # the bank only once it is done.
        self._charging: dict[str, asyncio.Task] = {}

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
        now = int(committed_ms)
        turns = []
        for holder in holders:
            player_id = holder.player_id
            assert player_id is not None  # the holders are agents' seats
            if started or over:
                self.publisher.publish(Notice(player_stream(player_id), table.version, table.version))
            if over or holder.bot is not None:
                continue
            opens = now
            if holder.seat in awaited:
                opens = opens_at(table, holder.seat, now)
                turns.append(
                    self._turn(
                        table.game_id,
                        table.version,
                        holder.seat,
                        player_id,
                        committed_ms,
                        table.time_control,
                        wait_ms=opens - now,
                    )
                )
            if (holder.seat not in awaited or opens > now) and chance_now(table, holder.seat, now):
                turns.append(self._chance(table.game_id, table.version, holder.seat, player_id, committed_ms))
        if settle is not None:
            charging = spawn(settle)
            self._charging[table.game_id] = charging
            charging.add_done_callback(functools.partial(self._charged, table.game_id))
        pending = self._charging.get(table.game_id)
        if pending is None:
            for turn in turns:
                spawn(turn)
        elif turns:
            spawn(self._after_charge(pending, turns))

    def _charged(self, game_id: str, done: asyncio.Task) -> None:
        if self._charging.get(game_id) is done:
            del self._charging[game_id]

    @staticmethod
    async def _after_charge(charging: asyncio.Task, turns: list) -> None:
        # A pull agent's move: its bank is charged before the next turns read it.
        await asyncio.wait([charging])
        await asyncio.gather(*turns)

    def _pull_move_charge(self, table: Table, holders: list, committed_ms: float, acted_at: int):
        """When the commit is a pull agent's own move (acting on version
        `acted_at` or before): the coroutine that charges its bank."""
        if table.runtime.last_command is None:
            return None
        command_id, seat = table.runtime.last_command
        if seat is None or command_id.startswith(SERVER_PREFIXES) or not any(h.seat == seat for h in holders):
            return None
        rules = timed_seat_rules(table.time_control, self.agents.clock)
        return self.agents.charge_pull_move(table.game_id, seat, acted_at, committed_ms, rules)

    async def _turn(
        self,
        game_id: str,
        version: int,
        seat: int,
        player_id: str,
        committed_ms: float,
        time_control: dict | None,
        wait_ms: int = 0,
    ) -> None:
        """The seat's turn, handed over `wait_ms` after the commit (when it
        can act, `opens_at`): its deadline counts from then."""
        mode = await self.agents.mode_of(player_id)
        rules = timed_seat_rules(time_control, self.agents.clock)
        if mode == "push":
            if self.call_directly is not None:
                self.call_directly(game_id, version, seat, committed_ms, delay_ms=wait_ms)
            else:
                await self.scheduler.enqueue(
                    K.JOB_CALL_AGENT,
                    game_id,
                    version,
                    seat,
                    committed_ms,
                    job_id=K.agent_job_id(game_id, version, seat),
                    delay_s=wait_ms / 1000,
                )
            # Only if the call never finished (its worker died): the call
            # itself is bounded by move_ms plus what is left of the bank.
            delay_ms = wait_ms + rules.budget_ms(rules.bank_ms) + self.settings.backstop_grace_ms
        else:
            # A pull agent moves through the API: its turn stays open until
            # then, and its deadline is the move's time plus its bank, from
            # when its stream says `your_turn` (the row's sent_ms).
            await self.agents.record_turn(
                game_id, version, seat, player_id, committed_ms, committed_ms + wait_ms, None, None, 0, 0, "pending"
            )
            delay_ms = wait_ms + rules.budget_ms(await self.agents.bank_left(game_id, seat, rules.bank_ms))
        await self.scheduler.enqueue(
            K.JOB_AGENT_DEADLINE,
            game_id,
            version,
            seat,
            job_id=K.deadline_job_id(game_id, version, seat),
            delay_s=delay_ms / 1000,
        )

    async def _chance(self, game_id: str, version: int, seat: int, player_id: str, committed_ms: float) -> None:
        """An optional action (a Stop during the window): a push agent gets a
        call it may decline; nothing is due, so there is no deadline. A pull
        agent learns it from its stream (`your_chance`)."""
        if await self.agents.mode_of(player_id) != "push":
            return
        if self.call_directly is not None:
            self.call_directly(game_id, version, seat, committed_ms, optional=True)
        else:
            await self.scheduler.enqueue(
                K.JOB_CALL_AGENT,
                game_id,
                version,
                seat,
                committed_ms,
                True,
                job_id=K.chance_job_id(game_id, version, seat),
            )
