"""Accounts, sessions and CSRF against a real server."""

from __future__ import annotations

import uuid

import httpx


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _browser(server, origin: str | None = "self") -> httpx.Client:
    """A client that behaves like our pages: cookies kept, Origin sent."""
    headers = {"Origin": server.base_url} if origin == "self" else ({"Origin": origin} if origin else {})
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


def _sign_up(client: httpx.Client, name: str, password: str = "correct horse") -> dict:
    r = client.post("/api/v1/players", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    return r.json()


def _sign_in(client: httpx.Client, name: str, password: str = "correct horse") -> httpx.Response:
    return client.post("/api/v1/session", json={"name": name, "password": password})


def _csrf(client: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": client.cookies["hm_csrf"]}


def test_names_are_unique_ignoring_case(server):
    name = _name("Alice")
    with _browser(server) as c:
        _sign_up(c, name)
        r = c.post("/api/v1/players", json={"name": name.upper()})
        assert r.status_code == 409 and r.json()["code"] == "name_taken", r.text
        # Agents share the people's name space.
        owner = c.post("/api/v1/players", json={"name": _name("owner")}).json()
        r = c.post(
            "/api/v1/agents",
            json={"name": name.lower(), "games": ["kabuki-tricks"], "mode": "pull"},
            headers={"Authorization": f"Bearer {owner['token']}"},
        )
        assert r.status_code == 409 and r.json()["code"] == "name_taken", r.text


def test_sign_in_sets_a_safe_cookie_and_works_in_any_case(server):
    name = _name("Bea")
    with _browser(server) as c:
        created = _sign_up(c, name)
        assert "set-cookie" not in {k.lower() for k in c.post("/api/v1/players", json={"name": _name("x")}).headers}
        r = _sign_in(c, name.swapcase())
        assert r.status_code == 200, r.text
        assert r.json()["player_id"] == created["player_id"] and r.json()["name"] == name
        cookies = {h.split("=", 1)[0]: h.lower() for h in r.headers.get_list("set-cookie")}
        session = cookies["hm_session"]
        assert "httponly" in session and "samesite=lax" in session and "path=/" in session
        assert "secure" not in session  # served over http here; Secure over https
        assert "httponly" not in cookies["hm_csrf"]  # our JavaScript reads it
        me = c.get("/api/v1/session")
        assert me.status_code == 200 and me.json()["name"] == name and me.json()["has_password"] is True
        assert me.json()["csrf_token"] == c.cookies["hm_csrf"]


def test_secure_cookie_behind_https(server):
    name = _name("Cy")
    with _browser(server) as c:
        _sign_up(c, name)
        # uvicorn trusts X-Forwarded-Proto from 127.0.0.1 (its default
        # forwarded_allow_ips), as from a TLS-terminating proxy.
        r = c.post(
            "/api/v1/session", json={"name": name, "password": "correct horse"}, headers={"X-Forwarded-Proto": "https"}
        )
        assert r.status_code == 200, r.text
        session = next(h.lower() for h in r.headers.get_list("set-cookie") if h.startswith("hm_session="))
        assert "; secure" in session


def test_wrong_password_and_unknown_name_look_the_same(server):
    name = _name("Dee")
    with _browser(server) as c:
        _sign_up(c, name)
        wrong = _sign_in(c, name, "wrong password")
        nobody = _sign_in(c, _name("nobody"), "wrong password")
        assert wrong.status_code == nobody.status_code == 401
        assert wrong.json() == nobody.json() and wrong.json()["code"] == "bad_credentials"
        # A player without a password cannot sign in with any.
        bare = _name("bare")
        c.post("/api/v1/players", json={"name": bare})
        assert _sign_in(c, bare, "anything at all").status_code == 401
        short = c.post("/api/v1/players", json={"name": _name("short"), "password": "1234"})
        assert short.status_code == 400 and short.json()["code"] == "bad_password"


def test_session_reads_and_signed_out(server):
    with _browser(server) as c:
        r = c.get("/api/v1/session")
        assert r.status_code == 401 and r.json()["code"] == "no_token"
        name = _name("Eve")
        _sign_up(c, name)
        assert _sign_in(c, name).status_code == 200
        cookie = c.cookies["hm_session"]
        r = c.delete("/api/v1/session", headers=_csrf(c))
        assert r.status_code == 204
        assert "hm_session" not in c.cookies
        # The session ended on the server: the old cookie is refused.
        again = httpx.get(server.base_url + "/api/v1/session", cookies={"hm_session": cookie})
        assert again.status_code == 401 and again.json()["code"] == "bad_session"


def test_forged_cookie_is_refused(server):
    r = httpx.get(server.base_url + "/api/v1/session", cookies={"hm_session": "abc.def"})
    assert r.status_code == 401 and r.json()["code"] == "bad_session"


def test_cookie_writes_need_the_csrf_token_and_our_origin(server):
    name = _name("Fay")
    with _browser(server) as c:
        _sign_up(c, name)
        _sign_in(c, name)
        body = {"game": "cahoots", "players": 3}
        no_token = c.post("/api/v1/games", json=body)
        assert no_token.status_code == 403 and no_token.json()["code"] == "csrf_failed"
        wrong_token = c.post("/api/v1/games", json=body, headers={"X-CSRF-Token": "x" * 43})
        assert wrong_token.status_code == 403 and wrong_token.json()["code"] == "csrf_failed"
        ok = c.post("/api/v1/games", json=body, headers=_csrf(c))
        assert ok.status_code == 201, ok.text
        csrf = _csrf(c)
        session = c.cookies["hm_session"]
    # The right token from a foreign page (or no Origin and no Referer) is refused.
    with _browser(server, origin="https://evil.example") as evil:
        evil.cookies.set("hm_session", session)
        r = evil.post("/api/v1/games", json=body, headers=csrf)
        assert r.status_code == 403 and r.json()["code"] == "csrf_failed"
        signin = evil.post("/api/v1/session", json={"name": name, "password": "correct horse"})
        assert signin.status_code == 403 and signin.json()["code"] == "csrf_failed"  # login CSRF
    with _browser(server, origin=None) as bare:
        bare.cookies.set("hm_session", session)
        assert bare.post("/api/v1/games", json=body, headers=csrf).status_code == 403
        # Reads need neither.
        assert bare.get("/api/v1/session").status_code == 200


def test_bearer_requests_are_unchanged(server):
    """Programs: no CSRF token, no Origin, even with a stray cookie; and a
    client cannot claim the internal session scheme."""
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        token = c.post("/api/v1/players", json={"name": _name("prog")}).json()["token"]
        c.cookies.set("hm_session", "stray.cookie")
        r = c.post(
            "/api/v1/games", json={"game": "cahoots", "players": 3}, headers={"Authorization": f"Bearer {token}"}
        )
        assert r.status_code == 201, r.text
        forged = c.get("/api/v1/session", headers={"Authorization": "HmSession mark GET 1 - x.y"})
        assert forged.status_code == 401


def test_cookie_works_on_seat_streams(server):
    """EventSource sends no headers: the cookie alone gives the seat's own stream."""
    name = _name("Gus")
    with _browser(server) as c:
        _sign_up(c, name)
        _sign_in(c, name)
        game = c.post("/api/v1/games", json={"game": "cahoots", "players": 3}, headers=_csrf(c)).json()
        gid = game["game_id"]
        assert c.post(f"/api/v1/games/{gid}/seats", json={"seat": 0}, headers=_csrf(c)).status_code == 200
        for seat in (1, 2):
            r = c.post(f"/api/v1/games/{gid}/bots", json={"seat": seat, "bot": "random"}, headers=_csrf(c))
            assert r.status_code == 200, r.text
        info = c.get(f"/api/v1/games/{gid}").json()
        assert info["your_seat"] == 0 and info["view"] is not None
        with c.stream("GET", f"/api/v1/games/{gid}/stream") as stream:
            assert stream.status_code == 200
            seen_turn = False
            for line in stream.iter_lines():
                if line == "event: turn":
                    seen_turn = True  # only a seat's own stream says when it may act
                    break
            assert seen_turn


def test_password_change_ends_other_sessions_and_token_rotation(server):
    name = _name("Hal")
    with _browser(server) as a, _browser(server) as b:
        created = _sign_up(a, name)
        _sign_in(a, name)
        _sign_in(b, name)
        r = a.post("/api/v1/players/me/password", json={"password": "a new secret"}, headers=_csrf(a))
        assert r.status_code == 403 and r.json()["code"] == "wrong_password", r.text  # the current one is needed
        wrong = {"password": "a new secret", "current_password": "not it at all"}
        r = a.post("/api/v1/players/me/password", json=wrong, headers=_csrf(a))
        assert r.status_code == 403 and r.json()["code"] == "wrong_password", r.text
        assert b.get("/api/v1/session").status_code == 200  # a refused change ends nothing
        right = {"password": "a new secret", "current_password": "correct horse"}
        r = a.post("/api/v1/players/me/password", json=right, headers=_csrf(a))
        assert r.status_code == 200, r.text
        assert a.get("/api/v1/session").status_code == 200  # the one that asked stays in
        assert b.get("/api/v1/session").status_code == 401
        assert _sign_in(b, name, "correct horse").status_code == 401
        assert _sign_in(b, name, "a new secret").status_code == 200
        old = {"Authorization": f"Bearer {created['token']}"}
        rotated = a.post("/api/v1/players/me/token", headers=_csrf(a))
        assert rotated.status_code == 200 and rotated.json()["token"].startswith("hm_")
        assert rotated.json()["token"] != created["token"]
    with httpx.Client(base_url=server.base_url, timeout=30) as p:
        assert p.get("/api/v1/session", headers=old).status_code == 401
        new = {"Authorization": f"Bearer {rotated.json()['token']}"}
        me = p.get("/api/v1/session", headers=new)
        assert (
            me.status_code == 200 and me.json()["player_id"] == created["player_id"] and me.json()["csrf_token"] is None
        )
        # A token-only player adds a password with the token.
        bare = p.post("/api/v1/players", json={"name": _name("tok")}).json()
        r = p.post(
            "/api/v1/players/me/password",
            json={"password": "first password"},
            headers={"Authorization": f"Bearer {bare['token']}"},
        )
        assert r.status_code == 200 and r.json()["has_password"] is True
        assert _sign_in(p, bare["name"], "first password").status_code == 200


def test_password_guessing_is_slowed_per_name_but_the_owner_still_signs_in(server):
    limit = 10  # HANAMICHI_SIGNIN_NAME_LIMIT's default
    name = _name("Ivy")
    with _browser(server) as c:
        _sign_up(c, name)
        answers = [_sign_in(c, name.upper(), f"guess {i}").status_code for i in range(limit)]
        assert answers == [401] * limit
        r = _sign_in(c, name, "a wrong guess")  # past the limit a wrong one is 429
        assert r.status_code == 429 and r.json()["code"] == "rate_limited" and int(r.headers["retry-after"]) >= 1
        assert _sign_in(c, name, "correct horse").status_code == 200  # the right one is let through
        # Other names are not affected.
        other = _name("Jo")
        _sign_up(c, other)
        assert _sign_in(c, other).status_code == 200
