"""People's accounts: passwords, sign-in sessions, token rotation.

Passwords are hashed with argon2id by argon2-cffi (never our own scheme),
in a thread: a hash takes tens of milliseconds of CPU, which must not stall
the event loop that serves every table."""

from __future__ import annotations

import asyncio
import functools
import secrets
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from services.app.errors import BadRequest, Conflict, Forbidden, Unauthorized
from services.app.names import name_key
from services.app.players import Player, Players, token_hash
from services.app.ports import AccountStore
from services.app.sessions import SESSION_MAX_AGE_S, SessionKeys, session_hash
from services.app.signin import SignInLimits

_HASHER = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """Verified against when the name is unknown, so that a wrong name takes
    as long as a wrong password (no probing for who has an account). Made on
    first use: hashing costs every process start (workers included) a third
    of a second of CPU otherwise."""
    return _HASHER.hash(secrets.token_urlsafe(16))


MIN_PASSWORD, MAX_PASSWORD = 8, 200
SECRET_NAME = "session"


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise BadRequest("bad_password", f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_HASHER.hash, check_password(password))


def _verify(stored: str, password: str) -> bool:
    try:
        return _HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


async def shared_secret(store: AccountStore, configured: str | None) -> bytes:
    """The session key: HANAMICHI_SESSION_SECRET when set, else one drawn by
    the first process and kept in the store, so that every API process that
    shares the database signs and checks the same cookies."""
    if configured:
        return configured.encode()
    return await store.shared_secret(SECRET_NAME, secrets.token_bytes(32))


class Accounts:
    def __init__(self, players: Players, keys: SessionKeys, limits: SignInLimits) -> None:
        self.players = players
        self.store = players.store
        self.keys = keys
        self.limits = limits

    async def sign_up(self, name: str, password: str | None) -> tuple[Player, str]:
        hashed = await hash_password(password) if password is not None else None
        return await self.players.register(name, password_hash=hashed)

    async def sign_in(self, name: str, password: str, address: str) -> Player:
        """The account of `name` when `password` is its own, within the
        sign-in limits of the name and of the client's address
        (services/app/signin.py)."""
        return await self.limits.attempt(
            name_key(name), address, lambda: self._check_password(name, password), Unauthorized
        )

    async def _check_password(self, name: str, password: str) -> Player:
        # Rows from before migration 011 may share a key: the exact spelling first.
        found = await self.store.credentials_by_name(name_key(name), name.strip())
        stored = found.password_hash if found is not None and found.kind == "human" else None
        ok = await asyncio.to_thread(lambda: _verify(stored or _dummy_hash(), password))
        if not ok or stored is None or found is None:
            raise Unauthorized("bad_credentials", "that name and password do not match an account")
        return Player(found.player_id, found.name, "human")

    async def open_session(self, player: Player) -> str:
        """A new session for `player`: the cookie value."""
        cookie, digest = self.keys.new_session()
        expires = datetime.now(UTC) + timedelta(seconds=SESSION_MAX_AGE_S)
        await self.store.open_session(digest, player.player_id, expires)
        return cookie

    async def close_session(self, cookie: str | None) -> None:
        session_id = self.keys.session_id(cookie) if cookie else None
        if session_id is None:
            return
        player_id = await self.store.end_session(session_hash(session_id))
        if player_id is not None:  # else it had ended already, and was revoked then
            await self.players.revoke(player_id)

    async def has_password(self, player: Player) -> bool:
        return await self.store.has_password(player.player_id)

    async def set_password(
        self, player: Player, current: str | None, password: str, keep_cookie: str | None, address: str
    ) -> None:
        """Add or change the password. Changing one needs the current one
        (a session left open on a shared computer must not be enough to
        take the account), checked within the sign-in limits of the name.
        Every other session of the player ends (a stolen session does not
        outlive a password change); the one that asked, if any, stays
        signed in."""
        if player.kind != "human":
            raise Forbidden("people_only", "only people sign in with a password; agents use their token")
        check_password(password)
        stored = await self.store.password_hash(player.player_id)
        if stored is not None:
            await self.limits.attempt(
                name_key(player.name), address, lambda: self._check_current(stored, current), Forbidden
            )
        hashed = await hash_password(password)
        keep_id = self.keys.session_id(keep_cookie) if keep_cookie else None
        keep = session_hash(keep_id) if keep_id else b""
        async with self.players.transactions.transaction() as tx:
            await self.store.set_password(player.player_id, hashed, tx)
            await self.store.end_other_sessions(player.player_id, keep, tx)
        await self.players.revoke(player.player_id)

    async def _check_current(self, stored: str, current: str | None) -> None:
        if current is None:
            raise Forbidden("wrong_password", "send your current password as current_password to change it")
        if not await asyncio.to_thread(_verify, stored, current):
            raise Forbidden("wrong_password", "that is not your current password")

    async def confirm_password(self, player: Player, password: str, address: str) -> None:
        """A person's own password, asked again before an irreversible step
        (deleting the account): 403 wrong_password, within the sign-in
        limits of the name like any other password check."""
        stored = await self.store.password_hash(player.player_id)
        if stored is None:
            raise Conflict("no_password", "set a password first (POST /api/v1/players/me/password)")
        await self.limits.attempt(
            name_key(player.name), address, lambda: self._check_current(stored, password), Forbidden
        )

    async def rotate_token(self, player: Player) -> str:
        """A new API token, shown once; the old one stops working in every
        process before this returns."""
        token = "hm_" + secrets.token_urlsafe(32)
        await self.store.set_token(player.player_id, token_hash(token))
        await self.players.revoke(player.player_id)
        return token
