"""`hanamichi integrity [--json]`: the collusion screening report on the
stored log (services/app/integrity, docs/fairness.md "Collusion
screening"), and with `--validate` the planted-pair validation played in
this process (services/tools/integrity_validation.py)."""

from __future__ import annotations

import argparse

import msgspec

from services.app.integrity.screening import IntegrityReport
from services.tools.serve import run_with_servers


def report_from_log(game: str | None, min_shared_games: int, family_alpha: float) -> IntegrityReport:
    from services.app.integrity.reading import integrity_report
    from services.infra.db import create_pool
    from services.infra.pg_accounts import PgAccounts
    from services.infra.pg_integrity import PgFinishedGames

    async def run(settings) -> IntegrityReport:
        pool = await create_pool(settings.database_url, 2)
        try:
            return await integrity_report(PgFinishedGames(pool), game, min_shared_games, family_alpha, PgAccounts(pool))
        finally:
            await pool.close()

    return run_with_servers(run)


def table(report: IntegrityReport) -> str:
    lines = [
        f"{report.games} finished games ({report.skipped} unreadable), {report.accounts} accounts;"
        f" {report.pairs_screened} ordered pairs shared at least {report.min_shared_games} games;"
        f" flagged below p = {report.p_threshold:.2g} (family alpha {report.family_alpha}): {report.pairs_flagged}",
        "baselines (feeds per chance; per share: 1 = as choosing at random):",
    ]
    lines += [
        f"  {b.kind:<36} {b.chances:>7} chances  rate {b.rate:.3f}  per share {b.per_share:.2f}"
        for b in report.baselines
    ]
    lines.append(
        f"{'giver':<24} {'receiver':<24} {'games':>5} {'chances':>7} {'fed':>5} {'expected':>8} {'z':>6} {'p':>9}"
    )
    for p in report.pairs:
        mark = "  FLAGGED" if p.flagged else ""
        lines.append(
            f"{(p.giver_name or p.giver)[:24]:<24} {(p.receiver_name or p.receiver)[:24]:<24} {p.shared_games:>5}"
            f" {p.chances:>7} {p.fed:>5} {p.expected:>8.1f} {p.z:>6.2f} {p.p_value:>9.2g}{mark}"
        )
        for e in p.evidence[:10]:
            lines.append(f"    fed: game {e.game_id} ({e.game}) move at version {e.version}")
    return "\n".join(lines)


def integrity(args: argparse.Namespace) -> int:
    if args.validate:
        from services.tools.integrity_validation import SCREENED_GAMES, validate
        from services.tools.integrity_validation import table as validation_table

        names = [args.game] if args.game else list(SCREENED_GAMES)
        validation = validate(
            args.games, args.honest_runs, names, args.seed, args.feed_rate, args.min_games, args.alpha
        )
        print(msgspec.json.encode(validation).decode() if args.json else validation_table(validation))
        planted_caught = all(p.flagged for p in validation.planted)
        return 0 if planted_caught and validation.honest_pairs_flagged == 0 else 1
    report = report_from_log(args.game, args.min_games, args.alpha)
    print(msgspec.json.encode(report).decode() if args.json else table(report))
    return 0
