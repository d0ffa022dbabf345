"""The tournaments' command handlers: one plain function per command of
services/app/commands.py, over the tournament service (its copies and the
kernel are the unit of work) and, for an agent registering itself, the
agents' rule that a paused agent takes no new seat. services/bootstrap.py
lists which handler answers which command."""

from __future__ import annotations

from services.app.agents.entries import register_self
from services.app.agents.registry import AgentService
from services.app.commands import CreateTournament, RecordTable, RegisterEntrant, StartTournament, WithdrawEntrant
from services.app.tournaments.copies import Loaded
from services.app.tournaments.service import TournamentService


async def create_tournament(cmd: CreateTournament, tournaments: TournamentService) -> Loaded:
    return await tournaments.create(cmd.player, cmd.settings)


async def register_entrant(cmd: RegisterEntrant, tournaments: TournamentService, agents: AgentService) -> Loaded:
    return await register_self(agents, tournaments, cmd.player, cmd.tournament_id)


async def withdraw_entrant(cmd: WithdrawEntrant, tournaments: TournamentService) -> Loaded:
    return await tournaments.withdraw(cmd.player, cmd.tournament_id)


async def start_tournament(cmd: StartTournament, tournaments: TournamentService) -> list:
    return await tournaments.start(cmd.tournament_id)


async def record_table(cmd: RecordTable, tournaments: TournamentService) -> list:
    return await tournaments.record_table(cmd.game_id)
