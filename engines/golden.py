"""Golden playthroughs: one fixed-seed game per registered game, recorded step
by step (the events of each step, then every viewer's view) so that any change
in rules, redaction or view shape shows up as a diff of a reviewed file.

Regenerate with `hanamichi golden --write` after an intended change, and
review the diff before committing it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from engines.core import Game
from engines.playout import Playout

GOLDEN_SEED = 7
GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden"


def golden_players(game: Game) -> int:
    return max(game.min_players, min(4, game.max_players))


def playthrough(game: Game) -> dict[str, Any]:
    players = golden_players(game)
    steps: list[dict[str, Any]] = []

    def record(before, seat, action, events, state) -> None:
        steps.append(
            {
                "seat": seat,
                "action": msgspec.to_builtins(action),
                "events": msgspec.to_builtins(events),
                # The spectator's view and seat 0's (the heuristic bot's);
                # every seat's redaction is checked by the conformance suite.
                "views": {
                    "public": msgspec.to_builtins(game.view(state, None)),
                    "seat0": msgspec.to_builtins(game.view(state, 0)),
                },
            }
        )

    bots = ["heuristic"] + ["random"] * (players - 1)
    playout = Playout(game, players, game.make_options({}), GOLDEN_SEED, bots, hook=record)
    playout.run()
    return {
        "game": game.name,
        "players": players,
        "seed": GOLDEN_SEED,
        "bots": bots,
        "result": msgspec.to_builtins(game.result(playout.state)),
        "steps": steps,
    }


def golden_path(game: Game) -> Path:
    return GOLDEN_DIR / f"{game.name}.json"


def encode(document: dict[str, Any]) -> bytes:
    # One step per line keeps diffs of the golden files readable.
    head = {k: v for k, v in document.items() if k != "steps"}
    lines = [msgspec.json.encode(step) for step in document["steps"]]
    return msgspec.json.encode(head) + b"\n" + b"\n".join(lines) + b"\n"


def decode(data: bytes) -> dict[str, Any]:
    head, *lines = data.splitlines()
    document = msgspec.json.decode(head)
    document["steps"] = [msgspec.json.decode(line) for line in lines if line]
    return document
