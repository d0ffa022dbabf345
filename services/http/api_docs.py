"""The OpenAPI document told true to the service.

- Every error is `{code, message}` (services.app.errors; app.py maps Litestar's
  own errors to the same body), so every route documents that type, never
  Litestar's default `{status_code, detail, extra}`.
- Each route lists the statuses it can answer. Some follow from the route's
  shape and are derived here: 400 bad input, 429 (an agent's token is rate
  limited on every other route; a route that adds to what an account holds
  also answers it for a cap, services/app/caps.py) and 503 (storage down) on
  every API route,
  401 where a token is read, 404 where the path names something, 413 where a
  body is read. The rest depend on what the route does (ROUTE_ERRORS).
- Bearer tokens are a security scheme, not a header parameter: required on
  writes and on an agent owner's reads, optional elsewhere (a read without a
  token gets the public view).

tests/service/test_openapi_conformance.py runs schemathesis against a live
server to hold the document to this."""

from __future__ import annotations

import inspect
from collections.abc import Iterable

import msgspec
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.spec import Components, SecurityScheme

from services.http.auth import CREDENTIAL_PARAMETERS

BEARER = "bearer"

DESCRIPTIONS = {
    400: "Malformed input: not JSON, a wrong type, an unknown field, a number out of range",
    401: "No token, or a token that is not valid",
    403: "Not yours: another seat, another owner's agent, a token of the wrong kind; or a write with the session"
    " cookie that lacks this site's Origin and X-CSRF-Token (csrf_failed)",
    404: "No such game, tournament, agent, round or player",
    409: "A conflict with the current state: version conflict, not your turn, too early, already done",
    413: "The body is larger than 64 KiB",
    422: "Well-formed but refused by the rules, with the rule's code",
    429: "Rate limited (agent tokens; wait for Retry-After seconds), or a cap on what one account holds at once"
    " is reached (too_many_open_tables, too_many_bot_seats, too_many_agents, too_many_sparring: finish, leave"
    " or delete something first)",
    503: "Storage is unavailable; retry after Retry-After seconds",
}

# Statuses that depend on what a route does, by handler name. A handler not
# listed gets all three (documenting a status that cannot happen is less bad
# than answering one the document denies).
ROUTE_ERRORS: dict[str, tuple[int, ...]] = {
    "catalog": (),
    "create_player": (409,),
    "read_game": (),
    "list_tournaments": (),
    "read_tournament": (),
    "standings": (),
    "round_tables": (),
    "travellers": (409,),  # results_embargoed: the round asked for is in play
    "tournament_events": (),
    "tournament_stream": (),
    "leaderboard": (),
    "rating_history": (),
    "list_agents": (),
    "read_agent": (),
    "sparring_report": (),
    "delete_agent": (),
    "agent_turns": (),
    "list_sparring": (),
    "reissue_agent_token": (),
    "rotate_agent_secret": (409,),
    "pause_agent": (409,),
    "resume_agent": (409,),
    "create_game": (403, 422),
    "cancel_game": (403, 409),
    "leave_game": (409,),
    "play_again": (403, 409),
    "read_events": (403, 409),
    "export": (403, 409),
    "stream": (403, 409),
    "verify_game": (409,),
    "agent_me": (403,),
    "agent_stream": (403,),
    "create_tournament": (403, 422),
    "register_agent": (403, 409, 422),
    "read_session": (),
    "sign_out": (),
    "set_password": (),
    "rotate_token": (),
    "delete_account": (403, 409),
    "my_data": (),
    "list_games": (),
    "lobby_stream": (),
    "live_tables": (),
    "player_games": (),
    "read_player": (404,),
}
DEFAULT_ERRORS = (403, 409, 422)


class ErrorBody(msgspec.Struct):
    """Every error the API answers."""

    code: str  # stable: programs switch on it
    message: str  # for people; never a hidden card or a stack trace
    version: int | None = None  # the game's current version, on refused moves


def openapi_with_security(config: OpenAPIConfig) -> OpenAPIConfig:
    """`config` with the bearer scheme declared."""
    scheme = SecurityScheme(
        type="http",
        scheme="bearer",
        description="a player's token (POST /api/v1/players) or an agent's bot token (POST /api/v1/agents)",
    )
    components = config.components if isinstance(config.components, Components) else Components()
    components.security_schemes = {**(components.security_schemes or {}), BEARER: scheme}
    config.components = components
    return config


def _error_spec(status: int) -> ResponseSpec:
    return ResponseSpec(data_container=ErrorBody, description=DESCRIPTIONS[status], generate_examples=False)


def _reads_token(handler: HTTPRouteHandler) -> bool:
    return not CREDENTIAL_PARAMETERS.isdisjoint(inspect.signature(handler.fn).parameters)


def _statuses(handler: HTTPRouteHandler) -> set[int]:
    path = next(iter(handler.paths))
    methods = set(handler.http_methods)
    out = {400, 429, 503}
    if _reads_token(handler):
        out.add(401)
    if "{" in path:
        out.add(404)
    if methods & {"POST", "PUT", "PATCH", "DELETE"}:
        out.add(413)
        if _reads_token(handler):
            out.add(403)  # a write authenticated by the session cookie without CSRF proof
    out.update(ROUTE_ERRORS.get(handler.handler_name, DEFAULT_ERRORS))
    return out


def document_routes(handlers: Iterable[HTTPRouteHandler]) -> list[HTTPRouteHandler]:
    """Set the error responses and the security requirement of every API
    route (a route that declares its own keeps them)."""
    out = []
    for handler in handlers:
        out.append(handler)
        if not isinstance(handler, HTTPRouteHandler) or not any(p.startswith("/api/") for p in handler.paths):
            continue
        declared = dict(handler.responses or {})
        handler.responses = {**{s: _error_spec(s) for s in sorted(_statuses(handler))}, **declared}
        if _reads_token(handler) and handler.security is None:
            path = next(iter(handler.paths))
            required = set(handler.http_methods) & {"POST", "DELETE"} or path.startswith("/api/v1/agents")
            handler.security = [{BEARER: []}] if required else [{}, {BEARER: []}]
    return out
