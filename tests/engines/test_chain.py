"""A log nobody can quietly rewrite: the keyed hash chain of an export
(engines/chain.py) and what `verify` makes of it with a player's receipts.
The motivating forgery: a Kabuki masks export with a placement moved to
another pile passes the deal and replay checks (the move is as legal on the
other pile); the chain catches it, and when the forger holds the key and
re-hashes the whole log, the player's receipts do."""

from __future__ import annotations

import hashlib
import json

import msgspec

from engines import chain
from engines.core import Chance
from engines.playout import Playout
from engines.registry import get_game
from engines.verify import verify_export

SALT = "5a" * 32
KEY = "c4" * 32


def _tag(event) -> str:
    return type(event).__struct_config__.tag


def masks_lines(seed: int = 4) -> list[dict]:
    """A finished Kabuki masks game's export lines, without the chain."""
    game = get_game("kabuki-masks")
    playout = Playout(
        game, 3, game.make_options({}), seed, ["heuristic", "random", "random"], chance=Chance(seed, salt=SALT)
    )
    playout.run()
    return [
        {"version": i, "type": _tag(e), "event": msgspec.to_builtins(e)} for i, e in enumerate(playout.log, start=1)
    ]


def chained(lines: list[dict], key: str = KEY) -> list[dict]:
    """The lines linked as the event store links them, the key on the last."""
    out, prev = [], chain.GENESIS
    for line in lines:
        digest = chain.link(key, prev, line["version"], line["type"], chain.canonical(line["type"], line["event"]))
        out.append({**line, "prev_hash": prev, "hash": digest})
        prev = digest
    out[-1]["chain_key"] = key
    return out


def export(lines: list[dict]) -> bytes:
    return b"".join(msgspec.json.encode(line) + b"\n" for line in lines)


def bare(lines: list[dict]) -> list[dict]:
    return [{k: v for k, v in line.items() if k in ("version", "type", "event")} for line in lines]


def moved_placement(lines: list[dict]) -> tuple[list[dict], int]:
    """A copy with a placement moved to another pile such that the deal and
    replay checks still pass (the forgery they cannot see), and its version."""
    piles = sorted({line["event"]["pile"] for line in lines if line["type"] == "km.placed"})
    for index, line in enumerate(lines):
        if line["type"] != "km.placed":
            continue
        for pile in piles:
            if pile == line["event"]["pile"]:
                continue
            copy = json.loads(json.dumps(lines))
            copy[index]["event"]["pile"] = pile
            if verify_export(export(bare(copy))).ok:
                return copy, line["version"]
    raise AssertionError("no placement to move unseen")


def receipts_of(lines: list[dict], every: int = 7) -> list[chain.Receipt]:
    return [chain.Receipt(line["version"], line["hash"]) for line in lines[::every]]


def test_the_link_is_the_documented_sha256() -> None:
    # The definition of docs/fairness.md, byte for byte.
    data = b'{"seat":1,"card":7}'
    expected = hashlib.sha256(f"{KEY}:{'0' * 64}:1:km.revealed:".encode() + b'{"card":7,"seat":1}').hexdigest()
    assert chain.extend(KEY, None, 1, [("km.revealed", data)]) == [expected]
    assert (
        chain.link(KEY, chain.GENESIS, 1, "km.revealed", chain.canonical("km.revealed", {"seat": 1, "card": 7}))
        == expected
    )


def test_a_chained_export_verifies_with_the_players_receipts() -> None:
    lines = chained(masks_lines())
    verdict = verify_export(export(lines), receipts_of(lines))
    assert verdict.ok and verdict.chain == "ok" and verdict.receipts_ok is True, verdict.problems


def test_a_placement_moved_to_another_pile_without_rehashing_breaks_the_chain() -> None:
    lines = chained(masks_lines())
    forged, _version = moved_placement(lines)
    assert verify_export(export(bare(forged))).ok  # what verify could not see before the chain
    verdict = verify_export(export(forged))
    assert verdict.chain == "failed" and not verdict.ok
    assert any("does not recompute" in p for p in verdict.problems)


def test_a_placement_moved_and_rehashed_with_the_key_is_caught_by_the_receipts() -> None:
    honest = chained(masks_lines())
    forged_plain, version = moved_placement(bare(honest))
    forged = chained(forged_plain)  # the operator, holding the key, re-links the whole log
    assert verify_export(export(forged)).chain == "ok"  # the chain alone cannot tell
    receipts = receipts_of(honest)
    verdict = verify_export(export(forged), receipts)
    assert verdict.receipts_ok is False and not verdict.ok
    assert any(
        f"receipt at version {r.version}:" in p for p in verdict.problems for r in receipts if r.version >= version
    )
    # Receipts from before the forged event still hold: everything up to them is as the player saw it.
    before = [r for r in receipts if r.version < version]
    assert before and verify_export(export(forged), before).receipts_ok is True


def test_an_export_without_the_chain_says_it_is_absent_and_passes_the_other_checks() -> None:
    verdict = verify_export(export(masks_lines()))
    assert verdict.chain == "absent" and verdict.receipts_ok is None
    assert verdict.ok, verdict.problems
    with_receipts = verify_export(export(masks_lines()), [chain.Receipt(3, "ab" * 32)])
    assert with_receipts.receipts_ok is False and not with_receipts.ok


def test_an_export_that_hides_its_key_does_not_pass_the_chain() -> None:
    lines = chained(masks_lines())
    del lines[-1]["chain_key"]
    verdict = verify_export(export(lines))
    assert verdict.chain == "failed" and not verdict.ok


def test_the_names_joined_at_read_time_are_not_hashed() -> None:
    # A person's seat of hm.game_finished is named as the player is called
    # now (services/app/upcast.py): a rename must not break the chain.
    stored = {"seats": [{"seat": 0, "kind": "human", "name": None}, {"seat": 1, "kind": "bot", "name": "random"}]}
    read = {"seats": [{"seat": 0, "kind": "human", "name": "Aiko"}, {"seat": 1, "kind": "bot", "name": "random"}]}
    assert chain.canonical("hm.game_finished", read) == chain.canonical("hm.game_finished", stored)
    renamed_bot = {"seats": [stored["seats"][0], {"seat": 1, "kind": "bot", "name": "expert"}]}
    assert chain.canonical("hm.game_finished", renamed_bot) != chain.canonical("hm.game_finished", stored)


def test_a_receipts_file_is_a_json_list_of_version_and_chain_head() -> None:
    data = b'[{"version": 3, "chain_head": "' + b"ab" * 32 + b'", "game_id": "g"}]'
    assert chain.read_receipts(data) == [chain.Receipt(3, "ab" * 32)]
