"""The Litestar app: routes, middleware and the one table that maps errors
to HTTP statuses. Built by services/bootstrap.py, which owns its objects."""

from __future__ import annotations

import errno
import logging

import asyncpg
from litestar import Litestar, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.middleware import DefineMiddleware

from services.app.errors import RETRY_AFTER_S, SEED_REFUSED, ServiceError, unavailable_body
from services.app.players import name_taken
from services.config import Settings
from services.http.api_docs import document_routes, openapi_with_security
from services.http.auth import DEPENDENCIES
from services.http.docs_ui import assets_router, openapi_config
from services.http.headers import every_answer, schema_policy
from services.http.input import refuse_nul
from services.http.observe import observe_requests
from services.http.ratelimit import limit_agents
from services.http.routes.account_data import ROUTES as ACCOUNT_DATA_ROUTES
from services.http.routes.accounts import ROUTES as ACCOUNT_ROUTES
from services.http.routes.agents import ROUTES as AGENT_ROUTES
from services.http.routes.analysis import ROUTES as ANALYSIS_ROUTES
from services.http.routes.games import ROUTES
from services.http.routes.integrity import ROUTES as INTEGRITY_ROUTES
from services.http.routes.lobby import ROUTES as LOBBY_ROUTES
from services.http.routes.quickplay import ROUTES as QUICK_PLAY_ROUTES
from services.http.routes.tournaments import ROUTES as TOURNAMENT_ROUTES
from services.http.routes.verify import ROUTES as VERIFY_ROUTES
from services.http.routes.watch import ROUTES as WATCH_ROUTES
from services.http.sessions import SessionMiddleware
from services.infra.metrics import metrics_route
from services.infra.outages import OUTAGES, outage_of
from services.infra.pg_accounts import NAME_INDEX
from services.web.pages import ROUTES as PAGE_ROUTES
from services.web.pages import static_router
from services.web.pages_watch import ROUTES as WATCH_PAGES

log = logging.getLogger("hanamichi")

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


def _service_error(request: Request, exc: ServiceError) -> Response:
    headers = {"Retry-After": str(RETRY_AFTER_S)} if exc.status == 503 else None
    if "retry_after_s" in exc.extra:  # a limit that says when to come back (429)
        headers = {"Retry-After": str(exc.extra["retry_after_s"])}
    return Response({"code": exc.code, "message": exc.message, **exc.extra}, status_code=exc.status, headers=headers)


def _outage(dependency: str) -> Response:
    # PostgreSQL or Redis down: a 503 to retry, not a 500. Logged once per
    # outage (services/infra/outages.py), not once per request.
    return Response(unavailable_body(dependency), status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)})


_SEED_FIELD = "unknown field `seed`"  # msgspec's words for a body's `seed`


def _problem(e: dict) -> str:
    key, message = e.get("key") or "body", e.get("message")
    if key == "data" and message == "'data'":
        # Litestar's KeyError for a request with no body at all.
        return "this route needs a JSON body"
    return f"{key}: {message}"


def _validation_error(request: Request, exc: ValidationException) -> Response:
    if any(_SEED_FIELD in str(e.get("message")) for e in (exc.extra or []) if isinstance(e, dict)):
        # No body has a seed field (the server draws every seed);
        # a client that sends one must learn that it has no effect.
        return Response({"code": SEED_REFUSED[0], "message": SEED_REFUSED[1]}, status_code=422)
    # Litestar's detail names the field and the problem, never state.
    # Litestar's own detail quotes the whole URL, query string included (5,000
    # digits of `after=` made a 5 KB message): name the path only, and bound it.
    details = "; ".join(_problem(e)[:120] for e in (exc.extra or []) if isinstance(e, dict))
    where = request.url.path if len(request.url.path) <= 100 else request.url.path[:100] + "..."
    message = f"Validation failed for {request.method} {where}" + (f" ({details[:250]})" if details else "")
    return Response({"code": "bad_request", "message": message}, status_code=400)


def _http_error(request: Request, exc: HTTPException) -> Response:
    if exc.status_code == 500:
        if isinstance(exc.__cause__, OSError) and exc.__cause__.errno in _BAD_FILE_NAMES:
            # The static files' lookup of a name no file can have.
            return Response({"code": "not_found", "message": "no such file"}, status_code=404)
        return _internal_error(request, exc)
    code = _HTTP_CODES.get(exc.status_code, "error")
    return Response({"code": code, "message": str(exc.detail)}, status_code=exc.status_code)


_BAD_FILE_NAMES = frozenset({errno.ENAMETOOLONG, errno.EINVAL, errno.ENOTDIR, errno.ELOOP})


def _too_deep(request: Request, exc: RecursionError) -> Response:
    return Response({"code": "bad_request", "message": "the JSON body is nested too deeply"}, status_code=400)


def _unique_violation(request: Request, exc: asyncpg.UniqueViolationError) -> Response:
    # Names of people and agents are unique ignoring case, whichever route inserts one.
    if exc.constraint_name == NAME_INDEX:
        return _service_error(request, name_taken(_name_in(exc)))
    return _internal_error(request, exc)


def _name_in(exc: asyncpg.UniqueViolationError) -> str:
    detail = exc.detail or ""  # Key (lower(name))=(alice) already exists.
    return detail.partition(")=(")[2].rpartition(")")[0] or "?"


def _internal_error(request: Request, exc: Exception) -> Response:
    dependency = outage_of(exc)
    if dependency is not None and OUTAGES.failed(exc, "API requests", dependency):
        return _outage(dependency)
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return Response({"code": "internal_error", "message": "something went wrong on our side"}, status_code=500)


async def _before_request(request: Request) -> Response | None:
    # Refuse input PostgreSQL cannot hold before anything (the agent rate
    # limit included) looks it up.
    return await refuse_nul(request) or await limit_agents(request)


def build_app(settings: Settings, lifespan) -> Litestar:
    """The Litestar app: routes, middleware, error mapping. Its objects come
    from `lifespan` (services/bootstrap.py, the composition root)."""
    return Litestar(
        route_handlers=[
            *document_routes(
                [
                    *ROUTES,
                    *VERIFY_ROUTES,
                    *ANALYSIS_ROUTES,
                    *TOURNAMENT_ROUTES,
                    *AGENT_ROUTES,
                    *ACCOUNT_ROUTES,
                    *ACCOUNT_DATA_ROUTES,
                    *LOBBY_ROUTES,
                    *QUICK_PLAY_ROUTES,
                    *WATCH_ROUTES,
                    *INTEGRITY_ROUTES,
                ]
            ),
            assets_router(),
            *PAGE_ROUTES,
            *WATCH_PAGES,
            static_router(),
            metrics_route,
        ],
        # observe first: it sees every response's status
        middleware=[
            DefineMiddleware(observe_requests, log_access=settings.access_log),
            schema_policy,
            SessionMiddleware,
        ],
        lifespan=[lifespan],
        dependencies=DEPENDENCIES,  # `caller` and `viewer`: the request's player, looked up once
        before_request=_before_request,
        before_send=[every_answer],
        request_max_body_size=settings.max_body_bytes,
        exception_handlers={
            ServiceError: _service_error,
            ValidationException: _validation_error,
            HTTPException: _http_error,
            RecursionError: _too_deep,
            asyncpg.UniqueViolationError: _unique_violation,
            Exception: _internal_error,
        },
        openapi_config=openapi_with_security(openapi_config()),
        logging_config=None,
    )
