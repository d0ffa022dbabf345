"""`hanamichi analyse GAME_EXPORT.ndjson [--json]`: a finished game's
post-game analysis offline, exactly as the worker makes it
(services/app/analysis), with a progress bar on stderr; `--progress-lines`
prints `progress <done> <total>` lines instead (the worker reads them), and
`--validate` plays bot games and prints how the analysis ranks the bots."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import msgspec

from services.app.analysis import Analysis, analyse
from services.app.analysis.judge import NotAnalysable
from services.app.ports.integrity import LogEvent


class ExportLine(msgspec.Struct):
    version: int
    type: str
    event: msgspec.Raw


def log_of_export(data: bytes) -> list[LogEvent]:
    """The export's events as the log stores them."""
    decode = msgspec.json.Decoder(ExportLine).decode
    log: list[LogEvent] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = decode(line)
        except msgspec.ValidationError as exc:
            raise NotAnalysable(f"line {number} is not an exported event: {exc}") from None
        log.append(LogEvent(record.version, record.type, bytes(record.event)))
    return log


def summary(analysis: Analysis, seconds: float) -> str:
    m = analysis.method
    lines = [
        f"{analysis.game} {analysis.game_id}: {len(analysis.moves)} decisions judged in {seconds:.1f} s"
        f" (analysis version {analysis.analysis_version})",
        f"open hand: {m.open_hand}, {m.playouts_per_move} playout(s) per move;"
        f" from what the player knew: the expert's search, {m.worlds} worlds; accurate: within {m.margin} points",
        f"{'seat':>4} {'decisions':>9} {'mean loss':>9} {'accuracy':>8} {'knew loss':>9}  largest mistakes (v: loss)",
    ]
    for s in analysis.seats:
        knew = f"{s.knew_mean_loss:.2f}" if s.knew_mean_loss is not None else "-"
        worst = ", ".join(f"v{x.version}: {x.loss:.1f}" for x in s.largest) or "-"
        lines.append(f"{s.seat:>4} {s.decisions:>9} {s.mean_loss:>9.2f} {s.accuracy:>8.0%} {knew:>9}  {worst}")
    return "\n".join(lines)


class _Bar:
    def __init__(self, lines: bool) -> None:
        self.lines, self.shown = lines, -1

    def __call__(self, done: int, total: int) -> None:
        if self.lines:
            print(f"progress {done} {total}", file=sys.stderr, flush=True)
            return
        if not sys.stderr.isatty():
            return
        width = 30
        filled = width * done // max(total, 1)
        if filled != self.shown or done == total:
            self.shown = filled
            end = "\n" if done == total else ""
            print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end=end, file=sys.stderr, flush=True)


def analyse_cmd(args: argparse.Namespace) -> int:
    if args.calibrate:
        from services.tools.analysis_validation import render_timings, timings

        print(render_timings(*timings(4, args.seed)))
        return 0
    if args.validate:
        from services.tools.analysis_validation import GAMES, render, validate

        print(render(validate(args.games, args.seed, args.game_names or GAMES)))
        return 0
    if not args.export:
        args.parser.error("an export file is required (or --validate)")
    data = sys.stdin.buffer.read() if args.export == "-" else Path(args.export).read_bytes()
    try:
        log = log_of_export(data)
        began = time.perf_counter()
        game_id = args.game_id or Path(args.export).stem.removesuffix(".ndjson")
        result = analyse(game_id, log, _Bar(args.progress_lines), args.worlds)
    except (NotAnalysable, ValueError) as exc:
        print(f"cannot analyse {args.export}: {exc}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - began
    print(msgspec.json.encode(result).decode() if args.json else summary(result, seconds))
    return 0
