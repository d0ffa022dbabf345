"""Misbehaving variants of examples/agent.py for the agent tests, each a
real process: `python tests/service/agent_variants.py KIND --port P --secret S`.

  good     the example agent itself
  slow     sleeps --delay-ms before every answer (misses deadlines)
  crash    answers --after calls, then dies in the middle of the next one
  garbage  per game, call by call: garbage, a good move, an illegal move,
           garbage, an illegal move, ... (invalid_response / illegal_action)
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
from examples.agent import choose, serve  # noqa: E402

GARBAGE_PATTERN = ("garbage", "good", "illegal", "garbage", "illegal")


def illegal(turn: dict) -> dict:
    if {"type": "deal"} not in turn["legal_actions"]:
        return {"type": "deal"}
    return {"type": "play", "card": 9999}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=("good", "slow", "crash", "garbage"))
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
        return choose(turn, rng)

    serve(args.port, args.secret, decide)


if __name__ == "__main__":
    main()
