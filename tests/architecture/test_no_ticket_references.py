"""Code, comments, docs and test names say what and why, never which ticket.

A note such as "(issue 14)", "issue #16's figures", "item 19" or "(later)"
means something only to whoever remembers the tracker; every git-tracked text
file is scanned for them, Markdown included. Rule ids of the games (KM-3,
TT-15, GEN-1), "issue" as a verb or in the sense of a problem, and `items` as a
name are not references and are not flagged."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve()

# A ticket reference: "issue" or "item" (any case, singular or plural) followed
# by a number, optionally after "#" or across a wrapped comment line
# ("issue\n# 11"); the same words glued to a number in a name (test_item19,
# before_issue_13); and a "(later)" or "(later: ...)" note. The look-behind
# keeps a call such as `tuple(later)` out.
TICKET = re.compile(
    r"(?<![a-z])(?:issue|item)s?(?:[ \t]+|[ \t]*\n[ \t]*(?:#|//|--|\*)?[ \t]*)#?\d"
    r"|(?<![a-z])(?:issue|item)s?[ \t]*#\d"
    r"|(?<![a-z])(?:issue|item)_?\d"
    r"|(?<![\w.])\(later\b[^)\n]*\)",
    re.IGNORECASE,
)


def references(text: str) -> list[tuple[int, str]]:
    """(line number, line) of each ticket reference in `text`."""
    lines = text.splitlines()
    found = []
    for match in TICKET.finditer(text):
        line_no = text.count("\n", 0, match.start()) + 1
        found.append((line_no, lines[line_no - 1].strip()))
    return found


def tracked_text_files() -> list[Path]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no tracked files to scan")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout.decode()
    files = []
    for name in listed.split("\0"):
        path = ROOT / name
        if name and path.is_file() and path.resolve() != THIS:
            files.append(path)
    return files


def test_the_pattern_flags_ticket_references():
    flagged = [
        "(issue 14)",
        "issue 16's figures",
        "Issue 11.3: public from the start",
        "issue #7",
        "issues 14 and 15",
        "item 19",
        "(issue 11, item 6)",
        "Total over every prefix of a log (issue\n    11 item 10)",
        "# a log written before issue\n# 13 stops",
        "def test_item19_place_is_offered():",
        "def test_a_log_written_before_issue_13():",
        "and (later) calls to bot agents",
        "(later: once the queue exists)",
    ]
    for text in flagged:
        assert references(text), text


def test_the_pattern_leaves_ordinary_words_alone():
    kept = [
        "the issues a slow client causes",
        "a GitHub issue is not opened here",
        "for item in items: total += item",
        "items = [1, 2]",
        "world = replace(started, decks=tuple(later))",
        "a person can sign in later (from a browser)",
        "KM-3's stop window; TT-15; GEN-1",
        "the worker will issue a retry",
    ]
    for text in kept:
        assert references(text) == [], text


def test_no_tracked_file_names_a_ticket():
    offenders = []
    for path in tracked_text_files():
        raw = path.read_bytes()
        if b"\0" in raw:
            continue  # binary
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        for line_no, line in references(text):
            offenders.append(f"{path.relative_to(ROOT)}:{line_no}: {line[:120]}")
    assert offenders == [], f"{len(offenders)} ticket references:\n" + "\n".join(offenders)
