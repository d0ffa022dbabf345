"""Push requests' signatures (docs/agents.md, "Verifying the signature"):
`X-Hanamichi-Signature: sha256=` + hex HMAC-SHA256(secret, timestamp + "." + raw body)."""

from __future__ import annotations

import hashlib
import hmac
import threading
import time

MAX_SKEW_S = 300  # a timestamp further than this from our clock is a replay


def sign(secret: str, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def verify(secret: str, timestamp: str, body: bytes, signature: str, now: float | None = None) -> bool:
    """True when the signature is ours (constant-time compare) and the
    timestamp is within MAX_SKEW_S of `now`."""
    try:
        age = abs((time.time() if now is None else now) - int(timestamp))
    except (TypeError, ValueError):
        return False
    if age > MAX_SKEW_S:
        return False
    # As bytes: compare_digest raises TypeError on a str that is not ASCII.
    given = (signature or "").encode("utf-8", "surrogatepass")
    return hmac.compare_digest(sign(secret, timestamp, body).encode(), given)


def verify_request(secret: str, timestamp: str, body: bytes, headers, now: float | None = None) -> bool:
    """A push request is ours when either signature header verifies with
    `secret`: X-Hanamichi-Signature is made with the current secret and,
    for the grace period after the owner rotates it, X-Hanamichi-Signature-Previous
    with the one before, so an agent still holding the old secret keeps
    playing until it is given the new one (docs/agents.md, "Rotating the secret")."""
    return any(
        verify(secret, timestamp, body, headers.get(name, ""), now)
        for name in ("X-Hanamichi-Signature", "X-Hanamichi-Signature-Previous")
        if headers.get(name)
    )


class ReplayGuard:
    """Refuses a signed request seen before. Only signatures inside the skew
    window need remembering: older ones fail the timestamp check anyway."""

    def __init__(self) -> None:
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def first_time(self, signature: str, timestamp: str, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        with self._lock:
            if len(self._seen) > 10_000 or len(self._seen) % 256 == 0:
                self._seen = {s: t for s, t in self._seen.items() if abs(now - t) <= MAX_SKEW_S}
            if signature in self._seen:
                return False
            try:
                self._seen[signature] = float(int(timestamp))
            except ValueError:
                return False
            return True
