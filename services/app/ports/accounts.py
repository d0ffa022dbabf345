"""The accounts' port: players' rows (names, tokens, passwords), sign-in
sessions, the shared secrets, and what a person's data export and deletion
read and write of their rows. Adapters: services/infra/pg_accounts.py
(PostgreSQL) and services/infra/memory_accounts.py; tests/contract holds
both to one suite."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from services.app.ports.names import PlayerNames
from services.infra.account_records import (
    AccountSummary,
    Credentials,
    NameColumns,
    NameHolder,
    NameTaken,
    NewPlayer,
    PlayerRecord,
    ScrubbedPlayer,
    SessionRecord,
)

__all__ = [
    "AccountStore",
    "AccountSummary",
    "Credentials",
    "NameColumns",
    "NameHolder",
    "NameTaken",
    "NewPlayer",
    "PlayerRecord",
    "ScrubbedPlayer",
    "SessionRecord",
]


class AccountStore(PlayerNames, Protocol):
    """Also the `PlayerNames` port (services/app/ports/names.py): the names
    players have now, from their rows."""

    # --- secrets ---------------------------------------------------------------

    async def shared_secret(self, name: str, drawn: bytes) -> bytes:
        """The secret kept under `name`: `drawn` when none was kept before
        (it is kept then), else the one the first caller kept."""

    # --- names -----------------------------------------------------------------

    async def name_holder(self, key: str, name: str, skeleton: str, tx: Any) -> NameHolder | None:
        """Who holds `name` (by key) or one that looks like it (by skeleton).
        New names are decided one at a time: the check holds until `tx` ends."""

    async def insert_player(self, new: NewPlayer, tx: Any = None) -> None:
        """Raises NameTaken when the name's unique index refuses it."""

    async def unfilled_names(self) -> list[tuple[str, str]]:
        """(player id, name) of the rows that have no name_key or name_skeleton yet."""

    async def fill_names(self, rows: list[NameColumns]) -> None: ...

    # --- credentials -----------------------------------------------------------

    async def credentials_by_name(self, key: str, name: str) -> Credentials | None:
        """The player `name` (or a row whose key is `key`) names: when rows
        from before name keys share a key, the exact spelling first, then
        the oldest."""

    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None: ...

    async def player_by_session(self, session_hash: bytes) -> PlayerRecord | None:
        """The player of a session that has not expired."""

    async def password_hash(self, player_id: str) -> str | None: ...

    async def has_password(self, player_id: str) -> bool: ...

    async def set_password(self, player_id: str, password_hash: str, tx: Any = None) -> None: ...

    async def set_token(self, player_id: str, token_hash: bytes, tx: Any = None) -> None: ...

    # --- sessions --------------------------------------------------------------

    async def open_session(self, session_hash: bytes, player_id: str, expires_at: datetime) -> None: ...

    async def end_session(self, session_hash: bytes) -> str | None:
        """The player whose session it was; None when it had ended already."""

    async def end_other_sessions(self, player_id: str, keep: bytes, tx: Any = None) -> None:
        """Every session of the player but the one whose hash is `keep`."""

    async def end_sessions(self, player_ids: list[str], tx: Any = None) -> None: ...

    # --- a person's data and its deletion ------------------------------------

    async def account(self, player_id: str) -> AccountSummary | None: ...

    async def sessions_of(self, player_id: str) -> list[SessionRecord]:
        """Oldest first, expired ones included (until they are deleted)."""

    async def seats_of(self, player_id: str) -> list[tuple[str, int]]:
        """(game id, seat) of every table the player sat at, oldest table first."""

    async def registering_tournaments(self) -> list[str]:
        """Ids of the tournaments that take registrations still."""

    async def scrub_player(self, scrubbed: ScrubbedPlayer, tx: Any = None) -> None:
        """The player's row becomes `scrubbed` (deleted_at kept from a first
        deletion); its ratings rows keep no name of it."""

    async def scrub_agent(self, agent_id: str, name: str, tx: Any = None) -> None:
        """The agent's row keeps no endpoint or secret, and `name`."""
