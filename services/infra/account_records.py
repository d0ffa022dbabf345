"""What the account adapters (PostgreSQL and memory) speak in: a player's
row in `players`, a session's in `sessions`, and what deleting an account
writes. Defined in infra (an adapter may not import the application layer)
and named by the port, services/app/ports/accounts.py."""

from __future__ import annotations

from datetime import datetime

import msgspec


class NameTaken(Exception):
    """The insert met the unique index on names (another process inserted
    the same name between the check and the insert)."""


class PlayerRecord(msgspec.Struct, frozen=True):
    player_id: str
    name: str
    kind: str


class Credentials(msgspec.Struct, frozen=True):
    """A player found by name, with what its password is checked against."""

    player_id: str
    name: str
    kind: str
    password_hash: str | None


class NameHolder(msgspec.Struct, frozen=True):
    """A player whose name stands in the way of a new one: `same` when its
    key is the new name's (taken), else its skeleton is (confusable)."""

    name: str
    same: bool


class NewPlayer(msgspec.Struct, frozen=True):
    player_id: str
    name: str
    kind: str
    token_hash: bytes
    password_hash: str | None
    name_key: str
    name_skeleton: str


class NameColumns(msgspec.Struct, frozen=True):
    """A row's name_key and name_skeleton, as services/app/names.py computes them."""

    player_id: str
    name_key: str
    name_skeleton: str


class AccountSummary(msgspec.Struct, frozen=True):
    created_at: datetime
    has_password: bool


class SessionRecord(msgspec.Struct, frozen=True):
    created_at: datetime
    expires_at: datetime


class ScrubbedPlayer(msgspec.Struct, frozen=True):
    """What a deleted player's row becomes: the pseudonym's name columns and
    a random token hash nobody holds (no password, deleted_at set)."""

    player_id: str
    name: str
    name_key: str
    name_skeleton: str
    token_hash: bytes
