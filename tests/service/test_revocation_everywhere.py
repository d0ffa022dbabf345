"""Revocation holds at every API process as soon as the revoking call
returns: signing out, a password change, a token rotation and an agent's
deletion, with two API processes that each cache credentials
(services/app/players.py, services/infra/revocations.py).

Each test first uses the credential at both processes (so that both have
it cached), revokes it at one of them, then sends requests on fresh
connections until both processes have answered: every answer must be 401."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import httpx

from tests.service.two_processes import PROCESS_HEADER, shared_two_api_processes

two_api_processes = shared_two_api_processes  # one serve for the module


PASSWORD = "correct horse"


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _at_both(serve, send: Callable[[], httpx.Response], expect: int, timeout: float = 60) -> set[int]:
    """Send until both API processes have answered; every answer must have
    status `expect`. Returns the pids that answered."""
    answered: set[int] = set()
    pids = set(serve.pids)
    deadline = time.monotonic() + timeout
    while answered != pids:
        assert time.monotonic() < deadline, f"only {sorted(answered)} of {sorted(pids)} answered"
        r = send()
        pid = int(r.headers[PROCESS_HEADER])
        assert r.status_code == expect, f"process {pid} answered {r.status_code}, not {expect}: {r.text}"
        answered.add(pid)
    return answered


def _browser(serve) -> httpx.Client:
    """Like our pages: cookies kept, our Origin sent; a new connection per request."""
    return serve.fresh_client(headers={"Origin": serve.base_url})


def _sign_up(http: httpx.Client, name: str) -> dict:
    r = http.post("/api/v1/players", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return r.json()


def _sign_in(http: httpx.Client, name: str) -> int:
    r = http.post("/api/v1/session", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return int(r.headers[PROCESS_HEADER])


def _csrf(http: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": http.cookies["hm_csrf"]}


def test_a_signed_out_cookie_is_refused_by_every_process_at_once(two_api_processes):  # noqa: F811
    serve = two_api_processes
    name = _name("out")
    with _browser(serve) as page:
        _sign_up(page, name)
        _sign_in(page, name)
        cookie = page.cookies["hm_session"]
        _at_both(serve, lambda: page.get("/api/v1/session"), 200)
        r = page.delete("/api/v1/session", headers=_csrf(page))
        assert r.status_code == 204, r.text
    # The old cookie, kept by whoever stole it.
    with serve.fresh_client(cookies={"hm_session": cookie}) as thief:
        _at_both(serve, lambda: thief.get("/api/v1/session"), 401)


def test_a_password_change_ends_the_other_sessions_at_every_process(two_api_processes):  # noqa: F811
    serve = two_api_processes
    name = _name("pw")
    with _browser(serve) as mine, _browser(serve) as stolen:
        _sign_up(mine, name)
        _sign_in(mine, name)
        _sign_in(stolen, name)
        _at_both(serve, lambda: stolen.get("/api/v1/session"), 200)
        r = mine.post(
            "/api/v1/players/me/password",
            json={"password": "a new one, long", "current_password": PASSWORD},
            headers=_csrf(mine),
        )
        assert r.status_code == 200, r.text
        # A write with the other session, CSRF token and all, is refused everywhere...
        _at_both(
            serve,
            lambda: stolen.post("/api/v1/players/me/token", headers=_csrf(stolen)),
            401,
        )
        # ...while the session that changed the password goes on.
        _at_both(serve, lambda: mine.get("/api/v1/session"), 200)


def test_a_rotated_token_is_refused_by_every_process_at_once(two_api_processes):  # noqa: F811
    serve = two_api_processes
    with serve.fresh_client() as http:
        old = _sign_up(http, _name("rot"))["token"]
        bearer = {"Authorization": f"Bearer {old}"}
        _at_both(serve, lambda: http.get("/api/v1/session", headers=bearer), 200)
        r = http.post("/api/v1/players/me/token", headers=bearer)
        assert r.status_code == 200, r.text
        new = {"Authorization": f"Bearer {r.json()['token']}"}
        _at_both(serve, lambda: http.get("/api/v1/session", headers=bearer), 401)
        _at_both(serve, lambda: http.get("/api/v1/session", headers=new), 200)


def test_a_deleted_agents_token_is_refused_by_every_process_at_once(two_api_processes):  # noqa: F811
    serve = two_api_processes
    with serve.fresh_client() as http:
        owner = {"Authorization": f"Bearer {_sign_up(http, _name('owner'))['token']}"}
        r = http.post(
            "/api/v1/agents",
            json={"name": _name("bot"), "games": ["kabuki-tricks"], "mode": "pull"},
            headers=owner,
        )
        assert r.status_code == 201, r.text
        agent_id, bot = r.json()["agent_id"], {"Authorization": f"Bearer {r.json()['token']}"}
        _at_both(serve, lambda: http.get("/api/v1/agents/me", headers=bot), 200)
        r = http.delete(f"/api/v1/agents/{agent_id}", headers=owner)
        assert r.status_code == 200, r.text
        _at_both(serve, lambda: http.get("/api/v1/agents/me", headers=bot), 401)
