"""Sparring: an agent plays N casual games against house bots, and its
author reads a report (results, mean score, strikes and their reasons, answer
times). The games are ordinary tables (unranked, the agent's seat rotating);
the report is read from their logs and from agent_turns."""

from __future__ import annotations

import secrets
import uuid
from collections import Counter

from engines.core import OptionsError
from engines.registry import get_game
from services.agents import Agent, AgentService
from services.errors import BadRequest, NotFound, Unprocessable
from services.games import GameService
from services.tableevents import MovePlayedForSeat, SeatHandedToBot
from services.tables import SeatHolder

MAX_GAMES = 50


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


class Sparring:
    def __init__(self, pool, games: GameService, agents: AgentService) -> None:
        self.pool = pool
        self.games = games
        self.agents = agents

    async def start(self, agent: Agent, game: str, count: int, players: int | None, bot: str,
                    options: dict, time_control: dict | None) -> dict:
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
        seats = [i % players for i in range(count)]
        await self.pool.execute(
            "INSERT INTO sparring (sparring_id, agent_id, game, game_ids, seats) VALUES ($1::text::uuid, $2::text::uuid,"
            " $3, $4::text[]::uuid[], $5)",
            sparring_id, agent.agent_id, game, game_ids, seats,
        )
        for game_id, seat in zip(game_ids, seats):
            holders = [
                SeatHolder(s, agent.agent_id, None, agent.name, "agent") if s == seat
                else SeatHolder(s, None, bot, f"{bot} bot", "bot")
                for s in range(players)
            ]
            await self.games.create_seated(
                game_id, game, options, False, secrets.randbits(62), holders, time_control=time_control,
            )
        return {"sparring_id": sparring_id, "game_ids": game_ids}

    async def report(self, agent: Agent, sparring_id: str) -> dict:
        try:
            uuid.UUID(sparring_id)
        except ValueError:
            raise NotFound("sparring_not_found", f"there is no sparring {sparring_id}") from None
        row = await self.pool.fetchrow(
            "SELECT game, game_ids::text[] AS game_ids, seats FROM sparring"
            " WHERE sparring_id = $1::text::uuid AND agent_id = $2::text::uuid",
            sparring_id, agent.agent_id,
        )
        if row is None:
            raise NotFound("sparring_not_found", f"there is no sparring {sparring_id}")
        results, reasons, scores, places = [], Counter(), [], []
        handed = 0
        for game_id, seat in zip(row["game_ids"], row["seats"]):
            table = await self.games.load(game_id)
            await self.games.refresh(table)
            strikes = [e for e in table.events if isinstance(e, MovePlayedForSeat) and e.seat == seat]
            reasons.update(e.reason for e in strikes)
            bot_took_over = any(isinstance(e, SeatHandedToBot) and e.seat == seat for e in table.events)
            handed += bot_took_over
            entry = {"game_id": game_id, "seat": seat, "status": "finished" if table.over else "playing",
                     "strikes": len(strikes), "handed_to_bot": bot_took_over}
            if table.over:
                result = table.game.result(table.state)
                entry.update(score=result.scores[seat], place=result.places[seat], won=seat in result.winners)
                scores.append(result.scores[seat])
                places.append(result.places[seat])
            results.append(entry)
        turns = await self.pool.fetch(
            "SELECT answered_ms - sent_ms AS answer_ms FROM agent_turns"
            " WHERE game_id = ANY($1::text[]::uuid[]) AND answered_ms IS NOT NULL",
            row["game_ids"],
        )
        answer_ms = [t["answer_ms"] for t in turns]
        finished = sum(1 for r in results if r["status"] == "finished")
        return {
            "sparring_id": sparring_id,
            "agent_id": agent.agent_id,
            "game": row["game"],
            "status": "done" if finished == len(results) else "running",
            "games": len(results),
            "finished": finished,
            "mean_score": round(sum(scores) / len(scores), 3) if scores else None,
            "mean_place": round(sum(places) / len(places), 3) if places else None,
            "wins": sum(1 for r in results if r.get("won")),
            "strikes": {"total": sum(reasons.values()), "by_reason": dict(reasons), "games_handed_to_bot": handed},
            "answer_time_ms": {"count": len(answer_ms), "p50": percentile(answer_ms, 0.5), "p99": percentile(answer_ms, 0.99)},
            "results": results,
        }
