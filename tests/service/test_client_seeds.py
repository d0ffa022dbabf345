"""Deals nobody alone can choose, through a real API process: the server's
commitment is public from the table's creation, each seated player may add
a client seed until the deal (with the seat, or on its own), the deal's
seed is derived from both (engines.core.deal_seed), the log records the
client seeds, and `verify` re-derives the deal from them."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys

import pytest

from engines.core import commitment, deal_seed
from tests.conftest import ROOT
from tests.service.client import ApiClient, play_randomly
from tests.service.test_provably_fair import wait_finished

pytestmark = pytest.mark.asyncio(loop_scope="session")

HEX64 = re.compile(r"[0-9a-f]{64}")


async def events_of(client: ApiClient, game_id: str) -> list[dict]:
    return (await client.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]


async def test_client_seeds_go_into_the_deal_and_verify_rederives_it(server, tmp_path):
    alice = await ApiClient.register(server.base_url, "seeder")
    bob = await ApiClient.register(server.base_url, "seeder2")
    stranger = await ApiClient.register(server.base_url, "stranger")
    game_id = await alice.create_game("kabuki-tricks", 3)
    published = (await stranger.game(game_id))["commitment"]
    assert HEX64.fullmatch(published), "the server's commitment is public before any seat is taken"

    seed_path = f"/api/v1/games/{game_id}/client-seed"
    r = await stranger.post(seed_path, {"client_seed": "not mine"})
    assert r.status_code == 403 and r.json()["code"] == "not_seated", r.text

    await alice.sit(game_id, 0)
    r = await alice.post(seed_path, {"client_seed": "x" * 65})
    assert r.status_code == 400, r.text
    r = await alice.post(seed_path, {"client_seed": "caf\u00e9"})
    assert r.status_code == 400, r.text
    r = await alice.post(seed_path, {"client_seed": "alice: 42"})
    assert r.status_code == 200, r.text
    assert r.json() == {"game_id": game_id, "seat": 0, "client_seed": "alice: 42", "commitment": published}
    again = await alice.post(seed_path, {"client_seed": "alice: 42"})  # a retry changes nothing
    assert again.status_code == 200 and again.json() == r.json(), again.text
    other = await alice.post(seed_path, {"client_seed": "a second thought"})
    assert other.status_code == 409 and other.json()["code"] == "client_seed_sent", other.text

    # Bob's seed comes with his seat; a house bot's seat sends none.
    r = await bob.post(f"/api/v1/games/{game_id}/seats", {"seat": 2, "client_seed": "bob"})
    assert r.status_code == 200, r.text
    assert (await alice.game(game_id))["version"] == 0
    r = await alice.post(f"/api/v1/games/{game_id}/bots", {"seat": 1, "bot": "random"})
    assert r.status_code == 200, r.text

    late = await bob.post(seed_path, {"client_seed": "too late"})
    assert late.status_code == 409 and late.json()["code"] == "already_dealt", late.text

    events = await events_of(stranger, game_id)
    started = events[0]["event"]
    assert started["type"] == "kt.started"
    seeded = [e["event"] for e in events if e["event"]["type"] == "hm.deal_seeded"]
    assert seeded == [{"type": "hm.deal_seeded", "commitment": published, "client_seeds": ["alice: 42", "", "bob"]}]
    assert started.get("seed") is None and started.get("salt") is None

    await asyncio.wait_for(
        asyncio.gather(
            play_randomly(alice, game_id, random.Random(1)),
            play_randomly(bob, game_id, random.Random(2)),
        ),
        120,
    )
    await wait_finished(alice, game_id)
    events = await events_of(stranger, game_id)
    ended = next(e["event"] for e in events if e["event"]["type"] == "kt.game_ended")
    finished = next(e["event"] for e in events if e["event"]["type"] == "hm.game_finished")
    server_seed = finished["server_seed"]
    assert commitment(server_seed, ended["salt"]) == published
    assert ended["seed"] == deal_seed(server_seed, ["alice: 42", "", "bob"])
    assert ended["seed"] != server_seed
    r = await stranger.get(f"/api/v1/games/{game_id}/verify")
    assert r.status_code == 200 and r.json()["commitment_ok"] and r.json()["deals_ok"], r.text

    # A log that says another client seed was sent does not verify.
    export = (await stranger.get(f"/api/v1/games/{game_id}/export")).text
    lines = [json.loads(line) for line in export.splitlines()]
    for line in lines:
        if line["type"] == "hm.deal_seeded":
            line["event"]["client_seeds"][2] = "someone else"
    forged = tmp_path / "forged.ndjson"
    forged.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = subprocess.run(
        [sys.executable, "-m", "services.cli", "verify", str(forged)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "commitment: FAILED" in done.stdout and "client seeds" in done.stdout, done.stdout
    for client in (alice, bob, stranger):
        await client.close()


async def test_a_seat_that_leaves_before_the_deal_takes_its_client_seed_with_it(server):
    host = await ApiClient.register(server.base_url, "host")
    guest = await ApiClient.register(server.base_url, "guest")
    game_id = await host.create_game("cahoots", 3)
    await host.sit(game_id, 0)
    r = await guest.post(f"/api/v1/games/{game_id}/seats", {"seat": 1, "client_seed": "guest"})
    assert r.status_code == 200, r.text
    r = await guest.post(f"/api/v1/games/{game_id}/leave")
    assert r.status_code == 200, r.text
    for seat in (1, 2):
        r = await host.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
        assert r.status_code == 200, r.text
    seeded = [e["event"] for e in await events_of(host, game_id) if e["event"]["type"] == "hm.deal_seeded"]
    assert [s["client_seeds"] for s in seeded] == [["", "", ""]]
    for client in (host, guest):
        await client.close()
