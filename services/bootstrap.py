"""The one composition root. Settings in, every long-lived object built and
wired here, for the API process (`create_app`) and the worker process
(`open_worker`) alike. Nothing below this module builds a service or
subscribes itself to another: the message bus's two tables, which handler
answers which command and who follows each commit, are written here.

Layers (enforced by tests/service/test_layers.py): bootstrap -> http -> app ->
infra; engines import nothing of services."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from litestar import Litestar

from services.app import analysis_handlers
from services.app.accounts import Accounts, shared_secret
from services.app.agents import handlers as agent_handlers
from services.app.agents.calls import AgentCaller
from services.app.agents.dispatch import AgentDispatch
from services.app.agents.registry import AgentService
from services.app.agents.secrets import SecretBox, seal_plaintext_secrets, secret_key
from services.app.analyses import Analyses
from services.app.bus import MessageBus
from services.app.commands import (
    CallAgent,
    CancelTable,
    CreateSeatedTable,
    CreateTable,
    CreateTournament,
    EnterAgent,
    ExpireAgentTurn,
    FireTimer,
    HandSeatToBot,
    JoinQuickPlay,
    LeaveTable,
    PlayAgain,
    PlayDefaultMove,
    PlaySeatMove,
    ReadAnalysis,
    RecordTable,
    RegisterEntrant,
    RunAnalysis,
    SeatBot,
    SendClientSeed,
    StartTournament,
    SubmitAction,
    TakeSeat,
    WithdrawAgent,
    WithdrawEntrant,
    WithdrawQuickPlay,
)
from services.app.fairplay import FairPlay
from services.app.games import handlers
from services.app.games.cache import TableCache
from services.app.games.deadlines import Deadlines
from services.app.games.housebots import HouseBots
from services.app.games.quickplay import QuickPlay
from services.app.games.service import GameService
from services.app.games.timers import Timers, tables_in_play
from services.app.players import Players, fill_name_columns
from services.app.ratings.projection import RatingsProjector
from services.app.sessions import SessionKeys
from services.app.signin import SignInLimits
from services.app.tournaments import handlers as tournament_handlers
from services.app.tournaments.service import TournamentService
from services.config import ProcessSettings, Settings
from services.http.ratelimit import RateLimiter
from services.http.shutdown import end_streams_on_signal
from services.infra import logs
from services.infra.analysis_child import run_analysis_child
from services.infra.db import create_pool
from services.infra.eventstore import EventStore
from services.infra.fanout import Hub, Publisher
from services.infra.leases import Leases
from services.infra.outages import OUTAGES, POSTGRES, REDIS, quiet_library_outages
from services.infra.pg import PgTransactions
from services.infra.pg_accounts import PgAccounts
from services.infra.pg_agents import PgAgents
from services.infra.pg_analyses import PgAnalyses
from services.infra.pg_caps import PgCapCounts
from services.infra.pg_lobby import PgLobby
from services.infra.pg_quickplay import PgQuickPlay
from services.infra.pg_ratings import PgRatings
from services.infra.pg_tournaments import PgTournaments
from services.infra.redis_signin import RedisSignInCounters
from services.infra.revocations import Revocations
from services.infra.scheduler import Scheduler
from services.infra.watchers import Watchers

# Which handler answers which command (services/app/commands.py).
COMMAND_HANDLERS: dict[type, Callable[..., Awaitable[Any]]] = {
    CreateTable: handlers.create_table,
    CreateSeatedTable: handlers.create_seated_table,
    TakeSeat: handlers.take_seat,
    SendClientSeed: handlers.send_client_seed,
    SeatBot: handlers.seat_bot,
    LeaveTable: handlers.leave_table,
    CancelTable: handlers.cancel_table,
    PlayAgain: handlers.play_again,
    SubmitAction: handlers.submit_action,
    PlaySeatMove: handlers.play_seat_move,
    PlayDefaultMove: handlers.play_default_move,
    FireTimer: handlers.fire_timer,
    HandSeatToBot: handlers.hand_seat_to_bot,
    JoinQuickPlay: handlers.join_quick_play,
    WithdrawQuickPlay: handlers.withdraw_quick_play,
    CreateTournament: tournament_handlers.create_tournament,
    RegisterEntrant: tournament_handlers.register_entrant,
    WithdrawEntrant: tournament_handlers.withdraw_entrant,
    EnterAgent: tournament_handlers.enter_agent,
    WithdrawAgent: tournament_handlers.withdraw_agent,
    StartTournament: tournament_handlers.start_tournament,
    RecordTable: tournament_handlers.record_table,
    CallAgent: agent_handlers.call_agent,
    ExpireAgentTurn: agent_handlers.expire_agent_turn,
    ReadAnalysis: analysis_handlers.read_analysis,
    RunAnalysis: analysis_handlers.run_analysis,
}


def with_services(handler: Callable[..., Awaitable[Any]], **services: Any) -> Callable[[Any], Awaitable[Any]]:
    """The handler with the services its parameters after the command name
    (`games`, `quick_play`, ...), as the bus calls it: with the command only."""
    wanted = list(inspect.signature(handler).parameters)[1:]
    return partial(handler, **{name: services[name] for name in wanted})


def bus_handlers(**services: Any) -> dict[type, Callable[[Any], Awaitable[Any]]]:
    """The table of handlers given these services: every command whose
    handler's services are all among them (a unit test's service may boot
    the games without the tournaments)."""
    return {
        command: with_services(handler, **services)
        for command, handler in COMMAND_HANDLERS.items()
        if set(list(inspect.signature(handler).parameters)[1:]) <= set(services)
    }


@dataclass
class Runtime:
    settings: Settings
    pool: asyncpg.Pool
    redis: aioredis.Redis
    store: EventStore
    publisher: Publisher
    hub: Hub
    tables: TableCache
    games: GameService
    bus: MessageBus
    bots: HouseBots
    timers: Timers
    players: Players
    scheduler: Scheduler
    deadlines: Deadlines
    tournaments: TournamentService
    agents: AgentService
    agent_dispatch: AgentDispatch
    watchers: Watchers  # spectator counts
    ratings: PgRatings  # the ratings projection's tables, and their reads
    quick_play: QuickPlay  # Play now's pool
    fair_play: FairPlay  # completion rates and ranked cooldowns (services/app/fairplay.py)
    agent_caller: AgentCaller  # the calls to push agents (its HTTP pool is made on a worker's first call)
    analyses: Analyses  # post-game analyses: requests, the queue, the job (services/app/analyses.py)
    # While a server is down, these ask it whether it is back (services/infra/outages.py).
    outage_probes: list = field(default_factory=list)

    @classmethod
    async def open(cls, settings: Settings) -> Runtime:
        return await open_runtime(settings)

    async def close(self) -> None:
        for unregister in self.outage_probes:
            unregister()
        await self.agent_caller.close()
        await self.bots.close()
        await self.timers.close()
        await self.watchers.close()
        await self.hub.close()
        await self.publisher.close()
        await self.scheduler.close()
        await self.redis.aclose()
        await self.pool.close()


async def open_runtime(settings: Settings) -> Runtime:
    """Every part a process of either kind needs, wired once."""
    redis_url = settings.required_redis_url()
    pool = await create_pool(settings.database_url, settings.pool_size)
    accounts = PgAccounts(pool)
    await fill_name_columns(accounts)  # rows from before migration 011
    redis = aioredis.from_url(redis_url)
    store = EventStore(pool)
    publisher = Publisher(redis)
    hub = Hub(redis, store, settings.resync_interval_s, latest_capacity=4 * settings.table_cache_size)
    publisher.local = hub.deliver  # this process's own commits reach its SSE clients without a Redis round trip
    caps = settings.caps.counting(PgCapCounts(pool))  # what one account may hold at once
    lobby = PgLobby(pool)
    transactions = PgTransactions(pool)
    tables = TableCache(lobby, store, settings.table_cache_size, settings.finished_table_linger_s)
    games = GameService(
        lobby,
        store,
        publisher,
        tables,
        transactions,
        known_version=hub.latest_version,
        recheck_s=settings.resync_interval_s,
        caps=caps,
        clock=settings.clock,
    )
    scheduler = await Scheduler.connect(redis_url)
    deadlines = Deadlines(scheduler, settings.clock)
    # A lease per driven table: one driver at a time over every process.
    bots = HouseBots(games, settings.bot_delay_ms, settings.table_bot_delay_ms, leases=Leases(redis))
    timers = Timers(games, bots_asked=bots.asked)  # KM-5a: a timer waits for the bots' chance
    # Cached credentials, trusted while their revocation generation holds.
    players = Players(accounts, transactions, Revocations(redis))
    tournaments = TournamentService(PgTournaments(pool), store, publisher, games, scheduler, transactions, accounts)
    agent_store = PgAgents(pool)
    box = SecretBox(await secret_key(agent_store, settings.secret_key))
    await seal_plaintext_secrets(agent_store, box)
    agents = AgentService(agent_store, players, transactions, settings.agents, box, caps, settings.clock)
    agent_dispatch = AgentDispatch(agents, scheduler, publisher, settings.agents)
    agent_caller = AgentCaller(games, agents, settings.agents)
    ratings = PgRatings(pool)
    quick_play = QuickPlay(PgQuickPlay(pool), ratings, games, transactions, settings.quick_play)
    fair_play = FairPlay(lobby)  # abandonment's price: completion rate and cooldown
    # Post-game analyses; only a worker runs them (open_worker gives the child runner).
    analyses = Analyses(PgAnalyses(pool), games, scheduler, requests_per_window=settings.analysis_requests_per_hour)
    if not settings.analyse_on_request_only:
        tournaments.round_ended.append(analyses.request_round)  # a round's games, analysed first
    bus = MessageBus(
        bus_handlers(
            games=games,
            quick_play=quick_play,
            tournaments=tournaments,
            agents=agents,
            agent_caller=agent_caller,
            notices=publisher,
            fair_play=fair_play,
            analyses=analyses,
        ),
        # Every commit to a game stream, in this order: arm the turn's
        # deadline, drive the house bots, arm the table's timer, record a
        # finished tournament table, call or notify the agent whose turn it is.
        [
            deadlines.on_commit,
            bots.on_commit,
            timers.on_commit,
            tournaments.on_game_commit,
            agent_dispatch.on_commit,
            tables.on_commit,  # last: a finished table leaves memory soon after
        ],
    )
    games.on_commit.append(bus.committed)
    runtime = Runtime(
        settings=settings,
        pool=pool,
        redis=redis,
        store=store,
        publisher=publisher,
        hub=hub,
        tables=tables,
        games=games,
        bus=bus,
        bots=bots,
        timers=timers,
        players=players,
        scheduler=scheduler,
        deadlines=deadlines,
        tournaments=tournaments,
        agents=agents,
        agent_dispatch=agent_dispatch,
        watchers=Watchers(redis),
        ratings=ratings,
        quick_play=quick_play,
        fair_play=fair_play,
        agent_caller=agent_caller,
        analyses=analyses,
    )
    quiet_library_outages(OUTAGES)
    runtime.outage_probes = [
        OUTAGES.probe(POSTGRES, lambda: pool.fetchval("SELECT 1")),
        OUTAGES.probe(REDIS, redis.ping),
    ]
    hub.start()
    in_play = await tables_in_play(games)  # mid-game when a process stopped
    bots.resume(in_play)
    timers.resume(in_play)
    return runtime


def create_app(settings: Settings) -> Litestar:
    """The API process: the runtime plus what only HTTP needs (session keys,
    accounts, rate limiters), handed to the routes as app.state."""
    # Imported here: the worker process never builds the app, and the routes
    # and pages are a tenth of its start.
    from services.http.app import build_app

    @asynccontextmanager
    async def lifespan(app: Litestar):
        runtime = await open_runtime(settings)
        end_streams_on_signal(runtime.hub.end_streams)  # SIGTERM must not wait for SSE clients
        keys = SessionKeys(await shared_secret(runtime.players.store, settings.session_secret))
        runtime.players.keys = keys  # the session cookie, on every route (services/app/sessions.py)
        app.state.update(
            settings=settings,
            runtime=runtime,
            pool=runtime.pool,
            redis=runtime.redis,
            hub=runtime.hub,
            games=runtime.games,
            bus=runtime.bus,
            players=runtime.players,
            tournaments=runtime.tournaments,
            ratings=runtime.ratings,
            # Sign-in attempts per name and per address, over every process.
            accounts=Accounts(runtime.players, keys, SignInLimits(RedisSignInCounters(runtime.redis), settings.signin)),
            agent_limiter=RateLimiter(runtime.redis, settings.agents.rate_limit, settings.agents.rate_window_s),
        )
        try:
            yield
        finally:
            await runtime.close()

    return build_app(settings, lifespan)


def app_from_env() -> Litestar:
    """For `uvicorn --factory services.bootstrap:app_from_env`."""
    process = ProcessSettings.from_env()
    logs.configure(process.log_level, process.log_text)  # JSON lines, quiet when idle (services/infra/logs.py)
    return create_app(Settings.from_env())


async def open_worker(settings: Settings) -> tuple[Runtime, RatingsProjector]:
    """The worker process: the runtime, its agent caller (push agents whose
    turn comes from a commit made here are called at once) and the ratings
    projection."""
    runtime = await open_runtime(settings)
    # Agents whose turn comes from a commit made in this worker are called
    # from here at once (API processes enqueue `call_agent` jobs).
    runtime.agent_dispatch.call_directly = runtime.agent_caller.call_soon
    runtime.analyses.runner = run_analysis_child  # `python -m services.cli analyse - --json --progress-lines`
    return runtime, RatingsProjector(runtime.ratings, PgTransactions(runtime.pool))
