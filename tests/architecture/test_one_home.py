"""One home for each service rule (issue 13): the strike limit and the
default time per move are stated in services/app/games/policy.py and read
from there by every place that applies them."""

from __future__ import annotations

import inspect
from pathlib import Path

from services.app.agents.registry import AgentSettings
from services.app.games import policy
from services.app.games.service import GameService

ROOT = Path(__file__).resolve().parents[2]


def test_strike_limit_defaults_come_from_the_policy(monkeypatch):
    monkeypatch.delenv("HANAMICHI_AGENT_STRIKES", raising=False)
    assert AgentSettings().strike_limit == policy.STRIKE_LIMIT
    assert AgentSettings.from_env().strike_limit == policy.STRIKE_LIMIT
    default = inspect.signature(GameService.play_for_seat).parameters["strike_limit"].default
    assert default == policy.STRIKE_LIMIT


def test_no_other_module_states_the_rules_as_literals():
    offenders = []
    for path in (ROOT / "services").rglob("*.py"):
        if path.name == "policy.py" or "tools" in path.parts:
            continue
        text = path.read_text()
        if '"move_ms", 30_000' in text or "strike_limit: int = 3" in text or "STRIKE_LIMIT = 3" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    assert policy.move_ms({"move_ms": 1500}) == 1500 and policy.move_ms({}) == policy.DEFAULT_MOVE_MS
