"""`hanamichi verify GAME.ndjson [--receipts FILE]` prints the chain's result
beside the three checks: `absent` for a game stored before the log was
chained (exit 0 when the rest passes), `receipts: FAILED` when the log was
re-linked after a player's receipts."""

from __future__ import annotations

import json

from services.cli import main
from tests.engines.test_chain import chained, export, masks_lines, moved_placement


def test_an_old_game_says_the_chain_is_absent_and_passes(tmp_path, capsys) -> None:
    path = tmp_path / "old.ndjson"
    path.write_bytes(export(masks_lines()))
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["commitment: ok", "deals: ok", "replay: ok"]
    assert "chain: absent (this game was stored before the log was chained)" in out


def test_receipts_catch_a_log_relinked_with_the_key(tmp_path, capsys) -> None:
    honest = chained(masks_lines())
    receipts = tmp_path / "receipts.json"
    receipts.write_text(json.dumps([{"version": line["version"], "chain_head": line["hash"]} for line in honest]))
    good, forged = tmp_path / "good.ndjson", tmp_path / "forged.ndjson"
    good.write_bytes(export(honest))
    bare = [{k: v for k, v in line.items() if k in ("version", "type", "event")} for line in honest]
    forged.write_bytes(export(chained(moved_placement(bare)[0])))
    assert main(["verify", str(good), "--receipts", str(receipts)]) == 0
    assert {"chain: ok", "receipts: ok"} <= set(capsys.readouterr().out.splitlines())
    assert main(["verify", str(forged), "--receipts", str(receipts)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "chain: ok" in out and "receipts: FAILED" in out
