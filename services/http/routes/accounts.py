"""Sign-in sessions, passwords and token rotation.

The session cookie and CSRF rules are in services/app/sessions.py; every other
route accepts the cookie through the same `Authorization` path as a token."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Request, Response, delete, get, post
from litestar.datastructures import Cookie, State
from litestar.params import Parameter

from services.app.accounts import Accounts
from services.app.errors import Forbidden, Unauthorized
from services.app.players import Player
from services.app.sessions import CSRF_COOKIE, SESSION_COOKIE, SESSION_MAX_AGE_S
from services.http import auth
from services.http.api_docs import _error_spec
from services.http.httpserver import client_address
from services.http.sessions import same_origin

Auth = Annotated[
    str | None, Parameter(header="Authorization", required=False, include_in_schema=False)
]  # documented as the bearer scheme (api_docs)


class SignIn(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    password: str


class NewPassword(msgspec.Struct, forbid_unknown_fields=True):
    password: str
    # Needed to change a password (not to add the first one).
    current_password: str | None = None


class SessionInfo(msgspec.Struct):
    player_id: str
    name: str
    kind: str  # 'human', 'agent'
    has_password: bool
    # The value a cookie-authenticated write sends as X-CSRF-Token (also in
    # the hm_csrf cookie); null when the caller used a Bearer token.
    csrf_token: str | None = None


class TokenRotated(msgspec.Struct):
    player_id: str
    name: str
    token: str  # shown once; only its hash is stored


def _accounts(state: State) -> Accounts:
    return state.accounts


def _cookies(request: Request, session: str | None) -> list[Cookie]:
    """The session cookie (HttpOnly) and the CSRF cookie our JavaScript reads;
    `None` clears both. Secure when the page was served over https."""
    secure = request.url.scheme == "https"
    csrf = _accounts(request.app.state).keys.csrf_token(session) if session else None
    age = SESSION_MAX_AGE_S if session else 0
    return [
        Cookie(
            key=SESSION_COOKIE, value=session or "", max_age=age, path="/", httponly=True, samesite="lax", secure=secure
        ),
        Cookie(key=CSRF_COOKIE, value=csrf or "", max_age=age, path="/", httponly=False, samesite="lax", secure=secure),
    ]


async def _info(state: State, player: Player, session: str | None) -> SessionInfo:
    csrf = _accounts(state).keys.csrf_token(session) if session else None
    return SessionInfo(player.player_id, player.name, player.kind, await _accounts(state).has_password(player), csrf)


@post(
    "/api/v1/session",
    status_code=200,
    responses={401: _error_spec(401), 403: _error_spec(403), 429: _error_spec(429), 503: _error_spec(503)},
)
async def sign_in(request: Request, state: State, data: SignIn) -> Response[SessionInfo]:
    """Sign in with a name (any case) and password: sets the session cookie."""
    if request.headers.get("origin") and not same_origin(dict(request.scope["headers"])):
        # Login CSRF: another site must not sign a visitor into an account.
        raise Forbidden("csrf_failed", "sign in from this site's own pages")
    player = await _accounts(state).sign_in(data.name, data.password, client_address(request.scope))
    session = await _accounts(state).open_session(player)
    return Response(await _info(state, player, session), cookies=_cookies(request, session))


@get("/api/v1/session")
async def read_session(request: Request, state: State, authorization: Auth) -> Response[SessionInfo]:
    """The signed-in player (cookie or Bearer), or 401."""
    try:
        player = await auth.caller(request)
    except Unauthorized as err:
        # An ended session's cookies are cleared, so the pages stop sending them.
        # The document names the success body; an error's Response is typed by it all the same.
        return Response(
            {"code": err.code, "message": err.message},  # type: ignore[arg-type]
            status_code=401,
            cookies=_cookies(request, None),
        )
    return Response(
        await _info(state, player, request.cookies.get(SESSION_COOKIE) if _by_cookie(authorization) else None)
    )


def _by_cookie(authorization: str | None) -> bool:
    return bool(authorization and not authorization.lower().startswith("bearer "))


@delete("/api/v1/session", status_code=204, responses={403: _error_spec(403)})
async def sign_out(request: Request, state: State, authorization: Auth) -> None:
    """Sign out: the session ends on the server and its cookies are cleared."""
    # Annotated None so that the document says 204 has no body; the
    # Response returned below only adds the cookies that clear the session.
    cookie = request.cookies.get(SESSION_COOKIE)
    if _by_cookie(authorization):
        try:
            await auth.identify(request)  # a forged sign-out needs the CSRF token too
        except Unauthorized:
            pass  # already ended: just clear the cookies
        else:
            await _accounts(state).close_session(cookie)
    return Response(None, status_code=204, cookies=_cookies(request, None))  # type: ignore[return-value]


@post(
    "/api/v1/players/me/password",
    status_code=200,
    responses={403: _error_spec(403), 429: _error_spec(429), 503: _error_spec(503)},
)
async def set_password(
    request: Request, state: State, data: NewPassword, caller: Player, authorization: Auth
) -> SessionInfo:
    """Add or change the caller's password (changing one needs `current_password`,
    403 `wrong_password` otherwise); the caller's other sessions end."""
    cookie = request.cookies.get(SESSION_COOKIE) if _by_cookie(authorization) else None
    await _accounts(state).set_password(
        caller, data.current_password, data.password, cookie, client_address(request.scope)
    )
    return await _info(state, caller, cookie)


@post("/api/v1/players/me/token", status_code=200)
async def rotate_token(state: State, caller: Player) -> TokenRotated:
    """A new API token for the caller, shown once; the old one stops working."""
    return TokenRotated(caller.player_id, caller.name, await _accounts(state).rotate_token(caller))


ROUTES = [sign_in, read_session, sign_out, set_password, rotate_token]
