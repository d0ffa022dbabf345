"""`GET /api/v1/games/{id}/analysis` over HTTP, on a stack of its own with a
limit of 2 new analyses an hour (and no worker: what is queued stays
queued): every answer the route gives, the look that queues nothing, and a
limit that stops one requester's new requests without locking anyone out of
what exists, nor others out of theirs."""

from __future__ import annotations

import httpx
import pytest

from tests.service.bot_tables import bot_table, new_player, wait_finished
from tests.service.own_stack import own_stack

LIMIT = 2


@pytest.fixture(scope="module")
def stack(servers, server_env, tmp_path_factory):
    with own_stack(
        servers,
        server_env,
        tmp_path_factory.mktemp("analysis-route"),
        with_worker=False,
        HANAMICHI_ANALYSIS_REQUESTS_PER_HOUR=str(LIMIT),
    ) as server:
        yield server


def _analysis(http: httpx.Client, gid: str, auth: dict | None = None, **params: str) -> httpx.Response:
    return http.get(f"/api/v1/games/{gid}/analysis", params=params, headers=auth or {})


def test_unknown_and_unfinished_games_are_refused_and_nothing_is_queued(stack):
    with httpx.Client(base_url=stack.base_url, timeout=30) as http:
        r = _analysis(http, "no-such-game")
        assert r.status_code == 404 and r.json()["code"] == "game_not_found", r.text
        playing, _ = bot_table(http, 3, delay_ms=800)
        r = _analysis(http, playing)
        assert r.status_code == 409 and r.json()["code"] == "game_in_progress", r.text
        assert "ended" in r.json()["message"]
        r = _analysis(http, playing, request="maybe")
        assert r.status_code == 400, r.text


def test_a_look_queues_nothing_and_the_limit_counts_new_requests_only(stack):
    with httpx.Client(base_url=stack.base_url, timeout=30) as http:
        games = [bot_table(http, 3, delay_ms=0)[0] for _ in range(LIMIT + 1)]
        for gid in games:
            wait_finished(http, gid)
        # A look at an analysis nobody asked for: 204, and it stays that way.
        for _ in range(2):
            r = _analysis(http, games[0], request="false")
            assert r.status_code == 204 and r.content == b"", r.text
        person = new_player(http)
        auth = {"Authorization": f"Bearer {person['token']}"}
        for gid in games[:LIMIT]:
            r = _analysis(http, gid, auth)
            assert r.status_code == 202, r.text
            assert r.json() == {"status": "queued", "done": 0, "total": 0}
        r = _analysis(http, games[LIMIT], auth)
        assert r.status_code == 429, r.text
        assert r.json()["code"] == "analysis_rate_limited"
        assert f"{LIMIT} new analyses an hour" in r.json()["message"]
        retry_after = int(r.headers["Retry-After"])
        assert 3500 <= retry_after <= 3600, retry_after
        # The refused request changed nothing: a look still finds none.
        assert _analysis(http, games[LIMIT], request="false").status_code == 204
        # What exists (queued) is read without limit, looked at or asked for.
        for _ in range(3):
            assert _analysis(http, games[0], auth).status_code == 202
        assert _analysis(http, games[0], request="false").json()["status"] == "queued"
        # Another requester (here: an address, without a token) is not held back by the person's limit.
        r = _analysis(http, games[LIMIT])
        assert r.status_code == 202, r.text
        assert _analysis(http, games[LIMIT], auth).status_code == 202  # now it exists: the person reads it too
