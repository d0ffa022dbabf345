"""The game service booted as bootstrap.py boots it, on the memory adapters
(each held to its PostgreSQL or Redis adapter by tests/contract): the same
command handlers behind one MessageBus, the deadlines (jobs queued in
memory), house bots, tournaments' results and the table cache as commit
subscribers. `another_process()` is a second service over the same stores,
as a second API process is over the same PostgreSQL."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.app.agents.registry import AgentService
from services.app.agents.secrets import SecretBox
from services.app.agents.settings import AgentSettings
from services.app.bus import MessageBus
from services.app.caps import CapPolicy
from services.app.fairplay import FairPlay
from services.app.games.cache import TableCache
from services.app.games.deadlines import Deadlines
from services.app.games.housebots import HouseBots
from services.app.games.quickplay import QuickPlay, QuickPlaySettings
from services.app.games.service import GameService
from services.app.games.tables import Table
from services.app.players import Player, Players
from services.app.ports import NewPlayer
from services.app.tournaments.service import TournamentService
from services.bootstrap import bus_handlers
from services.infra.fanout import Notice
from services.infra.memory_accounts import MemoryAccounts
from services.infra.memory_agents import MemoryAgents
from services.infra.memory_caps import MemoryCapCounts
from services.infra.memory_eventstore import MemoryEventStore
from services.infra.memory_fanout import MemoryPublisher
from services.infra.memory_jobs import MemoryJobs
from services.infra.memory_lobby import MemoryLobby
from services.infra.memory_quickplay import MemoryQuickPlay
from services.infra.memory_ratings import MemoryRatings
from services.infra.memory_tournaments import MemoryTournaments
from services.infra.memory_tx import MemoryTransactions


@dataclass
class Stores:
    events: MemoryEventStore = field(default_factory=MemoryEventStore)
    accounts: MemoryAccounts = field(default_factory=MemoryAccounts)
    transactions: MemoryTransactions = field(default_factory=MemoryTransactions)
    lobby: MemoryLobby = field(init=False)
    # The newest version each stream's notices named, over every process
    # (the Hub's latest_version, which Redis carries between processes).
    latest: dict[str, int] = field(default_factory=dict)
    quick_play: MemoryQuickPlay = field(default_factory=MemoryQuickPlay)
    tournaments: MemoryTournaments = field(init=False)
    agents: MemoryAgents = field(init=False)

    def __post_init__(self) -> None:
        self.lobby = MemoryLobby(self.events, self.accounts)
        self.tournaments = MemoryTournaments(self.lobby)
        self.agents = MemoryAgents(self.accounts)


class StepClock:
    """The wall clock in ms, which a test may move on (`advance`) instead of
    waiting: tournaments' windows and starts read it, and queued jobs fall
    due by it."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def __call__(self) -> int:
        return int(time.time() * 1000) + self.offset_ms

    def advance(self, ms: int) -> None:
        self.offset_ms += ms


class MemoryService:
    def __init__(self, stores: Stores | None = None) -> None:
        self.stores = stores or Stores()
        self.clock = StepClock()
        s = self.stores
        self.publisher = MemoryPublisher()
        self.publisher.local = self._heard
        self.tables = TableCache(s.lobby, s.events)
        self.games = GameService(
            s.lobby,
            s.events,
            self.publisher,
            self.tables,
            s.transactions,
            known_version=self._known_version,
            caps=CapPolicy().counting(MemoryCapCounts()),
        )
        self.bots = HouseBots(self.games)
        self.jobs = MemoryJobs(clock=lambda: self.clock() / 1000)
        self.deadlines = Deadlines(self.jobs)
        self.ratings = MemoryRatings(s.events, s.lobby, s.accounts)
        self.quick_play = QuickPlay(s.quick_play, self.ratings, self.games, s.transactions, QuickPlaySettings())
        players = Players(s.accounts, s.transactions)
        self.agents = AgentService(s.agents, players, s.transactions, AgentSettings(), SecretBox(b"unit tier" * 4))
        self.tournaments = TournamentService(
            s.tournaments, s.events, self.publisher, self.games, self.jobs, s.transactions, s.accounts, self.clock
        )
        self.fair_play = FairPlay(s.lobby)
        self.bus = MessageBus(
            bus_handlers(
                games=self.games,
                quick_play=self.quick_play,
                tournaments=self.tournaments,
                agents=self.agents,
                notices=self.publisher,
                fair_play=self.fair_play,
            ),
            [
                self.deadlines.on_commit,
                self.bots.on_commit,
                self.tournaments.on_game_commit,
                self._watch,
                self.tables.on_commit,
            ],
        )
        self.games.on_commit.append(self.bus.committed)
        self._over: dict[str, asyncio.Event] = {}
        self._commits: dict[str, list[asyncio.Event]] = {}

    def _heard(self, notice: Notice) -> None:
        latest = self.stores.latest
        latest[notice.stream_id] = max(latest.get(notice.stream_id, 0), notice.last)

    def _known_version(self, stream_id: str) -> int:
        return self.stores.latest.get(stream_id, 0)

    def _watch(self, table: Table, events: list) -> None:
        if table.over:
            self._over.setdefault(table.game_id, asyncio.Event()).set()
        for waiter in self._commits.pop(table.game_id, []):
            waiter.set()

    async def next_commit(self, game_id: str) -> None:
        """Until the table's next commit here (a house bot's move)."""
        waiter = asyncio.Event()
        self._commits.setdefault(game_id, []).append(waiter)
        await waiter.wait()

    async def finished(self, game_id: str) -> None:
        """Until the table's last commit here."""
        await self._over.setdefault(game_id, asyncio.Event()).wait()

    def another_process(self) -> MemoryService:
        return MemoryService(self.stores)

    async def player(self, kind: str = "human") -> Player:
        player_id, name = str(uuid.uuid4()), f"p{uuid.uuid4().hex[:8]}"
        await self.stores.accounts.insert_player(NewPlayer(player_id, name, kind, uuid.uuid4().bytes, None, name, name))
        return Player(player_id, name, kind)  # type: ignore[arg-type]

    async def close(self) -> None:
        await self.bots.close()


def first_legal(table: Table, seat: int) -> dict[str, Any]:
    """A legal action of `seat` as a client sends it."""
    action = table.game.legal_actions(table.state, seat)[0]
    return msgspec.to_builtins(action)
