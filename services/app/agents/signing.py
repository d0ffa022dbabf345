"""HMAC signatures of the calls to push agents (docs/agents.md): the agent
checks them with its secret, the kit (services/kit/signing.py) likewise."""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-Hanamichi-Signature"
TIMESTAMP_HEADER = "X-Hanamichi-Timestamp"


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """`sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>." + body)."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def signed_headers(secret: str, body: bytes, now_s: float | None = None) -> dict[str, str]:
    ts = str(int(now_s if now_s is not None else time.time()))
    return {SIGNATURE_HEADER: sign(secret, ts, body), TIMESTAMP_HEADER: ts, "Content-Type": "application/json"}


# --- endpoint safety (no server-side request forgery) -----------------------------
