"""Players and their bearer tokens (shown once, stored as SHA-256)."""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from dataclasses import dataclass

import asyncpg

from services.errors import BadRequest, Unauthorized


@dataclass(frozen=True)
class Player:
    player_id: str
    name: str
    kind: str  # 'human', 'agent'


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


TOKEN_CACHE_S = 30.0


class Players:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        # token hash -> (player, when to look again). A token can be revoked
        # (an agent deleted) in another process: a cached one is trusted for
        # TOKEN_CACHE_S at most.
        self._by_token: dict[bytes, tuple[Player, float]] = {}

    async def register(self, name: str, kind: str = "human") -> tuple[Player, str]:
        name = name.strip()
        if not 1 <= len(name) <= 40 or not name.isprintable():
            raise BadRequest("bad_name", "a name is 1 to 40 printable characters")
        token = "hm_" + secrets.token_urlsafe(32)
        player = Player(str(uuid.uuid4()), name, kind)
        await self.pool.execute(
            "INSERT INTO players (player_id, name, kind, token_hash) VALUES ($1::text::uuid, $2, $3, $4)",
            player.player_id, name, kind, token_hash(token),
        )
        return player, token

    async def authenticate(self, authorization: str | None) -> Player:
        if not authorization:
            raise Unauthorized("no_token", "send your token as 'Authorization: Bearer <token>'")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("bad_token", "send your token as 'Authorization: Bearer <token>'")
        digest = token_hash(token.strip())
        cached = self._by_token.get(digest)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        row = await self.pool.fetchrow("SELECT player_id, name, kind FROM players WHERE token_hash = $1", digest)
        if row is None:
            self._by_token.pop(digest, None)
            raise Unauthorized("bad_token", "this token is not valid")
        player = Player(str(row["player_id"]), row["name"], row["kind"])
        self._by_token[digest] = (player, time.monotonic() + TOKEN_CACHE_S)
        return player

    def forget_player(self, player_id: str) -> None:
        """Drop a revoked player's cached tokens in this process (others
        notice within TOKEN_CACHE_S)."""
        for digest, (player, _) in list(self._by_token.items()):
            if player.player_id == player_id:
                del self._by_token[digest]
