"""An agent's owner re-issues its token and rotates its signing secret, and
the secret is kept encrypted (docs/agents.md, "Rotating the secret").

Against a real API server and worker that call a recording push endpoint on
this machine: during the grace period a call verifies with the old secret
and with the new one; after it only with the new one."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import asyncpg
import pytest

from services.app.agents.secrets import SecretBox, seal_plaintext_secrets, secret_key
from services.infra.pg_agents import PgAgents
from services.kit.signing import verify_request
from tests.conftest import ServerProcess, WorkerProcess, free_test_port
from tests.service.agent_harness import AGENT_ENV, register_agent, wait_for
from tests.service.client import ApiClient

GRACE_S = 6


class Recorder:
    """A push endpoint that keeps every request (headers and body) and
    answers a random legal action, checking nothing itself."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, str], bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.calls.append((dict(self.headers.items()), body))
                data = json.dumps({"action": random.choice(json.loads(body)["legal_actions"])}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.port = free_test_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/turn"

    def stop(self) -> None:
        self.server.shutdown()


@pytest.fixture(scope="module")
def stack(server_env, tmp_path_factory):
    env = {**server_env, **AGENT_ENV, "HANAMICHI_AGENT_SECRET_GRACE_S": str(GRACE_S)}
    server = ServerProcess(free_test_port(), env)
    worker = WorkerProcess(env, tmp_path_factory.mktemp("secrets") / "worker.log")
    server.start()
    worker.start()
    yield server
    worker.stop()
    server.stop()


def _verifies(secret: str, call: tuple[dict[str, str], bytes]) -> bool:
    headers, body = call
    lowered = {k.lower(): v for k, v in headers.items()}
    named = {
        name: lowered.get(name.lower(), "") for name in ("X-Hanamichi-Signature", "X-Hanamichi-Signature-Previous")
    }
    return verify_request(secret, lowered.get("x-hanamichi-timestamp", ""), body, named)


def _sent_ms(call: tuple[dict[str, str], bytes]) -> int:
    return int({k.lower(): v for k, v in call[0].items()}["x-hanamichi-timestamp"]) * 1000


async def _calls_of_a_sparring_game(owner: ApiClient, agent_id: str, recorder: Recorder, sent=lambda ms: True):
    """The calls of a new one-game sparring series sent at a time `sent` accepts."""
    before = len(recorder.calls)
    r = await owner.post(f"/api/v1/agents/{agent_id}/sparring", {"game": "kabuki-tricks", "games": 1})
    assert r.status_code == 201, r.text

    async def called():
        return [c for c in recorder.calls[before:] if sent(_sent_ms(c))]

    return await wait_for(called, 30)


async def test_reissued_token_replaces_the_old_one(stack):
    owner = await ApiClient.register(stack.base_url, "token-owner")
    other = await ApiClient.register(stack.base_url, "token-stranger")
    created = await register_agent(owner, "reissued", ["kabuki-tricks"], mode="pull")
    old = ApiClient(stack.base_url, created["token"])
    assert (await old.get("/api/v1/agents/me")).status_code == 200

    assert (await other.post(f"/api/v1/agents/{created['agent_id']}/token")).status_code == 404
    r = await owner.post(f"/api/v1/agents/{created['agent_id']}/token")
    assert r.status_code == 200, r.text
    new = ApiClient(stack.base_url, r.json()["token"])
    assert r.json()["token"] != created["token"]
    assert (await new.get("/api/v1/agents/me")).json()["agent_id"] == created["agent_id"]
    refused = await old.get("/api/v1/agents/me")
    assert refused.status_code == 401 and refused.json()["code"] == "bad_token"


async def test_rotated_secret_both_sign_during_the_grace_then_only_the_new(stack):
    recorder = Recorder()
    owner = await ApiClient.register(stack.base_url, "secret-owner")
    try:
        created = await register_agent(owner, "rotating", ["kabuki-tricks"], endpoint=recorder.url)
        agent_id, old_secret = created["agent_id"], created["secret"]

        first = await _calls_of_a_sparring_game(owner, agent_id, recorder)
        assert all(_verifies(old_secret, c) for c in first)

        pull = await register_agent(owner, "no-secret", ["kabuki-tricks"], mode="pull")
        r = await owner.post(f"/api/v1/agents/{pull['agent_id']}/secret")
        assert r.status_code == 409 and r.json()["code"] == "not_a_push_agent"

        r = await owner.post(f"/api/v1/agents/{agent_id}/secret")
        assert r.status_code == 200, r.text
        new_secret, until_ms = r.json()["secret"], r.json()["previous_valid_until_ms"]
        assert new_secret != old_secret and new_secret.startswith("whsec_")
        assert 0 < until_ms / 1000 - time.time() <= GRACE_S + 1
        assert "secret" not in (await owner.get(f"/api/v1/agents/{agent_id}")).json()

        during = await _calls_of_a_sparring_game(owner, agent_id, recorder, lambda ms: ms < until_ms - 1000)
        assert all(_verifies(new_secret, c) and _verifies(old_secret, c) for c in during)

        # The grace period ends at the time the rotation answered.
        await asyncio.sleep(max(0.0, until_ms / 1000 - time.time()) + 1.0)
        after = await _calls_of_a_sparring_game(owner, agent_id, recorder, lambda ms: ms > until_ms + 1000)
        assert all(_verifies(new_secret, c) for c in after)
        assert not any(_verifies(old_secret, c) for c in after)
    finally:
        recorder.stop()
        await owner.close()


async def test_secrets_are_stored_sealed_and_plaintext_rows_get_sealed(stack, database_url):
    owner = await ApiClient.register(stack.base_url, "sealed-owner")
    recorder = Recorder()
    try:
        created = await register_agent(owner, "sealed", ["kabuki-tricks"], endpoint=recorder.url)
    finally:
        recorder.stop()
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
    try:
        row = await pool.fetchrow("SELECT * FROM agents WHERE agent_id = $1::text::uuid", created["agent_id"])
        assert row["secret"] is None and created["secret"] not in row["sealed_secret"]
        box = SecretBox(await secret_key(PgAgents(pool), None))
        assert box.open(row["sealed_secret"]) == created["secret"]

        # A row as stored before secrets were sealed (plaintext column only).
        legacy = str(uuid.uuid4())
        await pool.execute(
            "INSERT INTO players (player_id, name, kind, token_hash) VALUES ($1::text::uuid, $2, 'agent', $3)",
            legacy,
            f"legacy-{legacy[:8]}",
            uuid.uuid4().bytes,
        )
        await pool.execute(
            "INSERT INTO agents (agent_id, owner_id, name, games, mode, endpoint, secret)"
            " VALUES ($1::text::uuid, $2::text::uuid, $3, $4, 'push', 'http://127.0.0.1:9/turn', 'whsec_legacy')",
            legacy,
            owner.player_id,
            f"legacy-{legacy[:8]}",
            ["kabuki-tricks"],
        )
        await seal_plaintext_secrets(PgAgents(pool), box)
        row = await pool.fetchrow("SELECT * FROM agents WHERE agent_id = $1::text::uuid", legacy)
        assert row["secret"] is None and box.open(row["sealed_secret"]) == "whsec_legacy"
    finally:
        await pool.close()
        await owner.close()
