"""Sparring: an agent plays N casual games against house bots, and its
author reads a report (results, mean score, strikes and their reasons, answer
times). The games are ordinary tables (unranked, the agent's seat rotating);
the report is read from their logs and from agent_turns."""

from __future__ import annotations

import hashlib
import secrets
import uuid

from engines.core import OptionsError
from engines.registry import get_game
from services.app.agents.registry import Agent, AgentService
from services.app.agents.sparring_report import build as build_report
from services.app.errors import BadRequest, NotFound, Unprocessable
from services.app.games.service import GameService
from services.app.ports.agents import NewSparring
from services.app.seats import SeatHolder

MAX_GAMES = 50
MAX_SEED = 2**62 - 1  # the range of the seeds the server draws


def deal_seed(series_seed: int, index: int) -> int:
    """Game `index`'s seed in a series given a seed: the same series seed
    gives the same deals, game by game (sparring only)."""
    digest = hashlib.sha256(f"sparring:{series_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


class Sparring:
    def __init__(self, games: GameService, agents: AgentService) -> None:
        self.games = games
        self.agents = agents

    async def start(
        self,
        agent: Agent,
        game: str,
        count: int,
        players: int | None,
        bot: str,
        options: dict,
        time_control: dict | None,
        seed: int | None = None,
        duplicate: bool = False,
    ) -> dict:
        self.agents.check_can_play(agent, game)
        try:
            spec = get_game(game)
            players = players or spec.min_players
            spec.check_players(players)
            spec.make_options(options)
        except OptionsError as err:
            raise Unprocessable(err.code, err.message) from None
        if not 1 <= count <= MAX_GAMES:  # the route's type bounds it too
            raise BadRequest("bad_games", f"games is 1 to {MAX_GAMES}")
        if bot not in spec.bots:
            raise Unprocessable("unknown_bot", f"no house bot {bot!r} for {spec.title}; known: {', '.join(spec.bots)}")
        # time_control was checked by the route's TimeControl type (engines/timecontrol.py).
        sparring_id = str(uuid.uuid4())
        game_ids = [str(uuid.uuid4()) for _ in range(count)]
        # Duplicate: each deal again with the house bot in the agent's seat.
        bot_game_ids = [str(uuid.uuid4()) for _ in range(count)] if duplicate else None
        seats = [i % players for i in range(count)]
        settings = {
            "game": game,
            "players": players,
            "bot": bot,
            "games": count,
            "seed": seed,
            "duplicate": duplicate,
            "options": options,
            "time_control": time_control,
        }
        async with self.agents.transactions.transaction() as tx:
            await self.agents.caps.check_sparring(tx, agent.owner_id)
            await self.agents.store.insert_sparring(
                NewSparring(sparring_id, agent.agent_id, game, game_ids, seats, settings, bot_game_ids), tx
            )
        for i, (game_id, seat) in enumerate(zip(game_ids, seats, strict=True)):
            game_seed = deal_seed(seed, i) if seed is not None else secrets.randbits(62)
            house = [SeatHolder(s, None, bot, f"{bot} bot", "bot") for s in range(players)]
            holders = [
                SeatHolder(seat, agent.agent_id, None, agent.name, "agent") if s == seat else h
                for s, h in enumerate(house)
            ]
            await self.games.create_seated(game_id, game, options, False, game_seed, holders, time_control=time_control)
            if bot_game_ids:  # same seed, so the same cards (the salt never feeds a shuffle)
                await self.games.create_seated(
                    bot_game_ids[i], game, options, False, game_seed, house, time_control=time_control
                )
        created = {"sparring_id": sparring_id, "game_ids": game_ids}
        if bot_game_ids:
            created["bot_game_ids"] = bot_game_ids
        return created

    async def report(self, agent: Agent, sparring_id: str) -> dict:
        try:
            uuid.UUID(sparring_id)
        except ValueError:
            raise NotFound("sparring_not_found", f"there is no sparring {sparring_id}") from None
        row = await self.agents.store.sparring(sparring_id, agent.agent_id)
        if row is None:
            raise NotFound("sparring_not_found", f"there is no sparring {sparring_id}")
        return await build_report(self.agents.store, self.games, agent.agent_id, row)
