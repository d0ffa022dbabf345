"""The `hanamichi` command: argument parsing only. What each command runs
lives in services/tools/ (serve.py for serve, worker and migrate; commands.py
for simulate, golden, verify and ratings)."""

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

    check = sub.add_parser("verify", help="check a finished game's export: commitment, deals and replay")
    check.add_argument("export", help="the file GET /api/v1/games/{id}/export answered (NDJSON)")
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
