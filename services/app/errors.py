"""Errors the API turns into `{code, message}` with an HTTP status."""

from __future__ import annotations

from engines.core import RuleError
from services.infra.outages import POSTGRES, REDIS


class ServiceError(Exception):
    status = 400

    def __init__(self, code: str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


class BadRequest(ServiceError):
    status = 400


class Unauthorized(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class Unprocessable(ServiceError):
    status = 422


class Unavailable(ServiceError):
    status = 503


# --- an engine's refusal ---------------------------------------------------------
# One table for every stream (games and tournaments): a RuleError whose code is
# a matter of timing or of what already happened is 409 (try again later or
# re-read; KM-3, KM-5a), any other is 422.
CONFLICT_RULES = frozenset({"not_your_turn", "too_early", "too_late", "already_started", "already_registered"})


def refused(err: RuleError, **extra: object) -> ServiceError:
    """The ServiceError for an engine's RuleError (raise it `from None`)."""
    kind = Conflict if err.code in CONFLICT_RULES else Unprocessable
    return kind(err.code, err.message, **extra)


# --- a backing server is down -------------------------------------------------
# An outage of PostgreSQL or Redis is the client's cue to
# retry, not a bug: 503 `storage_unavailable` with Retry-After (never a 500,
# and never a 404 for a game that exists).

RETRY_AFTER_S = 2


_NAMED = {POSTGRES: "the database", REDIS: "the message broker"}


def unavailable_body(dependency: str) -> dict[str, str]:
    """The 503 body for an outage of `dependency` (POSTGRES or REDIS; which
    errors are an outage: services/infra/outages.py)."""
    # One code for both servers: either way the client waits and retries
    # (a command retried with its command_id is applied at most once).
    return {
        "code": "storage_unavailable",
        "message": f"{_NAMED.get(dependency, dependency)} is unavailable for a moment; retry in {RETRY_AFTER_S} s",
    }


# No request chooses a seed (the server draws every one); a body
# that sends one learns it has no effect.
SEED_REFUSED = ("seed_not_accepted", "the server draws every seed (a CSPRNG); a request cannot choose one")
