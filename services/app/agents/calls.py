"""Calls to push agents (the arq job `call_agent` of workers/agent_calls.py,
enqueued by services/app/agents/dispatch.py when an agent's seat is
awaited), and what a pull agent's or a call's deadline decides.

One call: build the seat's payload (its own view only), sign it, POST it
(services/app/agents/post.py) with no redirects, a size cap and a timeout of the
time the seat has left (move time plus bank), then submit the answer like any move (command id
`agent:<seat>:<version>`). A late, unreachable, crashing or malformed answer,
or an illegal action, makes the service play the default move and record
why (GameService.play_for_seat). Each call is a row of agent_turns: answer
time and what it took from the time bank.

A turn is called when the seat can act (services/turns.opens_at), with the
actions `decide` accepts at the server's clock: a Kabuki masks placer once the
stop window has passed. An optional call (`optional: true`,
a Stop during the window, KM-2) may be declined with `{"action": null}`; it has
no default move, no strike and no bank, and is not a row of agent_turns."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import TYPE_CHECKING

import aiohttp
import msgspec

from services.app.agents.post import OptionalAnswer, agent_client, post_to_agent
from services.app.agents.settings import AgentSettings
from services.app.errors import BadRequest, Conflict, ServiceError, Unprocessable
from services.app.games.clocks import opens_at
from services.app.games.service import now_ms
from services.app.games.turns import chance_now
from services.app.seatclock import bank_left, overdraft, timed_seat_rules
from services.infra import keys as K
from services.infra import metrics
from services.infra.outages import OUTAGES

if TYPE_CHECKING:
    from services.app.agents.registry import AgentService
    from services.app.games.service import GameService

log = logging.getLogger("hanamichi.agent_calls")


class AgentCaller:
    def __init__(self, games: GameService, agents: AgentService, settings: AgentSettings) -> None:
        self.games = games
        self.agents = agents
        self.settings = settings
        self._http: aiohttp.ClientSession | None = None  # made on the first call (API processes never call)
        self._tasks: set[asyncio.Task] = set()
        self.outcomes: Counter = Counter()  # calls settled, by outcome (workers/summary.py)

    @property
    def http(self) -> aiohttp.ClientSession:
        if self._http is None:
            self._http = agent_client()
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()

    def call_soon(
        self, game_id: str, version: int, seat: int, committed_ms: float, delay_ms: int = 0, optional: bool = False
    ) -> None:
        """The direct path: a commit made in this worker calls the next
        agent without the queue, `delay_ms` from now (when its turn opens;
        the backstop deadline still stands)."""
        task = asyncio.ensure_future(self._call_logged(game_id, version, seat, committed_ms, delay_ms, optional))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _call_logged(
        self, game_id: str, version: int, seat: int, committed_ms: float, delay_ms: int, optional: bool
    ) -> None:
        try:
            if delay_ms > 0:
                await asyncio.sleep(delay_ms / 1000)
            if optional:
                await self.offer(game_id, version, seat)
            else:
                await self.call(game_id, version, seat, committed_ms)
        except Exception as exc:
            if not OUTAGES.failed(exc, "agent calls"):
                log.exception("agent call %s@%s seat %s failed", game_id, version, seat)

    async def _at(self, game_id: str, version: int):
        """The table, if it is still at `version` and in play."""
        games = self.games
        table = await games.load(game_id)
        if table.version < version:
            await games.refresh(table)
        if table.version != version or table.state is None or table.over:
            return None
        return table

    async def call(self, game_id: str, version: int, seat: int, committed_ms: float) -> str:
        games, agents = self.games, self.agents
        table = await self._at(game_id, version)
        if table is None:
            return "stale"
        holder = table.seats[seat]
        if (
            holder is None
            or holder.bot is not None
            or holder.kind != "agent"
            or seat not in table.game.waiting_for(table.state)
        ):
            return "stale"
        # Called a little early (a queue's or a clock's slack): the turn opens
        # when the seat can act, so wait for that, then look again.
        wait_ms = opens_at(table, seat, now_ms()) - now_ms()
        if wait_ms > 0:
            await asyncio.sleep(wait_ms / 1000 + 0.001)
            await games.refresh(table)
            if table.version != version or table.over:
                return "stale"
        agent, bank_used = await agents.for_turn(holder.player_id, game_id, seat)
        rules = timed_seat_rules(table.time_control, agents.clock)
        left = bank_left(rules.bank_ms, bank_used)
        game = table.game
        # What decide accepts now (the server's clock), never more.
        legal = game.legal_actions(table.state, seat, now_ms())
        body = msgspec.json.encode(
            {
                "game": game.name,
                "game_id": game_id,
                "seat": seat,
                "version": version,
                "view": game.view(table.state, seat),
                "legal_actions": legal,
                "deadline_ms": rules.move_ms,
                "time_bank_ms": left,
                "chain_head": table.chain_head(version),  # a receipt of the log up to this turn
            }
        )
        budget_ms = rules.budget_ms(left)
        sent_ms = time.time() * 1000
        answer = ""
        if agent is None or agent.mode != "push" or agent.status == "deleted":
            reason, detail, raw, answered_ms = "unreachable", "the agent was deleted", None, None
        else:
            reason, detail, raw, answered_ms, answer = await post_to_agent(
                self.http, self.settings, agent, body, budget_ms, f"{game_id}:{version}:{seat}"
            )
            if reason in ("timeout", "unreachable"):
                # Deleted while the call was in flight: that is why.
                now = await agents.get(holder.player_id)
                if now is None or now.status == "deleted":
                    reason, detail = "unreachable", "the agent was deleted"
        used_ms = int((answered_ms if answered_ms is not None else time.time() * 1000) - sent_ms)
        metrics.AGENT_CALL_SECONDS.labels(reason or "answered").observe(used_ms / 1000)
        drawn = overdraft(used_ms, rules.move_ms, left, timed_out=reason == "timeout")
        # Charge the bank before the move commits (the commit may ask this
        # seat for its next move at once), in memory: the row is written after.
        agents.hold_charge(game_id, seat, drawn)
        try:
            outcome, detail = await self._settle(game_id, version, seat, reason, detail, raw, answered_ms)
            await agents.record_turn(
                game_id,
                version,
                seat,
                holder.player_id,
                committed_ms,
                sent_ms,
                answered_ms,
                time.time() * 1000,
                min(used_ms, 2**31 - 1),
                drawn,
                outcome,
                detail,
                answer,
            )
        finally:
            agents.release_charge(game_id, seat, drawn)
        self.outcomes[outcome] += 1
        return outcome

    async def offer(self, game_id: str, version: int, seat: int) -> str:
        """An optional action (a Stop while the window is open, KM-2): the
        agent may answer one of legal_actions, or `{"action": null}`. We wait
        at most the move's time; whatever comes back (nothing, garbage, an
        action refused or too late) costs the seat nothing."""
        table = await self._at(game_id, version)
        if table is None:
            return "stale"
        holder = table.seats[seat]
        if holder is None or holder.bot is not None or holder.kind != "agent":
            return "stale"
        legal = chance_now(table, seat, now_ms())
        if not legal:
            return "stale"
        agent = await self.agents.get(holder.player_id)
        if agent is None or agent.mode != "push" or agent.status == "deleted":
            return "stale"
        move_ms = timed_seat_rules(table.time_control, self.agents.clock).move_ms
        game = table.game
        body = msgspec.json.encode(
            {
                "game": game.name,
                "game_id": game_id,
                "seat": seat,
                "version": version,
                "view": game.view(table.state, seat),
                "legal_actions": legal,
                "deadline_ms": move_ms,
                "time_bank_ms": 0,
                "optional": True,
            }
        )
        reason, detail, raw, answered_ms, _answer = await post_to_agent(
            self.http, self.settings, agent, body, move_ms, f"{game_id}:{version}:{seat}:chance", OptionalAnswer
        )
        if reason is not None or raw is None:
            return "passed"
        try:
            await self.games.act(
                game_id,
                seat,
                raw,
                K.agent_command_id(seat, version, chance=True),
                expected_version=version,
                received_ms=int(answered_ms),
            )
        except ServiceError as err:  # e.g. already_called, version_conflict: the chance went to another
            log.debug("optional answer of %s@%s seat %s refused: %s", game_id, version, seat, err.message)
            return "refused"
        return "ok"

    async def _settle(
        self, game_id: str, version: int, seat: int, reason: str | None, detail: str, raw, answered_ms: float | None
    ) -> tuple[str, str]:
        """The agent's answer as its move, or the default move and why: (outcome, detail)."""
        games = self.games
        if reason is None:
            try:
                await games.act(
                    game_id,
                    seat,
                    raw,
                    K.agent_command_id(seat, version),
                    expected_version=version,
                    # An answer (reason None) always has its time; without one, now.
                    received_ms=int(answered_ms) if answered_ms is not None else None,
                )
                outcome = "ok"
            except BadRequest as err:
                reason, detail = "invalid_response", f"{err.code}: {err.message}"
            except Conflict as err:
                if err.code in ("version_conflict", "game_finished"):
                    outcome = "stale"  # the backstop deadline moved first
                else:
                    reason, detail = "illegal_action", f"{err.code}: {err.message}"
            except Unprocessable as err:
                reason, detail = "illegal_action", f"{err.code}: {err.message}"
        if reason is not None:
            outcome = reason
            # The game log is public: an unreachable endpoint's error (which
            # may name the author's addresses) stays in agent_turns, for its owner.
            public_detail = detail.split(":", 1)[0] if reason == "unreachable" else detail[:200]
            played = await games.play_for_seat(game_id, seat, reason, due_version=version, detail=public_detail)
            if not played:
                outcome = "stale"
        return outcome, detail

    async def deadline(self, game_id: str, version: int, seat: int) -> bool:
        """A pull agent's move time (and bank) ran out, or a push call never
        finished. Why, as precisely as the service knows: the agent
        was deleted (`unreachable`), its moves were refused until the deadline
        (`illegal_action`, the last refusal as detail), or no answer came in time
        (`timeout`, "no answer within N ms", as for push)."""
        table = await self.games.load(game_id)
        rules = timed_seat_rules(table.time_control, self.agents.clock)
        left = await self.agents.bank_left(game_id, seat, rules.bank_ms)
        holder = table.seats[seat] if 0 <= seat < len(table.seats) else None
        agent = await self.agents.get(holder.player_id) if holder is not None and holder.player_id else None
        refusal = await self.agents.open_turn_detail(game_id, version, seat)
        if agent is not None and agent.status == "deleted":
            reason, detail = "unreachable", "the agent was deleted"
        elif refusal:
            reason, detail = "illegal_action", refusal
        else:
            reason, detail = "timeout", f"no answer within {rules.budget_ms(left)} ms"
        played = await self.games.play_for_seat(game_id, seat, reason, due_version=version, detail=detail[:200])
        if played:  # the turn used its whole budget: all that was left of the bank
            used = rules.budget_ms(left)
            await self.agents.close_turn(
                game_id, version, seat, reason, used, overdraft(used, rules.move_ms, left), detail=detail
            )
        return played
