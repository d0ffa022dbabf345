"""Where a `next=` parameter may send a person: a path on this site, and
nothing a browser could read as another host.

Browsers parse a Location the WHATWG way: they drop tabs and newlines
anywhere, read a backslash as a slash, and take `//host` (or `/\\host`) as
another site. So a target is refused when it holds any control character,
whitespace or backslash, when it does not start with exactly one slash, or
when a URL parser finds a scheme or a host in it. What is left is quoted to
ASCII, since a Location header holds only that. The pages' own check
(static/forms.js) asks the browser's URL parser the same question."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

HOME = "/"
# Characters a path, query or fragment may carry as they are; anything else
# (non-ASCII letters, quotes, angle brackets) is percent-encoded.
_KEPT = "/?#&=+:;@!$'()*,-._~%"


def local_path(target: str | None) -> str:
    """`target` if it is a path on this site (quoted to ASCII), else `/`."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return HOME
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F or ch == "\\" for ch in target):
        return HOME
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return HOME
    return quote(target, safe=_KEPT)
