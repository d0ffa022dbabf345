"""The HTTP side of browser sessions (services/app/sessions.py says how they
work): the middleware that turns the session cookie into the request's
internal credential, and the same-origin check of a write."""

from __future__ import annotations

from http.cookies import SimpleCookie
from urllib.parse import urlsplit

from services.app.sessions import CSRF_HEADER, SCHEME, SESSION_COOKIE, internal_credential


def same_origin(headers: dict[bytes, bytes]) -> bool:
    """The request comes from a page of this site: its Origin (or, without
    one, its Referer) names the host the request was sent to."""
    host = headers.get(b"host", b"").decode("latin-1").lower()
    source = headers.get(b"origin") or headers.get(b"referer")
    if not host or not source:
        return False
    netloc = urlsplit(source.decode("latin-1")).netloc.lower()
    return netloc == host


def _cookie(headers: dict[bytes, bytes], name: str) -> str | None:
    raw = headers.get(b"cookie")
    if not raw:
        return None
    jar = SimpleCookie()
    try:
        jar.load(raw.decode("latin-1"))
    except Exception:  # a malformed Cookie header is no session, not an error
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None and morsel.value else None


class SessionMiddleware:
    """ASGI middleware: the session cookie as an internal Authorization."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            authorization = headers.get(b"authorization")
            if authorization is not None:
                if authorization.split(b" ", 1)[0] == SCHEME.encode():
                    # Only the middleware speaks HmSession.
                    scope = dict(scope, headers=[(k, v) for k, v in scope["headers"] if k != b"authorization"])
            else:
                cookie = _cookie(headers, SESSION_COOKIE)
                if cookie is not None and " " not in cookie:
                    csrf = headers.get(CSRF_HEADER.lower().encode(), b"").decode("latin-1").strip()
                    if not csrf or " " in csrf:
                        csrf = "-"
                    value = internal_credential(scope["method"], same_origin(headers), csrf, cookie)
                    scope = dict(scope, headers=[*scope["headers"], (b"authorization", value.encode("latin-1"))])
        await self.app(scope, receive, send)
