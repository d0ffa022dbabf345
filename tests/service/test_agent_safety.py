"""Agent safety: the example agent refuses forged, unsigned and replayed
requests; the service refuses agent endpoints on private, loopback and
link-local addresses (no server-side request forgery) unless configured."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from examples.agent import verify
from services.app.agents.endpoints import EndpointRefused, address_allowed, resolve_endpoint
from services.app.agents.signing import sign
from tests.conftest import free_test_port
from tests.service.agent_harness import AgentProcess
from tests.service.client import ApiClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

SECRET = "whsec_test_secret"
TURN = {
    "game": "kabuki-tricks",
    "game_id": "g",
    "seat": 0,
    "version": 3,
    "view": {},
    "legal_actions": [{"type": "play", "card": 3}, {"type": "play", "card": 7}],
    "deadline_ms": 500,
    "time_bank_ms": 0,
}


async def test_example_agent_rejects_forged_unsigned_and_replayed_requests():
    agent = AgentProcess("good", free_test_port(), SECRET)
    try:
        body = json.dumps(TURN).encode()
        now = str(int(time.time()))
        async with httpx.AsyncClient(timeout=5) as http:

            async def post(headers):
                return await http.post(agent.url, content=body, headers={"Content-Type": "application/json", **headers})

            unsigned = await post({})
            forged = await post({"X-Hanamichi-Timestamp": now, "X-Hanamichi-Signature": sign("whsec_other", now, body)})
            old = str(int(time.time()) - 3600)
            replayed = await post({"X-Hanamichi-Timestamp": old, "X-Hanamichi-Signature": sign(SECRET, old, body)})
            tampered = await http.post(
                agent.url,
                content=body.replace(b'"seat": 0', b'"seat": 1'),
                headers={"X-Hanamichi-Timestamp": now, "X-Hanamichi-Signature": sign(SECRET, now, body)},
            )
            good = await post({"X-Hanamichi-Timestamp": now, "X-Hanamichi-Signature": sign(SECRET, now, body)})
        assert [r.status_code for r in (unsigned, forged, replayed, tampered)] == [401, 401, 401, 401]
        assert good.status_code == 200 and good.json()["action"] in TURN["legal_actions"]
    finally:
        agent.stop()


async def test_signature_is_hmac_of_timestamp_and_body():
    # The worked example of docs/agents.md.
    body = b'{"game":"kabuki-tricks","seat":1}'
    signature = sign("whsec_example", "1700000000", body)
    assert (
        signature == "sha256=" + __import__("hmac").new(b"whsec_example", b"1700000000." + body, "sha256").hexdigest()
    )
    assert verify("whsec_example", "1700000000", body, signature, now=1700000010)
    assert not verify("whsec_example", "1700000000", body, signature, now=1700001000)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "::1",
        "fe80::1",
        "fc00::1",
        "::ffff:127.0.0.1",
        "224.0.0.1",
        "240.0.0.1",
        # IPv6 wrappings of private IPv4: 6to4, NAT64, mapped, compatible, Teredo
        "2002:7f00:1::1",
        "2002:a00:7::1",
        "2002:5db8:d822::1",
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::a00:1",
        "::ffff:7f00:1",
        "::7f00:1",
        "2001:0:4136:e378:8000:63bf:80ff:fffe",
    ],
)
async def test_private_loopback_link_local_and_reserved_addresses_are_refused(address):
    assert not address_allowed(address, allow_private=False)


async def test_public_addresses_are_allowed():
    assert address_allowed("93.184.216.34", allow_private=False)
    assert address_allowed("2606:2800:220:1:248:1893:25c8:1946", allow_private=False)
    # NAT64 around a public IPv4 is how an IPv6-only host reaches it.
    assert address_allowed("64:ff9b::5db8:d822", allow_private=False)
    assert address_allowed("::ffff:93.184.216.34", allow_private=False)


async def test_port_zero_is_refused_and_a_refusal_never_names_a_dns_answer():
    for endpoint in ("https://93.184.216.34:0/turn", "http://127.0.0.1:0/turn"):
        with pytest.raises(EndpointRefused) as err:
            await resolve_endpoint(endpoint, allow_http=True, allow_private=True)
        assert err.value.code == "bad_endpoint" and "port" in err.value.message
    with pytest.raises(EndpointRefused) as err:
        await resolve_endpoint("https://localhost/turn", allow_http=False, allow_private=False)
    assert err.value.code == "endpoint_not_allowed"
    assert "127.0.0.1" not in err.value.message and "::1" not in err.value.message
    assert "not public" in err.value.message


async def test_resolve_pins_the_checked_address():
    target = await resolve_endpoint("http://127.0.0.1:9/turn?x=1", allow_http=True, allow_private=True)
    assert target.url == "http://127.0.0.1:9/turn?x=1" and target.address == "127.0.0.1"
    with pytest.raises(EndpointRefused) as err:
        await resolve_endpoint("https://localhost/turn", allow_http=False, allow_private=False)
    assert err.value.code == "endpoint_not_allowed"
    with pytest.raises(EndpointRefused) as err:
        await resolve_endpoint("http://93.184.216.34/turn", allow_http=False, allow_private=False)
    assert err.value.code == "endpoint_not_allowed"
    for bad in ("ftp://example.com/", "https://user:pw@example.com/", "/relative", "https://"):
        with pytest.raises(EndpointRefused):
            await resolve_endpoint(bad, allow_http=True, allow_private=True)


async def test_registration_refuses_private_endpoints_unless_allowed(server):
    # `server` runs without HANAMICHI_ALLOW_PRIVATE_AGENTS / _HTTP_AGENTS.
    owner = await ApiClient.register(server.base_url, "careful author")
    for endpoint, code in [
        ("https://127.0.0.1:9443/turn", "endpoint_not_allowed"),
        ("https://10.0.0.7/turn", "endpoint_not_allowed"),
        ("https://169.254.169.254/latest/meta-data", "endpoint_not_allowed"),
        ("https://[::1]/turn", "endpoint_not_allowed"),
        ("https://[2002:7f00:1::1]/", "endpoint_not_allowed"),  # 6to4 around 127.0.0.1
        ("https://[64:ff9b::7f00:1]/", "endpoint_not_allowed"),  # NAT64 around 127.0.0.1
        ("https://93.184.216.34:0/turn", "bad_endpoint"),
        ("https://localhost/turn", "endpoint_not_allowed"),
        ("http://93.184.216.34/turn", "endpoint_not_allowed"),  # plain http
        ("gopher://example.com/", "bad_endpoint"),
    ]:
        r = await owner.post("/api/v1/agents", {"name": "a", "games": ["kabuki-tricks"], "endpoint": endpoint})
        assert r.status_code in (400, 422) and r.json()["code"] == code, (endpoint, r.text)
        assert "127.0.0.1" not in r.json()["message"] or "127.0.0.1" in endpoint, r.text
    r = await owner.post("/api/v1/agents", {"name": "a", "games": ["kabuki-tricks"]})
    assert r.status_code == 400 and r.json()["code"] == "bad_mode"
    r = await owner.post("/api/v1/agents", {"name": "a", "games": ["chess"], "mode": "pull"})
    assert r.status_code == 422


async def test_registration_accepts_a_local_endpoint_where_allowed(session_agent_api):
    # The API alone is enough to register: the session's, with AGENT_ENV (tests/conftest.py).
    owner = await ApiClient.register(session_agent_api.base_url, "local author")
    try:
        r = await owner.post(
            "/api/v1/agents", {"name": "a", "games": ["kabuki-tricks"], "endpoint": "http://127.0.0.1:18999/turn"}
        )
        assert r.status_code == 201, r.text
        assert r.json()["secret"].startswith("whsec_") and r.json()["token"].startswith("hm_")
    finally:
        await owner.close()


async def test_a_paused_agent_takes_no_new_seat_and_plays_only_declared_games(server):
    """With its own token a paused agent could once
    register for tournaments (even of a game it never declared) and take
    casual seats."""
    owner = await ApiClient.register(server.base_url, "agent owner")
    r = await owner.post("/api/v1/agents", {"name": "pullbot", "games": ["kabuki-tricks"], "mode": "pull"})
    assert r.status_code == 201, r.text
    agent_id, bot = r.json()["agent_id"], ApiClient(server.base_url, token=r.json()["token"])

    start_ms = int(time.time() * 1000) + 3_600_000  # never starts during the test
    tournaments = {}
    for game in ("kabuki-tricks", "cahoots"):
        r = await owner.post(
            "/api/v1/tournaments",
            {
                "game": game,
                "start_ms": start_ms,
                "table_size": 3,
                "format": "swiss",
                "rounds": 1,
                "bots": "fill",
            },
        )
        assert r.status_code == 201, r.text
        tournaments[game] = r.json()["tournament_id"]
    tables = {game: await owner.create_game(game, 3) for game in ("kabuki-tricks", "cahoots")}

    def refused(r, status, code):
        assert r.status_code == status and r.json()["code"] == code, r.text

    assert (await owner.post(f"/api/v1/agents/{agent_id}/pause")).json()["status"] == "paused"
    refused(await bot.post(f"/api/v1/tournaments/{tournaments['kabuki-tricks']}/registrations"), 409, "agent_paused")
    refused(await bot.post(f"/api/v1/games/{tables['kabuki-tricks']}/seats", {}), 409, "agent_paused")
    refused(
        await owner.post(f"/api/v1/agents/{agent_id}/sparring", {"game": "kabuki-tricks", "games": 1}),
        409,
        "agent_paused",
    )
    refused(
        await owner.post(f"/api/v1/agents/{agent_id}/tournaments/{tournaments['kabuki-tricks']}"), 409, "agent_paused"
    )
    # Nothing was taken while paused.
    info = (await owner.get(f"/api/v1/tournaments/{tournaments['kabuki-tricks']}")).json()
    assert info["registered"] == []
    assert not any(s["taken"] for s in (await owner.game(tables["kabuki-tricks"]))["seats"])

    assert (await owner.post(f"/api/v1/agents/{agent_id}/resume")).json()["status"] == "active"
    refused(await bot.post(f"/api/v1/tournaments/{tournaments['cahoots']}/registrations"), 422, "game_not_declared")
    refused(await bot.post(f"/api/v1/games/{tables['cahoots']}/seats", {}), 422, "game_not_declared")
    refused(
        await owner.post(f"/api/v1/agents/{agent_id}/tournaments/{tournaments['cahoots']}"), 422, "game_not_declared"
    )
    assert (await owner.get(f"/api/v1/tournaments/{tournaments['cahoots']}")).json()["registered"] == []
    # Active, in a declared game: both work.
    r = await bot.post(f"/api/v1/tournaments/{tournaments['kabuki-tricks']}/registrations")
    assert r.status_code == 200 and [e["id"] for e in r.json()["registered"]] == [agent_id], r.text
    r = await bot.post(f"/api/v1/games/{tables['kabuki-tricks']}/seats", {})
    assert r.status_code == 200 and r.json()["your_seat"] == 0, r.text
