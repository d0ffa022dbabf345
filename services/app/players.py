"""Players and their bearer tokens (shown once, stored as SHA-256)."""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

import asyncpg

from services.app.errors import BadRequest, Conflict, Forbidden, Unauthorized
from services.app.names import name_key, name_skeleton
from services.app.sessions import SessionKeys, parse_credential, session_hash
from services.app.upcast import is_pseudonym
from services.infra.revocations import Revocations

PlayerKind = Literal["human", "agent"]


@dataclass(frozen=True)
class Player:
    player_id: str
    name: str
    kind: PlayerKind


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


# How long a cached credential lives at most. Revocation does not wait for
# it: a cached copy is trusted only while its player's revocation generation
# is unchanged (services/infra/revocations.py), checked on every hit.
TOKEN_CACHE_S = 30.0
# Names of people and agents are unique: no two share a name_key, nor a
# name_skeleton (services/app/names.py), checked by `insert_player` under
# NAME_LOCK; migration 008's index on lower(name) stays as a backstop.
NAME_INDEX = "players_name_ci"
# Serialises new names (any fixed key: registrations are rare), so that two
# look-alike names registered at once cannot both pass the check.
NAME_LOCK = 7_240_011


def name_taken(name: str) -> Conflict:
    return Conflict("name_taken", f"the name {name!r} is taken (names are compared ignoring case)")


def name_confusable(name: str, existing: str) -> Conflict:
    return Conflict(
        "name_confusable",
        f"the name {name!r} looks like {existing!r}, which is taken: choose one that cannot be mistaken for it",
    )


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not 1 <= len(name) <= 40 or not name.isprintable():
        raise BadRequest("bad_name", "a name is 1 to 40 printable characters")
    if is_pseudonym(name):
        # Nobody may pass for a deleted player (services/app/upcast.py).
        raise BadRequest("bad_name", "names starting with 'deleted player' are kept for deleted accounts")
    return name


# A player found by name: by its key, or a row not filled yet by lower(name).
BY_NAME = "(name_key = $1 OR (name_key IS NULL AND lower(name) = lower($2)))"


async def insert_player(
    conn: asyncpg.Connection | asyncpg.pool.PoolConnectionProxy,
    player_id: str,
    name: str,
    kind: PlayerKind,
    token: bytes,
    password_hash: str | None = None,
) -> None:
    """The one insert of a new name (people and agents), in the caller's
    transaction: refused when the name, or one that looks like it, is taken."""
    key, skeleton = name_key(name), name_skeleton(name)
    await conn.execute("SELECT pg_advisory_xact_lock($1)", NAME_LOCK)
    row = await conn.fetchrow(
        f"SELECT name, {BY_NAME} AS same FROM players WHERE {BY_NAME} OR name_skeleton = $3 ORDER BY 2 DESC LIMIT 1",
        key,
        name,
        skeleton,
    )
    if row is not None:
        raise name_taken(name) if row["same"] else name_confusable(name, row["name"])
    await conn.execute(
        "INSERT INTO players (player_id, name, kind, token_hash, password_hash, name_key, name_skeleton)"
        " VALUES ($1::text::uuid, $2, $3, $4, $5, $6, $7)",
        player_id,
        name,
        kind,
        token,
        password_hash,
        key,
        skeleton,
    )


async def fill_name_columns(pool: asyncpg.Pool) -> int:
    """name_key and name_skeleton for the rows from before migration 011
    (idempotent; every process may run it at start)."""
    rows = await pool.fetch("SELECT player_id, name FROM players WHERE name_key IS NULL OR name_skeleton IS NULL")
    if rows:
        await pool.executemany(
            "UPDATE players SET name_key = $2, name_skeleton = $3 WHERE player_id = $1",
            [(r["player_id"], name_key(r["name"]), name_skeleton(r["name"])) for r in rows],
        )
    return len(rows)


class Players:
    def __init__(self, pool: asyncpg.Pool, revocations: Revocations | None = None) -> None:
        self.pool = pool
        # token or session hash -> (player, the player's revocation
        # generation read before the row was, or None if none was, when to
        # look again). Without `revocations` nothing is cached: every request
        # reads PostgreSQL.
        self._by_token: dict[bytes, tuple[Player, bytes | None, float]] = {}
        self.revocations = revocations
        # The shared session key (browser sessions), set when the API process opens.
        self.keys: SessionKeys | None = None

    async def register(
        self, name: str, kind: PlayerKind = "human", password_hash: str | None = None
    ) -> tuple[Player, str]:
        name = check_name(name)
        token = "hm_" + secrets.token_urlsafe(32)
        player = Player(str(uuid.uuid4()), name, kind)
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                await insert_player(conn, player.player_id, name, kind, token_hash(token), password_hash)
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

        async def read() -> asyncpg.Record | None:
            return await self.pool.fetchrow("SELECT player_id, name, kind FROM players WHERE token_hash = $1", digest)

        return await self._cached(digest, read, Unauthorized("bad_token", "this token is not valid"))

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
        # Session ids and tokens never collide in the cache (different hashes of 32 random bytes).
        digest = session_hash(session_id)

        async def read() -> asyncpg.Record | None:
            return await self.pool.fetchrow(
                "SELECT p.player_id, p.name, p.kind FROM sessions s JOIN players p USING (player_id)"
                " WHERE s.session_hash = $1 AND s.expires_at > now()",
                digest,
            )

        return await self._cached(digest, read, Unauthorized("bad_session", "your session has ended; sign in again"))

    async def _cached(
        self, digest: bytes, read: Callable[[], Awaitable[asyncpg.Record | None]], refusal: Unauthorized
    ) -> Player:
        """The player a credential names: the cached copy while its player's
        revocation generation is the one it was read at, else PostgreSQL's row.

        The generation is read before the row: a revocation commits, then
        bumps the generation, so a row read before the commit is always kept
        with an older generation and is never trusted once the revoking call
        has returned. A credential seen for the first time is cached with no
        generation (its player was not known before the read): its next use
        reads the generation, then the row again. When Redis does not answer,
        every request reads PostgreSQL."""
        cached = self._by_token.get(digest)
        generation: bytes | None = None
        if cached is not None and self.revocations is not None:
            known, seen, until = cached
            generation = await self.revocations.current(known.player_id)
            if seen is not None and generation == seen and until > time.monotonic():
                return known
            if generation is None:
                generation = await self.revocations.established(known.player_id)
        row = await read()
        if row is None:
            self._by_token.pop(digest, None)
            raise refusal
        player = Player(str(row["player_id"]), row["name"], row["kind"])
        if self.revocations is not None:
            same = cached is not None and cached[0].player_id == player.player_id
            self._by_token[digest] = (player, generation if same else None, time.monotonic() + TOKEN_CACHE_S)
        return player

    async def revoke(self, player_id: str) -> None:
        """After a commit that ends some of a player's credentials (signing
        out, a new password, a new token, a deleted agent): no process trusts
        a copy cached before it once this returns. Raises when Redis is
        unreachable (503): the other processes could not be told."""
        for digest, (player, _, _) in list(self._by_token.items()):
            if player.player_id == player_id:
                del self._by_token[digest]
        if self.revocations is not None:
            await self.revocations.bump(player_id)
