"""Players and their bearer tokens (shown once, stored as SHA-256)."""

from __future__ import annotations

import hashlib
import secrets
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


class Players:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        # token hash -> player; tokens never change, so the cache cannot go stale
        self._by_token: dict[bytes, Player] = {}

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
        player = self._by_token.get(digest)
        if player is None:
            row = await self.pool.fetchrow("SELECT player_id, name, kind FROM players WHERE token_hash = $1", digest)
            if row is None:
                raise Unauthorized("bad_token", "this token is not valid")
            player = self._by_token[digest] = Player(str(row["player_id"]), row["name"], row["kind"])
        return player
