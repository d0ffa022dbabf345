"""Errors the API turns into `{code, message}` with an HTTP status."""

from __future__ import annotations

from engines.core import RuleError


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


def outage_types() -> dict[type[BaseException], str]:
    """Exception types that mean a backing server is unreachable or refusing
    work for now, with the dependency each one names."""
    import asyncpg.exceptions as pg
    import redis.exceptions as rd

    return {
        # Connection refused or reset, DNS, connect timeouts (asyncpg raises these raw).
        OSError: "the database",
        pg.PostgresConnectionError: "the database",  # class 08, and a connection lost mid-query
        pg.OperatorInterventionError: "the database",  # class 57: shutting down, starting up, cancelled
        pg.InsufficientResourcesError: "the database",  # class 53: too many connections, disk full
        rd.ConnectionError: "the message broker",
        rd.TimeoutError: "the message broker",
    }


def unavailable_body(dependency: str) -> dict[str, str]:
    # One code for both servers: either way the client waits and retries
    # (a command retried with its command_id is applied at most once).
    return {
        "code": "storage_unavailable",
        "message": f"{dependency} is unavailable for a moment; retry in {RETRY_AFTER_S} s",
    }


# No request chooses a seed (the server draws every one); a body
# that sends one learns it has no effect.
SEED_REFUSED = ("seed_not_accepted", "the server draws every seed (a CSPRNG); a request cannot choose one")
