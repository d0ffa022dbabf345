"""Server-Sent Events helpers shared by every stream of the service."""

from __future__ import annotations

from litestar.response import ServerSentEventMessage

# A keep-alive is a comment line and nothing else. Litestar's default
# (data "") would add an empty `data:` line, which a client that parses every
# `data:` line as JSON (as docs/agents.md invites) cannot read.
KEEPALIVE = ServerSentEventMessage(comment="keepalive", data=None)
