"""Leaving for good: a person deletes their account (DELETE /api/v1/players/me).

What goes: the password, the token, every session, the name (the row gets
the pseudonym, services/app/upcast.py), the person's agents (their tokens,
secrets, endpoints and names likewise), their registrations in tournaments
not started. What stays, pseudonymous: the seats and moves in the log
(immutable; read with the pseudonym in place of any name), the ratings and
their history, tournament results. Seats in games not finished go to house
bots first, so no table waits for them, and a Play now ticket still waiting
leaves its pool. docs/privacy.md says what is kept,
why and for how long."""

from __future__ import annotations

import secrets

import engines.tournament as tn
from services.app.accounts import Accounts
from services.app.agents.registry import AgentService
from services.app.errors import Forbidden
from services.app.games import leaving
from services.app.games.quickplay import QuickPlay
from services.app.games.service import GameService
from services.app.names import name_key, name_skeleton
from services.app.players import Player, Players
from services.app.ports import ScrubbedPlayer
from services.app.tournaments.service import TournamentService
from services.app.upcast import pseudonym


class AccountDeletion:
    def __init__(
        self,
        accounts: Accounts,
        players: Players,
        agents: AgentService,
        games: GameService,
        tournaments: TournamentService,
        quick_play: QuickPlay,
    ) -> None:
        self.quick_play = quick_play
        self.accounts = accounts
        self.players = players
        self.store = players.store
        self.agents = agents
        self.games = games
        self.tournaments = tournaments

    async def delete(self, player: Player, password: str, address: str) -> None:
        """Checks the password (403 wrong_password, within the sign-in
        limits of the name), then takes the account apart. Each step can be
        done again: a deletion cut short is finished by asking again with the
        same credentials (they go last)."""
        if player.kind != "human":
            raise Forbidden("people_only", "an agent is deleted by its owner (DELETE /api/v1/agents/{id})")
        await self.accounts.confirm_password(player, password, address)
        owned = await self.agents.of_owner(player)
        everyone = [player.player_id, *(a.agent_id for a in owned)]
        await self.quick_play.forget(player.player_id)  # seated nowhere new
        for game_id, seat in await self.games.lobby.seats_in_play(everyone):
            await leaving.hand_to_bot(self.games, game_id, seat)
        await self._withdraw_registrations(everyone)
        for agent in owned:
            await self.agents.delete(player, agent.agent_id)
        async with self.players.transactions.transaction() as tx:
            for player_id in everyone:
                name = pseudonym(player_id)
                # A rating keeps no name of a person either (reads join the
                # players row, now the pseudonym): the adapter writes what the
                # projection would, so a rebuild finds it equal.
                scrubbed = ScrubbedPlayer(player_id, name, name_key(name), name_skeleton(name), secrets.token_bytes(32))
                await self.store.scrub_player(scrubbed, tx)
            for agent in owned:
                await self.store.scrub_agent(agent.agent_id, pseudonym(agent.agent_id), tx)
            await self.store.end_sessions(everyone, tx)
        for player_id in everyone:
            await self.players.revoke(player_id)
        self._rename_cached(set(everyone))

    async def _withdraw_registrations(self, player_ids: list[str]) -> None:
        """Out of every tournament not started yet (a running one's later
        rounds seat a deleted entrant as a house bot: services/app/tournaments/rounds.py)."""
        ids = set(player_ids)
        for tournament_id in await self.store.registering_tournaments():
            loaded = await self.tournaments.load(tournament_id)
            for entrant in loaded.state.registered:
                if entrant.id in ids:
                    await self.tournaments.command(tournament_id, tn.Withdraw(entrant=entrant.id), loaded=loaded)

    def _rename_cached(self, player_ids: set[str]) -> None:
        """This process's table copies name the seats with the pseudonym at
        once (a copy is loaded with the players' names; other processes'
        copies are reloaded within their table cache's lifetime)."""
        for table in self.games.tables.cached():
            for holder in table.record.seats:
                if holder is not None and holder.player_id in player_ids:
                    holder.name = pseudonym(holder.player_id)
