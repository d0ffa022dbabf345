"""The bot authors' kit: write one function, `act(request) -> action`,
and run it.

- `request` is exactly the JSON the service sends at a turn: `game, game_id,
  seat, version, view, legal_actions, deadline_ms, time_bank_ms` (docs/agents.md).
- The answer is one of `request["legal_actions"]`.

`hanamichi agent run MODULE:FUNCTION --push ...` / `--pull ...` plugs it into
a server (services/kit/push.py, pull.py); `hanamichi arena MODULE:FUNCTION ...`
plays it locally against the house bots on the real engines (arena.py).

The kit imports nothing of the server (no database or Redis client, no web
framework): the runners use the standard library only and the arena the pure
engines (msgspec). tests/service/test_kit.py holds that true.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Act = Callable[[dict], Any]


def load_function(spec: str) -> Act:
    """`MODULE:FUNCTION` (a module path or a .py file) to the function."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:FUNCTION, got {spec!r}")
    if module_name.endswith(".py"):
        path = Path(module_name).resolve()
        sys.path.insert(0, str(path.parent))
        module_name = path.stem
    elif "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # as `python -m` would: the author's folder
    module = importlib.import_module(module_name)
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"{module_name} has no function {attr!r}")
    return fn
