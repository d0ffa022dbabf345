"""A pull agent's own event stream (docs/agents.md): its games and
invitations as events, level-triggered. services/http/routes/agents.py
serves it as Server-Sent Events."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from services.app.agents.registry import Agent, AgentService
from services.app.games.service import GameService, result_shown
from services.app.games.turns import agent_turn
from services.app.seatclock import timed_seat_rules
from services.infra.fanout import END, Hub, NoticeQueue
from services.infra.keys import player_stream

# A comment line this often keeps proxies and clients from timing the stream out.
STREAM_KEEPALIVE_S = 5.0


class AgentEvents:
    """The agent's games and invitations as events: `game_started`,
    `your_turn`, `seat_handed_to_bot`, `game_ended`, `invitation`. The stream
    is level-triggered: a (re)connection first announces every game in
    progress (and the turn, when it is the agent's), then what changes."""

    def __init__(self, games: GameService, hub: Hub, agents: AgentService, agent: Agent) -> None:
        self.agent = agent
        self.games = games
        self.hub = hub
        self.agents = agents
        self.queue = NoticeQueue()
        self.subs: dict[str, Any] = {}
        self.known: dict[str, dict] = {}  # game id -> {seat, started, turn, handed, ended}
        self.invited: set[str] = set()
        self.ended: set[str] = set()

    def follow(self, stream_id: str) -> None:
        if stream_id not in self.subs:
            sub = self.hub.subscribe(stream_id)
            sub.queue = self.queue  # one queue for the agent's stream and all its games
            self.subs[stream_id] = sub

    def drop(self, stream_id: str) -> None:
        sub = self.subs.pop(stream_id, None)
        if sub is not None:
            self.hub.unsubscribe(sub)

    async def run(self) -> AsyncIterator[tuple[str, dict] | None]:
        """(event, data) pairs, and None when a keep-alive is due."""
        mine = player_stream(self.agent.agent_id)
        self.follow(mine)
        try:
            yield (
                "hello",
                {"agent_id": self.agent.agent_id, "name": self.agent.name, "keepalive_s": STREAM_KEEPALIVE_S},
            )
            rescan = True
            # The keep-alive is due every STREAM_KEEPALIVE_S of the clock, not
            # after that much silence: notices that bring nothing to send (the
            # hub's periodic checks) must not hold it back.
            due = time.monotonic() + STREAM_KEEPALIVE_S
            while not self.hub.ending:
                if rescan:
                    rescan = False
                    for message in await self._scan():
                        yield message
                notice = await self.queue.get(max(0.0, due - time.monotonic()))
                if notice is None:
                    yield None
                    due = time.monotonic() + STREAM_KEEPALIVE_S
                    rescan = True  # a missed notice costs at most one keep-alive period
                    continue
                if notice is END:  # shutdown: the agent reconnects
                    return
                if notice.stream_id == mine:
                    rescan = True
                elif notice.stream_id in self.known:
                    for message in await self._check(notice.stream_id, notice.last):
                        yield message
        finally:
            for stream_id in list(self.subs):
                self.drop(stream_id)

    async def _scan(self) -> list[tuple[str, dict]]:
        store = self.agents.store
        out = []
        for game_id, seat in await store.live_seats(self.agent.agent_id):
            if game_id not in self.known and game_id not in self.ended:
                self.known[game_id] = {
                    "seat": seat,
                    "started": False,
                    "turn": None,
                    "handed": False,
                    "ended": False,
                }
                self.follow(game_id)
        for game_id in list(self.known):
            out.extend(await self._check(game_id, 0))
        for r in await store.invitations(self.agent.agent_id):
            if r.tournament_id not in self.invited:
                self.invited.add(r.tournament_id)
                out.append(
                    (
                        "invitation",
                        {"tournament_id": r.tournament_id, "game": r.game, "status": r.status, "start_ms": r.start_ms},
                    )
                )
        return out

    async def _check(self, game_id: str, seen_version: int) -> list[tuple[str, dict]]:
        info = self.known[game_id]
        try:
            table = await self.games.load(game_id)
            if seen_version > table.version:
                await self.games.refresh(table)
        except Exception:
            return []
        seat = info["seat"]
        out: list[tuple[str, dict]] = []
        if table.state is None:
            return out
        game = table.game
        if not info["started"]:
            info["started"] = True
            out.append(
                (
                    "game_started",
                    {
                        "game_id": game_id,
                        "game": game.name,
                        "seat": seat,
                        "players": table.players,
                        "version": table.version,
                        "tournament_id": table.tournament_id,
                    },
                )
            )
        holder = table.seats[seat]
        if holder is not None and holder.bot is not None and not info["handed"]:
            info["handed"] = True
            out.append(("seat_handed_to_bot", {"game_id": game_id, "seat": seat, "bot": holder.bot}))
        if table.over:
            if not info["ended"]:
                info["ended"] = True
                result = result_shown(table)
                out.append(
                    (
                        "game_ended",
                        {
                            "game_id": game_id,
                            "seat": seat,
                            "version": table.version,
                            "place": result["table_places"][seat],
                            "score": result["scores"][seat],
                            "result": result,
                            "forfeited": seat in result["forfeited"],
                        },
                    )
                )
                self.known.pop(game_id, None)
                self.ended.add(game_id)
                self.drop(game_id)
        elif holder is None or holder.bot is not None:
            pass
        elif (turn := agent_turn(self.hub, table, seat))[1] and info.get("chance") != table.version:
            # May act, at its choice, with no deadline (a Stop in the window, KM-2).
            info["chance"] = table.version
            out.append(
                (
                    "your_chance",
                    {
                        "game_id": game_id,
                        "seat": seat,
                        "version": table.version,
                        "legal_actions": turn[1],
                    },
                )
            )
        elif turn[0] and info["turn"] != table.version:
            # Only once the seat can act (a masks placer when the stop window ends).
            info["turn"] = table.version
            # The same clock a push agent is sent: the move's own
            # time and what is left of the seat's bank, from this turn's start.
            agents = self.agents
            rules = timed_seat_rules(table.time_control, agents.clock)
            out.append(
                (
                    "your_turn",
                    {
                        "game_id": game_id,
                        "seat": seat,
                        "version": table.version,
                        "chain_head": table.chain_head(table.version),
                        "deadline_ms": rules.move_ms,
                        "time_bank_ms": await agents.bank_left(game_id, seat, rules.bank_ms),
                    },
                )
            )
        return out
