"""One table maps an engine's refusal to its HTTP status
(services/app/errors.py), and games and tournaments both go through it."""

from __future__ import annotations

from pathlib import Path

from engines.core import RuleError
from services.app.errors import refused

ROOT = Path(__file__).resolve().parents[2]


def test_one_table_maps_an_engine_refusal_to_its_status():
    assert refused(RuleError("not_your_turn", "wait")).status == 409
    assert refused(RuleError("already_registered", "twice")).status == 409
    late = refused(RuleError("too_late", "gone"), version=7)
    assert (late.status, late.code, late.extra) == (409, "too_late", {"version": 7})
    assert refused(RuleError("must_follow_suit", "follow")).status == 422
    # Games and tournaments both go through it: no second mapping of codes.
    for path in (ROOT / "services" / "app").rglob("*.py"):
        if path.name != "errors.py":
            assert '"already_registered")' not in path.read_text() and "_TURN_CODES" not in path.read_text(), path
