"""HMAC signatures of the calls to push agents (docs/agents.md): the agent
checks them with its secret, the kit (services/kit/signing.py) likewise."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-Hanamichi-Signature"
TIMESTAMP_HEADER = "X-Hanamichi-Timestamp"
# During a rotation's grace period: the signature with the secret before it.
PREVIOUS_SIGNATURE_HEADER = "X-Hanamichi-Signature-Previous"


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """`sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>." + body)."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def signed_headers(secret: str, body: bytes, now_s: float | None = None, previous: str | None = None) -> dict[str, str]:
    """The current secret's signature; while a rotation's grace lasts, the
    previous secret's beside it, so that an agent holding either verifies."""
    ts = str(int(now_s if now_s is not None else time.time()))
    headers = {SIGNATURE_HEADER: sign(secret, ts, body), TIMESTAMP_HEADER: ts, "Content-Type": "application/json"}
    if previous:
        headers[PREVIOUS_SIGNATURE_HEADER] = sign(previous, ts, body)
    return headers


# --- endpoint safety (no server-side request forgery) -----------------------------
