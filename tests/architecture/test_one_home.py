"""One home for each service rule: the strike limit and the
default time per move are stated in services/app/games/policy.py and read
from there by every place that applies them."""

from __future__ import annotations

import inspect
from pathlib import Path

from services.app.agents.settings import AgentSettings
from services.app.games import policy
from services.app.games.service import GameService
from services.config import agent_settings

ROOT = Path(__file__).resolve().parents[2]


def test_strike_limit_defaults_come_from_the_policy(monkeypatch):
    monkeypatch.delenv("HANAMICHI_AGENT_STRIKES", raising=False)
    assert AgentSettings().strike_limit == policy.STRIKE_LIMIT
    assert agent_settings({}).strike_limit == policy.STRIKE_LIMIT
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


def test_one_table_maps_an_engine_refusal_to_its_status():
    from engines.core import RuleError
    from services.app.errors import refused

    assert refused(RuleError("not_your_turn", "wait")).status == 409
    assert refused(RuleError("already_registered", "twice")).status == 409
    late = refused(RuleError("too_late", "gone"), version=7)
    assert (late.status, late.code, late.extra) == (409, "too_late", {"version": 7})
    assert refused(RuleError("must_follow_suit", "follow")).status == 422
    # Games and tournaments both go through it: no second mapping of codes.
    for path in (ROOT / "services" / "app").rglob("*.py"):
        if path.name != "errors.py":
            assert '"already_registered")' not in path.read_text() and "_TURN_CODES" not in path.read_text(), path
