"""Who is calling, looked up once per request.

`identify` reads the Authorization header (a bearer token, or the session
cookie services/http/sessions.py turned into one) the first time anything asks
and keeps the answer in the request's ASGI scope state: the agents' rate limit
(services/http/ratelimit.py, a before_request hook) asks first, then the route
takes the same answer as its `caller` (required) or `viewer` (optional)
dependency. A credential that is not valid is kept as its refusal: a route
that needs a caller answers it (401 bad_token / bad_session, 403
csrf_failed), a route that needs none never sees it."""

from __future__ import annotations

from litestar import Request
from litestar.di import Provide

from services.app.errors import ServiceError
from services.app.players import Player

_CALLER = "hanamichi.caller"  # the scope state's key: a Player, a ServiceError, or None (no credential)


async def identify(request: Request) -> Player | None:
    """The caller, or None when the request carries no credential; raises
    the credential's refusal when it is not valid."""
    state = request.scope.setdefault("state", {})
    if _CALLER not in state:
        authorization = request.headers.get("authorization")
        try:
            state[_CALLER] = await request.app.state.players.authenticate(authorization) if authorization else None
        except ServiceError as refusal:
            state[_CALLER] = refusal
    found = state[_CALLER]
    if isinstance(found, ServiceError):
        raise found
    return found


async def caller(request: Request) -> Player:
    """The `caller` dependency: routes that need a player."""
    player = await identify(request)
    if player is None:
        # Players.authenticate is the one home of the "no token" refusal (401 no_token).
        return await request.app.state.players.authenticate(None)
    return player


async def viewer(request: Request) -> Player | None:
    """The `viewer` dependency: reads open to anyone (a credential, when
    sent, must be valid)."""
    return await identify(request)


DEPENDENCIES = {"caller": Provide(caller), "viewer": Provide(viewer)}
# The handler parameters that mean "this route reads a credential" (api_docs).
CREDENTIAL_PARAMETERS = frozenset({"authorization", *DEPENDENCIES})
