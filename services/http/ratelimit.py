"""Rate limits for agents' tokens that never break a game in progress.

A fixed window per agent in Redis (INCR + EXPIRE). Everything an agent does
under /api/v1/games/{id} for a game it holds a seat in (reading it, its
stream, its moves) is never limited, nor is its own stream
(/api/v1/agents/me/stream, however often it reconnects); every other call made with an agent's
token counts, and past the limit gets 429 with Retry-After. People's tokens
are not limited here. Redis down: requests pass (fail open)."""

from __future__ import annotations

import logging
import re
import time

from litestar import Request, Response

from services.app.errors import ServiceError
from services.http.auth import identify
from services.infra import keys as K

log = logging.getLogger("hanamichi.ratelimit")

_OWN_GAME = re.compile(r"^/api/v1/games/([^/]+)(?:/|$)")


class RateLimiter:
    def __init__(self, redis, limit: int, window_s: int) -> None:
        self.redis = redis
        self.limit = limit
        self.window_s = window_s

    async def hit(self, key: str) -> int | None:
        """Counts one request; the seconds to wait when over the limit."""
        now = time.time()
        window = int(now // self.window_s)
        redis_key = K.rate_key(key, window)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.incr(redis_key)
                pipe.expire(redis_key, self.window_s + 1)
                count, _ = await pipe.execute()
        except Exception as exc:
            log.warning("rate limiter unavailable (%s); not limiting", exc)
            return None
        if count <= self.limit:
            return None
        return max(1, int((window + 1) * self.window_s - now + 0.999))


async def limit_agents(request: Request) -> Response | None:
    """Litestar before_request hook. The caller is looked up here once and
    kept for the route (services/http/auth.py)."""
    state = request.app.state
    try:
        player = await identify(request)
    except ServiceError:
        return None  # the route says what is wrong with the token
    if player is None or player.kind != "agent":
        return None
    if request.url.path == "/api/v1/agents/me/stream":
        return None  # an agent's own stream: reconnecting is never limited
    own = _OWN_GAME.match(request.url.path)
    if own is not None:
        try:
            table = await state.games.tables.get(own.group(1))
        except ServiceError:
            table = None
        if table is not None and table.seat_of(player.player_id) is not None:
            return None
    limiter: RateLimiter = state.agent_limiter
    retry_after = await limiter.hit(player.player_id)
    if retry_after is None:
        return None
    return Response(
        {
            "code": "rate_limited",
            "message": f"more than {limiter.limit} requests in {limiter.window_s} s;"
            f" moves in your own games are never limited",
            "retry_after_s": retry_after,
        },
        status_code=429,
        headers={"Retry-After": str(retry_after)},
    )
