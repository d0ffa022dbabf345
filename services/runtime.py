"""The one composition root: every long-lived part, wired once, for the API
process (app.py's lifespan) and the worker process (workers/) alike."""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis

from services.agent_dispatch import AgentDispatch
from services.agents import AgentService, AgentSettings
from services.config import Settings
from services.db import create_pool
from services.deadlines import Deadlines
from services.eventstore import EventStore
from services.fanout import Hub, Publisher
from services.games import GameService
from services.housebots import HouseBots
from services.players import Players
from services.scheduler import Scheduler
from services.tables import TableCache
from services.tournaments import TournamentService
from services.watchers import Watchers


@dataclass
class Runtime:
    settings: Settings
    pool: object
    redis: aioredis.Redis
    store: EventStore
    publisher: Publisher
    hub: Hub
    tables: TableCache
    games: GameService
    bots: HouseBots
    players: Players
    scheduler: Scheduler
    deadlines: Deadlines
    tournaments: TournamentService
    agents: AgentService | None = None
    agent_dispatch: AgentDispatch | None = None
    watchers: Watchers | None = None  # spectator counts (issue 15)

    @classmethod
    async def open(cls, settings: Settings) -> "Runtime":
        pool = await create_pool(settings.database_url, settings.pool_size)
        redis = aioredis.from_url(settings.redis_url)
        store = EventStore(pool)
        publisher = Publisher(redis)
        hub = Hub(redis, store, settings.resync_interval_s)
        publisher.local = hub.deliver
        tables = TableCache(pool, store)
        games = GameService(pool, store, publisher, tables, known_version=hub.latest_version, recheck_s=settings.resync_interval_s)
        scheduler = await Scheduler.connect(settings.redis_url)
        deadlines = Deadlines(scheduler)
        games.on_commit.append(deadlines.on_commit)
        runtime = cls(
            settings=settings, pool=pool, redis=redis, store=store, publisher=publisher, hub=hub,
            tables=tables, games=games, bots=HouseBots(games, settings.bot_delay_ms, settings.table_bot_delay_ms), players=Players(pool),
            scheduler=scheduler, deadlines=deadlines,
            tournaments=TournamentService(pool, store, publisher, games, scheduler),
        )
        players = runtime.players
        runtime.agents = AgentService(pool, players, AgentSettings.from_env())
        runtime.agent_dispatch = AgentDispatch(runtime.agents, scheduler, publisher, runtime.agents.settings)
        games.on_commit.append(runtime.agent_dispatch.on_commit)
        runtime.watchers = Watchers(redis)
        hub.start()
        await runtime.bots.resume_all()
        return runtime

    async def close(self) -> None:
        await self.bots.close()
        if self.watchers is not None:
            await self.watchers.close()
        await self.hub.close()
        await self.publisher.close()
        await self.scheduler.close()
        await self.redis.aclose()
        await self.pool.close()
