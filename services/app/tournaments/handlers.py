"""The tournaments' command handlers: one plain function per command of
services/app/commands.py, over the tournament service (its copies and the
kernel are the unit of work) and, where an agent enters, the agents' rules
(ownership, the games it may play, a paused agent takes no new seat).
services/bootstrap.py lists which handler answers which command."""

from __future__ import annotations

from engines.tournament.events import Settings
from services.app.agents.registry import AgentService
from services.app.commands import (
    CreateTournament,
    EnterAgent,
    RecordTable,
    RegisterEntrant,
    StartTournament,
    WithdrawAgent,
    WithdrawEntrant,
)
from services.app.fairplay import FairPlay
from services.app.players import Player
from services.app.ports.notices import Notice, Notices
from services.app.tournaments.copies import Loaded
from services.app.tournaments.service import TournamentService
from services.infra.keys import player_stream


async def create_tournament(cmd: CreateTournament, tournaments: TournamentService) -> Loaded:
    return await tournaments.create(cmd.player, cmd.settings)


async def register_entrant(
    cmd: RegisterEntrant, tournaments: TournamentService, agents: AgentService, fair_play: FairPlay
) -> Loaded:
    """A player registers with its own token; an agent is held to the same
    rule as its owner's route (a paused agent takes no new seat). A ranked
    tournament refuses during a cooldown and below its minimum completion
    rate (services/app/fairplay.py)."""
    settings = (await tournaments.load(cmd.tournament_id)).state.settings
    if cmd.player.kind == "agent":
        await agents.check_new_seat(cmd.player, settings.game)
    await _fair_play(fair_play, cmd.player.player_id, settings)
    return await tournaments.register(cmd.player, cmd.tournament_id, cmd.client_seed)


async def _fair_play(fair_play: FairPlay, player_id: str, settings: Settings) -> None:
    if settings.ranked or settings.min_completion_rate is not None:
        await fair_play.check_ranked(player_id, settings.min_completion_rate, ranked=settings.ranked)


async def withdraw_entrant(cmd: WithdrawEntrant, tournaments: TournamentService) -> Loaded:
    return await tournaments.withdraw(cmd.player, cmd.tournament_id)


async def enter_agent(
    cmd: EnterAgent, tournaments: TournamentService, agents: AgentService, notices: Notices, fair_play: FairPlay
) -> Loaded:
    """The entry is kept (agent_entries) and the agent's own stream is told,
    so a pull agent sees it at once."""
    agent = await agents.owned(cmd.owner, cmd.agent_id)
    settings = (await tournaments.load(cmd.tournament_id)).state.settings
    agents.check_can_play(agent, settings.game)
    await _fair_play(fair_play, agent.agent_id, settings)
    loaded = await tournaments.register(Player(agent.agent_id, agent.name, "agent"), cmd.tournament_id)
    await agents.store.enter(agent.agent_id, cmd.tournament_id)
    notices.publish(Notice(player_stream(agent.agent_id), 0, 0))
    return loaded


async def withdraw_agent(cmd: WithdrawAgent, tournaments: TournamentService, agents: AgentService) -> Loaded:
    agent = await agents.owned(cmd.owner, cmd.agent_id)
    return await tournaments.withdraw(Player(agent.agent_id, agent.name, "agent"), cmd.tournament_id)


async def start_tournament(cmd: StartTournament, tournaments: TournamentService) -> list:
    return await tournaments.start(cmd.tournament_id)


async def record_table(cmd: RecordTable, tournaments: TournamentService) -> list:
    return await tournaments.record_table(cmd.game_id)
