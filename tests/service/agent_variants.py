"""Misbehaving variants of examples/agent.py for the agent tests, each a
real process: `python tests/service/agent_variants.py KIND --port P --secret S`.

  good     the example agent itself
  slow     sleeps --delay-ms before every answer (misses deadlines)
  crash    answers --after calls, then dies in the middle of the next one
  garbage  per game, call by call: garbage, a good move, an illegal move,
           garbage, an illegal move, ... (invalid_response / illegal_action)
  illegal  answers an illegal move to every call
  always500    answers HTTP 500 (with a JSON error body) to every call
  alternate500 per game, every other call HTTP 500, the others a good move
  highest      a working bot that plays its highest card (Kabuki Tricks), else random
(always500, alternate500 and highest are the "failing pays" experiment's,
measure_failing_pays.py.)
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.service.raw_agent import choose, serve  # noqa: E402

GARBAGE_PATTERN = ("garbage", "good", "illegal", "garbage", "illegal")


class Http500(bytes):
    """An answer body sent with status 500 instead of 200."""


ERROR_500 = Http500(b'{"error": "internal server error", "where": "agent_variants"}')


def serve_with_errors(port: int, secret: str, decide) -> None:
    """`serve`, where an Http500 answer goes out as HTTP 500."""
    from http.server import ThreadingHTTPServer

    base = sys.modules[serve.__module__].make_handler(secret, decide)

    # A class made at run time (make_handler binds the secret and the decider): no static type.
    class Handler(base):  # type: ignore[valid-type,misc]
        def _send(self, status: int, data: bytes) -> None:
            super()._send(500 if isinstance(data, Http500) else status, data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()


def highest(turn: dict, rng) -> dict:
    """A plain working bot: the legal card with the highest number (a Kabuki
    Tricks suit card is 10 * suit + number - 1, a Player card 100 + 10 * seat
    + value, so the number ranks by card % 10); anything else (a deal, the
    Director's choice, a Joker) at random."""
    cards = [a for a in turn["legal_actions"] if a.get("type") == "play" and isinstance(a.get("card"), int)]
    return max(cards, key=lambda a: a["card"] % 10) if cards else choose(turn, rng)


def illegal(turn: dict) -> dict:
    if {"type": "deal"} not in turn["legal_actions"]:
        return {"type": "deal"}
    return {"type": "play", "card": 9999}


def main() -> None:
    parser = argparse.ArgumentParser()
    kinds = ("good", "slow", "crash", "garbage", "illegal", "always500", "alternate500", "highest")
    parser.add_argument("kind", choices=kinds)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--delay-ms", type=int, default=800)
    parser.add_argument("--after", type=int, default=5)
    args = parser.parse_args()
    lock = threading.Lock()
    calls: Counter = Counter()

    def decide(turn: dict, rng):
        with lock:
            calls[turn["game_id"]] += 1
            calls["all"] += 1
            n = calls[turn["game_id"]] - 1
            total = calls["all"]
        if args.kind == "slow":
            time.sleep(args.delay_ms / 1000)
        elif args.kind == "crash" and total > args.after:
            os._exit(3)  # mid-request: the caller sees the connection drop
        elif args.kind == "garbage":
            what = GARBAGE_PATTERN[n] if n < len(GARBAGE_PATTERN) else "good"
            if what == "garbage":
                return b"this is not json {"
            if what == "illegal":
                return illegal(turn)
        elif args.kind == "illegal":
            return illegal(turn)
        elif args.kind == "always500" or (args.kind == "alternate500" and n % 2 == 0):
            return ERROR_500
        elif args.kind == "highest":
            return highest(turn, rng)
        return choose(turn, rng)

    serve_with_errors(args.port, args.secret, decide)


if __name__ == "__main__":
    main()
