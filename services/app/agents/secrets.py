"""Push agents' signing secrets at rest, and their rotation.

A secret must be recoverable (the service signs every call to the agent with
it), so it is encrypted, not hashed: Fernet (AES-128-CBC + HMAC-SHA256, from
`cryptography`) under a key derived from HANAMICHI_SECRET_KEY. Without that
setting the key material is drawn once and kept in PostgreSQL like the
session key (services/app/accounts.py): fine for a development machine, no
protection against someone holding a copy of the database, so a deployment
sets HANAMICHI_SECRET_KEY (docs/operations.md). Changing that key makes the
stored secrets unreadable: their owners rotate them (POST
/api/v1/agents/{id}/secret)."""

from __future__ import annotations

import base64
import secrets
from datetime import UTC, datetime

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from services.app.ports.agents import AgentStore

# The app_secrets row holding the key material when HANAMICHI_SECRET_KEY is unset.
KEY_ROW = "agent_secrets"
_INFO = b"hanamichi push agent secrets v1"


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


class SecretBox:
    """Seals and opens agent secrets with one key."""

    def __init__(self, key_material: bytes) -> None:
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(key_material)
        self._fernet = Fernet(base64.urlsafe_b64encode(key))

    def seal(self, secret: str) -> str:
        return self._fernet.encrypt(secret.encode()).decode()

    def open(self, sealed: str | None) -> str | None:
        """The secret, or None when there is none or this key cannot read it
        (HANAMICHI_SECRET_KEY changed: the agent's calls then fail unsigned
        until its owner rotates the secret)."""
        if sealed is None:
            return None
        try:
            return self._fernet.decrypt(sealed.encode()).decode()
        except InvalidToken:
            return None


async def secret_key(store: AgentStore, configured: str | None) -> bytes:
    """HANAMICHI_SECRET_KEY, else key material drawn by the first process and
    shared through PostgreSQL, so that every API process and worker opens
    what another sealed."""
    if configured:
        return configured.encode()
    return await store.shared_secret(KEY_ROW, secrets.token_bytes(32))


async def seal_plaintext_secrets(store: AgentStore, box: SecretBox) -> int:
    """Migration 012's data step, run by every process at start (a SQL file
    cannot, it has no key): each secret still stored in plaintext is sealed
    and the plaintext cleared. Idempotent, and safe when processes race (a row
    is only taken from the plaintext it was read with)."""
    rows = await store.plaintext_secrets()
    for agent_id, plaintext in rows:
        await store.seal_secret(agent_id, plaintext, box.seal(plaintext))
    return len(rows)


def still_valid(until: datetime | None) -> bool:
    return until is not None and until > datetime.now(UTC)
