"""Players and their bearer tokens (shown once, stored as SHA-256)."""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Literal

import asyncpg

from services.app.errors import BadRequest, Conflict, Forbidden, Unauthorized
from services.app.sessions import SessionKeys, parse_credential, session_hash

PlayerKind = Literal["human", "agent"]


@dataclass(frozen=True)
class Player:
    player_id: str
    name: str
    kind: PlayerKind


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


TOKEN_CACHE_S = 30.0
# Names of people and agents are unique, compared case-insensitively
# (migration 008's index on lower(name)).
NAME_INDEX = "players_name_ci"


def name_taken(name: str) -> Conflict:
    return Conflict("name_taken", f"the name {name!r} is taken (names are compared ignoring case)")


class Players:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        # token hash -> (player, when to look again). A token can be revoked
        # (an agent deleted) in another process: a cached one is trusted for
        # TOKEN_CACHE_S at most.
        self._by_token: dict[bytes, tuple[Player, float]] = {}
        # The shared session key (browser sessions), set when the API process opens.
        self.keys: SessionKeys | None = None

    async def register(
        self, name: str, kind: PlayerKind = "human", password_hash: str | None = None
    ) -> tuple[Player, str]:
        name = name.strip()
        if not 1 <= len(name) <= 40 or not name.isprintable():
            raise BadRequest("bad_name", "a name is 1 to 40 printable characters")
        token = "hm_" + secrets.token_urlsafe(32)
        player = Player(str(uuid.uuid4()), name, kind)
        try:
            await self.pool.execute(
                "INSERT INTO players (player_id, name, kind, token_hash, password_hash)"
                " VALUES ($1::text::uuid, $2, $3, $4, $5)",
                player.player_id,
                name,
                kind,
                token_hash(token),
                password_hash,
            )
        except asyncpg.UniqueViolationError as err:
            if err.constraint_name != NAME_INDEX:
                raise
            raise name_taken(name) from err
        return player, token

    async def authenticate(self, authorization: str | None) -> Player:
        if not authorization:
            raise Unauthorized("no_token", "send your token as 'Authorization: Bearer <token>'")
        credential = parse_credential(authorization)
        if credential is not None:
            return await self._by_session(credential)
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

    async def _by_session(self, credential) -> Player:
        """The player a session cookie signs in (services/app/sessions.py). A
        cookie-authenticated write needs our Origin and the CSRF token."""
        keys = self.keys
        session_id = keys.session_id(credential.cookie) if keys else None
        if keys is None or session_id is None:
            raise Unauthorized("bad_session", "your session is not valid; sign in again")
        if credential.needs_csrf and not keys.csrf_ok(credential):
            raise Forbidden(
                "csrf_failed", "a write with the session cookie needs this site's Origin and the X-CSRF-Token header"
            )
        digest = session_hash(session_id)
        cached = self._by_token.get(
            digest
        )  # session ids and tokens never collide (different hashes of 32 random bytes)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        row = await self.pool.fetchrow(
            "SELECT p.player_id, p.name, p.kind FROM sessions s JOIN players p USING (player_id)"
            " WHERE s.session_hash = $1 AND s.expires_at > now()",
            digest,
        )
        if row is None:
            self._by_token.pop(digest, None)
            raise Unauthorized("bad_session", "your session has ended; sign in again")
        player = Player(str(row["player_id"]), row["name"], row["kind"])
        self._by_token[digest] = (player, time.monotonic() + TOKEN_CACHE_S)
        return player

    def forget_session(self, digest: bytes) -> None:
        self._by_token.pop(digest, None)

    def forget_player(self, player_id: str) -> None:
        """Drop a revoked player's cached tokens in this process (others
        notice within TOKEN_CACHE_S)."""
        for digest, (player, _) in list(self._by_token.items()):
            if player.player_id == player_id:
                del self._by_token[digest]
