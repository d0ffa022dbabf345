"""The session cookies are Secure when a trusted proxy says the request came
over https (X-Forwarded-Proto), and only then: HANAMICHI_TRUSTED_PROXIES is
the one list of trusted proxies, for the scheme as for the connection cap
(services/http/httpserver.py `forwarded_options`, passed to uvicorn by
`hanamichi serve`)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from services.http.httpserver import forwarded_options
from tests.service.two_processes import TwoApiProcesses


async def _scheme_seen(options: dict, peer: str, proto: str = "https") -> str:
    """The scheme our app sees for a request from `peer` with X-Forwarded-Proto,
    under uvicorn's proxy handling as `serve` configures it."""
    seen: dict[str, str] = {}

    async def app(scope, receive, send):
        seen["scheme"] = scope["scheme"]

    wrapped = (
        ProxyHeadersMiddleware(app, trusted_hosts=options["forwarded_allow_ips"]) if options["proxy_headers"] else app
    )
    # Only the scope matters to the middleware here; it never receives or sends.
    scope: Any = {
        "type": "http",
        "scheme": "http",
        "client": (peer, 40000),
        "headers": [(b"x-forwarded-proto", proto.encode()), (b"x-forwarded-for", b"203.0.113.9")],
    }
    nothing: Any = None
    await wrapped(scope, nothing, nothing)
    return seen["scheme"]


async def test_the_scheme_is_believed_from_trusted_proxies_only():
    ingress = forwarded_options("10.0.0.0/8, 192.168.7.1")
    assert await _scheme_seen(ingress, "10.42.0.17") == "https"  # an ingress controller's pod
    assert await _scheme_seen(ingress, "192.168.7.1") == "https"
    assert await _scheme_seen(ingress, "192.168.7.2") == "http"  # anyone else claiming TLS
    assert await _scheme_seen(ingress, "127.0.0.1") == "http"  # not even loopback, unless listed
    unset = forwarded_options("")
    assert unset["proxy_headers"] is False
    assert await _scheme_seen(unset, "127.0.0.1") == "http"


def test_a_bad_trusted_proxies_setting_is_refused_at_start():
    with pytest.raises(ValueError):
        forwarded_options("10.0.0.0/8, not-an-address")


def _cookies_after_https_sign_in(env: dict[str, str]) -> dict[str, str]:
    serve = TwoApiProcesses(env, processes=1)
    try:
        serve.wait_serving()
        name = f"tls-{uuid.uuid4().hex[:8]}"
        with serve.fresh_client(headers={"Origin": serve.base_url}) as http:
            r = http.post("/api/v1/players", json={"name": name, "password": "correct horse"})
            assert r.status_code == 201, r.text
            r = http.post(
                "/api/v1/session",
                json={"name": name, "password": "correct horse"},
                headers={"X-Forwarded-Proto": "https"},
            )
            assert r.status_code == 200, r.text
            return {h.split("=", 1)[0]: h.lower() for h in r.headers.get_list("set-cookie")}
    finally:
        serve.stop()


def test_serve_sends_secure_cookies_behind_a_trusted_proxy_only(server_env):
    trusted = _cookies_after_https_sign_in({**server_env, "HANAMICHI_TRUSTED_PROXIES": "127.0.0.1"})
    assert "; secure" in trusted["hm_session"] and "; secure" in trusted["hm_csrf"], trusted
    env = {k: v for k, v in server_env.items() if k not in ("HANAMICHI_TRUSTED_PROXIES", "FORWARDED_ALLOW_IPS")}
    untrusted = _cookies_after_https_sign_in(env)
    assert "secure" not in untrusted["hm_session"] and "secure" not in untrusted["hm_csrf"], untrusted
