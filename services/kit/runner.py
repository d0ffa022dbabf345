"""Calling the author's function at a turn, for both runners (push, pull).

The function runs in a thread of its own, so that the runner can answer on
time whatever it does: when it raises, answers something that is not one of
`legal_actions`, or is still thinking at the deadline, the runner answers the
default move (as the service would: a random legal action) and reports what
happened to the author with the request that caused it. Nothing the function
does stops the runner.

An optional call (`"optional": true`, docs/agents.md "Optional calls": a
Kabuki masks Stop chance while the table waits for someone else) is the same
request marked optional: the function may return None to let it pass, and
whatever goes wrong (an exception, an illegal or late answer) passes too.
Nothing is due there, so a random default would only give tokens away (KM-4)."""

from __future__ import annotations

import json
import random
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

# Keep this much of the move's own time (deadline_ms) for the answer to
# travel back: at least MIN_MARGIN_MS, else a tenth of it.
MIN_MARGIN_MS = 30
MAX_MARGIN_MS = 500


def budget_ms(request: dict) -> float:
    """How long the function may think: the move's own time less a margin.
    The bank (time_bank_ms) is left for the author to spend explicitly."""
    deadline = float(request.get("deadline_ms") or 5000)
    margin = min(MAX_MARGIN_MS, max(MIN_MARGIN_MS, deadline / 10))
    return max(1.0, deadline - margin)


def default_move(request: dict) -> Any:
    """A uniformly random legal action, drawn from the game id and version
    (the service's default move is random too, docs/agents.md "Strikes")."""
    legal = request.get("legal_actions") or []
    if not legal:
        return None
    return random.Random(f"{request.get('game_id')}:{request.get('version')}").choice(legal)


def is_legal(answer: Any, request: dict) -> bool:
    return answer in (request.get("legal_actions") or [])


@dataclass
class Report:
    kind: str  # "exception", "illegal", "late"
    message: str
    request: dict


@dataclass
class Runner:
    fn: Callable[[dict], Any]
    out: TextIO = field(default_factory=lambda: sys.stderr)
    reports: list[Report] = field(default_factory=list)
    keep_reports: int = 100

    def decide(self, request: dict) -> Any:
        """The function's answer when legal and on time; otherwise the default move (and a report).
        For an optional call the default is None: the chance passes."""
        optional = bool(request.get("optional"))
        fallback = "let the chance pass" if optional else "answered the default move"
        box: dict[str, Any] = {}
        done = threading.Event()

        def run() -> None:
            try:
                box["answer"] = self.fn(request)
            except BaseException as exc:  # the author's code: anything may come out
                box["error"] = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            finally:
                done.set()

        limit = budget_ms(request)
        # A daemon thread: a function that never returns cannot keep the runner alive.
        threading.Thread(target=run, name="hanamichi-act", daemon=True).start()
        if not done.wait(limit / 1000):
            self.report(
                "late",
                f"no answer within {limit:.0f} ms (deadline_ms {request.get('deadline_ms')}); {fallback}",
                request,
            )
            return None if optional else default_move(request)
        if "error" in box:
            self.report("exception", box["error"].rstrip(), request)
            return None if optional else default_move(request)
        answer = box.get("answer")
        if answer is None and optional:
            return None  # the author lets the chance pass
        if not is_legal(answer, request):
            self.report(
                "illegal",
                f"answered {json.dumps(answer, default=repr, separators=(',', ':'))[:300]}, not one of legal_actions; "
                f"{fallback}",
                request,
            )
            return None if optional else default_move(request)
        return answer

    def report(self, kind: str, message: str, request: dict) -> None:
        """Tell the author what went wrong, with the request to reproduce it."""
        self.reports.append(Report(kind, message, request))
        del self.reports[: -self.keep_reports]
        try:
            self.out.write(
                f"hanamichi agent: {kind} at {request.get('game')} {request.get('game_id')} "
                f"version {request.get('version')} seat {request.get('seat')}:\n{message}\n"
                f"request: {json.dumps(request, separators=(',', ':'))}\n"
            )
            self.out.flush()
        except Exception:  # a closed stderr must not stop play either
            pass
