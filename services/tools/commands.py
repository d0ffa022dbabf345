"""What `hanamichi simulate`, `golden`, `verify` and `ratings rebuild` run
(services/cli.py parses their arguments)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from services.tools.serve import run_with_servers


def simulate_cmd(args: argparse.Namespace) -> int:
    from engines.registry import get_game
    from services.tools.simulate import render, simulate

    if args.calibrate:  # every engine's random playouts over a bare pure-Python one
        from services.tools.simulate import calibrate, render_calibration

        report = calibrate(args.players, args.seconds)
        print(json.dumps(report) if args.json else render_calibration(report))
        return 0
    if not args.game:
        args.parser.error("--game is required (or --calibrate)")
    game = get_game(args.game)
    bots = args.bots.split(",") if args.bots else ["random"] * args.players
    report = simulate(
        game,
        args.players,
        args.games,
        args.seed,
        bots,
        json.loads(args.options),
        progress=not args.json and args.games >= 200 and sys.stderr.isatty(),
    )
    print(json.dumps(report) if args.json else render(report))
    return 0


def golden(args: argparse.Namespace) -> int:
    from engines.golden import encode, golden_path, playthrough
    from engines.registry import all_games

    for game in all_games():
        if args.game and game.name != args.game:
            continue
        path = golden_path(game)
        data = encode(playthrough(game))
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path} ({len(data)} bytes)")
        else:
            same = path.exists() and path.read_bytes() == data
            print(f"{game.name}: {'unchanged' if same else 'DIFFERS (run with --write to regenerate)'}")
    return 0


def verify(args: argparse.Namespace) -> int:
    """Provably fair deals and an unrewritten log: the checks of
    engines.verify on an export (and a player's receipts); exit 0 when all
    pass (a chain absent from an old game is no failure), 1 when one fails,
    2 for an unreadable file."""
    import msgspec

    from engines.chain import read_receipts
    from engines.verify import ExportError, verify_export

    try:
        receipts = read_receipts(Path(args.receipts).read_bytes()) if args.receipts else None
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        print(f"hanamichi verify: the receipts file: {exc}", file=sys.stderr)
        return 2
    try:
        verdict = verify_export(Path(args.export).read_bytes(), receipts)
    except (OSError, ExportError) as exc:
        print(f"hanamichi verify: {exc}", file=sys.stderr)
        return 2
    for name, ok in (("commitment", verdict.commitment_ok), ("deals", verdict.deals_ok), ("replay", verdict.replay_ok)):
        print(f"{name}: {'ok' if ok else 'FAILED'}")
    if verdict.chain == "absent":
        print("chain: absent (this game was stored before the log was chained)")
    else:
        print(f"chain: {'ok' if verdict.chain == 'ok' else 'FAILED'}")
    if verdict.receipts_ok is not None:
        print(f"receipts: {'ok' if verdict.receipts_ok else 'FAILED'}")
    for problem in verdict.problems:
        print(f"  {problem}")
    return 0 if verdict.ok else 1


def ratings_evaluate(args: argparse.Namespace) -> int:
    """Rating models compared on held-out games: a house-bot league played
    here, or the log's ranked games (--from-log)."""
    from services.tools import ratings_eval

    if args.from_log:
        from services.app.ratings.projection import ranked_games
        from services.infra.db import create_pool
        from services.infra.pg_ratings import PgRatings

        async def run(settings) -> list:
            pool = await create_pool(settings.database_url, 2)
            try:
                return await ranked_games(PgRatings(pool), args.game)
            finally:
                await pool.close()

        games = run_with_servers(run)
    else:
        bots = args.bots.split(",")
        games = ratings_eval.league(args.game, args.players, args.games, bots, args.per_class, args.seed)
    report = ratings_eval.evaluate(games, args.held_out)
    print(json.dumps(report) if args.json else ratings_eval.table(report))
    return 0


def ratings(args: argparse.Namespace) -> int:
    from services.app.ratings.projection import rebuild
    from services.infra.db import create_pool
    from services.infra.pg_ratings import PgRatings

    async def run(settings) -> dict:
        pool = await create_pool(settings.database_url, 2)
        try:
            return await rebuild(PgRatings(pool), write=args.write)
        finally:
            await pool.close()

    report = run_with_servers(run)
    print(json.dumps(report))
    return 0 if report["equal"] or args.write else 1
