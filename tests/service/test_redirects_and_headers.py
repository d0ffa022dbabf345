"""Where a `next=` may send a person, the headers every answer carries, and
input that once made a 500: against a real server."""

from __future__ import annotations

import uuid

import httpx
import pytest

from services.web.redirects import local_path

# Targets a browser reads as another site (it drops tabs and newlines and
# reads a backslash as a slash), or that cannot be a header's value.
HOSTILE_NEXT = [
    "//evil.example/x",
    "/%09/evil.example/x",
    "/%5Cevil.example/x",
    "/%5C%5Cevil.example/x",
    "/%0a",
    "/%0d%0a",
    "/%0D%0ASet-Cookie:%20x=1",
    "https://evil.example/",
    "%2F%2Fevil.example",
    "javascript:alert(1)",
    "/%7F",
]


@pytest.mark.parametrize("target", HOSTILE_NEXT)
def test_the_language_switch_goes_back_only_to_a_path_on_this_site(server, target):
    r = httpx.get(f"{server.base_url}/lang/it?next={target}", timeout=10)
    assert r.status_code == 303, (target, r.status_code, r.text)
    assert r.headers["location"] == "/", (target, r.headers["location"])


def test_the_language_switch_keeps_a_path_of_this_site_and_quotes_it_to_ascii(server):
    r = httpx.get(f"{server.base_url}/lang/es?next=/games/abc%3Fx%3D1", timeout=10)
    assert r.status_code == 303 and r.headers["location"] == "/games/abc?x=1"
    assert r.cookies["hm_lang"] == "es"
    # Any character outside Latin-1 once made a 500 while writing Location.
    r = httpx.get(f"{server.base_url}/lang/en?next=/%E3%80%82", timeout=10)
    assert r.status_code == 303 and r.headers["location"] == "/%E3%80%82"


def test_local_path_refuses_what_a_url_parser_reads_as_a_host():
    assert local_path("/account?tab=1#x") == "/account?tab=1#x"
    for target in ("", None, "//x", "/\\x", "/\tx", "/\nx", "\\\\x", "http://x/", "/ /x", "x"):
        assert local_path(target) == "/", repr(target)


def test_every_answer_says_nosniff_and_a_referrer_policy_and_the_charset_once(server):
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        for path in ("/", "/api/v1/games", "/assets/app.css", "/schema/openapi.json", "/no/such/page", "/health"):
            r = http.get(path)
            assert r.headers.get("x-content-type-options") == "nosniff", path
            assert r.headers.get("referrer-policy") == "same-origin", path
            assert r.headers["content-type"].count("charset") <= 1, (path, r.headers["content-type"])
        page = http.get("/")
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert page.headers["x-frame-options"] == "DENY"


def test_the_schema_pages_allow_only_their_own_inline_script_and_refuse_frames(server):
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        for path in ("/schema", "/schema/swagger"):
            r = http.get(path)
            policy = r.headers["content-security-policy"]
            assert "frame-ancestors 'none'" in policy and r.headers["x-frame-options"] == "DENY"
            script_src = next(p for p in policy.split(";") if p.strip().startswith("script-src"))
            assert "'unsafe-inline'" not in script_src and "'sha256-" in script_src, policy
        assert "content-security-policy" not in http.get("/schema/openapi.json").headers


def test_a_csrf_token_that_is_not_ascii_is_refused_not_an_error(server):
    with httpx.Client(base_url=server.base_url, headers={"Origin": server.base_url}, timeout=10) as c:
        name = f"csrf-{uuid.uuid4().hex[:8]}"
        assert c.post("/api/v1/players", json={"name": name, "password": "correct horse"}).status_code == 201
        assert c.post("/api/v1/session", json={"name": name, "password": "correct horse"}).status_code == 200
        for token in ("é" * 43, "\u3002", "Ω-token"):
            r = c.post(
                "/api/v1/games",
                json={"game": "kabuki-tricks", "players": 3},
                headers={"X-CSRF-Token": token.encode("utf-8")},
            )
            assert r.status_code == 403 and r.json()["code"] == "csrf_failed", (token, r.status_code, r.text)


@pytest.mark.parametrize("prefix", ["/assets", "/static/swagger-ui"])
def test_a_file_name_no_file_can_have_is_404(server, prefix):
    for name in ("a" * 256, "b" * 1000):
        r = httpx.get(f"{server.base_url}{prefix}/{name}", timeout=10)
        assert r.status_code == 404 and r.json()["code"] == "not_found", (prefix, len(name), r.status_code)
