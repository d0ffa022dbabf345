"""Per-request observation: the request id, the latency
histogram by route template and status, and the access log.

A plain ASGI middleware in Litestar's stack: it runs after routing, so the
route template (`/api/v1/games/{game_id:str}`, never the game id itself)
labels the histogram, and an ExceptionHandlerMiddleware sits inside it, so a
refused request is seen with its 4xx/5xx status."""

from __future__ import annotations

import logging
import os
import re
import time
import uuid

from services.infra import logs
from services.infra.metrics import REQUEST_SECONDS

access = logging.getLogger("hanamichi.access")

# A caller's (or proxy's) X-Request-ID is kept when it is a plain token;
# anything else is replaced, so a log line never carries a client's garbage.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


# Which API process answered (its pid): `serve --processes N` runs N processes
# behind one socket, and an operator (or a test) reading a response must be
# able to tell them apart. A pid says nothing about players or games.
_PROCESS = str(os.getpid()).encode()


def _request_id(scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if _REQUEST_ID.fullmatch(text):
                return text
    return uuid.uuid4().hex[:16]


def observe_requests(app, log_access: bool = False):
    """Litestar middleware factory: `DefineMiddleware(observe_requests,
    log_access=settings.access_log)`."""

    async def middleware(scope, receive, send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = _request_id(scope)
        game_id = (scope.get("path_params") or {}).get("game_id")
        token = logs.begin(request_id=request_id, **({"game_id": game_id} if game_id else {}))
        status = [500]

        async def send_observed(message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                route = scope.get("path_template") or "unmatched"
                REQUEST_SECONDS.labels(scope["method"], route, str(status[0])).observe(time.perf_counter() - started)
                message["headers"] = [
                    *message.get("headers", ()),
                    (b"x-request-id", request_id.encode()),
                    (b"x-api-process", _PROCESS),
                ]
            await send(message)

        try:
            await app(scope, receive, send_observed)
        finally:
            if log_access:
                access.info(
                    "%s %s %s",
                    scope["method"],
                    scope["path"],
                    status[0],
                    extra={
                        "method": scope["method"],
                        "route": scope.get("path_template"),
                        "status": status[0],
                        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    },
                )
            logs.end(token)

    return middleware
