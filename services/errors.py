"""Errors the API turns into `{code, message}` with an HTTP status."""

from __future__ import annotations


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
