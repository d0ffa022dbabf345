"""Headers every answer carries, and the Swagger pages' Content-Security-Policy.

Every response: `X-Content-Type-Options: nosniff` (a browser never guesses
a script out of a JSON answer or an uploaded name) and a `Referrer-Policy`
that keeps game and invite paths from leaking to other sites. Every HTML
answer also refuses to be framed (`X-Frame-Options`, for browsers that do not
read `frame-ancestors`).

The web pages set their own policy (services/web/pages.py). The `/schema`
pages are Litestar's Swagger page, whose one inline script carries the
OpenAPI document: their policy allows exactly that script by its SHA-256,
computed from the body, so nothing else inline can run and nothing may
frame them."""

from __future__ import annotations

import base64
import hashlib
import re

_EVERY_ANSWER = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]
_HTML_ANSWER = [(b"x-frame-options", b"DENY")]
SCHEMA_PREFIX = "/schema"
_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S)


def schema_csp(body: bytes) -> bytes:
    """The policy of a Swagger page: its own assets, its inline scripts by hash."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode() + "'"
        for script in _INLINE_SCRIPT.findall(body)
    )
    return (
        "default-src 'self'; script-src 'self' " + hashes + "; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ).encode()


def _is_html(headers) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers)


async def every_answer(message, scope) -> None:
    """Litestar `before_send` hook: it sees every answer, unmatched paths and
    refusals included (app middleware runs only for matched routes)."""
    if message["type"] == "http.response.start":
        headers = message.setdefault("headers", [])
        html = _is_html(headers)
        headers.extend(_EVERY_ANSWER)
        if html:
            headers.extend(_HTML_ANSWER)


def schema_policy(app):
    """Litestar middleware factory (plain ASGI): the Swagger pages' policy."""

    async def middleware(scope, receive, send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(SCHEMA_PREFIX) or scope["path"].endswith(".json"):
            await app(scope, receive, send)
            return
        held: list[dict] = []

        async def send_with_policy(message) -> None:
            if message["type"] == "http.response.start" and _is_html(message.get("headers", ())):
                held.append(message)  # sent once the body, and so the policy, is known
                return
            if held and message["type"] == "http.response.body":
                held.append(message)
                if message.get("more_body"):
                    return
                start, *bodies = held
                held.clear()
                body = b"".join(m.get("body", b"") for m in bodies)
                start["headers"] = [*start.get("headers", ()), (b"content-security-policy", schema_csp(body))]
                await send(start)
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await app(scope, receive, send_with_policy)

    return middleware
