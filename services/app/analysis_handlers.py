"""The post-game analyses' command handlers (services/app/analyses.py does the work)."""

from __future__ import annotations

from services.app.analyses import Analyses
from services.app.commands import ReadAnalysis, RunAnalysis
from services.app.ports.analyses import AnalysisRecord


async def read_analysis(cmd: ReadAnalysis, analyses: Analyses) -> AnalysisRecord | None:
    return await analyses.read(cmd.game_id, cmd.requester, cmd.request)


async def run_analysis(cmd: RunAnalysis, analyses: Analyses) -> str | None:
    return await analyses.run_next()
