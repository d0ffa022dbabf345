"""An owner enters their agent in a tournament: the tournament's bot policy
decides whether agents may play; the entry is kept (agent_entries) and the
agent's own stream is told, so a pull agent sees it at once."""

from __future__ import annotations

from services.app.agents.registry import AgentService
from services.app.players import Player
from services.app.tournaments.service import Loaded, TournamentService
from services.infra.fanout import Notice, Publisher
from services.infra.keys import player_stream


async def enter_tournament(
    agents: AgentService,
    tournaments: TournamentService,
    publisher: Publisher,
    owner: Player,
    agent_id: str,
    tournament_id: str,
) -> Loaded:
    agent = await agents.owned(owner, agent_id)
    agents.check_can_play(agent, (await tournaments.load(tournament_id)).state.settings.game)
    loaded = await tournaments.register(Player(agent.agent_id, agent.name, "agent"), tournament_id)
    await agents.store.enter(agent.agent_id, tournament_id)
    publisher.publish(Notice(player_stream(agent.agent_id), 0, 0))
    return loaded


async def register_self(
    agents: AgentService, tournaments: TournamentService, player: Player, tournament_id: str
) -> Loaded:
    """A player registers with its own token; an agent is held to the same
    rule as its owner's route (a paused agent takes no new seat)."""
    if player.kind == "agent":
        await agents.check_new_seat(player, (await tournaments.load(tournament_id)).state.settings.game)
    return await tournaments.register(player, tournament_id)


async def withdraw_agent(
    agents: AgentService, tournaments: TournamentService, owner: Player, agent_id: str, tournament_id: str
) -> Loaded:
    """The owner withdraws their agent from a tournament."""
    agent = await agents.owned(owner, agent_id)
    return await tournaments.withdraw(Player(agent.agent_id, agent.name, "agent"), tournament_id)
