"""The `hanamichi` command: argument parsing only. What each command runs
lives in services/tools/ (serve.py for serve, worker and migrate; commands.py
for simulate, golden, verify and ratings; integrity.py for integrity)."""

from __future__ import annotations

import argparse
import os
import sys


def _lazy(module: str, name: str):
    """The command `name` of services/tools/<module>.py, imported when it runs:
    `hanamichi --help` loads no server code."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(f"services.tools.{module}"), name)(args)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hanamichi", description="Hanamichi: online tournaments for card games")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play whole bot games in one process and print figures")
    sim.add_argument("--game")
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--bots", default="", help="comma-separated bot per seat (default: all random)")
    sim.add_argument("--options", default="{}", help="table options as JSON")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument(
        "--calibrate",
        action="store_true",
        help="time a bare pure-Python Kabuki Tricks playout and each game's random playouts beside it",
    )
    sim.add_argument("--seconds", type=float, default=1.0, help="--calibrate: seconds per timing (best of 3)")
    sim.set_defaults(run=_lazy("commands", "simulate_cmd"), parser=sim)

    gold = sub.add_parser("golden", help="check or regenerate the golden playthrough files")
    gold.add_argument("--write", action="store_true")
    gold.add_argument("--game", default=None)
    gold.set_defaults(run=_lazy("commands", "golden"))

    check = sub.add_parser("verify", help="check a finished game's export: commitment, deals, replay and chain")
    check.add_argument("export", help="the file GET /api/v1/games/{id}/export answered (NDJSON)")
    check.add_argument(
        "--receipts",
        help='a player\'s receipts: a JSON list of {"version": int, "chain_head": hex} (docs/fairness.md)',
    )
    check.set_defaults(run=_lazy("commands", "verify"))

    serve = sub.add_parser("serve", help="run the API (embedded PostgreSQL/Redis unless DATABASE_URL/REDIS_URL)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--log-level",
        default=os.environ.get("HANAMICHI_LOG_LEVEL", "info"),
        help="debug, info (default; an idle server writes nothing), warning, error",
    )
    serve.add_argument("--access-log", action="store_true", help="a JSON line per request (or HANAMICHI_ACCESS_LOG=1)")
    serve.add_argument("--no-worker", action="store_true", help="run the API only (workers run elsewhere)")
    serve.add_argument(
        "--processes",
        type=int,
        default=int(os.environ.get("HANAMICHI_PROCESSES", "0")),
        help="API processes on the one port (default: one per core)",
    )
    serve.set_defaults(run=_lazy("serve", "serve"))

    worker = sub.add_parser("worker", help="run an arq worker: tournaments, deadlines, ratings")
    worker.set_defaults(run=_lazy("serve", "worker"))

    migrate = sub.add_parser("migrate", help="apply pending schema migrations and exit (k8s init container)")
    migrate.set_defaults(run=_lazy("serve", "migrate"))

    ratings = sub.add_parser("ratings", help="ratings maintenance")
    ratings_sub = ratings.add_subparsers(dest="ratings_command", required=True)
    rebuild = ratings_sub.add_parser(
        "rebuild", help="recompute every rating from the log and compare with the stored ones"
    )
    rebuild.add_argument("--write", action="store_true", help="replace the stored ratings with the recomputed ones")
    rebuild.set_defaults(run=_lazy("commands", "ratings"))
    evaluate = ratings_sub.add_parser(
        "evaluate", help="compare rating models on held-out games (a house-bot league, or the log's ranked games)"
    )
    evaluate.add_argument("--game", default="kabuki-tricks")
    evaluate.add_argument("--players", type=int, default=3)
    evaluate.add_argument("--games", type=int, default=300, help="league games to play")
    evaluate.add_argument("--bots", default="random,heuristic,expert", help="the strength classes, weakest first")
    evaluate.add_argument("--per-class", type=int, default=3, help="bots of each class in the league")
    evaluate.add_argument("--seed", type=int, default=1)
    evaluate.add_argument("--held-out", type=float, default=0.3, help="the later share of games predicted")
    evaluate.add_argument("--from-log", action="store_true", help="the ranked games in the database instead")
    evaluate.add_argument("--json", action="store_true")
    evaluate.set_defaults(run=_lazy("commands", "ratings_evaluate"))

    integrity = sub.add_parser(
        "integrity", help="collusion screening: pairs of accounts whose moves feed each other (docs/fairness.md)"
    )
    integrity.add_argument("--json", action="store_true")
    integrity.add_argument("--game", help="one game only (default: every game)")
    integrity.add_argument("--min-games", type=int, default=10, help="shared games a pair needs to be screened")
    integrity.add_argument("--alpha", type=float, default=0.001, help="chance of flagging any honest pair in a report")
    integrity.add_argument(
        "--validate", action="store_true", help="plant a colluding pair among house bots, in this process, and score it"
    )
    integrity.add_argument("--games", type=int, default=200, help="--validate: games per run")
    integrity.add_argument("--honest-runs", type=int, default=5, help="--validate: honest-only runs per game")
    integrity.add_argument("--feed-rate", type=float, default=1.0, help="--validate: how often the colluder feeds")
    integrity.add_argument("--seed", type=int, default=1)
    integrity.set_defaults(run=_lazy("integrity", "integrity"))

    analyse = sub.add_parser("analyse", help="a finished game's post-game analysis from its export (docs/analysis.md)")
    analyse.add_argument("export", nargs="?", help="GAME_EXPORT.ndjson (GET /api/v1/games/{id}/export), - for stdin")
    analyse.add_argument("--json", action="store_true", help="the analysis as GET /api/v1/games/{id}/analysis says it")
    analyse.add_argument("--progress-lines", action="store_true", help="'progress DONE TOTAL' lines on stderr")
    analyse.add_argument(
        "--game-id", help="the game's id, which its playout seeds derive from (default: the file's name)"
    )
    analyse.add_argument("--worlds", type=int, default=8, help="the expert's worlds per decision (0: open hand only)")
    analyse.add_argument("--validate", action="store_true", help="play bot games and rank the bots by the analysis")
    analyse.add_argument("--calibrate", action="store_true", help="time a 4-player game of each trick game's analysis")
    analyse.add_argument("--games", type=int, default=200, help="--validate: games per game")
    analyse.add_argument("--seed", type=int, default=1, help="--validate: the games' seed")
    analyse.add_argument(
        "--game", dest="game_names", action="append", help="--validate: this game only (repeatable; default: all four)"
    )
    analyse.set_defaults(run=_lazy("analyse", "analyse_cmd"), parser=analyse)

    from services.kit.cli import add_kit_parsers
    from services.tools.bench import add_bench_parser

    add_bench_parser(sub)
    add_kit_parsers(sub)

    args = parser.parse_args(argv)
    from services.config import ProcessSettings
    from services.infra import logs

    process = ProcessSettings.from_env()
    logs.configure(
        getattr(args, "log_level", None) or process.log_level, process.log_text
    )  # JSON lines, quiet when idle
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
