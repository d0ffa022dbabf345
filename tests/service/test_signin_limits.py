"""The sign-in limits (services/app/signin.py) against real servers: per
name over both API processes, without locking the owner out; per client
address over many names; never unlimited while Redis is down."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import ServerProcess, free_test_port
from tests.service.tcpgate import TcpGate
from tests.service.test_outage_responses import _gate_target, _redis_through, _unavailable
from tests.service.two_processes import PROCESS_HEADER, TwoApiProcesses

NAME_LIMIT = 10  # the defaults of HANAMICHI_SIGNIN_NAME_LIMIT and _ADDRESS_LIMIT
ADDRESS_LIMIT = 30
PASSWORD = "correct horse"


def _name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def _address() -> str:
    """A client address of its own for each test (sent as X-Forwarded-For
    through the trusted proxy 127.0.0.1)."""
    return f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250 + 1}"


@pytest.fixture(scope="module")
def behind_proxy(server_env) -> Iterator[TwoApiProcesses]:
    """`serve --processes 2` that trusts X-Forwarded-For from 127.0.0.1, so
    each test can be a client address of its own."""
    serve = TwoApiProcesses(dict(server_env, HANAMICHI_TRUSTED_PROXIES="127.0.0.1"))
    try:
        serve.wait_serving()
        yield serve
    finally:
        serve.stop()


def _sign_in(http: httpx.Client, name: str, password: str, address: str) -> httpx.Response:
    return http.post("/api/v1/session", json={"name": name, "password": password}, headers={"X-Forwarded-For": address})


def test_wrong_guesses_from_elsewhere_never_keep_the_owner_out(behind_proxy):
    serve = behind_proxy
    name = _name("owner")
    with serve.fresh_client() as http:
        assert http.post("/api/v1/players", json={"name": name, "password": PASSWORD}).status_code == 201
        # Wrong guesses from many addresses (none reaches its own limit), in
        # every spelling of the name, on whichever process takes each.
        spellings = [name, name.upper(), "".join(chr(ord(c) + 0xFEE0) if c.isalpha() else c for c in name)]
        answers, processes = [], set()
        for i in range(NAME_LIMIT + 3):
            r = _sign_in(http, spellings[i % 3], f"guess {i}", _address())
            answers.append(r.status_code)
            processes.add(r.headers[PROCESS_HEADER])
        assert len(processes) == 2, "both API processes must have answered"
        assert answers == [401] * NAME_LIMIT + [429] * 3, answers  # one counter over both processes
        slowed = _sign_in(http, name, "one more guess", _address())
        assert slowed.status_code == 429 and slowed.json()["code"] == "rate_limited"
        assert int(slowed.headers["retry-after"]) >= 1
        # The owner, with the right password, signs in all the same (after a delay).
        for _ in range(4):  # on either process
            r = _sign_in(http, name, PASSWORD, _address())
            assert r.status_code == 200 and r.json()["name"] == name, r.text


def test_one_address_guessing_over_many_names_is_stopped(behind_proxy):
    serve = behind_proxy
    attacker, owner_address = _address(), _address()
    name = _name("target")
    with serve.fresh_client() as http:
        assert http.post("/api/v1/players", json={"name": name, "password": PASSWORD}).status_code == 201
        answers = [
            _sign_in(http, name if i < NAME_LIMIT // 2 else _name("n"), f"guess {i}", attacker).status_code
            for i in range(ADDRESS_LIMIT + 5)
        ]
        assert answers[:ADDRESS_LIMIT].count(429) == 0 and answers[ADDRESS_LIMIT:] == [429] * 5, answers
        r = _sign_in(http, _name("n"), "guess", attacker)
        assert r.status_code == 429 and "address" in r.json()["message"], r.text
        # Everyone else is unaffected; successful sign-ins use no budget.
        for _ in range(ADDRESS_LIMIT + 2):
            assert _sign_in(http, name, PASSWORD, owner_address).status_code == 200


@pytest.fixture
async def redis_gated(server_env, redis_url):
    gate = TcpGate(_gate_target(redis_url, 6379), free_test_port()).start()
    server = ServerProcess(free_test_port(), dict(server_env, REDIS_URL=_redis_through(redis_url, gate.port)))
    await asyncio.to_thread(server.start)
    try:
        yield server, gate
    finally:
        gate.open()
        await asyncio.to_thread(server.stop)
        gate.stop()


@pytest.mark.asyncio(loop_scope="session")
async def test_redis_down_refuses_sign_in_with_503_never_unlimited(redis_gated):
    server, gate = redis_gated
    name = _name("outage")
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        r = await http.post("/api/v1/players", json={"name": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        gate.close()
        for password in ["guess"] * (NAME_LIMIT + 5) + [PASSWORD]:
            r = await http.post("/api/v1/session", json={"name": name, "password": password})
            _unavailable(r, "sign-in with Redis down")
        gate.open()
        deadline = time.monotonic() + 20
        while True:  # the connection pool reconnects to Redis
            r = await http.post("/api/v1/session", json={"name": name, "password": PASSWORD})
            if r.status_code == 200 or time.monotonic() > deadline:
                break
            assert r.status_code == 503, r.text
            await asyncio.sleep(0.1)
        assert r.status_code == 200, r.text
