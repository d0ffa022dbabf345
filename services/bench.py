"""`hanamichi bench ...`: figures measured against real servers."""

from __future__ import annotations

import argparse


def add_bench_parser(sub) -> None:
    bench = sub.add_parser("bench", help="measure the service")
    which = bench.add_subparsers(dest="bench", required=True)
    service = which.add_parser("service", help="many games at once through the HTTP API")
    service.add_argument("--games", type=int, default=200)
    service.set_defaults(run=_bench_service)


def _bench_service(args: argparse.Namespace) -> int:
    raise SystemExit("not yet")
