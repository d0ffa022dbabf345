#!/usr/bin/env python3
"""A Hanamichi bot on the kit (services/kit; docs/agents.md, "Five-minute quick start").

A bot is one function: `act(request) -> action`. `request` is exactly the JSON
the service sends at a turn (`game, game_id, seat, version, view,
legal_actions, deadline_ms, time_bank_ms`); answer one of `legal_actions`.
This one plays like the house `random` bot.

Try it locally, then plug it in:

    hanamichi arena examples/agent.py:act --game kabuki-tricks --players 4 --games 200
    hanamichi agent run examples/agent.py:act --push --port 9001 --secret whsec_...
    hanamichi agent run examples/agent.py:act --pull --server https://HOST --token hm_...

Running this file does the same as `hanamichi agent run` with `act`:

    python examples/agent.py --port 9001 --secret whsec_...                      # push
    python examples/agent.py --pull --server http://127.0.0.1:8000 --token hm_...  # pull
"""

from __future__ import annotations

import argparse
import random
import sys

from services.kit.signing import verify  # noqa: F401  (for authors who serve requests themselves)


def act(request: dict) -> dict:
    """Any legal action, uniformly (the house `random` bot's rule)."""
    return random.choice(request["legal_actions"])


def main(argv: list[str] | None = None) -> int:
    from services.kit.pull import run_pull
    from services.kit.push import run_push

    parser = argparse.ArgumentParser(description="A Hanamichi agent that plays like the house random bot")
    parser.add_argument("--port", type=int, default=9001)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--secret", help="push: the agent's signing secret (whsec_...)")
    parser.add_argument("--pull", action="store_true", help="pull: follow the agent's stream instead of serving")
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="pull: the Hanamichi server")
    parser.add_argument("--token", help="pull: the agent's bot token")
    args = parser.parse_args(argv)
    if args.pull:
        if not args.token:
            parser.error("--pull needs --token")
        run_pull(act, args.server, args.token)
    else:
        if not args.secret:
            parser.error("push needs --secret")
        run_push(act, args.secret, args.port, args.host)
    return 0


if __name__ == "__main__":
    sys.exit(main())
