"""Post-game analysis: every decision of a finished game judged open-hand
and from what the player knew (services/app/analysis/report.py says what
the figures mean). Pure CPU work over a stored log: no IO, no clock; its
playout seeds are derived from the game id, so the same game and analysis
version always give the same numbers."""

from services.app.analysis.judge import analyse
from services.app.analysis.report import ANALYSIS_VERSION, Analysis, Progress

__all__ = ["ANALYSIS_VERSION", "Analysis", "Progress", "analyse"]
