"""`GET /api/v1/admin/integrity`: the collusion screening report
(services/app/integrity, docs/fairness.md "Collusion screening") for the
operator. It names accounts and their suspected partners, so it is behind
the operator's own bearer token (`HANAMICHI_ADMIN_TOKEN`), not a player's:
without one configured the route does not exist (404 `admin_disabled`),
and a request without that token is refused (403 `admin_token_refused`)."""

from __future__ import annotations

import hmac
from typing import Annotated

from litestar import get
from litestar.datastructures import State
from litestar.openapi import ResponseSpec
from litestar.params import HeaderParameter, Parameter

from services.app.errors import Forbidden, NotFound
from services.app.integrity.reading import integrity_report
from services.app.integrity.screening import FAMILY_ALPHA, MIN_SHARED_GAMES, IntegrityReport
from services.http.api_docs import ErrorBody
from services.infra.pg_accounts import PgAccounts
from services.infra.pg_integrity import PgFinishedGames

Auth = Annotated[str | None, HeaderParameter(name="Authorization", required=False, include_in_schema=False)]


def check_admin(configured: str | None, authorization: str | None) -> None:
    """Raises unless `authorization` is `Bearer <the configured token>`."""
    if not configured:
        raise NotFound("admin_disabled", "no admin token is configured on this server (HANAMICHI_ADMIN_TOKEN)")
    scheme, _, token = (authorization or "").partition(" ")
    # compare_digest: how long the comparison takes says nothing of the token.
    if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), configured.encode()):
        raise Forbidden("admin_token_refused", "this route needs the operator's admin token as a bearer token")


@get(
    "/api/v1/admin/integrity",
    responses={
        403: ResponseSpec(ErrorBody, description="Not the operator's admin token (admin_token_refused)"),
        404: ResponseSpec(ErrorBody, description="No admin token is configured on this server (admin_disabled)"),
    },
)
async def integrity_screening(
    state: State,
    authorization: Auth,
    game: Annotated[str | None, Parameter(max_length=40)] = None,
    min_games: Annotated[int, Parameter(ge=1, le=100_000)] = MIN_SHARED_GAMES,
    alpha: Annotated[float, Parameter(gt=0, lt=1)] = FAMILY_ALPHA,
) -> IntegrityReport:
    check_admin(state.settings.admin_token, authorization)
    return await integrity_report(PgFinishedGames(state.pool), game, min_games, alpha, PgAccounts(state.pool))


ROUTES = [integrity_screening]
