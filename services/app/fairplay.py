"""Abandoning a ranked game has a price (as Lichess's playban and Board Game
Arena's reputation do). This module is the rule's one home.

A ranked game is *abandoned* by a seat handed to a house bot: the player
left it, ran out of strikes, or was timed out of an untimed table. Their
game is then ranked last (`forfeited` in hm.game_finished). Two figures
come from a player's last `WINDOW` ranked games, read from the lobby's rows
and the games' end events:

- **completion rate**: the share finished without a hand-over (None before
  the first ranked game);
- **cooldown**: the first abandonment in a while costs only that game. Each
  further one soon after closes ranked play for a while: 10 minutes, then
  doubling with each repeat (20, 40, ... minutes), capped at 48 hours,
  counted from the end of the abandoned game. Each full day without an
  abandonment forgives one repeat.

During a cooldown, ranked play (Play now, ranked tables, ranked tournaments)
refuses with 403 `ranked_cooldown` and the time it ends (`until_ms`).
Unranked tables and sparring stay open. A tournament may also ask for a
minimum completion rate to register (`min_completion_rate`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

from services.app.errors import Forbidden, NotFound
from services.app.ports import Lobby

WINDOW = 100  # the ranked games a record is read from, newest first
FIRST_COOLDOWN_S = 10 * 60
MAX_COOLDOWN_S = 48 * 3600
FORGIVEN_AFTER_S = 24 * 3600  # one repeat forgiven per full day without an abandonment


class PlayerProfile(msgspec.Struct, frozen=True):
    """`GET /api/v1/players/{id}`: who a player is and how they finish their
    ranked games; the cooldown only to the player themself."""

    player_id: str
    name: str
    kind: str  # 'human' or 'agent'
    ranked_games: int
    abandoned: int
    completion_rate: float | None
    ranked_cooldown_until_ms: int | None = None


class Completion(msgspec.Struct, frozen=True):
    ranked_games: int  # finished ranked games in the window
    abandoned: int  # of them, handed to a house bot
    completion_rate: float | None
    cooldown_until_ms: int | None  # None: ranked play is open


def cooldown_until(abandoned_at: list[float]) -> float | None:
    """When the cooldown earned by abandonments at these times (epoch
    seconds) ends; None when none was earned. The caller compares with now."""
    level, previous, until = 0, None, None
    for at in sorted(abandoned_at):
        if previous is not None:
            level = max(0, level - int((at - previous) // FORGIVEN_AFTER_S))
        level += 1
        previous = at
        if level >= 2:
            until = at + min(MAX_COOLDOWN_S, FIRST_COOLDOWN_S * 2 ** (level - 2))
    return until


class FairPlay:
    def __init__(self, lobby: Lobby, clock: Callable[[], float] = time.time) -> None:
        self.lobby = lobby
        self.clock = clock

    async def completion(self, player_id: str) -> Completion:
        ranked = await self.lobby.ranked_finishes(player_id, WINDOW)
        abandoned_at = [finished_at.timestamp() for finished_at, left in ranked if left]
        until = cooldown_until(abandoned_at)
        return Completion(
            ranked_games=len(ranked),
            abandoned=len(abandoned_at),
            completion_rate=round(1 - len(abandoned_at) / len(ranked), 4) if ranked else None,
            cooldown_until_ms=int(until * 1000) if until is not None and until > self.clock() else None,
        )

    async def profile(self, player_id: str, viewer_id: str | None) -> PlayerProfile:
        identity = await self.lobby.player_identity(player_id)
        if identity is None:
            raise NotFound("player_not_found", f"there is no player {player_id}")
        record = await self.completion(player_id)
        return PlayerProfile(
            player_id,
            identity[0],
            identity[1],
            record.ranked_games,
            record.abandoned,
            record.completion_rate,
            record.cooldown_until_ms if viewer_id == player_id else None,
        )

    async def check_ranked(self, player_id: str, min_completion_rate: float | None = None, ranked: bool = True) -> None:
        """Refuses ranked play during a cooldown, and a tournament (ranked or
        not) below its minimum completion rate."""
        record = await self.completion(player_id)
        if ranked and record.cooldown_until_ms is not None:
            minutes = max(1, round((record.cooldown_until_ms / 1000 - self.clock()) / 60))
            ends = datetime.fromtimestamp(record.cooldown_until_ms / 1000, UTC).strftime("%H:%M UTC")
            raise Forbidden(
                "ranked_cooldown",
                f"you left {record.abandoned} ranked games recently: ranked play opens again at {ends}"
                f" (in {minutes} min); unranked tables are open",
                until_ms=record.cooldown_until_ms,
            )
        rate = record.completion_rate
        if min_completion_rate is not None and rate is not None and rate < min_completion_rate:
            raise Forbidden(
                "completion_rate_too_low",
                f"this tournament asks for {min_completion_rate:.0%} of ranked games finished;"
                f" you finished {rate:.0%} of your last {record.ranked_games}",
                completion_rate=rate,
            )
