"""A log nobody can quietly rewrite, through a real API process: every
accepted action answers with `chain_head`, a seat's `turn` events carry the
head at their version and its `end` event the head of the whole log, the
history and the export show each event's `prev_hash` and `hash`, the export
of the finished game reveals the chain key (never shown while the game
runs), and the player's receipts check out with `hanamichi verify
--receipts` and `GET .../verify`."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.service.client import ApiClient, SseReader

pytestmark = pytest.mark.asyncio(loop_scope="session")

HEX64 = re.compile(r"[0-9a-f]{64}")


async def test_answers_and_turns_carry_the_chain_head_the_export_confirms(server, tmp_path):
    person = await ApiClient.register(server.base_url, "receipts")
    game_id = await person.create_game("kabuki-tricks", 3)
    await person.sit(game_id, 0)
    seat_stream = SseReader(server.base_url, game_id, token=person.token).start()
    for seat in (1, 2):
        r = await person.post(f"/api/v1/games/{game_id}/bots", {"seat": seat, "bot": "random"})
        assert r.status_code == 200, r.text

    answers: list[str] = []  # every answer of the game in progress, to look for the key in
    receipts: list[dict] = []
    rng = random.Random(3)
    while True:
        r = await person.get(f"/api/v1/games/{game_id}")
        info = r.json()
        if info["status"] == "finished":
            break
        answers.append(r.text)
        if not info["legal_actions"]:
            await asyncio.sleep(0.01)
            continue
        r = await person.act(game_id, rng.choice(info["legal_actions"]), expected_version=info["version"])
        if r.status_code == 200:
            answers.append(r.text)
            accepted = r.json()
            assert HEX64.fullmatch(accepted["chain_head"]), accepted
            receipts.append({"version": accepted["version"], "chain_head": accepted["chain_head"]})
        else:
            assert r.status_code == 409, r.text
        if len(answers) % 10 == 0:
            r = await person.get(f"/api/v1/games/{game_id}/events", after=0)
            answers.append(r.text)
            page = r.json()["events"]
            assert page[0]["prev_hash"] == "0" * 64
            assert all(HEX64.fullmatch(e["hash"]) for e in page)
    await asyncio.wait_for(seat_stream.ended.wait(), 30)
    await seat_stream.stop()
    turns = [m["data"] for m in seat_stream.messages if m.get("event") == "turn"]
    answers.extend(json.dumps(m["data"]) for m in seat_stream.messages)
    assert receipts and turns

    export = (await person.get(f"/api/v1/games/{game_id}/export")).text
    lines = [json.loads(line) for line in export.splitlines()]
    hashes = {line["version"]: line["hash"] for line in lines}
    key = lines[-1]["chain_key"]
    assert HEX64.fullmatch(key)
    assert all(key not in text for text in answers)  # hidden cards stay hidden while the game runs
    assert all(line["prev_hash"] == hashes.get(line["version"] - 1, "0" * 64) for line in lines)
    for receipt in receipts:
        assert hashes[receipt["version"]] == receipt["chain_head"], receipt
    for turn in turns:
        assert hashes[turn["version"]] == turn["chain_head"], turn
    ended = next(m["data"] for m in seat_stream.messages if m.get("event") == "end")
    assert ended["chain_head"] == hashes[len(lines)]  # the seat's last receipt: the whole log

    r = await person.get(f"/api/v1/games/{game_id}/verify")
    assert r.status_code == 200 and r.json()["chain"] == "ok", r.text
    good, kept = tmp_path / "game.ndjson", tmp_path / "receipts.json"
    good.write_text(export)
    kept.write_text(json.dumps(receipts))
    done = _verify(good, kept)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "chain: ok" in done.stdout and "receipts: ok" in done.stdout

    # The operator re-links a rewritten log with the key: the receipts from then on disagree.
    forged = tmp_path / "forged.ndjson"
    changed = json.loads(json.dumps(lines))
    last_receipt = receipts[-1]["version"]
    changed[last_receipt - 1]["hash"] = "0" * 64
    forged.write_text("".join(json.dumps(line) + "\n" for line in changed))
    done = _verify(forged, kept)
    assert done.returncode == 1 and "receipts: FAILED" in done.stdout, done.stdout
    await person.close()


def _verify(export, receipts) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "services.cli", "verify", str(export), "--receipts", str(receipts)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
