"""Checks on raw request input that every route shares: version numbers
(Last-Event-ID, `after`) and the NUL character.

Both are refused here, as 400s, before any route touches PostgreSQL:
- a version is ASCII digits only, and short. Python's `str.isdigit` accepts
  '²' and `int()` then raises; `int()` of 5,000 digits raises too (the
  int-to-str digit limit), and PostgreSQL's bigint ends at 19 digits.
- PostgreSQL text cannot hold U+0000, so a NUL in a path, a query parameter
  or a JSON string would reach the driver and fail there (a 500)."""

from __future__ import annotations

import re

import msgspec
from litestar import Request, Response

from services.app.errors import BadRequest

# 18 digits stays below 2**63 (a bigint), far beyond any stream's length.
MAX_VERSION_DIGITS = 18
_VERSION = re.compile(rf"[0-9]{{1,{MAX_VERSION_DIGITS}}}")


def parse_version(text: str | None, name: str, code: str = "bad_version") -> int:
    """A version (0 or more) from request text; None or blank is 0."""
    text = (text or "0").strip(" \t")
    if not _VERSION.fullmatch(text):
        raise BadRequest(code, f"{name} is a version: 0 or more, in at most {MAX_VERSION_DIGITS} ASCII digits")
    return int(text)


def _nul_refusal(where: str) -> Response:
    return Response(
        {"code": "bad_character", "message": f"{where} contains the NUL character (U+0000), which no field accepts"},
        status_code=400,
    )


def _has_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


async def refuse_nul(request: Request) -> Response | None:
    """Litestar before_request hook: a NUL anywhere in the path, the query or
    a JSON body's strings (keys included) is a 400 `bad_character`."""
    scope = request.scope
    if "\x00" in scope["path"]:
        return _nul_refusal("the path")
    if b"%00" in scope.get("query_string", b""):
        return _nul_refusal("the query string")
    if request.method in ("POST", "PUT", "PATCH", "DELETE"):
        body = await request.body()  # cached: the route reads the same bytes
        # JSON spells NUL `\u0000` (a raw NUL byte is not JSON and fails to
        # decode anyway); decode only when that text is there at all.
        if b"\\u0000" in body:
            try:
                decoded = msgspec.json.decode(body)
                nul = _has_nul(decoded)
            except (msgspec.DecodeError, RecursionError):
                return None  # malformed or too deep: the route's decoder says so
            if nul:
                return _nul_refusal("the JSON body")
    return None
