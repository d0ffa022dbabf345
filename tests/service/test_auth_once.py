"""A request's credential is looked up once: the agents' rate limit
and the route's `caller`/`viewer` dependency share services/http/auth.py's
answer, a refusal included. No servers: a stand-in request and Players."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from services.app.errors import Unauthorized
from services.app.players import Player
from services.http import auth

AGENT = Player("a1", "bot", "agent")


class CountingPlayers:
    def __init__(self, answer) -> None:
        self.answer = answer
        self.calls: list[str | None] = []

    async def authenticate(self, authorization):
        self.calls.append(authorization)
        if authorization is None:
            raise Unauthorized("no_token", "send your token")
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _request(players, authorization: str | None):
    headers = {"authorization": authorization} if authorization else {}
    return SimpleNamespace(scope={}, headers=headers, app=SimpleNamespace(state=SimpleNamespace(players=players)))


async def test_the_limiter_and_the_route_share_one_lookup():
    players = CountingPlayers(AGENT)
    request = _request(players, "Bearer hm_x")
    assert await auth.identify(request) is AGENT  # the rate limit's question
    assert await auth.caller(request) is AGENT  # the route's dependency
    assert await auth.viewer(request) is AGENT
    assert players.calls == ["Bearer hm_x"]


async def test_a_bad_token_is_refused_by_the_route_that_needs_a_caller_with_one_lookup():
    players = CountingPlayers(Unauthorized("bad_token", "this token is not valid"))
    request = _request(players, "Bearer nope")
    with pytest.raises(Unauthorized) as first:
        await auth.identify(request)
    with pytest.raises(Unauthorized) as second:
        await auth.caller(request)
    assert first.value.code == second.value.code == "bad_token"
    assert players.calls == ["Bearer nope"]


async def test_no_credential_is_a_viewer_of_none_and_no_token_for_a_caller():
    players = CountingPlayers(AGENT)
    request = _request(players, None)
    assert await auth.viewer(request) is None
    with pytest.raises(Unauthorized) as refused:
        await auth.caller(request)
    assert refused.value.code == "no_token" and refused.value.status == 401
