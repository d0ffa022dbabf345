"""No chosen seeds and provably fair deals, through
a real API process: requests cannot set a seed; the first event carries a
public commitment, the seed and salt stay hidden until the final event
reveals them; `GET .../verify` and `hanamichi verify` check a finished game
and catch a tampered export."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT
from tests.service.client import ApiClient, SseReader, play_randomly

pytestmark = pytest.mark.asyncio(loop_scope="session")

HEX64 = re.compile(r"[0-9a-f]{64}")


async def wait_finished(client: ApiClient, game_id: str, timeout_s: float = 60) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info = await client.game(game_id)
        if info["status"] == "finished":
            return info
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} did not finish in {timeout_s} s")


def run_verify(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "services.cli", "verify", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_requests_cannot_choose_a_seed(server):
    person = await ApiClient.register(server.base_url, "chooser")
    start_ms = int(time.time() * 1000) + 3_600_000
    body = {"game": "kabuki-tricks", "start_ms": start_ms, "table_size": 4, "rounds": 1}
    r = await person.post("/api/v1/tournaments", {**body, "seed": 12345})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "seed_not_accepted"
    r = await person.post("/api/v1/games", {"game": "cahoots", "players": 3, "seed": 12345})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "seed_not_accepted"
    r = await person.post("/api/v1/tournaments", body)  # without one, the server draws it
    assert r.status_code == 201, r.text
    assert "seed" not in r.json()["settings"]
    await person.close()


async def test_a_finished_game_verifies_and_a_tampered_export_does_not(server, tmp_path):
    person = await ApiClient.register(server.base_url, "fair")
    spectator = ApiClient(server.base_url)
    game_id = await person.create_game("kabuki-tricks", 3)
    watcher = SseReader(server.base_url, game_id).start()  # a spectator from before the deal
    await person.sit(game_id, 0)
    for seat in (1, 2):
        r = await person.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
        assert r.status_code == 200, r.text

    # In progress: the commitment is public, the seed and the salt are not.
    events = (await spectator.get(f"/api/v1/games/{game_id}/events", after=0)).json()["events"]
    started = events[0]["event"]
    assert started["type"] == "kt.started" and HEX64.fullmatch(started["commitment"])
    assert started.get("seed") is None and started.get("salt") is None
    r = await spectator.get(f"/api/v1/games/{game_id}/verify")
    assert r.status_code == 409 and r.json()["code"] == "game_in_progress", r.text

    await asyncio.wait_for(play_randomly(person, game_id, random.Random(5)), 120)
    await asyncio.wait_for(watcher.ended.wait(), 30)
    seen = watcher.game_events
    await watcher.stop()
    assert seen[0]["event"]["commitment"] == started["commitment"]
    assert seen[0]["event"].get("seed") is None and seen[0]["event"].get("salt") is None
    # Only the final event reveals them (the game's end makes the log public).
    revealing = [m["event"] for m in seen if m["event"].get("salt")]
    assert [e["type"] for e in revealing] == ["kt.game_ended"]
    ended = revealing[0]
    assert HEX64.fullmatch(ended["salt"])
    assert hashlib.sha256(f"{ended['seed']}:{ended['salt']}".encode()).hexdigest() == started["commitment"]

    r = await spectator.get(f"/api/v1/games/{game_id}/verify")
    assert r.status_code == 200, r.text
    assert r.json() == {
        "game_id": game_id,
        "commitment_ok": True,
        "deals_ok": True,
        "replay_ok": True,
        "problems": [],
        "chain": "ok",
    }

    export = (await spectator.get(f"/api/v1/games/{game_id}/export")).text
    good = tmp_path / "game.ndjson"
    good.write_text(export)
    done = run_verify(good)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[:3] == ["commitment: ok", "deals: ok", "replay: ok"]

    lines = [json.loads(line) for line in export.splitlines()]

    def tampered(name: str, change) -> subprocess.CompletedProcess:
        copy = json.loads(json.dumps(lines))
        change(copy)
        path = tmp_path / f"{name}.ndjson"
        path.write_text("".join(json.dumps(line) + "\n" for line in copy))
        return run_verify(path)

    def by_type(copy, tag):
        return [line["event"] for line in copy if line["type"] == tag]

    def swap_dealt_card(copy):  # a card moved between two hands of the last deal
        hands = by_type(copy, "kt.dealt")[-1]["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]

    def other_seed(copy):  # consistently in both copies, as a forger would
        for event in (copy[0]["event"], by_type(copy, "kt.game_ended")[0]):
            event["seed"] += 1

    def other_salt(copy):
        for event in (copy[0]["event"], by_type(copy, "kt.game_ended")[0]):
            event["salt"] = "0" * 64

    def other_play(copy):  # a played card replaced by another of the same hand's deck
        played = by_type(copy, "kt.played")[3]
        played["card"] = (played["card"] + 1) % 40

    expected = {
        "card": (swap_dealt_card, ["commitment: ok", "deals: FAILED", "replay: ok"]),
        "seed": (other_seed, ["commitment: FAILED", "deals: FAILED", "replay: ok"]),
        "salt": (other_salt, ["commitment: FAILED", "deals: ok", "replay: ok"]),
        "play": (other_play, ["commitment: ok", "deals: ok", "replay: FAILED"]),
    }
    for name, (change, outcome) in expected.items():
        done = tampered(name, change)
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        assert done.stdout.splitlines()[:3] == outcome, (name, done.stdout)
    await person.close()
    await spectator.close()


async def test_every_game_gets_its_own_random_salt(server):
    host = await ApiClient.register(server.base_url, "host")
    salts = []
    for _ in range(2):
        game_id = await host.create_game("cahoots", 3)
        for seat in range(3):
            r = await host.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
            assert r.status_code == 200, r.text
        await wait_finished(host, game_id)
        lines = [json.loads(line) for line in (await host.get(f"/api/v1/games/{game_id}/export")).text.splitlines()]
        ended = next(line["event"] for line in lines if line["type"] == "ch.game_ended")
        salts.append(ended["salt"])
        r = await host.get(f"/api/v1/games/{game_id}/verify")
        assert r.json()["commitment_ok"] and r.json()["deals_ok"] and r.json()["replay_ok"], r.text
    assert all(HEX64.fullmatch(s) for s in salts) and salts[0] != salts[1]
    await host.close()
