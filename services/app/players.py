"""Players and their bearer tokens (shown once, stored as SHA-256)."""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from services.app.errors import BadRequest, Conflict, Forbidden, Unauthorized
from services.app.names import name_key, name_skeleton
from services.app.ports import AccountStore, NameColumns, NameTaken, NewPlayer, PlayerRecord, Transactions
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


async def insert_player(
    store: AccountStore,
    tx: Any,
    player_id: str,
    name: str,
    kind: PlayerKind,
    token: bytes,
    password_hash: str | None = None,
) -> None:
    """The one insert of a new name (people and agents), in the caller's
    transaction: refused when the name, or one that looks like it, is taken.
    Names are unique by key and by skeleton (services/app/names.py); the
    check holds until `tx` ends, so two look-alike names registered at once
    cannot both pass it."""
    key, skeleton = name_key(name), name_skeleton(name)
    holder = await store.name_holder(key, name, skeleton, tx)
    if holder is not None:
        raise name_taken(name) if holder.same else name_confusable(name, holder.name)
    try:
        await store.insert_player(NewPlayer(player_id, name, kind, token, password_hash, key, skeleton), tx)
    except NameTaken as err:
        raise name_taken(name) from err


async def fill_name_columns(store: AccountStore) -> int:
    """name_key and name_skeleton for the rows from before migration 011
    (idempotent; every process may run it at start)."""
    rows = await store.unfilled_names()
    await store.fill_names([NameColumns(player_id, name_key(name), name_skeleton(name)) for player_id, name in rows])
    return len(rows)


class Players:
    def __init__(self, store: AccountStore, transactions: Transactions, revocations: Revocations | None = None) -> None:
        self.store = store
        self.transactions = transactions
        # token or session hash -> (player, the player's revocation
        # generation read before the row was, or None if none was, when to
        # look again). Without `revocations` nothing is cached: every request
        # reads the store.
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
        async with self.transactions.transaction() as tx:
            await insert_player(self.store, tx, player.player_id, name, kind, token_hash(token), password_hash)
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

        return await self._cached(
            digest, lambda: self.store.player_by_token(digest), Unauthorized("bad_token", "this token is not valid")
        )

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

        return await self._cached(
            digest,
            lambda: self.store.player_by_session(digest),
            Unauthorized("bad_session", "your session has ended; sign in again"),
        )

    async def _cached(
        self, digest: bytes, read: Callable[[], Awaitable[PlayerRecord | None]], refusal: Unauthorized
    ) -> Player:
        """The player a credential names: the cached copy while its player's
        revocation generation is the one it was read at, else the stored row.

        The generation is read before the row: a revocation commits, then
        bumps the generation, so a row read before the commit is always kept
        with an older generation and is never trusted once the revoking call
        has returned. A credential seen for the first time is cached with no
        generation (its player was not known before the read): its next use
        reads the generation, then the row again. When Redis does not answer,
        every request reads the store."""
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
        player = Player(row.player_id, row.name, cast(PlayerKind, row.kind))
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
