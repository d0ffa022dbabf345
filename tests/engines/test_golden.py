"""Every registered game replays its golden playthrough exactly: the same
events, the same views for every viewer, the same result. A diff here means a
rules or view change: if intended, regenerate with `hanamichi golden --write`."""

import msgspec
import pytest

from engines.golden import decode, golden_path, playthrough
from engines.registry import all_games


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_golden_playthrough_is_unchanged(game):
    path = golden_path(game)
    assert path.exists(), f"no golden file for {game.name}: run `hanamichi golden --write`"
    expected = decode(path.read_bytes())
    actual = msgspec.json.decode(msgspec.json.encode(playthrough(game)))
    assert actual["result"] == expected["result"]
    assert len(actual["steps"]) == len(expected["steps"])
    for number, (got, want) in enumerate(zip(actual["steps"], expected["steps"], strict=True)):
        assert got == want, f"{game.name}: step {number} differs"
