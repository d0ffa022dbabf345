"""`hanamichi agent run ...` and `hanamichi arena ...` (added to services/cli.py)."""

from __future__ import annotations

import argparse
import json
import sys


def _agent_run(args: argparse.Namespace) -> int:
    from services.kit import load_function

    fn = load_function(args.function)
    if args.pull == args.push:
        args.parser.error("choose one of --push or --pull")
    if args.push:
        if not args.secret or args.port is None:
            args.parser.error("--push needs --port and --secret")
        from services.kit.push import run_push

        run_push(fn, args.secret, args.port, args.host)
    else:
        if not args.server or not args.token:
            args.parser.error("--pull needs --server and --token")
        from services.kit.pull import run_pull

        return run_pull(fn, args.server, args.token)
    return 0


def _arena(args: argparse.Namespace) -> int:
    from engines.core import OptionsError
    from engines.registry import get_game
    from services.kit.arena import arena, check_seat, load_player, opponent, render, replay

    try:
        game = get_game(args.game)
        game.check_players(args.players)
        options = game.make_options(json.loads(args.options))
    except OptionsError as err:
        print(f"hanamichi arena: {err.message}", file=sys.stderr)
        return 2
    vs = args.vs.split(",")
    if len(vs) == 1:
        vs = vs * (args.players - 1)
    if len(vs) != args.players - 1:
        print(f"hanamichi arena: --vs names one player, or {args.players - 1} of them (one per seat)", file=sys.stderr)
        return 2
    try:
        for spec in vs:
            opponent(spec, game)
    except (ImportError, AttributeError, OSError, ValueError) as err:
        print(f"hanamichi arena: --vs: {err}", file=sys.stderr)
        return 2
    try:
        check_seat(args.seat, args.players)
    except ValueError as err:
        print(f"hanamichi arena: {err}", file=sys.stderr)
        return 2
    if args.replay:
        try:
            seed_text, step_text = args.replay.split(":")
            found = replay(
                load_player(args.function),
                game,
                args.players,
                options,
                int(seed_text),
                int(step_text),
                vs,
                args.deadline_ms,
                args.bank_ms,
                args.seat,
            )
        except ValueError as err:
            print(f"hanamichi arena: --replay SEED:STEP: {err}", file=sys.stderr)
            return 2
        print(json.dumps(found, indent=None if args.json else 2, default=repr))
        return 1 if "error" in found or not found.get("legal") or found["late"] else 0
    report = arena(
        args.function,
        args.game,
        args.players,
        args.games,
        args.seed,
        vs,
        args.jobs,
        json.loads(args.options),
        args.deadline_ms,
        args.bank_ms,
        args.seat,
    )
    print(json.dumps(report) if args.json else render(report, args.function, vs))
    return 0


def add_kit_parsers(sub) -> None:
    agent = sub.add_parser("agent", help="the bot authors' kit: run your act(request) function as an agent")
    agent_sub = agent.add_subparsers(dest="agent_command", required=True)
    run = agent_sub.add_parser("run", help="serve a push endpoint or follow the pull stream with MODULE:FUNCTION")
    run.add_argument("function", help="MODULE:FUNCTION or path/to/file.py:FUNCTION, a function act(request) -> action")
    run.add_argument("--push", action="store_true", help="serve the push endpoint (signed turn requests)")
    run.add_argument("--pull", action="store_true", help="follow the agent's stream and post moves")
    run.add_argument("--port", type=int, help="push: the port to listen on")
    run.add_argument("--host", default="127.0.0.1", help="push: the address to listen on")
    run.add_argument("--secret", help="push: the agent's signing secret (whsec_...)")
    run.add_argument("--server", help="pull: the Hanamichi server's URL")
    run.add_argument("--token", help="pull: the agent's bot token (hm_...)")
    run.set_defaults(run=_agent_run, parser=run)

    ar = sub.add_parser("arena", help="play MODULE:FUNCTION against house bots locally, on the real engines")
    ar.add_argument("function", help="MODULE:FUNCTION or path/to/file.py:FUNCTION, or house:NAME for a house bot")
    ar.add_argument("--game", required=True)
    ar.add_argument("--players", type=int, default=4)
    ar.add_argument(
        "--vs",
        default="heuristic",
        help="who sits in every other seat, or one per seat, comma-separated: a house bot (heuristic,"
        " house:expert) or another function (MODULE:FUNCTION, file.py:FUNCTION)",
    )
    ar.add_argument("--games", type=int, default=1000)
    ar.add_argument("--seed", type=int, default=1)
    ar.add_argument("--jobs", type=int, default=1, help="processes to play in")
    ar.add_argument("--options", default="{}", help="table options as JSON")
    ar.add_argument(
        "--deadline-ms", type=int, default=5000, help="deadline_ms in every request; a later answer is a timeout"
    )
    ar.add_argument("--bank-ms", type=int, default=30000, help="time_bank_ms in every request")
    ar.add_argument("--replay", metavar="SEED:STEP", help="replay one failure: the game seed and the request number")
    ar.add_argument("--seat", type=int, help="the function's seat in every game (default: rotating through every seat)")
    ar.add_argument("--json", action="store_true", help="print one JSON object")
    ar.set_defaults(run=_arena)
