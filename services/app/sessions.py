"""Browser sessions: a signed session cookie, and CSRF checks for
the writes it authenticates.

Every route reads its caller through `Players.authenticate(Authorization)`,
once per request (services/http/auth.py).
So that the cookie works on every route a Bearer token works on (SSE seat
streams included: EventSource cannot send headers), `SessionMiddleware`
turns a request that carries the cookie and no Authorization header into one
whose Authorization is an internal `HmSession` credential: the cookie, the
CSRF token header and whether the Origin is ours. Only this process can make
one (it carries a per-process mark), and `Players` checks it like a token.
A request with `Authorization: Bearer` is never touched: CSRF applies only
to requests the cookie authenticates.

Cookie: `hm_session` = `<session id>.<HMAC-SHA256 of it>` with the shared
secret (Settings.session_secret, else one drawn once and kept in
PostgreSQL, so every API process shares it). The session row (sha256 of the
id) is what signing out and a password change delete. CSRF: the signed
double-submit pattern: `hm_csrf` (readable by our JavaScript) holds
HMAC(secret, "csrf:" + session id); writes must echo it in `X-CSRF-Token`,
and their Origin (or Referer) must be this site."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

SESSION_COOKIE = "hm_session"
CSRF_COOKIE = "hm_csrf"
CSRF_HEADER = "X-CSRF-Token"
SESSION_MAX_AGE_S = 30 * 24 * 3600
SCHEME = "HmSession"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Proves that an HmSession credential was made by this process's middleware,
# not sent by a client (who could otherwise claim a passed CSRF check).
_MARK = secrets.token_urlsafe(16)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass(frozen=True)
class SessionCredential:
    """What the middleware saw: the cookie and the request's CSRF evidence."""

    method: str
    origin_ok: bool
    csrf: str
    cookie: str

    @property
    def needs_csrf(self) -> bool:
        return self.method not in SAFE_METHODS


class SessionKeys:
    """Signing with the shared secret: cookies and CSRF tokens."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _mac(self, purpose: str, value: str) -> str:
        return _b64(hmac.new(self._secret, f"{purpose}:{value}".encode(), hashlib.sha256).digest())

    def new_session(self) -> tuple[str, bytes]:
        """(cookie value, the session row's key)."""
        session_id = secrets.token_urlsafe(32)
        return f"{session_id}.{self._mac('session', session_id)}", session_hash(session_id)

    def session_id(self, cookie: str) -> str | None:
        """The id a cookie carries, when its signature is ours."""
        session_id, _, mac = cookie.partition(".")
        if not session_id or not mac or len(cookie) > 200:
            return None
        return session_id if same_secret(mac, self._mac("session", session_id)) else None

    def csrf_token(self, cookie: str) -> str | None:
        session_id = self.session_id(cookie)
        return self._mac("csrf", session_id) if session_id else None

    def csrf_ok(self, credential: SessionCredential) -> bool:
        expected = self.csrf_token(credential.cookie)
        return bool(expected and credential.origin_ok and same_secret(credential.csrf, expected))


def same_secret(given: str, expected: str) -> bool:
    """A constant-time comparison that takes any text a client sent:
    `hmac.compare_digest` refuses a str that is not ASCII (TypeError), and a
    forged header must be a refusal, never an error."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))


def session_hash(session_id: str) -> bytes:
    return hashlib.sha256(session_id.encode()).digest()


def parse_credential(authorization: str) -> SessionCredential | None:
    """An HmSession credential this process's middleware made, else None."""
    scheme, _, rest = authorization.partition(" ")
    if scheme != SCHEME:
        return None
    parts = rest.split(" ")
    if len(parts) != 5 or not same_secret(parts[0], _MARK):
        return None
    _, method, origin_ok, csrf, cookie = parts
    return SessionCredential(method, origin_ok == "1", "" if csrf == "-" else csrf, cookie)


def internal_credential(method: str, origin_ok: bool, csrf: str, cookie: str) -> str:
    """The Authorization value services/http/sessions.py gives a request the
    session cookie authenticates (`parse_credential` reads it back)."""
    return " ".join((SCHEME, _MARK, method, "1" if origin_ok else "0", csrf or "-", cookie))
